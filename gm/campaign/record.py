"""The player record (docs/deployment.md, The player record): per address, over a judge's
games (the folders under the judge's campaigns/), read from each game's store: games
joined, finished, dropped, turns where an order was due (turns resolved while the address
held a seat) and turns ordered on time (an order by mail for that turn: the desk takes
none after the deadline). Here, below the judge, so that a game's sign-up can ask it
(signup.min_ontime)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from .config.judged import CAMPAIGNS
from .store import DB_NAME


@dataclass
class Record:
    joined: int = 0
    finished: int = 0
    dropped: int = 0
    due: int = 0
    on_time: int = 0
    games: list[dict] = field(default_factory=list)  # per game: id, player, turns due and on time, place

    @property
    def on_time_share(self) -> float | None:
        return self.on_time / self.due if self.due else None


PLAYED = """
select count(*) as due, sum(exists(select 1 from orders o where o.turn = t.turn and o.player = p.id
                                   and o.message is not null)) as on_time
from turns t, players p
where p.id = :player and t.turn >= coalesce(p.from_turn, 1)
  and (p.until_turn is null or t.turn <= p.until_turn)
  and (p.dropped_turn is null or t.turn < p.dropped_turn)
"""


def played(conn: sqlite3.Connection, player: str) -> tuple[int, int]:
    """(turns due, turns ordered on time) of the seat holder `player` in the game of `conn`
    (a row factory of sqlite3.Row): the record's, and the judge's site's."""
    row = conn.execute(PLAYED, {"player": player}).fetchone()
    return row["due"] or 0, row["on_time"] or 0


# turns due before an on-time share counts (docs/campaign.md, signup.min_ontime)
MIN_DUE = 10


def record_of(judge: Path, address: str) -> Record:
    """`address`'s record over the games of the judge in folder `judge`."""
    record = Record()
    games = judge / CAMPAIGNS
    folders = sorted(p for p in games.iterdir() if (p / "campaign.yaml").is_file()) if games.is_dir() else []
    for folder in folders:
        for game in _games_of(folder, address.lower()):
            record.games.append(game)
            record.joined += 1
            record.finished += game["finished"]
            record.dropped += game["dropped"]
            record.due += game["due"]
            record.on_time += game["on_time"]
    return record


def _games_of(folder: Path, address: str) -> list[dict]:
    path = folder / DB_NAME
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        over = _over(conn)
        found = []
        for p in conn.execute("select id, dropped_turn from players where lower(email) = ?", (address,)):
            due, on_time = played(conn, p["id"])
            found.append({"game": folder.name, "player": p["id"], "due": due,
                          "on_time": on_time, "dropped": int(p["dropped_turn"] is not None),
                          "finished": int(over and p["dropped_turn"] is None)})
        return found
    except sqlite3.OperationalError:
        return []  # a store without players yet (sign-up only)
    finally:
        conn.close()


def _over(conn: sqlite3.Connection) -> bool:
    row = conn.execute("select json_extract(state, '$.over') as over, ended from campaign").fetchone()
    return bool(row and (row["over"] or row["ended"]))


def below_min_ontime(judge: Path | None, address: str, min_ontime: float | None) -> tuple[float, int] | None:
    """(the address's on-time share, its turns due) when a sign-up's `min_ontime` refuses
    it: a judge's game only, and only with at least MIN_DUE turns due."""
    if judge is None or min_ontime is None:
        return None
    record = record_of(judge, address)
    share = record.on_time_share
    if record.due >= MIN_DUE and share is not None and share < min_ontime:
        return share, record.due
    return None
