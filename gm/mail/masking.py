"""Passwords kept out of what gm shows back of an order mail: the mask that stands for one,
the lines that may hold one, and every password a message gave hidden wherever else it
appears."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

MASK = "********"

# What the ready orders and help in our mails write on the PASSWORD line for the player to
# replace (templates/mail/_turn.txt, _order.txt, _links.txt)
PASSWORD_PLACEHOLDERS = frozenset({"(your password)", "<your password>"})
# A line that may hold a password even though it is no PASSWORD command ("Password=x").
PASSWORDISH = re.compile(r"(?:pass(?:word|wort|wd)?|pwd?)", re.IGNORECASE)


def masked(line: str) -> str:
    """The line with everything after a password keyword hidden."""
    match = PASSWORDISH.match(line)
    return (line[: match.end()] + " " + MASK) if match else MASK


def shown(line: str) -> str:
    """A line fit to be listed back: one that may hold a password is masked."""
    return masked(line) if PASSWORDISH.match(line) else line


def hider(secrets: Iterable[str]) -> Callable[[str], str]:
    """A function that hides each of `secrets` in a text, the longest first (so no part of
    a longer password is left showing when a shorter one is inside it)."""
    ordered = sorted(set(secrets), key=len, reverse=True)

    def hide(value: str) -> str:
        for secret in ordered:
            value = value.replace(secret, MASK)
        return value

    return hide
