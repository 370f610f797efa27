"""`gm send`: a campaign's outbox delivered exactly once, into its Maildir or over SMTP,
and what each message's delivery did to the campaign (a player's address failing).

Exactly once on the maildir transport: each message's file name is fixed by its outbox id,
so a file delivered just before a crash is found and marked sent on the rerun, never
written twice. Over SMTP a message is marked sent only once the server accepted it.

A turn's mail is streamed from the store, never held: the queued rows are read a page at
a time by id (their ids, kinds and recipients), and each message's bytes only when it is
its turn to go, so `gm send` holds a few messages whatever the number of players (a
2,000-player turn is 320 MB of mail).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import parseaddr

from .. import clock
from ..mail import maildir
from ..mail.oauth import login_for
from ..mail.smtp import SendResult, default_backoff, send_batch
from ..mail.smtpwire import Outgoing
from ..progress import QUIET, Progress
from .admin import welcome_observers
from .folder import Campaign
from .outbox import Queued, mark_refused, mark_sent, mark_tried

BATCH = 200  # Maildir deliveries marked sent per transaction


@dataclass
class SendReport:
    sent: int = 0
    temporary: int = 0
    permanent: list[str] = field(default_factory=list)  # "address: reason"


def send(campaign: Campaign, *, progress: Progress = QUIET) -> SendReport:
    # an observer campaign.yaml lists since the last command that mailed is welcomed now
    with campaign.store.transaction() as db:
        welcome_observers(campaign, db, clock.now())
    queued = Queued(campaign.store)
    if campaign.config.mail.transport == "imap+smtp":
        return _send_smtp(campaign, queued, progress)
    return _send_maildir(campaign, queued, progress)


def _send_maildir(campaign: Campaign, queued: Queued, progress: Progress) -> SendReport:
    # a judge's games deliver into the judge's one outbox (docs/deployment.md, A judge)
    box = maildir.outbox(campaign.config.mail.judge or campaign.folder)
    maildir.make_box(box)
    present = maildir.delivered(box, campaign.config.id, queued.first, queued.last)
    report = SendReport()
    progress.start(queued.count)

    def mark(batch: list[dict]) -> None:
        with campaign.store.transaction() as db:
            for row in batch:
                mark_sent(db, row)
        report.sent += len(batch)
        progress.advance(len(batch))

    batch: list[dict] = []  # delivered, not yet marked: ids and kinds, not the mail
    for row in queued.rows():
        if row["id"] not in present:
            maildir.deliver(box, maildir.file_name(campaign.config.id, row["id"]), queued.mail(row))
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
    return default_backoff(attempt)


def _send_smtp(campaign: Campaign, queued: Queued, progress: Progress) -> SendReport:
    settings = campaign.config.mail.smtp
    sender = campaign.config.mail.address
    report = SendReport()
    # the rows read and not yet decided (a window ahead of the connections): their kind
    # and recipient, for the result
    undecided: dict[str, dict] = {}

    def messages() -> Iterator[Outgoing]:
        # read by send_batch in this thread, a window ahead of the connections
        for row in queued.rows():
            undecided[str(row["id"])] = row
            yield Outgoing(key=str(row["id"]), sender=sender, recipients=(parseaddr(row["recipient"])[1],),
                           data=queued.mail(row))

    def on_outcome(result: SendResult) -> None:
        row = undecided.pop(result.key)
        with campaign.store.transaction() as db:
            if result.status == "sent":
                mark_sent(db, row)
                report.sent += 1
            elif result.status == "permanent":
                reason = f"{result.code} {result.detail}".strip()
                mark_refused(db, row["id"], reason)
                db.execute("update players set failing = ? where email = ?", (f"smtp: {reason}", row["recipient"]))
                report.permanent.append(f"{row['recipient']}: {reason}")
            else:
                mark_tried(db, row["id"], f"{result.code or ''} {result.detail}".strip())
                report.temporary += 1

    if queued.count:
        progress.start(queued.count)
        # a login that fails (password or OAuth token refused) fails the first
        # connection, before any message: nothing is sent and nothing marked
        login = login_for(campaign.config.mail.judge or campaign.folder, campaign.config.mail, "smtp")
        send_batch(settings, login, messages(),
                   on_outcome=on_outcome, progress=progress.advance, backoff=lambda attempt: smtp_backoff(attempt))
        progress.finish()
    return report
