"""Counts in the GM's own output: the lines `gm turn`, `gm status`, `gm start` and the other
commands print, and the one-line refusals of GM commands. "1 player", "2 players", never
"1 players". (Every word a player reads is in templates/, which count for themselves.)"""

from __future__ import annotations

__all__ = ["count", "one_or_many", "ordinal"]


def one_or_many(n: int, one: str, many: str) -> str:
    """`one` when n is 1, else `many`: for the verb or noun that follows a count."""
    return one if n == 1 else many


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and its noun in agreement: count(1, "player") is "1 player", count(3, "reply",
    "replies") "3 replies". The plural is the noun and an s unless given."""
    return f"{n} {one_or_many(n, noun, plural or noun + 's')}"


def ordinal(n: int | None) -> str:
    """1st, 2nd, 3rd, 11th, 21st; "-" for no number (a place not yet won): the templates'
    `ordinal` filter, for mail and the archive alike."""
    if n is None:
        return "-"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
