"""The outbox: the campaign's table of the mail gm queues, and every read and write of it.

A message is queued inside the caller's transaction (queue); a large attachment is kept once
in shared_parts, a marker standing for it in the row, and stored_mail puts it back. `gm
send` reads the queued rows a page at a time (Queued) and marks each sent, refused for good
or tried again (gm.campaign.delivery). The replies anyone can make gm send are counted a UTC
day by the rows' address_key and unasked columns (docs/rules/, Refusal caps)."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from email.utils import parseaddr
from functools import lru_cache
from typing import Any

from .. import clock
from ..mail.mime import Mail
from .store import Store, insert

# where a stored-once part stands in an outbox row: NUL never occurs in 7bit or base64 mail
SHARED_PREFIX = b"\x00gm-shared-part "
SHARED_MARK = re.compile(re.escape(SHARED_PREFIX) + rb"([0-9a-f]{64})\x00")
# Mail that carries a player's password in clear: a welcome, and the answer to a RESET.
SECRET_KINDS = ("welcome", "reset")
# the kinds of a turn's reports, which undoing the turn takes back while they wait
REPORT_KINDS = ("report", "gm-report")
PAGE = 500  # queued rows (id, kind, recipient: not the mail) read per query
SHARED_KEPT = 4  # stored-once parts kept read (a turn has one table; a backlog, a few)


def queue(
    db: Any,
    message: Mail,
    *,
    kind: str,
    now: datetime,
    turn: int | None = None,
    player: str | None = None,
) -> int:
    """Put a message in the outbox (inside the caller's transaction); its row's id. A large
    attachment is kept once in shared_parts and marked in the row: read a row's mail back
    with `stored_mail`."""

    def shared(data: bytes) -> bytes:
        digest = _digest(data)
        if db.conn.execute("select 1 from shared_parts where sha256 = ?", (digest,)).fetchone() is None:
            db.conn.execute("insert into shared_parts (sha256, data) values (?, ?)", (digest, data))
        return SHARED_PREFIX + digest.encode("ascii") + b"\x00"

    return insert(
        db,
        "outbox",
        {
            "kind": kind,
            "turn": turn,
            "player": player,
            "recipient": parseaddr(message["To"] or "")[1],
            "message_id": str(message["Message-ID"]),
            "subject": str(message["Subject"]),
            "raw": message.as_bytes(shared),
            "queued_at": clock.iso(now),
            "status": "queued",
            "attempts": 0,
        },
    )


@lru_cache(maxsize=8)
def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stored_mail(conn: sqlite3.Connection, raw: bytes, parts: dict[bytes, bytes] | None = None) -> bytes:
    """An outbox row's mail as it is sent: its stored-once parts put back in. `parts`
    keeps those read, for a caller reading many rows (gm send)."""
    if SHARED_PREFIX not in raw:
        return raw
    parts = {} if parts is None else parts

    def part(match: re.Match[bytes]) -> bytes:
        digest = match.group(1)
        if digest not in parts:
            row = conn.execute("select data from shared_parts where sha256 = ?", (digest.decode("ascii"),)).fetchone()
            assert row is not None, f"shared part {digest.decode()} is missing"
            parts[digest] = row[0]
        return parts[digest]

    return SHARED_MARK.sub(part, raw)


# -- gm send -----------------------------------------------------------------------------


class Queued:
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
        conn = self.store.conn
        raw = conn.execute("select raw from outbox where id = ?", (row["id"],)).fetchone()[0]
        if len(self._parts) > SHARED_KEPT:
            self._parts.clear()
        return stored_mail(conn, raw, self._parts)


def mark_sent(db: Any, row: dict) -> None:
    """Mark one message sent. A welcome or a new password carries the password in clear, so
    once it is out of our hands its body is dropped: the database keeps only salted hashes."""
    # plain SQL: sqlite-utils' update() first reads the whole row back, raw blob and all,
    # which made `gm send` read every message it had just sent a second time
    drop = ", raw = x''" if row["kind"] in SECRET_KINDS else ""
    db.execute(f"update outbox set status = 'sent', sent_at = ?, attempts = 1, error = null{drop} where id = ?",
               (clock.iso(clock.now()), row["id"]))


def mark_refused(db: Any, outbox_id: int, reason: str) -> None:
    """A message the server refused for good: it is not tried again."""
    db.execute("update outbox set status = 'failed', error = ? where id = ?", (reason, outbox_id))


def mark_tried(db: Any, outbox_id: int, error: str) -> None:
    """A message the server turned away for now: it stays queued for the next send."""
    db.execute("update outbox set attempts = coalesce(attempts, 0) + 1, error = ? where id = ?", (error, outbox_id))


def waiting(conn: Any) -> tuple[int, int]:
    """For gm status: (messages queued, messages refused for good)."""
    counts = dict(conn.execute("select status, count(*) from outbox where status in ('queued', 'failed') "
                               "group by status").fetchall())
    return counts.get("queued", 0), counts.get("failed", 0)


# -- what was mailed ---------------------------------------------------------------------


def has_mailed(conn: Any, address: str, kind: str) -> bool:
    """Whether a message of `kind` was ever queued to `address` (looked up by recipient,
    an index: the outbox only grows)."""
    return conn.execute("select 1 from outbox where recipient = ? and kind = ? limit 1",
                        (address, kind)).fetchone() is not None


def reports_sent(conn: Any, turn: int) -> int:
    """How many of turn `turn`'s reports have gone out."""
    marks = ", ".join("?" * len(REPORT_KINDS))
    return conn.execute(f"select count(*) from outbox where turn = ? and kind in ({marks}) and status = 'sent'",
                        (turn, *REPORT_KINDS)).fetchone()[0]


def drop_reports(db: Any, turn: int) -> None:
    """Take back turn `turn`'s reports not yet sent (a turn undone); those sent stay sent."""
    marks = ", ".join("?" * len(REPORT_KINDS))
    db.execute(f"delete from outbox where turn = ? and kind in ({marks}) and status = 'queued'",
               (turn, *REPORT_KINDS))


def kind_answered(db: Any, message_ids: Sequence[str], kinds: Sequence[str]) -> str | None:
    """The kind of the first of our messages of `kinds` among `message_ids`, if any."""
    if not message_ids:
        return None
    ids, wanted = ", ".join("?" * len(message_ids)), ", ".join("?" * len(kinds))
    row = db.execute(f"select kind from outbox where message_id in ({ids}) and kind in ({wanted}) limit 1",
                     [*message_ids, *kinds]).fetchone()
    return row[0] if row else None


def first_queued_at(db: Any, kind: str, since: str) -> str | None:
    """When the first message of `kind` since `since` (a stored time) was queued, if one was."""
    row = db.execute("select queued_at from outbox where kind = ? and queued_at >= ? order by id limit 1",
                     (kind, since)).fetchone()
    return row[0] if row else None


# -- the caps on replies anyone can ask for (docs/rules/, Refusal caps) -------------------


def address_key(address: str) -> str:
    """The address the caps count: lower case, with any +tag of its local part dropped
    (victim+1@x.example is victim@x.example: one mailbox)."""
    address = address.lower()
    local, at, domain = address.rpartition("@")
    return f"{local.split('+', 1)[0]}{at}{domain}" if at else address


def mark_unasked(db: Any, outbox_id: int, to: str, *, player: bool) -> None:
    """Count a queued unasked reply towards the caps: towards `to`'s, and, when `player` is
    False (no player registered `to`), towards the campaign's."""
    db.execute("update outbox set address_key = ?, unasked = ? where id = ?",
               (address_key(to), int(not player), outbox_id))


def sent_to_address(db: Any, to: str, since: str, kinds: Sequence[str]) -> int:
    """Messages of `kinds` queued since `since` (a stored time) to `to`'s address_key."""
    marks = ", ".join("?" * len(kinds))
    return db.execute(f"select count(*) from outbox where address_key = ? and queued_at >= ? and kind in ({marks})",
                      [address_key(to), since, *kinds]).fetchone()[0]


def unasked_since(db: Any, since: str) -> int:
    """Unasked replies queued since `since` to addresses no player registered."""
    return db.execute("select count(*) from outbox where unasked = 1 and queued_at >= ?", [since]).fetchone()[0]
