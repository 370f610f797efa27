"""The postal game's options (docs/rules/postal.md, Options) and the hands of numbers they shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..options import option

SHARED = "*"  # the hand key under `numbers: shared`
FULL_HAND = (1, 2, 3, 4, 5, 6)
CYCLE = 6


AT_LEAST_1 = "a whole number of at least 1"


@dataclass(frozen=True)
class PostalOptions:
    """The options of docs/rules/postal.md with their defaults, each checked on reading
    (gm.rules.options)."""

    numbers: Literal["shared", "per-board"] = option("shared", expected="shared or per-board")
    trapdoor_threshold: int = option(3, minimum=1, expected=AT_LEAST_1)
    announce_trapdoors: bool = True
    close_after: int | Literal["all"] = option(3, minimum=1, expected=f"{AT_LEAST_1}, or all")
    max_turns: int = option(200, minimum=1, expected=AT_LEAST_1)
    nmr: Literal["random", "lowest", "highest"] = option("random", expected="random, lowest or highest")
    double_turns: bool = False

    @property
    def per_board(self) -> bool:
        return self.numbers == "per-board"

    def hand(self, board_id: str) -> str:
        """The key of the set of numbers a move on `board_id` draws from."""
        return board_id if self.per_board else SHARED

    def is_double(self, turn: int) -> bool:
        """Turns 5&6, 11&12, ... are one double turn (docs/rules/postal.md, Double turns)."""
        return self.double_turns and turn % CYCLE == 5
