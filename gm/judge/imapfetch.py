"""A judge on `transport: imap+smtp`: its IMAP folder's new mail is first fetched into the
judge's own Maildir inbox, each message under a name fixed by its UIDVALIDITY and UID and
timed by its INTERNALDATE (docs/rules/, Time of receipt), then moved to the processed
folder; the judge then reads its Maildir as on the maildir transport. A run that dies
between the two writes the same file again, which the judge's store knows by its name."""

from __future__ import annotations

import os
from pathlib import Path

from ..mail import maildir
from ..mail.imap import ImapInbox
from ..mail.oauth import login_for
from .layout import Judge

LIMIT = 1024 * 1024 + 1  # as much of each message as the judge reads to route it


def fetch_into_inbox(judge: Judge) -> int:
    """How many messages were fetched."""
    box = maildir.inbox(judge.folder)
    maildir.make_box(box)
    login = login_for(judge.folder, judge.mail, "imap")
    fetched = 0
    with ImapInbox(judge.mail.imap, login, limit=LIMIT) as inbox:
        uids = inbox.uids()
        for batch in inbox.fetch(uids):
            for message in batch:
                _write(box, f"imap-{inbox.uidvalidity}-{message.uid}", message.raw, message.internaldate)
                fetched += 1
            inbox.move_processed(sorted(m.uid for m in batch))
    return fetched


def _write(box: Path, name: str, raw: bytes, when: object) -> None:
    if (box / "new" / name).exists() or any(p.name.startswith(name + ":") for p in (box / "cur").glob(name + ":*")):
        return
    maildir.deliver(box, name, raw)
    stamp = getattr(when, "timestamp", None)
    if stamp is not None:
        os.utime(box / "new" / name, (stamp(), stamp()))
