"""The order commands of classic and doubles (docs/rules/classic.md, Commands): `RESIGN`, and
`RESIGN NONE`, which withdraws it. Their words are in templates/mail/dice/problems.txt."""

from __future__ import annotations

from ..grammar import Grammar
from ..resign import RESIGN

__all__ = ["dice_grammar"]


def dice_grammar() -> Grammar:
    return Grammar((RESIGN,))
