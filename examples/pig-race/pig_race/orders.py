"""Pig race's order commands (rules.md, "Order mail"): `ROLL <n>` and `HOLD`, one or the
other: the grammar's exclusive group, so gm refuses a message naming both, and its default
merge lets a new ROLL replace a standing HOLD and the other way round. Their refusals are
worded in templates/mail/pig/problems.txt."""

from __future__ import annotations

from typing import Any

from gm.rules.grammar import CommandProblem, CommandSpec, Grammar, whole_number

from .rules import DEFAULTS

__all__ = ["grammar"]


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
