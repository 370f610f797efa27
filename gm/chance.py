"""Every random choice of a campaign (RULES.md 5).

A choice is a pure function of the seed and what is being chosen, so a turn replays
exactly, the GM can preview without saving, and anyone holding the revealed seed can
recompute every pick with one line of any language.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def pick_index(seed: int, turn: int, kind: str, key: str, n: int) -> int:
    """`int(sha256(f"{seed}:{turn}:{kind}:{key}").hexdigest(), 16) % n`."""
    if n < 1:
        raise ValueError("a choice needs at least one candidate")
    digest = hashlib.sha256(f"{int(seed)}:{turn}:{kind}:{key}".encode()).hexdigest()
    return int(digest, 16) % n


@dataclass(frozen=True)
class Chance:
    """The campaign's seeded chooser."""

    seed: int

    def pick(self, turn: int, kind: str, key: str, candidates: Sequence[T]) -> T:
        """One of `candidates`, which the caller lists in the order RULES.md 5 states."""
        return candidates[pick_index(self.seed, turn, kind, key, len(candidates))]
