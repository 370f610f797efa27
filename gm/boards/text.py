"""The board drawn as text: levels as rows in their real columns, top level first, every
square numbered, snakes and ladders marked. `gm board show` prints it (`render`); the
advanced game's mail draws the same rows (`draw`) with its pieces marked beside the
items, whole or around one square (`Window`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .model import Board

__all__ = ["MARKS", "Window", "draw", "item_marks", "render", "rows"]

# one mark per end of an item; the legend under the drawing spells them out
MARKS = {"snake_head": "S", "snake_tail": "s", "ladder_foot": "L", "ladder_top": "l"}


@dataclass(frozen=True)
class Window:
    """The part of a board drawn: levels `low..high` (inclusive), columns likewise."""

    levels: tuple[int, int]
    columns: tuple[int, int]

    @classmethod
    def whole(cls, board: Board) -> Window:
        return cls((1, len(board.levels)), board.width)

    @classmethod
    def around(cls, board: Board, square: int, reach: int) -> Window:
        """Every square at most `reach` edge steps from `square` lies in this window: each
        step changes the level or the column by one, so no shorter path leaves it either."""
        level, column = board.level_of(square), board.column_of(square)
        left, right = board.width
        return cls((max(1, level - reach), min(len(board.levels), level + reach)),
                   (max(left, column - reach), min(right, column + reach)))


def item_marks(board: Board) -> dict[int, str]:
    """Square -> the marks of the item ends on it (MARKS)."""
    marks: dict[int, str] = {}
    for head, tail in board.snakes:
        marks[head] = marks.get(head, "") + MARKS["snake_head"]
        marks[tail] = marks.get(tail, "") + MARKS["snake_tail"]
    for foot, top in board.ladders:
        marks[foot] = marks.get(foot, "") + MARKS["ladder_foot"]
        marks[top] = marks.get(top, "") + MARKS["ladder_top"]
    return marks


_marks = item_marks  # the name this module's callers knew


def rows(board: Board, window: Window | None = None) -> list[tuple[int, tuple[int | None, ...]]]:
    """Each level of the window, top first: (level, the square in each column of the
    window, None where that level has no square)."""
    window = window or Window.whole(board)
    (low, high), (left, right) = window.levels, window.columns
    return [(level, tuple(board.square_at(level, column) for column in range(left, right + 1)))
            for level in range(high, low - 1, -1)]


def draw(board: Board, marks: Mapping[int, str], window: Window | None = None) -> list[str]:
    """One line per level, top first: the level's number, then each square's number and
    marks in its column, every cell one width so that columns line up (in a fixed-width
    font). Squares one above the other are drawn one above the other."""
    digits = len(str(board.squares))
    mark_width = max((len(m) for m in marks.values()), default=0)
    cell = digits + mark_width + 1
    lines = []
    for level, squares in rows(board, window):
        cells = [" " * cell if square is None else f"{square:>{digits}}{marks.get(square, ''):<{mark_width}} "
                 for square in squares]
        lines.append(f"{level:>3} | " + "".join(cells).rstrip())
    return lines


def render(board: Board, *, title: str | None = None) -> str:
    """A plain-text drawing of the board with a legend listing every snake and ladder."""
    lines = []
    if title:
        lines.append(title)
    lines.append(f"{board.squares} squares, {len(board.levels)} levels"
                 f"{'' if board.serpentine else ', every level left to right'}")
    lines += draw(board, item_marks(board))
    lines.append("    start: 0, before square 1")
    if board.ladders:
        lines.append("ladders (L foot, l top): " + ", ".join(f"{f}->{t}" for f, t in board.ladders))
    if board.snakes:
        lines.append("snakes (S head, s tail): " + ", ".join(f"{h}->{t}" for h, t in board.snakes))
    if not board.snakes and not board.ladders:
        lines.append("no snakes or ladders")
    return "\n".join(lines)
