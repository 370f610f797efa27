"""The board drawn in the terminal (`gm board show`): levels as rows in their real
columns, top level first, every square numbered, snakes and ladders marked."""

from __future__ import annotations

from .board import Board

# one mark per end of an item; the legend under the drawing spells them out
MARKS = {"snake_head": "S", "snake_tail": "s", "ladder_foot": "L", "ladder_top": "l"}


def _marks(board: Board) -> dict[int, str]:
    marks: dict[int, str] = {}
    for head, tail in board.snakes:
        marks[head] = marks.get(head, "") + MARKS["snake_head"]
        marks[tail] = marks.get(tail, "") + MARKS["snake_tail"]
    for foot, top in board.ladders:
        marks[foot] = marks.get(foot, "") + MARKS["ladder_foot"]
        marks[top] = marks.get(top, "") + MARKS["ladder_top"]
    return marks


def render(board: Board, *, title: str | None = None) -> str:
    """A plain-text drawing of the board with a legend listing every snake and ladder."""
    marks = _marks(board)
    digits = len(str(board.squares))
    mark_width = max((len(m) for m in marks.values()), default=0)
    cell = digits + mark_width + 1
    left, right = board.width
    lines = []
    if title:
        lines.append(title)
    lines.append(f"{board.squares} squares, {len(board.levels)} levels"
                 f"{'' if board.serpentine else ', every level left to right'}")
    for level in range(len(board.levels), 0, -1):
        cells = []
        for column in range(left, right + 1):
            square = board.square_at(level, column)
            if square is None:
                cells.append(" " * cell)
            else:
                cells.append(f"{square:>{digits}}{marks.get(square, ''):<{mark_width}} ")
        lines.append(f"{level:>3} | " + "".join(cells).rstrip())
    lines.append("    start: 0, before square 1")
    if board.ladders:
        lines.append("ladders (L foot, l top): " + ", ".join(f"{f}->{t}" for f, t in board.ladders))
    if board.snakes:
        lines.append("snakes (S head, s tail): " + ", ".join(f"{h}->{t}" for h, t in board.snakes))
    if not board.snakes and not board.ladders:
        lines.append("no snakes or ladders")
    return "\n".join(lines)
