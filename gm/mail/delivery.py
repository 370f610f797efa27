"""`gm send`: the outbox delivered exactly once, into the campaign's Maildir or over SMTP.

Exactly once on the Maildir transport: each message's file name is fixed by its outbox id,
so a file delivered just before a crash is found and marked sent on the rerun, never
written twice. Over SMTP a message is marked sent only once the server accepted it.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from email.utils import parseaddr
from pathlib import Path

from .. import clock
from ..campaign.campaign import Campaign
from ..progress import QUIET, Progress
from .mailout import stored_mail

BATCH = 200  # Maildir deliveries marked sent per transaction


@dataclass
class SendReport:
    sent: int = 0
    temporary: int = 0
    permanent: list[str] = field(default_factory=list)  # "address: reason"


def maildir_name(campaign_id: str, outbox_id: int) -> str:
    return f"gm-{campaign_id}-{outbox_id:08d}.{socket.gethostname().split('.')[0] or 'gm'}"


def _delivered_names(box: Path) -> set[str]:
    """File names already in a Maildir, without the ':2,FLAGS' a mail program adds."""
    names = set()
    for sub in ("new", "cur"):
        if (box / sub).is_dir():
            names.update(name.split(":", 1)[0] for name in os.listdir(box / sub))
    return names


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


def send(campaign: Campaign, *, progress: Progress = QUIET) -> SendReport:
    from ..campaign.admin import welcome_observers

    # an observer campaign.yaml lists since the last command that mailed is welcomed now
    with campaign.store.transaction() as db:
        welcome_observers(campaign, db, clock.now())
    rows = campaign.store.rows("select id, kind, recipient, raw from outbox where status = 'queued' order by id")
    parts: dict[bytes, bytes] = {}  # a turn's table of every player, read once for all its reports
    for row in rows:
        row["raw"] = stored_mail(campaign.store.db.conn, row["raw"], parts)
    if campaign.config.mail.transport == "imap+smtp":
        return _send_smtp(campaign, rows, progress)
    return _send_maildir(campaign, rows, progress)


def _send_maildir(campaign: Campaign, rows: list[dict], progress: Progress) -> SendReport:
    box = campaign.folder / "mail" / "outbox"
    for sub in ("tmp", "new", "cur"):
        (box / sub).mkdir(parents=True, exist_ok=True)
    present = _delivered_names(box)
    report = SendReport()
    progress.start(len(rows))
    for start in range(0, len(rows), BATCH):
        batch = rows[start : start + BATCH]
        for row in batch:
            name = maildir_name(campaign.config.id, row["id"])
            if name not in present:
                tmp = box / "tmp" / name
                with open(tmp, "wb") as handle:
                    handle.write(row["raw"])
                    handle.flush()
                    os.fsync(handle.fileno())
                os.rename(tmp, box / "new" / name)
        with campaign.store.transaction() as db:
            for row in batch:
                mark_sent(db, row)
        report.sent += len(batch)
        progress.advance(len(batch))
    progress.finish()
    return report


def smtp_backoff(attempt: int) -> float:
    """Seconds to wait before retry `attempt` of a temporary failure (tests set it to 0)."""
    from .smtp import default_backoff

    return default_backoff(attempt)


def _send_smtp(campaign: Campaign, rows: list[dict], progress: Progress) -> SendReport:
    from .oauth import login_for
    from .smtp import Outcome, Outgoing, send_batch

    settings = campaign.config.mail.smtp
    sender = campaign.config.mail.address
    report = SendReport()
    by_id = {str(row["id"]): row for row in rows}

    def on_outcome(outcome: Outcome) -> None:
        row = by_id[outcome.key]
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

    messages = [
        Outgoing(key=str(row["id"]), sender=sender, recipients=(parseaddr(row["recipient"])[1],), data=row["raw"])
        for row in rows
    ]
    if messages:
        progress.start(len(messages))
        # a login that fails (password or OAuth token refused) fails the first
        # connection, before any message: nothing is sent and nothing marked
        send_batch(settings, login_for(campaign.folder, campaign.config.mail, "smtp"), messages, on_outcome=on_outcome, progress=progress.advance,
                   backoff=lambda attempt: smtp_backoff(attempt))
        progress.finish()
    return report
