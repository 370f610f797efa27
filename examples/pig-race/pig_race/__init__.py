"""Pig race, a house ruleset for gm (rules.md): a push-your-luck race on one snakes and
ladders board. Each turn every player orders `ROLL <n>` (up to n dice, thrown one by one;
a 1 loses the turn's move) or `HOLD` (one square, safely); a silent player holds.

The rules themselves are pig_race.rules (pure) and pig_race.orders (the mail commands);
this class is what gm asks for, found through the `gm.rulesets` entry point `pig`. Its
words are its templates/, its rules page rules.md, its starter board boards/pig-sty.yaml;
its robots for `gm demo` are pig_race.robot."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gm.rules.base import ArchiveTurn, Outcome, Ruleset, Setup, renamed
from gm.rules.chance import Chance
from gm.rules.events import event_reader
from gm.rules.grammar import Command, Grammar
from gm.rules.problem import Problem, problem

from . import orders, rules, views
from .rules import Moved, PigOptions, PigOrder, PigState, Placed

__all__ = ["PigOptions", "PigOrder", "PigRace", "PigState"]

HERE = Path(__file__).parent
_read_event = event_reader(Moved, Placed)


class PigRace(Ruleset):
    name = "pig"
    option_keys = ("max_turns", "max_dice")
    one_board = True
    commits_boards = True  # the board is the GM's, committed at start like postal's
    templates = str(HERE / "templates")
    rules_page = str(HERE / "rules.md")
    boards_folder = str(HERE / "boards")
    starter_board = "pig-sty.yaml"
    starter_options = (
        "  max_turns: 30               # then the pieces still racing are placed by square\n"
        "  max_dice: 5                 # the most dice one ROLL may ask for\n"
    )

    # -- rules core ------------------------------------------------------------------

    def parse_options(self, raw: Mapping[str, Any]) -> PigOptions:
        return rules.parse_options(raw)

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        return rules.start(setup)

    def resolve(self, setup: Setup, state: PigState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        return rules.resolve(setup, state, orders, chance)

    # -- orders by mail --------------------------------------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        return orders.grammar(options)

    def merge(self, setup: Setup, state: PigState, player: str, standing: PigOrder,
              commands: Iterable[Command]) -> tuple[PigOrder, list[Problem]]:
        return orders.merge(standing, commands)

    def order_problems(self, setup: Setup, state: PigState, player: str, order: PigOrder) -> list[Problem]:
        return [] if self.in_play(setup, state, player) else [problem("finished")]

    def order_view(self, setup: Setup, state: PigState, player: str, order: PigOrder) -> dict[str, Any]:
        said = f"ROLL {order.roll}" if order.roll is not None else "HOLD" if order.hold else None
        return {"order": said, "square": state.squares[player]}

    def empty_order(self) -> PigOrder:
        return PigOrder()

    def order_to_json(self, order: PigOrder) -> dict[str, Any]:
        return {"roll": order.roll, "hold": order.hold}

    def order_from_json(self, data: Mapping[str, Any]) -> PigOrder:
        return PigOrder(data.get("roll"), bool(data.get("hold")))

    def in_play(self, setup: Setup, state: PigState, player: str) -> bool:
        return not state.over and state.placings[player] is None

    def must_order(self, setup: Setup, state: PigState, player: str) -> bool:
        return self.in_play(setup, state, player)

    def order_complete(self, setup: Setup, state: PigState, player: str, order: PigOrder) -> bool:
        return order.roll is not None or order.hold

    # -- state -----------------------------------------------------------------------

    def state_json(self, setup: Setup, state: PigState) -> dict[str, Any]:
        board_id, board = next(iter(setup.boards.items()))
        return {
            "turn": state.turn,
            "over": state.over,
            "boards": {board_id: {
                "squares": board.squares, "closed": state.over, "trapdoor": None,
                "players": {p: {"square": state.squares[p], "finished": state.squares[p] >= board.squares,
                                "placing": state.placings[p]} for p in setup.players},
            }},
            "players": {p: {"numbers_left": None, "aggregate": state.placings[p] if state.over else None,
                            "place": state.placings[p] if state.over else None} for p in setup.players},
        }

    def dump_state(self, state: PigState) -> dict[str, Any]:
        return {"turn": state.turn, "over": state.over, "squares": dict(state.squares),
                "placings": dict(state.placings)}

    def load_state(self, data: Mapping[str, Any]) -> PigState:
        return PigState(data["turn"], data["over"], dict(data["squares"]), dict(data["placings"]))

    def rename_player(self, state: PigState, old: str, new: str) -> PigState:
        return PigState(state.turn, state.over, renamed(state.squares, old, new), renamed(state.placings, old, new))

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        return _read_event(data)

    # -- what players and the archive see -------------------------------------------

    def public_view(self, setup: Setup, before: PigState, after: PigState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> views.PigReport:
        generic = super().archive_turn(setup, before, after, events, names)
        return views.report(generic, after, events, names, campaign, title)

    def archive_turn(self, setup: Setup, before: PigState, after: PigState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        return ArchiveTurn.of(self.public_view(setup, before, after, events, names, "", ""))

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        return {"max_dice": setup.options.max_dice, "max_turns": setup.options.max_turns}
