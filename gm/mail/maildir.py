"""The maildir transport (CONTRACT.md): a campaign folder's two Maildirs, mail/inbox where
order mail arrives and mail/outbox where gm delivers, and delivery into a Maildir exactly
once, each message under a file name fixed by its number."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

BOXES = ("inbox", "outbox")


def inbox(folder: Path) -> Path:
    """Where the campaign's order mail arrives."""
    return folder / "mail" / "inbox"


def outbox(folder: Path) -> Path:
    """Where gm delivers the campaign's mail."""
    return folder / "mail" / "outbox"


def make_mailboxes(folder: Path) -> None:
    """Both Maildirs of the campaign folder."""
    for box in BOXES:
        make_box(folder / "mail" / box)


def make_box(box: Path) -> None:
    """A Maildir's tmp, new and cur folders, those missing made."""
    for sub in ("tmp", "new", "cur"):
        os.makedirs(box / sub, exist_ok=True)


def file_name(campaign_id: str, number: int) -> str:
    """The file message `number` of the campaign is delivered as: the same on every try."""
    return f"gm-{campaign_id}-{number:08d}.{socket.gethostname().split('.')[0] or 'gm'}"


def delivered(box: Path, campaign_id: str, first: int, last: int) -> set[int]:
    """The numbers from `first` to `last` whose file is already in the Maildir (under new/,
    or cur/ with the ':2,FLAGS' a mail program adds): only this range is kept, not every
    file a season delivered there."""
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


def deliver(box: Path, name: str, data: bytes) -> None:
    """Write one message under tmp/, on disk, then move it into new/ whole: a crash leaves
    it delivered or not, never half written."""
    tmp = box / "tmp" / name
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.rename(tmp, box / "new" / name)
