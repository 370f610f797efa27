"""The judge's cap in all (docs/rules/, Refusal caps, counted over the judge): its own
number plus the sign-up places still open across its games, so an announced game answers
every real joiner. Read from the games' stores read-only: counting never locks a game."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..campaign.config.reading import load_config
from ..campaign.desk.trust import unasked_cap
from ..campaign.signup.standing import places, waiting_room
from ..campaign.store import DB_NAME
from .layout import Judge


def open_places(judge: Judge) -> int:
    """The sign-up places (in, and waiting) still open across the judge's games not started."""
    return sum(_open_in(game) for game in judge.games())


def _open_in(game: Path) -> int:
    try:
        config = load_config(game)
    except Exception:  # noqa: BLE001 - a broken game opens no place
        return 0
    if config.signup is None:
        return 0
    path = game / DB_NAME
    if not path.exists():
        return (places(config) or 0) + (waiting_room(config) or 0)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
        if "campaign" in tables and conn.execute("select id from campaign").fetchone() is not None:
            return 0  # started: sign-up is over
        return unasked_cap(conn, config, False) - config.caps_unasked_per_day
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()
