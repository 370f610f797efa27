"""The advanced game's order commands (docs/rules/advanced.md, Commands): `MOVE`, `BUILD SNAKE
<square>` and `BUILD LADDER <square>`, one action per turn, and how an accepted message changes the
standing order (it replaces the action). Whether the action can be played from the player's square
is `Advanced.order_problems`, judged with the state at hand."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...boards.board import START
from ..geometry import steps
from ..grammar import Command, CommandProblem, CommandSpec, Grammar, whole_number
from ..problem import Problem, problem
from .building import item_ends
from .state import AdvancedOrder, AdvancedState

if TYPE_CHECKING:
    from ..roles.core import Setup

__all__ = ["FORMS", "advanced_grammar", "merge", "order_problems"]

FORMS = {"MOVE": "MOVE", "BUILD": "BUILD SNAKE|LADDER <square>"}
ITEMS = ("snake", "ladder")


def _read_move(args: tuple[str, ...], rest: str, context: object) -> tuple[None, tuple[str]]:
    if args:
        raise CommandProblem("move_takes_nothing", rest=rest)
    return None, ("move",)


def _read_build(args: tuple[str, ...], rest: str, context: object) -> tuple[None, tuple[str, str, int]]:
    # `BUILD snake: 12` reads naturally; the colon is not part of the word
    words = [word.rstrip(":") for word in args if word.rstrip(":")]
    item = words[0].lower() if words else None
    if item not in ITEMS:
        raise CommandProblem("build_needs_item", rest=rest)
    if len(words) == 1:
        raise CommandProblem("build_needs_square", item=item, rest=rest)
    if len(words) > 2:
        raise CommandProblem("build_too_many", item=item, rest=rest)
    square = whole_number(words[1], 0)
    if square is None:
        raise CommandProblem("build_square_not_whole", item=item, value=words[1])
    return None, ("build", item, square)


def advanced_grammar() -> Grammar:
    """MOVE and BUILD. Both are read as lists (every line kept), so that `merge` sees a
    second action however it is written and refuses the message (one action per turn)."""
    return Grammar(commands=(
        CommandSpec("MOVE", FORMS["MOVE"], _read_move, repeatable=True),
        CommandSpec("BUILD", FORMS["BUILD"], _read_build, repeatable=True),
    ))


def merge(standing: AdvancedOrder, commands: Iterable[Command]) -> tuple[AdvancedOrder, list[Problem]]:
    """The action a message names replaces the standing one (docs/rules/advanced.md, Commands); a
    message naming two actions is refused whole, on the line of each action after the first."""
    actions = [c for c in commands if c.keyword in ("MOVE", "BUILD")]
    if not actions:
        return standing, []
    first = actions[0]
    if len(actions) > 1:
        return standing, [
            problem("two_actions", line=c.line, first_line=first.line, first_text=first.text, text=c.text)
            for c in actions[1:]
        ]
    value = first.value
    if value[0] == "move":
        return AdvancedOrder("move"), []
    return AdvancedOrder("build", value[1], value[2]), []


def order_problems(setup: Setup, state: AdvancedState, player: str,
                   order: AdvancedOrder) -> list[Problem]:
    """docs/rules/advanced.md, Commands, refused on receipt: any order from a player in End; a build
    from Start, to a square outside 1..s-1, from or to a square holding an item end, or to a square
    further than half the die's size (beyond any throw)."""
    if order.action is None:
        return []
    if state.ended[player]:
        return [problem("in_end")]
    if order.action != "build":
        return []
    board = next(iter(setup.boards.values()))
    start, target = state.squares[player], order.target
    assert target is not None
    if start == START:
        return [problem("build_from_start", item=order.item, target=target)]
    ends = item_ends(board, state.built)
    problems = []
    if start in ends:
        item, end = ends[start]
        problems.append(problem("own_square_taken", square=start, item=item, end=end))
    if not 1 <= target < start:
        problems.append(problem("target_not_below", item=order.item, target=target, square=start))
        return problems
    if target in ends:
        item, end = ends[target]
        problems.append(problem("target_taken", target=target, item=item, end=end))
    die = state.dice[player]
    most = die // 2
    if steps(board, start, target, limit=most) is None:
        problems.append(problem("too_far", target=target, square=start, die=die, most=most,
                                steps=steps(board, start, target)))
    return problems
