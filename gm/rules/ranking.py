"""Competition ranking (docs/rules/<ruleset>.md, Crossing the finish and placings; Winning and
placings): equal scores share the better place and the next place is skipped (1, 2, 2, 4). One
function for every ruleset."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)

__all__ = ["competition_places"]


def competition_places(scores: Mapping[K, Any], *, start: int = 1) -> dict[K, int]:
    """The place of each key by score, lower score first, the first place being `start`."""
    ordered = sorted(scores.values())
    first_index: dict[Any, int] = {}
    for index, score in enumerate(ordered):
        first_index.setdefault(score, index)
    return {key: first_index[score] + start for key, score in scores.items()}
