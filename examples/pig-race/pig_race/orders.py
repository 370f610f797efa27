"""Pig race's order commands (rules.md, "Your order"): `ROLL <n>` and `HOLD`, one or the
other (gm refuses a message naming both, as the grammar's exclusive group says). Their
refusals are worded in templates/mail/pig/problems.txt."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gm.rules.grammar import Command, CommandProblem, CommandSpec, Grammar, whole_number
from gm.rules.problem import Problem

from .rules import DEFAULTS, PigOrder

__all__ = ["grammar", "merge"]


def _read_roll(args: tuple[str, ...], rest: str, most: int) -> tuple[None, int]:
    if not args:
        raise CommandProblem("roll_needs_dice", most=most)
    value = whole_number(args[0], 1, most) if len(args) == 1 else None
    if value is None:
        raise CommandProblem("roll_not_whole", most=most, value=rest)
    return None, value


def _read_hold(args: tuple[str, ...], rest: str, most: int) -> tuple[None, bool]:
    if args:
        raise CommandProblem("hold_alone", rest=rest)
    return None, True


def grammar(options: Any = None) -> Grammar:
    """ROLL's bound is the campaign's max_dice; the keywords are the same whatever the options."""
    most = (options or DEFAULTS).max_dice
    return Grammar((CommandSpec("ROLL", f"ROLL <1-{most}>", _read_roll), CommandSpec("HOLD", "HOLD", _read_hold)),
                   context=most, exclusive=(("ROLL", "HOLD"),))


def merge(standing: PigOrder, commands: Iterable[Command]) -> tuple[PigOrder, list[Problem]]:
    """The message's ROLL or HOLD replaces the standing one (gm's order reader has refused a
    message naming both)."""
    order = standing
    for command in commands:
        order = PigOrder(roll=command.value) if command.keyword == "ROLL" else PigOrder(hold=True)
    return order, []
