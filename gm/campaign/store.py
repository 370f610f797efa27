"""The campaign's state in SQLite (through sqlite-utils): the schema as named migrations,
one transaction per state change, and one gm command at a time per campaign."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import GmError

if TYPE_CHECKING:
    import sqlite_utils

DB_NAME = "gm.sqlite"
LOCK_NAME = ".gm.lock"
LOCK_WAIT_SECONDS = 3.0


def _m001_initial(db: sqlite_utils.Database) -> None:
    db["campaign"].create(
        {
            "id": str,
            "ruleset": str,
            "started_at": str,
            "state": str,  # the ruleset's state as JSON (dump_state)
            "deadline": str,  # ISO 8601, UTC, of the current turn
            "seed_salt": str,
            "seed_commitment": str,
            "revealed_at": str,
        },
        pk="id",
    )
    db["players"].create(
        {
            "id": str,
            "name": str,
            "email": str,
            "password_hash": str,
            "timezone": str,
            "failing": str,  # why mail to this address fails (a bounce, a 5xx), or null
        },
        pk="id",
    )
    db["boards"].create(
        {"id": str, "squares": int, "canonical": str, "salt": str, "commitment": str}, pk="id"
    )
    db["turns"].create(
        {
            "turn": int,  # the first campaign turn the resolve played (one resolve may play two)
            "resolved_at": str,
            "deadline": str,
            "state_before": str,
            "state_after": str,
            "orders": str,  # the orders played, as JSON
            "events": str,  # the events, as JSON
        },
        pk="turn",
    )
    db["messages"].create(
        {
            "id": int,
            "message_id": str,
            "source": str,  # where it came from: maildir:<key>, imap:<uidvalidity>:<uid>, file:<name>
            "received_at": str,
            "ingested_at": str,
            "sender": str,
            "subject": str,
            "raw": bytes,
            "outcome": str,  # applied, refused, help, loop, duplicate
            "player": str,
            "turn": int,
            "detail": str,
        },
        pk="id",
    )
    db["messages"].create_index(["message_id"])  # a replay is recorded, never applied
    db["messages"].create_index(["source"], unique=True)
    db["orders"].create(
        {
            "turn": int,
            "player": str,
            "receipt": int,  # per player and turn: order #1, #2, ...
            "message": int,
            "numbers": str,  # JSON: hand -> number, after this message
            "trapdoors": str,  # JSON: board -> square, after this message
        },
        pk=("turn", "player", "receipt"),
    )
    db["outbox"].create(
        {
            "id": int,
            "kind": str,  # welcome, ack, refusal, help, reminder, report, gm-report, final
            "turn": int,
            "player": str,
            "recipient": str,
            "message_id": str,
            "subject": str,
            "raw": bytes,
            "queued_at": str,
            "status": str,  # queued, sent, failed
            "sent_at": str,
            "attempts": int,
            "error": str,
        },
        pk="id",
    )
    db["outbox"].create_index(["status"])


def _m002_fixed_at_start(db: sqlite_utils.Database) -> None:
    # CONTRACT.md "Fixed at start": the id, ruleset, seed, options, players and boards the
    # game is played from (gm.fixed.Fixed as JSON). Campaigns started before this column
    # existed fill it on their next open, from their boards table and seed commitment.
    db["campaign"].add_column("fixed", str)


def body_digest(raw: bytes) -> str:
    """sha256 of a raw message's body (what follows the header block, or the whole of a
    message without one; line ends made LF). The same mail delivered twice has the same
    digest whatever headers servers added on the way (RULES.md 3: the desk's test for a
    message already seen)."""
    raw = raw.replace(b"\r\n", b"\n")
    end = raw.find(b"\n\n")
    return hashlib.sha256(raw[end + 2 :] if end >= 0 else raw).hexdigest()


def _m003_desk_trust(db: sqlite_utils.Database) -> None:
    # RULES.md 3: a message is already seen only when Message-ID, sender and body all
    # match (the digest is filled in for messages recorded before); a RESET's password
    # waits beside the old one until first used; the loop and cap checks look the outbox
    # up by Message-ID and by recipient.
    db["messages"].add_column("body_sha256", str)
    for row in list(db.query("select id, raw from messages")):
        db["messages"].update(row["id"], {"body_sha256": body_digest(row["raw"] or b"")})
    db["messages"].create_index(["message_id", "sender", "body_sha256"])
    db["players"].add_column("pending_password_hash", str)  # a RESET's new password, until used
    db["players"].add_column("reset_at", str)  # when the last RESET mail was queued
    db["outbox"].create_index(["message_id"])
    db["outbox"].create_index(["recipient", "queued_at"])


def _m004_draws(db: sqlite_utils.Database) -> None:
    # RULES.md 5: every random choice a turn made (gm.chance.Draw as JSON), so a turn can
    # be replayed and audited without the generator; and what gm start drew and did
    # before turn 1 (opening throws, seats), as {"events": [...], "draws": [...]}.
    db["turns"].add_column("draws", str)
    db["campaign"].add_column("opening", str)


def _m005_orders_as_json(db: sqlite_utils.Database) -> None:
    # Each ruleset owns its orders: the standing order after each message is the ruleset's
    # JSON (Ruleset.order_to_json), no longer postal's numbers and trapdoors columns.
    db["orders"].add_column("standing", str)
    db.execute(
        "update orders set standing = json_object('numbers', json(numbers), 'trapdoors', json(trapdoors))"
    )
    db["orders"].transform(drop={"numbers", "trapdoors"})


def _m006_administration(db: sqlite_utils.Database) -> None:
    # CONTRACT.md's GM commands (gm player, pause, resume, deadline). A seat keeps its
    # place in the order of play whoever holds it: `seat` is its index in campaign.yaml. A
    # player who gave up their seat keeps their row (their id stays taken, their name is in
    # the history) with `replaced_by` and the turns they held it; `dropped_turn` is the
    # first turn a dropped player no longer orders. `admin` logs every GM change, for gm
    # status and the audit.
    for column in ("seat", "dropped_turn", "from_turn", "until_turn"):
        db["players"].add_column(column, int)
    db["players"].add_column("replaced_by", str)
    for seat, row in enumerate(db.query("select id from players order by rowid")):
        db.execute("update players set seat = ?, from_turn = 1 where id = ?", (seat, row["id"]))
    db["campaign"].add_column("paused", int)
    db["admin"].create({"id": int, "at": str, "turn": int, "command": str, "player": str, "detail": str},
                       pk="id")


def _m007_shared_parts(db: sqlite_utils.Database) -> None:
    # A large campaign's reports all attach the same table of every player (turns.py
    # INLINE_PLAYERS): its bytes are kept once here, by their SHA-256, and each outbox row
    # holds a marker in their place (mailout.queue, stored_mail), so a turn's outbox and
    # write-ahead log grow with the players, not with their square.
    db["shared_parts"].create({"sha256": str, "data": bytes}, pk="sha256")


def _m008_publish_memo(db: sqlite_utils.Database) -> None:
    # What a publish keeps for the next one (gm.publish.memo): each turn's summary under
    # the digest of its stored record, and each page written to an archive folder under
    # the digest of what it shows, so a weekly publish derives and renders only what the
    # new turn changed. Public facts only: everything here is on the pages already.
    db["archive_turns"].create({"turn_index": int, "digest": str, "summary": str}, pk="turn_index")
    # each turn's record hashed when it is stored (record_digest), so a publish knows an old
    # turn unchanged without reading its states and events back
    db["turns"].add_column("digest", str)
    for row in db.query("select turn, state_before, state_after, events from turns"):
        db.execute("update turns set digest = ? where turn = ?", (record_digest(row), row["turn"]))
    db["archive_pages"].create({"out": str, "path": str, "digest": str, "size": int, "mtime_ns": int},
                               pk=("out", "path"))


def _m009_proof(db: sqlite_utils.Database) -> None:
    # RULES.md 5's proof: the game text the game commitment hashes (canonical JSON, kept
    # as written at start so the commitment never depends on a later gm's wording), each
    # accepted message's receipt, and each resolve's receipts played and record hash. A
    # campaign started before has none of them; its mail and archive show none.
    db["campaign"].add_column("game", str)
    db["campaign"].add_column("game_commitment", str)
    db["orders"].add_column("receipt_hash", str)
    db["turns"].add_column("receipts", str)
    db["turns"].add_column("record_hash", str)


def _m010_gm_end(db: sqlite_utils.Database) -> None:
    # CONTRACT.md `gm end`: how the GM ended a running campaign (gm.campaign.ending), as
    # JSON: the turn it ended after, by whom, the reason given, when, and the events of the
    # end (placings, boards closed); null while running or when the rules ended it
    db["campaign"].add_column("ended", str)


def _m011_signup(db: sqlite_utils.Database) -> None:
    # RULES.md 3.1, sign-up by mail before gm start (gm.campaign.signup). A request becomes
    # a row only once confirmed from its address, in the order confirmed (`id`): `status`
    # where it stands (in, waiting, awaiting the GM, rejected, left; at gm start: playing,
    # or pool for those left waiting), `decision` the GM's under approve: gm, `told` the
    # status last told to the person. A JOIN not yet confirmed is its message alone. The
    # key signs confirmation codes (a code is no secret kept here: the key makes it); the
    # log says when sign-up opened and closed, for the archive's feed.
    db["signups"].create({
        "id": int, "player": str, "name": str, "email": str, "timezone": str, "keys": str,
        "asked_at": str, "confirmed_at": str, "changed_at": str, "status": str, "decision": str,
        "told": str, "join_message": int, "confirm_message": int,
    }, pk="id")
    # each JOIN and CONFIRM looks a request up by address, id and JOIN message, and a
    # CONFIRM finds its JOIN among the sender's mail: none of them may read the table
    # through (a 2,000-player sign-up would read it 2,000 times), nor a message's raw mail
    db["signups"].create_index(["email"])
    db["signups"].create_index(["status"])
    db["signups"].create_index(["player"])
    db["signups"].create_index(["join_message"])
    db["messages"].create_index(["sender", "outcome"])
    # a JOIN's request as read (name, id, zone, keys; JSON), kept with its message for the
    # CONFIRM that makes it count: reading the mail again cost a quarter of a CONFIRM
    db["messages"].add_column("request", str)
    db["signup_key"].create({"key": str})
    db["signup_key"].insert({"key": secrets.token_hex(32)})
    db["signup_log"].create({"id": int, "at": str, "event": str}, pk="id")


def _m012_parsed_files(db: sqlite_utils.Database) -> None:
    # campaign.yaml and the board files as parsed (gm.yamlfile.parsed_once), under the
    # digest of their bytes: a command opens a campaign of 500 players without importing
    # or running the YAML parser (issue 27). Only the contents last read are kept.
    db["parsed_files"].create({"key": str, "value": bytes}, pk="key")


MIGRATIONS: list[tuple[str, Callable[[sqlite_utils.Database], None]]] = [
    ("001_initial", _m001_initial),
    ("002_fixed_at_start", _m002_fixed_at_start),
    ("003_desk_trust", _m003_desk_trust),
    ("004_draws", _m004_draws),
    ("005_orders_as_json", _m005_orders_as_json),
    ("006_administration", _m006_administration),
    ("007_shared_parts", _m007_shared_parts),
    ("008_publish_memo", _m008_publish_memo),
    ("009_proof", _m009_proof),
    ("010_gm_end", _m010_gm_end),
    ("011_signup", _m011_signup),
    ("012_parsed_files", _m012_parsed_files),
]


class Store:
    """An open campaign database. Writes happen inside `transaction()` only."""

    def __init__(self, path: Path):
        self.path = path
        self.conn = sqlite3.connect(str(path), timeout=LOCK_WAIT_SECONDS, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self._db: sqlite_utils.Database | None = None

    @property
    def db(self) -> sqlite_utils.Database:
        """The store through sqlite-utils, made on first use: importing it (and numpy, which
        it imports when installed) is most of a command's start-up, and a command that
        reads, or writes plain SQL (`writing`), never needs it (issue 27)."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """One state change: all of it is committed, or none of it."""
        with self.writing():
            yield self.db

    @contextlib.contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One state change in plain SQL on the connection itself: as `transaction`."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def table_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("select name from sqlite_master where type = 'table'")]

    def migrate(self) -> None:
        if "migrations" in self.table_names() and \
                {name for name, _ in MIGRATIONS} <= {row["name"] for row in self.rows("select name from migrations")}:
            return  # up to date: read without sqlite-utils
        with self.transaction() as db:
            if "migrations" not in db.table_names():
                db["migrations"].create({"name": str, "applied_at": str}, pk="name")
            done = {row["name"] for row in db["migrations"].rows}
            for name, step in MIGRATIONS:
                if name not in done:
                    step(db)
                    db["migrations"].insert({"name": name, "applied_at": _utc_now_text()})

    def close(self) -> None:
        self.conn.close()

    # -- small helpers ----------------------------------------------------------------

    # Reads go to sqlite3 itself: sqlite-utils' query() wraps each in a savepoint, three
    # statements where one does, and the desk reads several times per message.
    def one(self, sql: str, params: Any = ()) -> dict[str, Any] | None:
        rows = self.rows(sql, params)
        return rows[0] if rows else None

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        cursor = self.conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]


class ParsedFiles:
    """A campaign's YAML files as parsed, kept in its store (gm.yamlfile.ParseCache): what
    one opening read is written at its end, with `save`, and the contents no longer read
    go, so the table holds one campaign.yaml and its boards."""

    def __init__(self, store: Store):
        self.store = store
        self.read: set[str] = set()
        self.new: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        self.read.add(key)
        row = self.store.one("select value from parsed_files where key = ?", (key,))
        return row["value"] if row else None

    def put(self, key: str, value: bytes) -> None:
        self.read.add(key)
        self.new[key] = value

    def save(self) -> None:
        if not self.new:
            return
        try:
            with self.store.writing() as db:
                kept = [row[0] for row in db.execute("select key from parsed_files")]
                db.executemany("delete from parsed_files where key = ?", [(k,) for k in kept if k not in self.read])
                db.executemany("insert or replace into parsed_files values (?, ?)", self.new.items())
        except sqlite3.OperationalError:
            pass  # a store not writable now (busy past the wait, read-only): parsed again next time
        self.new.clear()


def insert(db: sqlite_utils.Database, table: str, row: dict[str, Any]) -> int:
    """Insert one row into a table the migrations made; its rowid. For the inserts made
    once per message and per report: sqlite-utils' insert() asks for the schema's tables
    and views and wraps the insert in a savepoint, six statements where one does."""
    columns = ", ".join(f'"{name}"' for name in row)
    marks = ", ".join("?" * len(row))
    cursor = db.conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', tuple(row.values()))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def record_digest(turn: Mapping[str, Any]) -> str:
    """The SHA-256 of a stored turn's states and events: what the archive derives it from."""
    hasher = hashlib.sha256()
    for key in ("state_before", "state_after", "events"):
        data = turn[key].encode("utf-8")
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


def _utc_now_text() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@contextlib.contextmanager
def command_lock(folder: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold the campaign for one command. A second gm command on the same campaign waits
    briefly, then refuses, so two turns can never be resolved or sent at once."""
    handle = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + (LOCK_WAIT_SECONDS if wait is None else wait)
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise GmError(
                        "another gm command is working on this campaign; try again when it ends"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(handle)
