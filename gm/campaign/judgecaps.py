"""The caps counted over a judge (docs/rules/, Refusal caps; docs/deployment.md, A judge):
a judge's game counts the judge's own replies (LIST, RECORD) to an address in its caps,
read from the judge's store read-only, so counting never locks the judge."""

from __future__ import annotations

import sqlite3
from pathlib import Path

JUDGE_DB = "judge.sqlite"


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def judge_sent(judge: Path | None, key: str, since: str) -> int:
    """The judge's own replies queued to the address `key` (+tag dropped) since `since`."""
    path = judge / JUDGE_DB if judge is not None else None
    if path is None or not path.exists():
        return 0
    conn = _read_only(path)
    try:
        return conn.execute("select count(*) from outbox where address_key = ? and queued_at >= ?",
                            (key, since)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # a judge that never queued mail has no outbox yet
    finally:
        conn.close()
