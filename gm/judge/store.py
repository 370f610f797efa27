"""The judge's own store, `judge.sqlite` (its own schema, not a campaign's): the messages
its mailbox held and where each went, and its outbox (the LIST and RECORD replies it
sends itself), each change one transaction."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from ..campaign.store import immediate

DB_NAME = "judge.sqlite"

SCHEMA = """
create table if not exists messages (
    id integer primary key,
    source text unique not null,      -- maildir:<name> (IMAP mail is fetched into the Maildir first)
    message_key text,                 -- Message-ID, sender and body digest: seen before?
    sender text,
    received_at text,
    outcome text not null,            -- routed, list, unknown, record, kept, capped, seen
    campaign text                     -- the game it was routed to
);
create index if not exists messages_key on messages (message_key);
create table if not exists outbox (
    id integer primary key,
    kind text not null,
    recipient text not null,
    address_key text not null,
    message_id text,
    raw blob not null,
    queued_at text not null,
    status text not null default 'queued',
    attempts integer not null default 0,
    error text
);
create index if not exists outbox_caps on outbox (address_key, queued_at);
create index if not exists outbox_status on outbox (status);
-- the webhooks' POSTs (gm.judge.webhooks): one per game, event, turn and address
create table if not exists hooks (
    id integer primary key,
    campaign text not null, event text not null, turn integer not null default 0, url text not null,
    format text not null, body text not null, queued_at text not null,
    status text not null default 'queued', attempts integer not null default 0, error text,
    unique (campaign, event, turn, url)
);
"""


class JudgeStore:
    def __init__(self, folder: Path, *, read_only: bool = False):
        """The judge's store, made if need be; `read_only` for a reader that must not write
        (a game's `gm status`), of a store that exists."""
        if read_only:
            self.conn = sqlite3.connect(f"{(folder / DB_NAME).resolve().as_uri()}?mode=ro", uri=True)
            self.conn.row_factory = sqlite3.Row
            return
        self.conn = sqlite3.connect(folder / DB_NAME, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("pragma journal_mode=wal")
        self.conn.executescript(SCHEMA)

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One change to the judge's store: all of it committed, or none of it."""
        return immediate(self.conn)

    def one(self, sql: str, params: Any = ()) -> sqlite3.Row | None:
        return self.conn.execute(sql, params).fetchone()

    def rows(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self.conn.close()
