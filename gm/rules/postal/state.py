"""A postal campaign between turns: each board's pieces and trapdoor, the hands of numbers
still held (RULES.md 2.2), and what a player orders for a turn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...boards.model import START
from .options import PostalOptions


@dataclass(frozen=True)
class Piece:
    """A player's piece on one board. `square` is 0 for Start; a finished piece keeps the
    last square it stood on before crossing."""

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
    """The hands for which the player must still send a number this turn: those that
    move and are not forced (RULES.md 2.4)."""
    hands = {options.hand(b) for b in state.moving_boards(player)}
    return sorted(h for h in hands if len(state.hands[player][h]) > 1)
