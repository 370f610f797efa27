"""`classic` (docs/rules/classic.md, seed 002): one d6, the order of play by a turn-0 roll-off, a
six throws again as long as sixes come, and option `enter_on_one`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ...boards.model import Board
from ...resources import shipped_file
from ..base import Setup
from ..chance import Chance
from ..dice import Dice
from ..dice.events import OpeningThrow
from ..dice.options import DiceOptions
from ..dice.race import Race

__all__ = ["Classic", "ClassicOptions"]


@dataclass(frozen=True)
class ClassicOptions(DiceOptions):
    enter_on_one: bool = False


class Classic(Dice):
    name = "classic"
    rules_page = shipped_file("docs", "rules", "classic.md")  # templates and boards: Dice's
    options_type = ClassicOptions
    starter_options = (
        "  close_after: 1             # finishers that end the game, or all\n"
        "  max_turns: 200\n"
        "  enter_on_one: false        # a piece leaves Start only on a 1\n"
    )

    def board_figures(self, board: Board, *, until: float) -> Any:
        """Turns for one player alone under the default options (`gm board analyze`)."""
        from ...boards.dicechains import classic
        from ...boards.figures import LengthFigures

        return LengthFigures(classic(board, until=until))

    def board_expected(self, board: Board) -> float | None:
        """The expected turns alone, for `gm board design`'s targets: the exact solve
        without the law of the length."""
        from ...boards.dicechains import classic_expected

        return classic_expected(board)

    def seat(self, setup: Setup, chance: Chance) -> tuple[tuple[str, ...], tuple[OpeningThrow, ...]]:
        """Turn 0: everyone throws; those sharing the highest throw throw again, until one
        is highest. They play first, the others follow in listing order from them."""
        throws: list[OpeningThrow] = []
        tied = list(setup.players)
        while tied and (not throws or len(tied) > 1):
            rolls = {}
            for player in tied:
                rolls[player] = chance.roll(0, player, 6)
                throws.append(OpeningThrow(player, "order", chance.draws[-1].key, rolls[player]))
            best = max(rolls.values())
            tied = [p for p in tied if rolls[p] == best]
        first = setup.players.index(tied[0])
        return tuple(setup.players[first:] + setup.players[:first]), tuple(throws)

    def go(self, setup: Setup, race: Race, player: str, chance: Chance) -> None:
        """Throw and move; a six that has not finished throws again, no limit. Under
        `enter_on_one` a piece on Start moves only on a 1 (any other throw ends the go)."""
        while True:
            dice = self.throw(chance, race.turn, player)
            if setup.options.enter_on_one and race.square[player] == 0 and dice[0] != 1:
                race.record(race.not_moved(player, dice, "needs-one"))
                return
            throw = race.move(player, dice)
            again = dice[0] == 6 and not throw.finished
            race.record(replace(throw, again=again))
            if not again:
                return
