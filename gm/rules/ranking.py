"""Competition ranking (docs/rules/<ruleset>.md, Crossing the finish and placings; Winning and
placings): equal scores share the better place and the next place is skipped (1, 2, 2, 4). One
function for every ruleset, and the placing a race gives the pieces still racing when it ends,
by square."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)

__all__ = ["competition_places", "places_by_square", "place_the_rest"]


def competition_places(scores: Mapping[K, Any], *, start: int = 1) -> dict[K, int]:
    """The place of each key by score, lower score first, the first place being `start`."""
    ordered = sorted(scores.values())
    first_index: dict[Any, int] = {}
    for index, score in enumerate(ordered):
        first_index.setdefault(score, index)
    return {key: first_index[score] + start for key, score in scores.items()}


def places_by_square(squares: Mapping[K, int], *, start: int = 1) -> dict[K, int]:
    """The place of each piece by its square, highest first, equal squares sharing the
    better place (competition ranking), the first place being `start`."""
    return competition_places({key: -square for key, square in squares.items()}, start=start)


def place_the_rest(placings: Mapping[K, int | None], squares: Mapping[K, int]) -> dict[K, int]:
    """The placing of each player with none yet (`placings` None), when a race ends before
    they finish: after every player already placed, highest square first, ties shared. In
    the order of `placings`; the players already placed are not in it."""
    racing = {key: squares[key] for key, placing in placings.items() if placing is None}
    return places_by_square(racing, start=len(placings) - len(racing) + 1)
