"""The postal game's options (RULES.md 2, CONTRACT's campaign.yaml) and their reading
from campaign.yaml, naming each bad value with its line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...errors import ProblemsError
from ...yamlfile import is_int

SHARED = "*"  # the hand key under `numbers: shared`
FULL_HAND = (1, 2, 3, 4, 5, 6)
CYCLE = 6


@dataclass(frozen=True)
class PostalOptions:
    """RULES.md 2 options with their defaults."""

    numbers: Literal["shared", "per-board"] = "shared"
    trapdoor_threshold: int = 3
    announce_trapdoors: bool = True
    close_after: int | Literal["all"] = 3
    max_turns: int = 200
    nmr: Literal["random", "lowest", "highest"] = "random"
    double_turns: bool = False

    @property
    def per_board(self) -> bool:
        return self.numbers == "per-board"

    def hand(self, board_id: str) -> str:
        """The key of the set of numbers a move on `board_id` draws from."""
        return board_id if self.per_board else SHARED

    def is_double(self, turn: int) -> bool:
        """Turns 5&6, 11&12, ... are one double turn (RULES.md 2.5)."""
        return self.double_turns and turn % CYCLE == 5


def _choice(value: Any, allowed: tuple[str, ...]) -> bool:
    return isinstance(value, str) and value in allowed


def parse_postal_options(raw: Mapping[str, Any]) -> PostalOptions:
    """Options from campaign.yaml; raises ProblemsError naming each bad one with its line."""
    problems = []
    line_of = getattr(raw, "line_of", lambda key: 0)

    def bad(key: str, expected: str) -> None:
        problems.append(f"line {line_of(key)}: option {key} must be {expected}, not {raw[key]!r}")

    checks = {
        "numbers": (lambda v: _choice(v, ("shared", "per-board")), "shared or per-board"),
        "trapdoor_threshold": (lambda v: is_int(v) and v >= 1, "a whole number of at least 1"),
        "announce_trapdoors": (lambda v: isinstance(v, bool), "true or false"),
        "close_after": (lambda v: v == "all" or (is_int(v) and v >= 1), "a whole number of at least 1, or all"),
        "max_turns": (lambda v: is_int(v) and v >= 1, "a whole number of at least 1"),
        "nmr": (lambda v: _choice(v, ("random", "lowest", "highest")), "random, lowest or highest"),
        "double_turns": (lambda v: isinstance(v, bool), "true or false"),
    }
    values = {}
    for key, value in raw.items():
        if key not in checks:
            continue  # the caller reports unknown keys with their lines
        valid, expected = checks[key]
        if valid(value):
            values[key] = value
        else:
            bad(key, expected)
    if problems:
        raise ProblemsError("options", problems)
    return PostalOptions(**values)


OPTION_KEYS = tuple(PostalOptions.__dataclass_fields__)
