"""`gm ingest`: order mail from the campaign's mailbox (its Maildir, or IMAP), or from an
mbox, another Maildir or .eml files, handed one by one to the order desk.

Each message is recorded under its source, so a rerun after a crash skips what was
committed and handles what was not. Messages are handled in order of receipt, so a later
order replaces an earlier one. One broken message never stops the batch."""

from __future__ import annotations

import contextlib
import hashlib
import mailbox
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.parser import BytesHeaderParser
from email.utils import parsedate_to_datetime
from pathlib import Path

from .campaign import Campaign
from .desk import Desk
from .errors import GmError
from .progress import QUIET, Progress


@dataclass
class IngestReport:
    outcomes: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.outcomes.values())


@dataclass(frozen=True)
class Pending:
    source: str
    raw: bytes
    received_at: datetime | None = None  # the server's INTERNALDATE, for IMAP


def _receipt_order(item: Pending) -> datetime:
    """Time of receipt for ordering (CONTRACT.md): INTERNALDATE, else the topmost
    Received: date, else Date:. Headers only, so this costs little."""
    if item.received_at:
        return item.received_at
    headers = BytesHeaderParser().parsebytes(item.raw[:65536])
    received = [str(v) for v in headers.get_all("Received") or []]
    candidates = [received[0].rpartition(";")[2]] if received and ";" in received[0] else []
    candidates.append(str(headers.get("Date") or ""))
    for value in candidates:
        try:
            moment = parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return datetime.max.replace(tzinfo=UTC)


def handle_all(campaign: Campaign, items: Iterable[Pending], report: IngestReport, progress: Progress = QUIET) -> list[str]:
    """Hand each message to the desk in order of receipt; return the sources recorded."""
    desk = Desk(campaign)
    recorded = []
    items = sorted(items, key=_receipt_order)
    progress.start(len(items))
    for item in items:
        try:
            outcome = desk.handle(item.raw, source=item.source, received_at=item.received_at)
        except GmError as error:
            # left unrecorded, so the next run tries it again
            report.errors.append(f"{item.source}: {error}")
        except Exception as error:  # noqa: BLE001 - one broken message never stops the batch
            desk.record_failure(item.raw, source=item.source, received_at=item.received_at, error=error)
            report.errors.append(f"{item.source}: kept unanswered for the GM: {type(error).__name__}: {error}")
            report.outcomes["error"] += 1
            recorded.append(item.source)
        else:
            report.outcomes[outcome.outcome] += 1
            recorded.append(item.source)
        progress.advance()
    return recorded


def ingest_maildir(campaign: Campaign, folder: Path, progress: Progress = QUIET) -> IngestReport:
    """Read a Maildir's new mail; handled messages move from new/ to cur/ marked seen, never
    deleted. Files already recorded are not read again."""
    if not folder.is_dir():
        raise GmError(f"no Maildir at {folder}")
    known = {row["source"] for row in campaign.store.rows("select source from messages where source like 'maildir:%'")}
    found = []
    for sub in ("new", "cur"):
        directory = folder / sub
        for name in sorted(os.listdir(directory)) if directory.is_dir() else ():
            source = f"maildir:{name.split(':', 1)[0]}"
            path = directory / name
            if source not in known and path.is_file():
                found.append((Pending(source, path.read_bytes()), path))
    report = IngestReport()
    recorded = set(handle_all(campaign, [item for item, _ in found], report, progress))
    progress.finish()
    for item, path in found:
        if path.parent.name == "new" and item.source in recorded:
            # another reader may have moved it already; its content is recorded either way
            with contextlib.suppress(OSError):
                os.rename(path, folder / "cur" / (path.name + ":2,S"))
    return report


def ingest_files(campaign: Campaign, files: Iterable[Path], progress: Progress = QUIET) -> IngestReport:
    items = []
    for path in files:
        try:
            raw = Path(path).read_bytes()
        except OSError as error:
            raise GmError(f"cannot read {path}: {error.strerror}") from None
        items.append(Pending(f"file:{hashlib.sha256(raw).hexdigest()}", raw))
    report = IngestReport()
    handle_all(campaign, items, report, progress)
    progress.finish()
    return report


def ingest_mbox(campaign: Campaign, path: Path, progress: Progress = QUIET) -> IngestReport:
    if not path.is_file():
        raise GmError(f"no mbox file at {path}")
    box = mailbox.mbox(str(path), create=False)
    items = []
    for key in box.keys():  # noqa: SIM118 - iterating an mbox yields messages, not keys
        raw = box.get_bytes(key)
        items.append(Pending(f"mbox:{hashlib.sha256(raw).hexdigest()}", raw))
    report = IngestReport()
    handle_all(campaign, items, report, progress)
    progress.finish()
    return report


def ingest_imap(campaign: Campaign, progress: Progress = QUIET) -> IngestReport:
    """Fetch what is new by UID (batched), record it, then move it to the processed folder.
    A message recorded in an earlier run that died before the move is moved now."""
    from .mail.imap import ImapInbox
    from .mail.settings import imap_password

    settings = campaign.config.mail.imap
    report = IngestReport()
    with ImapInbox(settings, imap_password()) as inbox:
        prefix = f"imap:{inbox.uidvalidity}:"
        uids = inbox.uids()
        known = {
            int(row["source"][len(prefix):])
            for row in campaign.store.rows("select source from messages where source like ?", (prefix + "%",))
        }
        fresh = [uid for uid in uids if uid not in known]
        done = [uid for uid in uids if uid in known]
        progress.start(len(fresh))
        for batch in inbox.fetch(fresh):
            items = [Pending(f"{prefix}{m.uid}", m.raw, m.internaldate) for m in batch]
            recorded = handle_all(campaign, items, report, progress)
            done += [int(source[len(prefix):]) for source in recorded]
        progress.finish()
        if done:
            inbox.move_processed(sorted(done))
    return report
