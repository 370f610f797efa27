"""`gm ingest`: order mail from the campaign's mailbox (its Maildir, or IMAP), or from an
mbox, another Maildir or .eml files, handed one by one to the order desk.

Each message is recorded under its source, so a rerun after a crash skips what was
committed and handles what was not. Messages are handled in order of receipt, so a later
order replaces an earlier one; the time of receipt is the GM's side's, never a header the
sender wrote (docs/rules/, Order mail): IMAP's INTERNALDATE, and in the campaign's own Maildir inbox
the time a file was delivered there (its modification time). Mail files the GM names are
the GM's choice, timed by their topmost Received: header, else the mbox `From ` line,
else Date:.

One broken message never stops the batch, nor does a file that cannot be read: it is
skipped with a line for the GM. Messages are read one at a time when their turn comes,
and at most max_message_bytes + 1 bytes of each, so a batch costs the memory of one
message whatever the mailbox holds."""

from __future__ import annotations

import contextlib
import hashlib
import mailbox
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import partial
from pathlib import Path

from ..counts import count
from ..errors import GmError
from ..mail.headers import header_times
from ..mail.parsing import HEAD_SCAN
from ..progress import QUIET, Progress
from .desk.inbound import Desk
from .folder import Campaign
from .signup.standing import refresh


@dataclass
class IngestReport:
    outcomes: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.outcomes.values())

    def summary(self) -> str:
        """The one line `gm ingest` and `gm turn` print."""
        if not self.total and not self.errors:
            return "ingest: no new mail"
        parts = ", ".join(f"{n} {what}" for what, n in sorted(self.outcomes.items()) if what != "seen")
        seen = self.outcomes.get("seen", 0)
        line = f"ingest: {count(self.total - seen, 'new message')}" + (f" ({parts})" if parts else "")
        if seen:
            line += f"; {seen} already recorded"
        if self.errors:
            # gm turn shows this line alone: say that gm ingest lists what went wrong
            line += f"; {len(self.errors)} could not be handled (gm ingest lists them)"
        return line


def ingest_mail(campaign: Campaign, *, files: Iterable[str] = (), mbox: str | None = None,
                maildir: str | None = None) -> IngestReport:
    """The mail `gm ingest` reads: the files, mbox or Maildir the GM names, else the
    campaign's own mailbox."""
    progress = Progress("ingesting")
    if files:
        return ingest_files(campaign, [Path(f) for f in files], progress)
    if mbox:
        return ingest_mbox(campaign, Path(mbox), progress)
    if maildir:
        return ingest_maildir(campaign, Path(maildir), progress)
    if campaign.config.mail.transport == "imap+smtp" and campaign.config.mail.judge is None:
        return ingest_imap(campaign, progress)
    # one of a judge's games: `gm judge turn` routes its mail into this inbox
    # the campaign's own inbox: a message's time is when it was delivered (docs/campaign.md)
    return ingest_maildir(campaign, campaign.folder / "mail" / "inbox", progress, delivered=True)


@dataclass(frozen=True)
class Pending:
    """One message waiting for the desk: its time of receipt and how to read it. It is
    read only when its turn comes, so a batch holds one message in memory at a time."""

    source: str
    received_at: datetime | None
    read: Callable[[], bytes]
    # Files and mbox messages are known by their bytes: their source is `source` followed
    # by the sha256 of what was read.
    by_content: bool = False
    name: str = ""  # where the GM finds it, for the report's lines

    @property
    def label(self) -> str:
        return self.name or self.source


_LAST = datetime.max.replace(tzinfo=UTC)  # a message with no time at all goes last

# Sources looked up in the messages table per query (SQLite allows 32,766 parameters).
LOOKUP = 500


def _recorded(campaign: Campaign, sources: list[str]) -> set[str]:
    """Which of `sources` the messages table holds already. Asked for the mailbox's own
    messages, a chunk at a time: the table holds a whole season's mail, and reading every
    source it holds made each ingest's memory grow with the season."""
    found: set[str] = set()
    for start in range(0, len(sources), LOOKUP):
        chunk = sources[start : start + LOOKUP]
        marks = ", ".join("?" * len(chunk))
        found.update(row["source"] for row in campaign.store.rows(
            f"select source from messages where source in ({marks})", chunk))
    return found


# Messages whose passwords are checked together (Desk.check_passwords_ahead) before they
# are handled one by one: enough to keep every core busy.
CHUNK = 64


def handle_all(campaign: Campaign, items: Iterable[Pending], report: IngestReport, progress: Progress = QUIET, *,
               in_memory: bool = False, recorded_now: Callable[[Pending], None] | None = None) -> list[str]:
    """Hand each message to the desk in order of receipt; return the sources recorded.
    Files are read one at a time when their turn comes (a large one is never held beside
    others, one gone by then is skipped); messages already `in_memory` (a batched IMAP
    FETCH) have their passwords checked a chunk at a time, on every core, first.
    `recorded_now` is called with each message as soon as it is recorded."""
    # sign-up (docs/rules/, Joining by mail): campaign.yaml's `signup:` as it is now (a place added, sign-up
    # closed) settles who stands where before the new mail is read
    refresh(campaign)
    desk = Desk(campaign)
    recorded: list[str] = []
    items = sorted(items, key=lambda item: item.received_at or _LAST)
    progress.start(len(items))
    size = CHUNK if in_memory else 1
    for start in range(0, len(items), size):
        chunk = []
        for item in items[start : start + size]:
            try:
                chunk.append((item, item.read()))
            except OSError as error:
                # left unrecorded, so the next run tries it again
                report.errors.append(f"{item.label}: skipped, cannot be read: {_why(error)}")
                progress.advance()
        if in_memory:
            # only a head start: whatever goes wrong there, each message is handled below alone
            with contextlib.suppress(Exception):
                desk.check_passwords_ahead([raw for _, raw in chunk])
        for item, raw in chunk:
            if _handle_one(desk, item, raw, report, recorded) and recorded_now is not None:
                recorded_now(item)
            progress.advance()
        desk.forget_read_ahead()
    return recorded


def _handle_one(desk: Desk, item: Pending, raw: bytes, report: IngestReport, recorded: list[str]) -> bool:
    """Whether the message is recorded (now or before): it is never handled again."""
    source = f"{item.source}{hashlib.sha256(raw).hexdigest()}" if item.by_content else item.source
    try:
        outcome = desk.handle(raw, source=source, received_at=item.received_at)
    except GmError as error:
        # left unrecorded, so the next run tries it again
        report.errors.append(f"{source}: {error}")
        return False
    except Exception as error:  # noqa: BLE001 - one broken message never stops the batch
        desk.record_failure(raw, source=source, received_at=item.received_at, error=error)
        report.errors.append(f"{source}: kept unanswered for the GM: {type(error).__name__}: {error}")
        report.outcomes["error"] += 1
    else:
        report.outcomes[outcome.outcome] += 1
    recorded.append(source)
    return True


# --- reading files safely ----------------------------------------------------------------


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link (never followed)"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device or special file"


def _read_file(path: Path, limit: int, *, follow: bool = False) -> bytes:
    """At most `limit` bytes of a regular file. A FIFO or device never blocks the run (it
    is opened non-blocking and refused once seen), and a symlink is not followed unless
    `follow` (files the GM names on the command line)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{_kind(mode)}, not a mail file")
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _limit(campaign: Campaign) -> int:
    # One byte more than a message may hold: enough for the desk to see it is too large
    # (docs/rules/, Order mail), and what is recorded of it (its headers and first bytes, for the GM);
    # the rest of a huge file is never read.
    return campaign.config.max_message_bytes + 1


def _header_time(head: bytes, envelope: datetime | None = None) -> datetime | None:
    """The time of receipt (docs/rules/, Order mail) of mail files the GM names: the
    topmost Received:, else the mbox `From ` line's date, else Date:."""
    received, date = header_times(head)
    return received or envelope or date


def _envelope_time(head: bytes) -> datetime | None:
    """The date an mbox `From ` line carries after the sender's address (what
    mailbox.mboxMessage.get_from() holds; mailbox writes it as asctime in UTC)."""
    line = head.split(b"\n", 1)[0].decode("ascii", "replace")
    words = line.split(None, 2)  # "From", the address, the date
    if len(words) < 3 or words[0] != "From":
        return None
    try:
        moment = parsedate_to_datetime(words[2].strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# --- the sources -------------------------------------------------------------------------


def ingest_maildir(campaign: Campaign, folder: Path, progress: Progress = QUIET, *, delivered: bool = False) -> IngestReport:
    """Read a Maildir's new mail; handled messages move from new/ to cur/ marked seen, never
    deleted, each as soon as it is recorded. Files already recorded are not read again, and
    one still in new/ (the last run died between recording it and moving it) moves now.

    `delivered`: this is the campaign's own inbox, where a message's time is when it was
    delivered (the file's modification time); another Maildir is the GM's choice, timed by
    its headers (docs/rules/, Order mail). Anything that is no regular file (a symlink, a FIFO, a
    directory) is skipped with a line for the GM, never opened in a way that could block."""
    if not folder.is_dir():
        raise GmError(f"no Maildir at {folder}")
    report = IngestReport()
    limit = _limit(campaign)
    found: list[Pending] = []
    paths: dict[str, Path] = {}
    for sub in ("new", "cur"):
        directory = folder / sub
        try:
            mode = os.lstat(directory).st_mode
            names = sorted(os.listdir(directory)) if stat.S_ISDIR(mode) else []
        except OSError:
            continue  # no such folder: nothing was delivered there
        if not stat.S_ISDIR(mode):
            report.errors.append(f"{directory}: skipped, {_kind(mode)}")
            continue
        known = _recorded(campaign, [f"maildir:{name.split(':', 1)[0]}" for name in names])
        for name in names:
            source = f"maildir:{name.split(':', 1)[0]}"
            path = directory / name
            if source in known:
                if sub == "new":
                    _mark_seen(folder, path)
                continue
            try:
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):
                    report.errors.append(f"{path}: skipped, {_kind(info.st_mode)}, not a delivered mail")
                    continue
                if delivered:
                    when = datetime.fromtimestamp(info.st_mtime, UTC)
                else:
                    when = _header_time(_read_file(path, HEAD_SCAN))
            except OSError as error:
                report.errors.append(f"{path}: skipped, cannot be read: {_why(error)}")
                continue
            found.append(Pending(source, when, partial(_read_file, path, limit), name=str(path)))
            paths[source] = path

    def move(item: Pending) -> None:
        if paths[item.source].parent.name == "new":
            _mark_seen(folder, paths[item.source])

    handle_all(campaign, found, report, progress, recorded_now=move)
    progress.finish()
    return report


def _mark_seen(folder: Path, path: Path) -> None:
    """Move a recorded message from new/ to cur/, marked seen, as a mail program would."""
    # another reader may have moved it already; its content is recorded either way, and a
    # move that fails now is made by the next run
    with contextlib.suppress(OSError):
        os.rename(path, folder / "cur" / (path.name + ":2,S"))


def ingest_files(campaign: Campaign, files: Iterable[Path], progress: Progress = QUIET) -> IngestReport:
    """Mail files the GM names: every one must be readable, or nothing is handled."""
    limit = _limit(campaign)
    items = []
    for path in map(Path, files):
        try:
            head = _read_file(path, HEAD_SCAN, follow=True)
        except OSError as error:
            raise GmError(f"cannot read {path}: {_why(error)}") from None
        read = partial(_read_file, path, limit, follow=True)
        items.append(Pending("file:", _header_time(head), read, by_content=True, name=str(path)))
    report = IngestReport()
    handle_all(campaign, items, report, progress)
    progress.finish()
    return report


def ingest_mbox(campaign: Campaign, path: Path, progress: Progress = QUIET) -> IngestReport:
    if not path.is_file():
        raise GmError(f"no mbox file at {path}")
    limit = _limit(campaign)
    box = mailbox.mbox(str(path), create=False)
    try:
        items = []
        for key in box.keys():  # noqa: SIM118 - iterating an mbox yields messages, not keys
            head = box.get_file(key, from_=True).read(HEAD_SCAN)
            when = _header_time(head, _envelope_time(head))
            read = partial(_mbox_read, box, key, limit)
            items.append(Pending("mbox:", when, read, by_content=True, name=f"{path} message {key + 1}"))
        report = IngestReport()
        handle_all(campaign, items, report, progress)
    finally:
        box.close()
    progress.finish()
    return report


def _mbox_read(box: mailbox.mbox, key: int, limit: int) -> bytes:
    return box.get_file(key).read(limit)


def _given(raw: bytes) -> bytes:
    return raw


def ingest_imap(campaign: Campaign, progress: Progress = QUIET) -> IngestReport:
    """Fetch what is new by UID (batched), record it, then move it to the processed folder.
    A message recorded in an earlier run that died before the move is moved now."""
    # imported here: the IMAP client and OAuth libraries only a campaign on IMAP loads
    from ..mail.imap import ImapInbox
    from ..mail.oauth import login_for

    settings = campaign.config.mail.imap
    report = IngestReport()
    login = login_for(campaign.folder, campaign.config.mail, "imap")
    with ImapInbox(settings, login, limit=_limit(campaign)) as inbox:
        prefix = f"imap:{inbox.uidvalidity}:"
        uids = inbox.uids()
        known = {int(source[len(prefix):]) for source in _recorded(campaign, [f"{prefix}{uid}" for uid in uids])}
        fresh = [uid for uid in uids if uid not in known]
        done = [uid for uid in uids if uid in known]
        progress.start(len(fresh))
        for batch in inbox.fetch(fresh):
            items = [Pending(f"{prefix}{m.uid}", m.internaldate, partial(_given, m.raw)) for m in batch]
            recorded = handle_all(campaign, items, report, progress, in_memory=True)
            done += [int(source[len(prefix):]) for source in recorded]
        progress.finish()
        if done:
            inbox.move_processed(sorted(done))
    return report
