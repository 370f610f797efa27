"""The order commands of classic and doubles (docs/rules/classic.md, Commands): `RESIGN`, and
`RESIGN NONE`, which withdraws it. Their words are in templates/mail/dice/problems.txt."""

from __future__ import annotations

from typing import Any

from ..grammar import CommandProblem, CommandSpec, Grammar

__all__ = ["dice_grammar"]


def _read_resign(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, bool]:
    """`RESIGN` resigns (True); `RESIGN NONE` withdraws it (False)."""
    if not args:
        return None, True
    if len(args) == 1 and args[0].upper() == "NONE":
        return None, False
    raise CommandProblem("resign_form", rest=rest)


def dice_grammar() -> Grammar:
    return Grammar((CommandSpec("RESIGN", "RESIGN [NONE]", _read_resign),))
