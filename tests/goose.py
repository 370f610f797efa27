"""A house ruleset written from docs/plugins.md alone, as a stranger would: the goose
race. One board; each turn every player in play ROLLs one die (silence rolls too) or
RESIGNs; a die's points add up, shown in the standings during play (`figure`); a piece
reaching the last square finishes; after `max_turns` the rest are placed by square. Its
words are written into a folder a test gives (`goose_templates`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gm.rules.base import Outcome, Ruleset, Setup
from gm.rules.chance import Chance
from gm.rules.grammar import CommandProblem, CommandSpec, Grammar
from gm.rules.orderlines import order_lines
from gm.rules.problem import Problem
from gm.rules.ranking import place_the_rest
from gm.rules.resign import RESIGN, resign_problems
from gm.rules.standings import BoardStanding, PieceStanding, PlayerStanding, Standings


@dataclass(frozen=True)
class GooseOptions:
    max_turns: int = 3


@dataclass(frozen=True)
class GooseState:
    turn: int
    over: bool
    squares: Mapping[str, int]
    points: Mapping[str, int]
    resigned: Mapping[str, bool]
    placings: Mapping[str, int | None]


@dataclass(frozen=True)
class GooseOrder:
    roll: bool = False
    resign: bool = False


@dataclass(frozen=True)
class Rolled:
    turn: int
    player: str
    die: int
    kind: str = "rolled"


def _read_roll(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, bool]:
    if args:
        raise CommandProblem("roll_alone", rest=rest)
    return None, True


class Goose(Ruleset):
    name = "goose"
    game_name = "Goose"
    options_type = GooseOptions
    state_type = GooseState
    order_type = GooseOrder
    event_types = (Rolled,)
    one_board = True
    silence_is_order = True  # a silent player rolls: a quiet week is no unread mailbox

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        players = setup.players
        return Outcome(GooseState(1, False, dict.fromkeys(players, 0), dict.fromkeys(players, 0),
                                  dict.fromkeys(players, False), dict.fromkeys(players)), ())

    def resolve(self, setup: Setup, state: GooseState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        last = next(iter(setup.boards.values())).squares
        squares, points = dict(state.squares), dict(state.points)
        resigned, placings = dict(state.resigned), dict(state.placings)
        events: list[Any] = []
        for player in setup.players:
            if placings[player] is not None or resigned[player]:
                continue
            if (orders.get(player) or GooseOrder()).resign:
                resigned[player] = True
                continue
            die = chance.roll(state.turn, player)
            points[player] += die
            squares[player] = min(last, squares[player] + die)
            events.append(Rolled(state.turn, player, die))
            if squares[player] >= last:
                placings[player] = sum(p is not None for p in placings.values()) + 1
        over = state.turn >= setup.options.max_turns or all(
            placings[p] is not None or resigned[p] for p in setup.players)
        if over:
            placings |= place_the_rest(placings, squares)
        return Outcome(GooseState(state.turn + 1, over, squares, points, resigned, placings), tuple(events))

    def grammar(self, options: Any = None) -> Grammar:
        return Grammar((CommandSpec("ROLL", "ROLL", _read_roll), RESIGN), exclusive=(("ROLL", "RESIGN"),))

    def order_problems(self, setup: Setup, state: GooseState, player: str, order: GooseOrder) -> list[Problem]:
        return resign_problems(order, self.in_play(setup, state, player))

    def order_view(self, setup: Setup, state: GooseState, player: str, order: GooseOrder) -> dict[str, Any]:
        return {"order": " ".join(order_lines(order)) or "none: you roll", "square": state.squares[player]}

    def standings(self, setup: Setup, state: GooseState) -> Standings:
        board_id, board = next(iter(setup.boards.items()))
        pieces = {p: PieceStanding(state.squares[p], state.squares[p] >= board.squares, state.placings[p])
                  for p in setup.players}
        final = {p: state.placings[p] if state.over else None for p in setup.players}
        return Standings(state.turn, state.over, {board_id: BoardStanding(board_id, board.squares, state.over, pieces)},
                         {p: PlayerStanding(final[p], final[p], state.resigned[p], f"{state.points[p]} points")
                          for p in setup.players})

    def state_notes(self, setup: Setup, state: GooseState) -> Mapping[str, str]:
        return {p: f"rolled {n} in all" for p, n in state.points.items() if n and not state.resigned[p]}


WORDS = {
    "mail/goose/problems.txt": '{% macro roll_alone(rest) %}ROLL takes nothing, got "{{ rest }}"{% endmacro %}\n',
    # a part in text, imported by the HTML section below: it must be escaped there all the same
    "mail/goose/_names.txt": "{% macro who(name) %}{{ name }}{% endmacro %}\n",
    "mail/goose/_turn_extra.txt": "THE GOOSE'S OWN SECTION\n{% for s in view.standings %}{{ s.name }}\n{% endfor %}",
    "mail/goose/_turn_extra.html": ('{% import "mail/goose/_names.txt" as n %}<h3>The goose\'s own section</h3>\n'
                                    "{% for s in view.standings %}<p>{{ n.who(s.name) }}</p>\n{% endfor %}"),
}


def goose_templates(folder: Path, extra: Mapping[str, str] | None = None) -> str:
    """The goose's words written into `folder` (and `extra`, name -> text); its path."""
    for name, text in {**WORDS, **(extra or {})}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return str(folder)


def goose_class(name: str, templates: str) -> type[Goose]:
    """A goose ruleset called `name` reading its words from `templates`."""
    return type(f"Goose_{name}", (Goose,), {"name": name, "templates": templates})


__all__ = ["Goose", "GooseOrder", "GooseState", "Rolled", "goose_class", "goose_templates"]
