"""Pig race, a house ruleset for gm (rules.md): a push-your-luck race on one snakes and
ladders board. Each turn every player orders `ROLL <n>` (up to n dice, thrown one by one;
a 1 loses the turn's move) or `HOLD` (one square, safely); a silent player holds.

What a game writes (gm's docs/plugins.md): its rules (pig_race.rules: options, state,
orders and events as dataclasses, start and resolve, pure), its commands
(pig_race.orders), its standings, and its words (templates/, rules.md). The rest is gm's
defaults, read from the dataclasses declared here. Beyond that this class only tells the
turn in its own words (pig_race.views) and says what a finished player may not send.
gm finds it through the `gm.rulesets` entry point `pig`; its robots for `gm demo` are
pig_race.robot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gm.boards.board import Board
from gm.rules.base import (
    ArchiveTurn,
    BoardStanding,
    Outcome,
    PieceStanding,
    PlayerStanding,
    Ruleset,
    Setup,
    Standings,
)
from gm.rules.chance import Chance
from gm.rules.grammar import Grammar
from gm.rules.orderlines import order_lines
from gm.rules.problem import Problem, problem

from . import orders, rules, views
from .rules import Moved, PigOptions, PigOrder, PigState, Placed

__all__ = ["PigOptions", "PigOrder", "PigRace", "PigState"]

HERE = Path(__file__).parent


class PigRace(Ruleset):
    name = "pig"
    options_type = PigOptions
    state_type = PigState
    order_type = PigOrder
    event_types = (Moved, Placed)
    one_board = True
    silence_is_order = True  # a silent player holds: a quiet week is no unread mailbox
    # its files: words, rules page, boards (gm looks in them before its own)
    templates = str(HERE / "templates")
    rules_page = str(HERE / "rules.md")
    boards_folder = str(HERE / "boards")
    starter_board = "pig-sty.yaml"
    starter_options = (
        "  max_turns: 30               # then the pieces still racing are placed by square\n"
        "  max_dice: 5                 # the most dice one ROLL may ask for (1 to 10)\n"
    )

    # -- the game ------------------------------------------------------------------------

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        return rules.start(setup)

    def resolve(self, setup: Setup, state: PigState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        return rules.resolve(setup, state, orders, chance)

    def standings(self, setup: Setup, state: PigState) -> Standings:
        """A finished piece stands on the last square; places are known once the race is over."""
        board_id, board = next(iter(setup.boards.items()))
        pieces = {p: PieceStanding(state.squares[p], state.squares[p] >= board.squares, state.placings[p])
                  for p in setup.players}
        final = {p: state.placings[p] if state.over else None for p in setup.players}
        return Standings(state.turn, state.over, {board_id: BoardStanding(board_id, board.squares, state.over, pieces)},
                         {p: PlayerStanding(final[p], final[p]) for p in setup.players})

    # -- board tools (gm board analyze, gm board design) ------------------------------

    def board_figures(self, board: Board, *, until: float) -> Any:
        """Turns for one player alone who always ROLLs the number of dice that is fastest
        on this board (pig_race.analysis; rules.md's notes)."""
        from .analysis import pig  # numpy, only when a board is analysed

        return pig(board, until=until)

    def board_expected(self, board: Board) -> float | None:
        from .analysis import pig_expected_turns

        return pig_expected_turns(board)

    # -- orders by mail --------------------------------------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        return orders.grammar(options)

    def order_problems(self, setup: Setup, state: PigState, player: str, order: PigOrder) -> list[Problem]:
        return [] if self.in_play(setup, state, player) else [problem("finished")]

    def order_view(self, setup: Setup, state: PigState, player: str, order: PigOrder) -> dict[str, Any]:
        return {"order": " ".join(order_lines(order)) or None, "square": state.squares[player]}

    # -- the turn told (mail reports and the archive's turn page) ----------------------

    def public_view(self, setup: Setup, before: PigState, after: PigState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> views.PigReport:
        generic = super().archive_turn(setup, before, after, events, names)
        return views.report(generic, after, events, names, campaign, title)

    def archive_turn(self, setup: Setup, before: PigState, after: PigState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        return ArchiveTurn.of(self.public_view(setup, before, after, events, names, "", ""))
