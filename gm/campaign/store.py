"""The campaign's state in SQLite (through sqlite-utils): the schema as named migrations,
one transaction per state change, and one gm command at a time per campaign."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..errors import GmError
from ..releases import release_of_store
from .migrations import MIGRATIONS

if TYPE_CHECKING:
    import sqlite_utils

DB_NAME = "gm.sqlite"
LOCK_NAME = ".gm.lock"
LOCK_WAIT_SECONDS = 3.0


@contextlib.contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One state change on `conn` (opened with isolation_level=None): all of it committed,
    or none of it; the write lock taken at the start, so two writers never interleave."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class Store:
    """An open campaign database. Writes happen inside `transaction()` only."""

    def __init__(self, path: Path):
        self.path = path
        if path.exists():
            refuse_newer(path)  # before anything may write to it
        self.conn = sqlite3.connect(str(path), timeout=LOCK_WAIT_SECONDS, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self._db: sqlite_utils.Database | None = None

    @property
    def db(self) -> sqlite_utils.Database:
        """The store through sqlite-utils, made on first use: importing it (and numpy, which
        it imports when installed) is most of a command's start-up, and a command that
        reads, or writes plain SQL (`writing`), never needs it."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """One state change: all of it is committed, or none of it."""
        with self.writing():
            yield self.db

    def writing(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One state change in plain SQL on the connection itself: as `transaction`."""
        return immediate(self.conn)

    def table_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("select name from sqlite_master where type = 'table'")]

    def migrate(self) -> None:
        if "migrations" in self.table_names() and \
                {name for name, _ in MIGRATIONS} <= {row["name"] for row in self.rows("select name from migrations")}:
            return  # up to date: read without sqlite-utils
        if "migrations" in self.table_names():
            self._backup(len(self.rows("select name from migrations")))
        with self.transaction() as db:
            if "migrations" not in db.table_names():
                db["migrations"].create({"name": str, "applied_at": str}, pk="name")
            done = {row["name"] for row in db["migrations"].rows}
            for name, step in MIGRATIONS:
                if name not in done:
                    step(db)
                    db["migrations"].insert({"name": name, "applied_at": _utc_now_text()})

    def _backup(self, applied: int) -> None:
        """Before a campaign made by an earlier gm is migrated: a copy of its store as that
        release left it, `gm.sqlite.bak-<release>` beside it, which that release opens
        (docs/upgrading.md). An earlier copy of the same name is kept: it is the older."""
        backup = self.path.with_name(f"{self.path.name}.bak-{release_of_store(applied)}")
        if backup.exists():
            return
        partial = backup.with_name(f"{backup.name}.partial-{os.getpid()}")
        target = sqlite3.connect(str(partial))
        try:
            self.conn.backup(target)
        finally:
            target.close()
        partial.replace(backup)

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


def refuse_newer(path: Path) -> None:
    """Refuse, changing nothing, a store a later gm has migrated: one holding a migration this
    gm does not know (docs/upgrading.md). Read through a read-only connection, so that not
    even the journal mode is written; one that makes no -wal or -shm file beside it when
    there is none (every gm command leaves none)."""
    wal = path.with_name(path.name + "-wal").exists()
    mode = "mode=ro" if wal else "immutable=1"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, timeout=LOCK_WAIT_SECONDS)
    except sqlite3.Error:
        return  # not readable as a database: opening it says why
    try:
        if not conn.execute("select 1 from sqlite_master where type = 'table' and name = 'migrations'").fetchone():
            return
        applied = [row[0] for row in conn.execute("select name from migrations")]
    except sqlite3.Error:
        return
    finally:
        conn.close()
    unknown = sorted(set(applied) - {name for name, _ in MIGRATIONS})
    if unknown:
        raise GmError(f"{path} was written by a later gm than this one (gm {__version__} does not know its "
                      f"migration {', '.join(unknown)}): upgrade gm (pip install -U gm) to open it; nothing was changed")



def insert(db: sqlite_utils.Database, table: str, row: dict[str, Any]) -> int:
    """Insert one row into a table the migrations made; its rowid. For the inserts made
    once per message and per report: sqlite-utils' insert() asks for the schema's tables
    and views and wraps the insert in a savepoint, six statements where one does."""
    columns = ", ".join(f'"{name}"' for name in row)
    marks = ", ".join("?" * len(row))
    cursor = db.conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', tuple(row.values()))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


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
