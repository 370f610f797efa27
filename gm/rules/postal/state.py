"""A postal campaign between turns: each board's pieces and trapdoor, the hands of numbers still
held (docs/rules/postal.md, Numbers), and what a player orders for a turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ...boards.model import START
from ..ranking import competition_places
from .options import PostalOptions


@dataclass(frozen=True)
class Piece:
    """A player's piece on one board. `square` is 0 for Start; a finished piece keeps the
    last square it stood on before crossing. Stored as `[square, finished, placing]`."""

    json_row: ClassVar[bool] = True

    square: int = START
    finished: bool = False
    placing: int | None = None


@dataclass(frozen=True)
class BoardState:
    closed: bool
    trapdoor: int | None
    pieces: Mapping[str, Piece]

    @property
    def crossed(self) -> int:
        return sum(piece.finished for piece in self.pieces.values())


@dataclass(frozen=True)
class PostalState:
    """Between turns. `turn` is the next turn to resolve; `hands` maps player -> hand key
    (SHARED, or a board id under per-board numbers) -> the numbers still held, ascending."""

    turn: int
    over: bool
    boards: Mapping[str, BoardState]
    hands: Mapping[str, Mapping[str, tuple[int, ...]]]

    def moving_boards(self, player: str) -> list[str]:
        """Open boards on which the player's piece still moves."""
        return [
            board_id
            for board_id, board in self.boards.items()
            if not board.closed and not board.pieces[player].finished
        ]


@dataclass(frozen=True)
class PostalOrder:
    """What a player sent for a turn: numbers by hand key and trapdoor nominations by board."""

    numbers: Mapping[str, int] = field(default_factory=dict)
    trapdoors: Mapping[str, int] = field(default_factory=dict)


def hands_to_number(options: PostalOptions, state: PostalState, player: str) -> list[str]:
    """The hands for which the player must still send a number this turn: those that move and are
    not forced (docs/rules/postal.md, Orders, the deadline and missed turns)."""
    hands = {options.hand(b) for b in state.moving_boards(player)}
    return sorted(h for h in hands if len(state.hands[player][h]) > 1)


def aggregates(players: Sequence[str], state: PostalState) -> dict[str, tuple[int | None, int | None]]:
    """Each player's aggregate (the sum of their placings) and place, once every board has placed
    them (docs/rules/postal.md, Crossing the finish and placings); else (None, None)."""
    sums: dict[str, int] = {}
    for player in players:
        placings = [board.pieces[player].placing for board in state.boards.values()]
        if all(p is not None for p in placings):
            sums[player] = sum(placings)  # type: ignore[arg-type]
    places = competition_places(sums)
    return {p: (sums.get(p), places.get(p)) for p in players}
