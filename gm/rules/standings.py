"""Where everyone stands, as every ruleset tells it to gm.

`Ruleset.standings(setup, state)` gives a `Standings`: per board its size, whether it is
closed and each player's piece (square, finished, placing); per player the aggregate and
place once known; the turn taking orders and whether the campaign is over. gm's generic
readers (the archive's plain pages, `gm status`, the GM's report, the demo, the default
`in_play`) read it instead of a ruleset's state.

They are exactly the keys CONTRACT.md gives every ruleset's `gm state --json`, so
`standings_json` and `standings_from_json` turn one into the other: a ruleset written
before standings existed (state_json only) gets its standings from its state_json, and
one that writes standings only gets the CONTRACT keys of its state_json from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BoardStanding", "PieceStanding", "PlayerStanding", "Standings", "standings_from_json", "standings_json"]


@dataclass(frozen=True)
class PieceStanding:
    """One player's piece on one board: its square (0 is Start; a finished piece keeps the last
    square it stood on before crossing), whether it has finished, and its placing once the board has
    placed the player (docs/rules/<ruleset>.md)."""

    square: int = 0
    finished: bool = False
    placing: int | None = None


@dataclass(frozen=True)
class BoardStanding:
    """One board: its id, its number of squares, whether it is closed (places no one
    more), and each player's piece by player id, in campaign order."""

    id: str
    squares: int
    closed: bool
    pieces: Mapping[str, PieceStanding]


@dataclass(frozen=True)
class PlayerStanding:
    """One player's standing over every board: what ranks the players (e.g. a sum of
    placings) and their place, each None until known (at the latest when the campaign is
    over); `resigned` where the rules let a player resign (dice: RESIGN), which the GM's
    report shows (state_json's `resigned`, written only when true) and which takes the
    player out of play (`in_play`); `figure`, what the game ranks by during play in words
    ("23 points"), shown beside the name in gm's generic standings (not stored: the state
    holds what it is made from)."""

    aggregate: int | None = None
    place: int | None = None
    resigned: bool = False
    figure: str | None = None


@dataclass(frozen=True)
class Standings:
    """The whole standings: `turn` is the turn taking orders (one past the last played once
    over), `boards` by id in board order, `players` by id in campaign order."""

    turn: int
    over: bool
    boards: Mapping[str, BoardStanding]
    players: Mapping[str, PlayerStanding]

    def placed_first(self) -> tuple[str, ...]:
        """The player ids with a place first, by place, the rest in campaign order."""
        order = {p: i for i, p in enumerate(self.players)}
        return tuple(sorted(self.players, key=lambda p: (self.players[p].place is None,
                                                          self.players[p].place or 0, order[p])))


def standings_json(standings: Standings) -> dict[str, Any]:
    """The CONTRACT.md keys of `gm state --json` (turn, over, boards, players) from standings."""
    return {
        "turn": standings.turn,
        "over": standings.over,
        "boards": {
            board.id: {
                "squares": board.squares,
                "closed": board.closed,
                "players": {p: {"square": piece.square, "finished": piece.finished, "placing": piece.placing}
                            for p, piece in board.pieces.items()},
            }
            for board in standings.boards.values()
        },
        "players": {p: {"aggregate": s.aggregate, "place": s.place} | ({"resigned": True} if s.resigned else {})
                    for p, s in standings.players.items()},
    }


def standings_from_json(data: Mapping[str, Any]) -> Standings:
    """Standings read from the CONTRACT.md keys of a state_json (other keys are ignored)."""
    boards = {
        board_id: BoardStanding(
            board_id, board["squares"], bool(board["closed"]),
            {p: PieceStanding(piece["square"], bool(piece["finished"]), piece["placing"])
             for p, piece in board["players"].items()},
        )
        for board_id, board in data["boards"].items()
    }
    players = {p: PlayerStanding(facts.get("aggregate"), facts.get("place"), bool(facts.get("resigned")))
               for p, facts in data["players"].items()}
    return Standings(data["turn"], bool(data["over"]), boards, players)
