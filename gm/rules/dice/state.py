"""A dice campaign between turns (the pieces, the order of play, the last turn's log) and what a
player orders (docs/rules/classic.md, Commands)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from .events import OpeningThrow, Resigned, Thrown

START = 0


@dataclass(frozen=True)
class DicePiece:
    """A player's piece: `square` 0 is Start; a finisher stays on N. Stored as
    `[square, finished, placing, resigned]`."""

    json_row: ClassVar[bool] = True

    square: int = START
    finished: bool = False
    placing: int | None = None
    resigned: bool = False


@dataclass(frozen=True)
class DiceState:
    """Between turns. `turn` is the next turn to resolve; `opening` every turn-0 throw
    (sorted by die index, then listing order); `log` the last resolved turn's resignations
    and throws, in play order (CONTRACT's `gm state --json`)."""

    turn: int
    over: bool
    order: tuple[str, ...]
    pieces: Mapping[str, DicePiece]
    winner: str | None = None
    opening: tuple[OpeningThrow, ...] = ()
    log: tuple[Resigned | Thrown, ...] = ()

    def in_play(self, player: str) -> bool:
        piece = self.pieces[player]
        return not self.over and not piece.finished and not piece.resigned


@dataclass(frozen=True)
class DiceOrder:
    """What a player sent for a turn: whether they resign (docs/rules/classic.md, Commands)."""

    resign: bool = False
