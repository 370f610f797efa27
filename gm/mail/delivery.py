"""`gm send`: the outbox delivered exactly once, into the campaign's Maildir or over SMTP.

Exactly once on the Maildir transport: each message's file name is fixed by its outbox id,
so a file delivered just before a crash is found and marked sent on the rerun, never
written twice. Over SMTP a message is marked sent only once the server accepted it.

A turn's mail is streamed from the store, never held: the queued rows are read a page at
a time by id (their ids, kinds and recipients), and each message's bytes only when it is
its turn to go, so `gm send` holds a few messages whatever the number of players (a
2,000-player turn is 320 MB of mail).
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import parseaddr
from pathlib import Path

from .. import clock
from ..campaign.folder import Campaign
from ..campaign.store import Store
from ..progress import QUIET, Progress
from .mailout import stored_mail

BATCH = 200  # Maildir deliveries marked sent per transaction
PAGE = 500  # queued rows (id, kind, recipient: not the mail) read per query
SHARED_KEPT = 4  # stored-once parts kept read (a turn has one table; a backlog, a few)


@dataclass
class SendReport:
    sent: int = 0
    temporary: int = 0
    permanent: list[str] = field(default_factory=list)  # "address: reason"


def maildir_name(campaign_id: str, outbox_id: int) -> str:
    return f"gm-{campaign_id}-{outbox_id:08d}.{socket.gethostname().split('.')[0] or 'gm'}"


def _delivered_ids(box: Path, campaign_id: str, first: int, last: int) -> set[int]:
    """The outbox ids from `first` to `last` whose file is already in the Maildir (under
    new/, or cur/ with the ':2,FLAGS' a mail program adds): only this send's range is kept,
    not every file a season delivered there."""
    own = re.compile(rf"gm-{re.escape(campaign_id)}-(\d+)\.")
    found = set()
    for sub in ("new", "cur"):
        if not (box / sub).is_dir():
            continue
        with os.scandir(box / sub) as entries:
            for entry in entries:
                match = own.match(entry.name)
                if match and first <= int(match.group(1)) <= last:
                    found.add(int(match.group(1)))
    return found


# Mail that carries a player's password in clear: a welcome, and the answer to a RESET.
SECRET_KINDS = ("welcome", "reset")


def mark_sent(db, row: dict) -> None:
    """Mark one message sent. A welcome or a new password carries the password in clear, so
    once it is out of our hands its body is dropped: the database keeps only salted hashes."""
    # plain SQL: sqlite-utils' update() first reads the whole row back, raw blob and all,
    # which made `gm send` read every message it had just sent a second time
    drop = ", raw = x''" if row["kind"] in SECRET_KINDS else ""
    db.execute(f"update outbox set status = 'sent', sent_at = ?, attempts = 1, error = null{drop} where id = ?",
               (clock.iso(clock.now()), row["id"]))


class Outbox:
    """The messages queued when the send began, in the order they were queued, read from
    the store as they are needed: never the whole turn at once."""

    def __init__(self, store: Store):
        self.store = store
        span = store.one("select min(id) as first, max(id) as last, count(*) as n from outbox "
                         "where status = 'queued'")
        assert span is not None
        # mail queued while this send runs (none can be: the command lock) waits for the next
        self.first, self.last, self.count = span["first"] or 0, span["last"] or 0, span["n"]
        self._parts: dict[bytes, bytes] = {}

    def rows(self) -> Iterator[dict]:
        """Each queued row's id, kind and recipient, PAGE rows a query (keyset pagination
        by id: a row marked sent meanwhile moves no later row)."""
        after = self.first - 1
        while True:
            page = self.store.rows("select id, kind, recipient from outbox where status = 'queued' "
                                   "and id > ? and id <= ? order by id limit ?", (after, self.last, PAGE))
            yield from page
            if len(page) < PAGE:
                return
            after = page[-1]["id"]

    def mail(self, row: dict) -> bytes:
        """The message's bytes as they are sent, read now: its stored-once parts put back."""
        conn = self.store.db.conn
        raw = conn.execute("select raw from outbox where id = ?", (row["id"],)).fetchone()[0]
        if len(self._parts) > SHARED_KEPT:
            self._parts.clear()
        return stored_mail(conn, raw, self._parts)


def send(campaign: Campaign, *, progress: Progress = QUIET) -> SendReport:
    from ..campaign.admin import welcome_observers

    # an observer campaign.yaml lists since the last command that mailed is welcomed now
    with campaign.store.transaction() as db:
        welcome_observers(campaign, db, clock.now())
    outbox = Outbox(campaign.store)
    if campaign.config.mail.transport == "imap+smtp":
        return _send_smtp(campaign, outbox, progress)
    return _send_maildir(campaign, outbox, progress)


def _send_maildir(campaign: Campaign, outbox: Outbox, progress: Progress) -> SendReport:
    box = campaign.folder / "mail" / "outbox"
    for sub in ("tmp", "new", "cur"):
        (box / sub).mkdir(parents=True, exist_ok=True)
    present = _delivered_ids(box, campaign.config.id, outbox.first, outbox.last)
    report = SendReport()
    progress.start(outbox.count)

    def mark(batch: list[dict]) -> None:
        with campaign.store.transaction() as db:
            for row in batch:
                mark_sent(db, row)
        report.sent += len(batch)
        progress.advance(len(batch))

    batch: list[dict] = []  # delivered, not yet marked: ids and kinds, not the mail
    for row in outbox.rows():
        if row["id"] not in present:
            name = maildir_name(campaign.config.id, row["id"])
            tmp = box / "tmp" / name
            with open(tmp, "wb") as handle:
                handle.write(outbox.mail(row))
                handle.flush()
                os.fsync(handle.fileno())
            os.rename(tmp, box / "new" / name)
        batch.append(row)
        if len(batch) == BATCH:
            mark(batch)
            batch = []
    if batch:
        mark(batch)
    progress.finish()
    return report


def smtp_backoff(attempt: int) -> float:
    """Seconds to wait before retry `attempt` of a temporary failure (tests set it to 0)."""
    from .smtp import default_backoff

    return default_backoff(attempt)


def _send_smtp(campaign: Campaign, outbox: Outbox, progress: Progress) -> SendReport:
    from .oauth import login_for
    from .smtp import Outcome, Outgoing, send_batch

    settings = campaign.config.mail.smtp
    sender = campaign.config.mail.address
    report = SendReport()
    # the rows read and not yet decided (a window ahead of the connections): their kind
    # and recipient, for the outcome
    undecided: dict[str, dict] = {}

    def messages() -> Iterator[Outgoing]:
        # read by send_batch in this thread, a window ahead of the connections
        for row in outbox.rows():
            undecided[str(row["id"])] = row
            yield Outgoing(key=str(row["id"]), sender=sender, recipients=(parseaddr(row["recipient"])[1],),
                           data=outbox.mail(row))

    def on_outcome(outcome: Outcome) -> None:
        row = undecided.pop(outcome.key)
        with campaign.store.transaction() as db:
            if outcome.status == "sent":
                mark_sent(db, row)
                report.sent += 1
            elif outcome.status == "permanent":
                reason = f"{outcome.code} {outcome.detail}".strip()
                db["outbox"].update(row["id"], {"status": "failed", "error": reason})
                db.execute("update players set failing = ? where email = ?", (f"smtp: {reason}", row["recipient"]))
                report.permanent.append(f"{row['recipient']}: {reason}")
            else:
                db.execute("update outbox set attempts = coalesce(attempts, 0) + 1, error = ? where id = ?",
                           (f"{outcome.code or ''} {outcome.detail}".strip(), row["id"]))
                report.temporary += 1

    if outbox.count:
        progress.start(outbox.count)
        # a login that fails (password or OAuth token refused) fails the first
        # connection, before any message: nothing is sent and nothing marked
        send_batch(settings, login_for(campaign.folder, campaign.config.mail, "smtp"), messages(),
                   on_outcome=on_outcome, progress=progress.advance, backoff=lambda attempt: smtp_backoff(attempt))
        progress.finish()
    return report
