"""`doubles` (docs/rules/doubles.md, seed 004): two d6 per throw moving their sum, listing order, a
double throws again, and the third double six in a row of a go is not moved."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...boards.model import Board
from ...resources import shipped_file
from ..base import Setup
from ..chance import Chance
from ..dice import Dice
from ..dice.race import Race

__all__ = ["Doubles"]

THIRD = 3


class Doubles(Dice):
    name = "doubles"
    rules_page = shipped_file("docs", "rules", "doubles.md")  # templates and boards: Dice's
    dice_per_throw = 2
    starter_options = (
        "  close_after: 1             # finishers that end the game, or all\n"
        "  max_turns: 200\n"
    )

    def board_figures(self, board: Board, *, until: float) -> Any:
        """Turns for one player alone under the default options (`gm board analyze`)."""
        from ...boards.dicechains import doubles
        from ...boards.figures import LengthFigures

        return LengthFigures(doubles(board, until=until))

    def board_expected(self, board: Board) -> float | None:
        """The expected turns alone, for `gm board design`'s targets: the exact solve
        without the law of the length."""
        from ...boards.dicechains import doubles_expected

        return doubles_expected(board)

    def go(self, setup: Setup, race: Race, player: str, chance: Chance) -> None:
        """Throw two dice and move their sum; a double that has not finished throws again.
        The third double six in a row is not moved and ends the go."""
        sixes = 0
        while True:
            dice = self.throw(chance, race.turn, player)
            sixes = sixes + 1 if dice == (6, 6) else 0
            if sixes == THIRD:
                race.record(race.not_moved(player, dice, "third-double-six"))
                return
            throw = race.move(player, dice)
            again = dice[0] == dice[1] and not throw.finished
            race.record(replace(throw, again=again))
            if not again:
                return
