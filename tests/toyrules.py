"""A toy ruleset written only against gm's ruleset interface, to prove that a ruleset is
its own code and templates and nothing else.

"Step": one public board; each turn every player still on it orders `STEP 1`, `STEP 2`
or `STEP 3` and moves that many squares; a player who sends nothing steps 1, or a random
1-3 drawn through the chance under option `silent: random`. Pieces past the last square
have finished, placed by the turn they crossed (same turn, same place); the campaign ends
when every piece has finished or after `max_turns`, the rest placed by square.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gm.errors import ProblemsError
from gm.rules.base import Outcome, Ruleset, Setup
from gm.rules.chance import Chance
from gm.rules.grammar import Command, CommandProblem, CommandSpec, Grammar, whole_number
from gm.rules.problem import Problem, problem
from gm.rules.ranking import competition_places


@dataclass(frozen=True)
class StepOptions:
    max_turns: int = 30
    silent: str = "one"  # or "random"


@dataclass(frozen=True)
class StepState:
    turn: int
    over: bool
    squares: Mapping[str, int]
    placings: Mapping[str, int | None]


@dataclass(frozen=True)
class StepOrder:
    step: int | None = None


@dataclass(frozen=True)
class Stepped:
    turn: int
    player: str
    start: int
    step: int
    end: int
    silent: bool
    kind: str = "stepped"


@dataclass(frozen=True)
class StepView:
    """The public turn: every player's start, step and end (nothing here is secret)."""

    turn: int
    rows: tuple[tuple[str, int, int, int], ...] = field(default=())
    over: bool = False


def _read_step(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, int]:
    value = whole_number(args[0], 1, 3) if len(args) == 1 else None
    if value is None:
        raise CommandProblem("step_not_whole", most=3, value=rest)
    return None, value


class Step(Ruleset):
    name = "step"
    templates = str(Path(__file__).parent / "data" / "step-templates")  # its words (problems.txt)
    option_keys = ("max_turns", "silent")
    one_board = True

    def parse_options(self, raw: Mapping[str, Any]) -> StepOptions:
        options = StepOptions(**{k: raw[k] for k in self.option_keys if k in raw})
        if options.silent not in ("one", "random"):
            raise ProblemsError("options", ["option silent must be one or random"])
        return options

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        state = StepState(1, False, {p: 0 for p in setup.players}, {p: None for p in setup.players})
        return Outcome(state, ())

    def grammar(self, options: Any = None) -> Grammar:
        return Grammar((CommandSpec("STEP", "STEP <1-3>", _read_step),))

    def merge(self, setup: Setup, state: StepState, player: str, standing: StepOrder,
              commands: Iterable[Command]) -> tuple[StepOrder, list[Problem]]:
        for command in commands:
            standing = StepOrder(command.value)
        return standing, []

    def order_problems(self, setup: Setup, state: StepState, player: str, order: StepOrder) -> list[Problem]:
        return [] if self.in_play(setup, state, player) or order.step is None else [problem("finished")]

    def order_view(self, setup: Setup, state: StepState, player: str, order: StepOrder) -> dict[str, Any]:
        return {"step": order.step, "square": state.squares[player]}

    def empty_order(self) -> StepOrder:
        return StepOrder()

    def order_to_json(self, order: StepOrder) -> dict[str, Any]:
        return {"step": order.step}

    def order_from_json(self, data: Mapping[str, Any]) -> StepOrder:
        return StepOrder(data["step"])

    def in_play(self, setup: Setup, state: StepState, player: str) -> bool:
        return not state.over and state.placings[player] is None

    def must_order(self, setup: Setup, state: StepState, player: str) -> bool:
        return self.in_play(setup, state, player)

    def order_complete(self, setup: Setup, state: StepState, player: str, order: StepOrder) -> bool:
        return order.step is not None

    def resolve(self, setup: Setup, state: StepState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        n = next(iter(setup.boards.values())).squares
        squares, placings = dict(state.squares), dict(state.placings)
        events, crossed = [], []
        for player in setup.players:
            if placings[player] is not None:
                continue
            step = orders.get(player, StepOrder()).step
            silent = step is None
            if silent:
                step = chance.pick(state.turn, "step", player, [1, 2, 3]) if setup.options.silent == "random" else 1
            start, squares[player] = squares[player], squares[player] + step
            events.append(Stepped(state.turn, player, start, step, squares[player], silent))
            if squares[player] > n:
                crossed.append(player)
        placed = sum(p is not None for p in placings.values())
        for player in crossed:
            placings[player] = placed + 1
        waiting = [p for p in setup.players if placings[p] is None]
        over = not waiting or state.turn >= setup.options.max_turns
        if over and waiting:
            start = sum(p is not None for p in placings.values()) + 1
            placings |= competition_places({p: -squares[p] for p in waiting}, start=start)
        return Outcome(StepState(state.turn + 1, over, squares, placings), tuple(events), tuple(chance.draws))

    def state_json(self, setup: Setup, state: StepState) -> dict[str, Any]:
        board, squares = next(iter(setup.boards.items()))
        return {
            "turn": state.turn,
            "over": state.over,
            "boards": {board: {
                "squares": squares.squares, "closed": state.over, "trapdoor": None,
                "players": {p: {"square": state.squares[p], "finished": state.squares[p] > squares.squares,
                                "placing": state.placings[p]} for p in setup.players},
            }},
            "players": {p: {"numbers_left": None, "aggregate": state.placings[p] if state.over else None,
                            "place": state.placings[p] if state.over else None} for p in setup.players},
        }

    def dump_state(self, state: StepState) -> dict[str, Any]:
        return {"turn": state.turn, "over": state.over, "squares": dict(state.squares),
                "placings": dict(state.placings)}

    def load_state(self, data: Mapping[str, Any]) -> StepState:
        return StepState(data["turn"], data["over"], data["squares"], data["placings"])
