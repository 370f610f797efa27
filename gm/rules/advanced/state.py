"""An advanced campaign between turns (dice, squares, builds, items built) and what a player orders
for a turn: MOVE or BUILD (docs/rules/advanced.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..dice.events import OpeningThrow
from .events import BuildTried, Built, Moved


@dataclass(frozen=True)
class AdvancedState:
    """Between turns. `turn` is the next turn to resolve; `order` the order of play;
    `squares` each piece's square (0 Start; for a piece in End, the last square it stood
    on); `log` the goes of the last resolved turn (Moved and BuildTried events)."""

    turn: int
    over: bool
    order: tuple[str, ...]
    dice: Mapping[str, int]
    squares: Mapping[str, int]
    ended: Mapping[str, bool]
    builds: Mapping[str, int]
    built: tuple[Built, ...] = ()
    winner: str | None = None
    placings: Mapping[str, int | None] = field(default_factory=dict)
    opening: tuple[OpeningThrow, ...] = ()
    log: tuple[Moved | BuildTried, ...] = ()

    def in_play(self, player: str) -> bool:
        return not self.over and not self.ended[player]


@dataclass(frozen=True)
class AdvancedOrder:
    """A player's action for the turn: `move`, or `build` a snake or ladder to `target`;
    `action` None when nothing was sent (NMR: a MOVE is played)."""

    action: Literal["move", "build"] | None = None
    item: Literal["snake", "ladder"] | None = None
    target: int | None = None

    def __str__(self) -> str:
        """As the player wrote it (the GM's report lists orders with it)."""
        if self.action == "build":
            return f"BUILD {str(self.item).upper()} {self.target}"
        return "MOVE" if self.action == "move" else "nothing (NMR: MOVE)"
