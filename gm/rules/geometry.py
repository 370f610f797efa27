"""Board geometry shared by rulesets and board tools: which squares share an edge, and how many edge
steps lie between two squares (the levels and columns of docs/rules/<ruleset>.md, The board; the
distance of a build, docs/rules/advanced.md, Building).

Two squares of 1..N share an edge when they lie on the same level in columns differing
by 1, or on adjacent levels in the same column. Numbering plays no part: on a serpentine
board 10 and 11 share an edge because they stand one above the other, and on a staggered
board (offsets) two squares whose numbers follow each other may not. Start and End are
no squares and take no part.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..boards.model import Board

__all__ = ["neighbours", "steps", "within"]


def neighbours(board: Board, square: int) -> Iterator[int]:
    """The squares sharing an edge with `square`: left, right, below, above (those that
    exist)."""
    level, column = board.level_of(square), board.column_of(square)
    for at in ((level, column - 1), (level, column + 1), (level - 1, column), (level + 1, column)):
        other = board.square_at(*at)
        if other is not None:
            yield other


def within(board: Board, square: int, limit: int) -> dict[int, int]:
    """Every square at most `limit` edge steps from `square`, with its distance (the
    square itself at 0): a breadth-first search that stops at `limit`, so its cost is the
    size of that neighbourhood, never the board's."""
    found = {square: 0}
    frontier = [square]
    for distance in range(1, limit + 1):
        reached = []
        for here in frontier:
            for there in neighbours(board, here):
                if there not in found:
                    found[there] = distance
                    reached.append(there)
        if not reached:
            break
        frontier = reached
    return found


def steps(board: Board, start: int, end: int, limit: int | None = None) -> int | None:
    """The fewest edge steps from `start` to `end` (both squares of 1..N); None when `end`
    cannot be reached, or not within `limit` steps when a limit is given."""
    if start == end:
        return 0
    seen = {start}
    frontier = [start]
    distance = 0
    while frontier and (limit is None or distance < limit):
        distance += 1
        reached = []
        for here in frontier:
            for there in neighbours(board, here):
                if there == end:
                    return distance
                if there not in seen:
                    seen.add(there)
                    reached.append(there)
        frontier = reached
    return None
