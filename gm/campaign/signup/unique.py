"""Sign-up codes unique within a judge (docs/deployment.md, A judge): the judge hands a
`CONFIRM <code>` to the game whose code it is, so a game of a judge never issues a code
that another of the judge's games has issued. Codes are 40 bits made from the request, so a
clash is rare; when one happens, the request's code is made again with a salt, kept in
`signup_code_salts`, until it is no other game's."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ..config.judged import CAMPAIGNS
from ..store import DB_NAME
from .codes import code_for, salt_of

MAX_SALT = 64  # far beyond any clash of 40-bit codes; past it the last code is used


def unique_code(db: Any, key: bytes, message: int, sender: str, folder: Path, judge: Path | None) -> str:
    """The code of request `message`: its plain code, unless another game of the judge issued it."""
    salt = _stored(db, message)
    if judge is None or salt:
        return code_for(key, message, sender, salt)
    taken = others_codes(judge, folder)
    for salt in range(MAX_SALT):
        code = code_for(key, message, sender, salt)
        if code not in taken:
            break
    if salt:
        db.execute("insert or replace into signup_code_salts (message, salt) values (?, ?)", (message, salt))
    return code


def _stored(db: Any, message: int) -> int:
    row = db.execute("select salt from signup_code_salts where message = ?", (message,)).fetchone()
    return row[0] if row else 0


class _Rows:
    """The one/rows reading that codes.salt_of asks of a store, over a read-only connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def one(self, sql: str, params: Any = ()) -> dict[str, Any] | None:
        cursor = self.conn.execute(sql, params)
        row = cursor.fetchone()
        return dict(zip([c[0] for c in cursor.description], row, strict=True)) if row else None


def others_codes(judge: Path, folder: Path) -> set[str]:
    """Every code the judge's other games have issued (each JOIN and LEAVE they answered)."""
    codes: set[str] = set()
    own = Path(folder).resolve()
    for other in sorted((judge / CAMPAIGNS).iterdir()) if (judge / CAMPAIGNS).is_dir() else []:
        path = other / DB_NAME
        if other.resolve() == own or not path.exists():
            continue
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            store = _Rows(conn)
            if store.one("select 1 x from sqlite_master where name = 'signup_key'") is None:
                continue
            key_row = store.one("select key from signup_key")
            if key_row is None:
                continue
            key = bytes.fromhex(key_row["key"])
            for row_id, sender in conn.execute(
                    "select id, sender from messages where outcome in ('join', 'leave')").fetchall():
                codes.add(code_for(key, row_id, sender, salt_of(store, row_id)))
        finally:
            conn.close()
    return codes
