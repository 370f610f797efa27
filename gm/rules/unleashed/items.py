"""Snakes, ladders and lampposts on the Unleashed board (docs/rules/unleashed.md, The board; Items:
snakes, ladders and lampposts; Setup): where a square lies, each item's reach, the Ends rule, the
mix, and every legal placement."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "BOX",
    "KINDS",
    "Grid",
    "default_mix",
    "ends_ok",
    "ends_ok_with",
    "fits_reach",
    "item_kind",
    "is_long",
    "oriented",
]

# The box (6.3), in the order default picks list them
BOX = ("S1", "S2", "S3", "S4", "S5", "S6", "L1", "L2", "L3", "L4", "L5", "L6", "P1", "P2")
KINDS = {"S": "snake", "L": "ladder", "P": "lamppost"}
MIX_KEYS = {"snakes": "S", "ladders": "L", "lampposts": "P"}
MIX_MOST = {"S": 6, "L": 6, "P": 2}

# 6.4: pieces shared 4 : 4 : 1 by largest remainder (ties to lampposts, then snakes, then
# ladders), as the rules tabulate it: pieces -> (snakes, ladders, lampposts)
DEFAULT_MIX = {
    0: (0, 0, 0), 1: (1, 0, 0), 2: (1, 1, 0), 3: (1, 1, 1), 4: (2, 2, 0), 5: (2, 2, 1), 6: (3, 2, 1),
    7: (3, 3, 1), 8: (4, 3, 1), 9: (4, 4, 1), 10: (5, 4, 1), 11: (5, 5, 1), 12: (5, 5, 2),
    13: (6, 6, 1), 14: (6, 6, 2),
}


def item_kind(item: str) -> str:
    """`S`, `L` or `P`."""
    return item[0]


def is_long(item: str) -> bool:
    return item in ("S4", "S5", "S6", "L4", "L5", "L6", "P2")


def default_mix(pieces: int) -> dict[str, int]:
    snakes, ladders, lampposts = DEFAULT_MIX[pieces]
    return {"S": snakes, "L": ladders, "P": lampposts}


@dataclass(frozen=True)
class Grid:
    """A rectangle of `rows` levels of `columns` squares, serpentine (6.1)."""

    rows: int
    columns: int

    @property
    def squares(self) -> int:
        return self.rows * self.columns

    def level(self, square: int) -> int:
        return (square - 1) // self.columns + 1

    def column(self, square: int) -> int:
        index = (square - 1) % self.columns
        return index if self.level(square) % 2 else self.columns - 1 - index

    def on_board(self, square: int) -> bool:
        return 1 <= square <= self.squares


def oriented(grid: Grid, a: int, b: int) -> tuple[int, int]:
    """(lower end, upper end) of two squares: the levels orient the item (6.3)."""
    return (a, b) if grid.level(a) <= grid.level(b) else (b, a)


def fits_reach(grid: Grid, item: str, a: int, b: int) -> bool:
    """Whether squares a and b (either order, both on the board) fit the item's reach."""
    if not (grid.on_board(a) and grid.on_board(b)):
        return False
    span = 2 if is_long(item) else 1
    return (abs(grid.level(a) - grid.level(b)) == span
            and abs(grid.column(a) - grid.column(b)) <= span)


def ends_ok(items: Mapping[str, Sequence[int]]) -> bool:
    """Ends (6.3): a square holds at most one upper and one lower end, and when it holds
    both the two items are of the same kind."""
    lower: dict[int, str] = {}
    upper: dict[int, str] = {}
    for item, (low, high) in items.items():
        if low in lower or high in upper:
            return False
        lower[low], upper[high] = item, item
    return all(item_kind(upper[square]) == item_kind(item)
               for square, item in lower.items() if square in upper)


def ends_ok_with(items: Mapping[str, Sequence[int]], placed: Mapping[str, Sequence[int]]) -> bool:
    """Ends (6.3) once `placed` (item -> (lower, upper)) is set among the items in play,
    each placed item lifted from where it was first."""
    return ends_ok({**items, **placed})


def placements(grid: Grid, item: str) -> Iterator[tuple[int, int]]:
    """Every (lower, upper) within the item's reach, lower then upper ascending."""
    span = 2 if is_long(item) else 1
    for low in range(1, grid.squares + 1):
        level = grid.level(low)
        if level + span > grid.rows:
            break
        column = grid.column(low)
        uppers = []
        for high_column in range(max(0, column - span), min(grid.columns - 1, column + span) + 1):
            first = (level + span - 1) * grid.columns + 1
            index = high_column if (level + span) % 2 else grid.columns - 1 - high_column
            uppers.append(first + index)
        for high in sorted(uppers):
            yield low, high
