"""The dice and the building rules of docs/rules/advanced.md: which die a setup throw gives, which
throw builds a player's next item, where every snake and ladder is, and why a build fails."""

from __future__ import annotations

from collections.abc import Iterable

from ...boards.model import Board
from ..geometry import steps
from .events import Built

# docs/rules/advanced.md, Setup: dice and order of play: the d6 throw that gives each player their
# die
DIE_FOR_THROW = {1: 6, 2: 6, 3: 6, 4: 8, 5: 8, 6: 12}


REASONS = ("roll", "lower", "own-square", "target", "distance")


def die_for(throw: int) -> int:
    """The die a setup throw of a d6 gives (docs/rules/advanced.md)."""
    return DIE_FOR_THROW[throw]


def least_successful_face(size: int, construction: int) -> int:
    """The least throw of a d`size` that builds the player's `construction`th item: the build
    succeeds when 6r > size * (min(k, 4) + 1) (docs/rules/advanced.md)."""
    return size * (min(construction, 4) + 1) // 6 + 1


def items(board: Board, built: Iterable[Built]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Every snake as (head, tail) and ladder as (foot, top), board file and built, sorted."""
    snakes = list(board.snakes)
    ladders = list(board.ladders)
    for b in built:
        if b.item == "snake":
            snakes.append((b.start, b.target))
        else:
            ladders.append((b.target, b.start))
    return sorted(snakes), sorted(ladders)


def item_ends(board: Board, built: Iterable[Built]) -> dict[int, tuple[str, str]]:
    """Square -> (item, end) for every end of every item: head, tail, foot, top."""
    snakes, ladders = items(board, built)
    ends: dict[int, tuple[str, str]] = {}
    for head, tail in snakes:
        ends[head], ends[tail] = ("snake", "head"), ("snake", "tail")
    for foot, top in ladders:
        ends[foot], ends[top] = ("ladder", "foot"), ("ladder", "top")
    return ends


def jumps(board: Board, built: Iterable[Built]) -> dict[int, int]:
    snakes, ladders = items(board, built)
    return dict(snakes) | dict(ladders)


def build_reason(board: Board, built: Iterable[Built], die: int, construction: int,
                 start: int, target: int, roll: int) -> str | None:
    """The first check of docs/rules/advanced.md that a build fails, in its order, or None when the
    item is built: roll, lower, own-square, target, distance."""
    if 6 * roll <= die * (min(construction, 4) + 1):
        return "roll"
    if not 1 <= target < start:
        return "lower"
    ends = item_ends(board, built)
    if start in ends:
        return "own-square"
    if target in ends:
        return "target"
    reach = roll // 2
    if steps(board, start, target, limit=reach) is None:
        return "distance"
    return None
