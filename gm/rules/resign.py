"""RESIGN, the command a game lends from gm when its players may leave the race: `RESIGN`
resigns, `RESIGN NONE` withdraws it before the deadline (docs/plugins.md, "What gm lends
a game"). Its refusals are worded in gm's templates/mail/problems.txt, so a game needs no
words of its own for them (it may reword them in its own problems.txt).

The command sets the order's field `resign` (True, or False for NONE) through the default
merge; the game's resolve takes the player out of the race, and its standings say
`PlayerStanding(resigned=True)`, which takes them out of play (`in_play`)."""

from __future__ import annotations

from typing import Any

from .commands import CommandProblem, CommandSpec
from .problem import Problem, problem

__all__ = ["RESIGN", "read_resign", "resign_problems"]


def read_resign(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, bool]:
    """`RESIGN` resigns (True); `RESIGN NONE` withdraws it (False)."""
    if not args:
        return None, True
    if len(args) == 1 and args[0].upper() == "NONE":
        return None, False
    raise CommandProblem("resign_form", rest=rest)


# a grammar lists it beside its own commands: Grammar((CommandSpec("ROLL", ...), RESIGN))
RESIGN = CommandSpec("RESIGN", "RESIGN [NONE]", read_resign)


def resign_problems(order: Any, in_play: bool) -> list[Problem]:
    """Why a standing RESIGN cannot be played: its player is no longer in play (finished
    or resigned already). For a game's `order_problems`."""
    return [problem("resign_not_in_play")] if getattr(order, "resign", False) and not in_play else []
