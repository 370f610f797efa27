"""A board drawn as SVG: the one drawing shared by `gm board draw` and the HTML archive.

The picture is standalone and self-contained (no ids, styles, fonts or links outside it,
so several can sit in one page without clashing), every text escaped, and sized by a
viewBox so that it scales down to a 390-px phone screen and stays readable."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape

from .model import Board

CELL = 48  # px per square: numbers at 14 px stay above 10 px at phone width
MARGIN = 10
TITLE_HEIGHT = 30
FOOT_HEIGHT = 26
COLOURS = {
    "light": "#fdf6e3",
    "dark": "#efe3c2",
    "grid": "#b9a57a",
    "number": "#3b3324",
    "ladder": "#2f7d32",
    "snake": "#c0392b",
    "mark": "#4a2a6b",
}


def isolated(text: str) -> str:
    """`text` between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: the plain-text form
    of HTML's <bdi>, for where no markup can go (SVG <title> and <text>, an HTML <title>).
    The text takes its direction from its own first letter, and a bidi control in it (say
    U+202E RIGHT-TO-LEFT OVERRIDE) ends at the PDI instead of reversing what follows (UAX #9).
    Chosen over stripping the controls, which would alter the name, and over SVG's
    unicode-bidi, which no <title> tooltip honours."""
    return f"\u2068{text}\u2069"


def _f(value: float) -> str:
    """Coordinates to two decimals at most: small files, identical output on every run."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _arrow(tip: tuple[float, float], back: tuple[float, float], colour: str, size: float = 11) -> str:
    """A filled arrowhead at `tip`, pointing away from `back`. Drawn as a polygon, not a
    marker, because a marker needs an id, and ids clash when the archive shows many boards."""
    dx, dy = tip[0] - back[0], tip[1] - back[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    left = (tip[0] - size * ux - size * 0.55 * uy, tip[1] - size * uy + size * 0.55 * ux)
    right = (tip[0] - size * ux + size * 0.55 * uy, tip[1] - size * uy - size * 0.55 * ux)
    points = " ".join(f"{_f(x)},{_f(y)}" for x, y in (tip, left, right))
    return f'<polygon points="{points}" fill="{colour}"/>'


class _Frame:
    """Where each square's cell lies in the picture: levels as rows in their real columns,
    level 1 at the bottom."""

    def __init__(self, board: Board, title: str | None):
        self.board = board
        self.left, right = board.width
        self.columns = right - self.left + 1
        self.top = MARGIN + (TITLE_HEIGHT if title else 0)
        self.width = 2 * MARGIN + self.columns * CELL
        self.height = self.top + len(board.levels) * CELL + FOOT_HEIGHT + MARGIN

    def corner(self, square: int) -> tuple[float, float]:
        level, column = self.board.level_of(square), self.board.column_of(square)
        x = MARGIN + (column - self.left) * CELL
        y = self.top + (len(self.board.levels) - level) * CELL
        return x, y

    def centre(self, square: int) -> tuple[float, float]:
        x, y = self.corner(square)
        return x + CELL / 2, y + CELL / 2


def _ladder(frame: _Frame, foot: int, top: int) -> str:
    (x1, y1), (x2, y2) = frame.centre(foot), frame.centre(top)
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * 6, dx / length * 6  # half the ladder's width, across it
    colour = COLOURS["ladder"]
    parts = [f'<g stroke="{colour}" stroke-width="3" stroke-linecap="round">']
    for side in (1, -1):
        parts.append(f'<line x1="{_f(x1 + side * nx)}" y1="{_f(y1 + side * ny)}" '
                     f'x2="{_f(x2 + side * nx)}" y2="{_f(y2 + side * ny)}"/>')
    rungs = max(1, int(length // 18))
    for i in range(1, rungs + 1):
        t = i / (rungs + 1)
        cx, cy = x1 + t * dx, y1 + t * dy
        parts.append(f'<line x1="{_f(cx + nx)}" y1="{_f(cy + ny)}" x2="{_f(cx - nx)}" '
                     f'y2="{_f(cy - ny)}" stroke-width="2"/>')
    parts.append("</g>")
    parts.append(_arrow((x2, y2), (x1, y1), colour))
    return (f'<g class="ladder"><title>ladder {foot} to {top}</title>'
            + "".join(parts) + "</g>")


def _snake(frame: _Frame, head: int, tail: int) -> str:
    (x1, y1), (x2, y2) = frame.centre(head), frame.centre(tail)
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    # an S-bend: the two control points pushed to opposite sides of the straight line
    bend = min(CELL * 0.9, length / 3)
    nx, ny = -dy / length * bend, dx / length * bend
    c1 = (x1 + dx / 3 + nx, y1 + dy / 3 + ny)
    c2 = (x1 + 2 * dx / 3 - nx, y1 + 2 * dy / 3 - ny)
    colour = COLOURS["snake"]
    path = (f"M{_f(x1)},{_f(y1)} C{_f(c1[0])},{_f(c1[1])} {_f(c2[0])},{_f(c2[1])} "
            f"{_f(x2)},{_f(y2)}")
    return (f'<g class="snake"><title>snake {head} to {tail}</title>'
            f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="5" '
            f'stroke-linecap="round" stroke-opacity="0.85"/>'
            f'<circle cx="{_f(x1)}" cy="{_f(y1)}" r="6" fill="{colour}"/>'
            + _arrow((x2, y2), c2, colour) + "</g>")


@dataclass(frozen=True)
class Mark:
    """A square a ruleset marks on the drawing (a square that sends pieces down): `kind` is the
    word its title and the summary say, and its CSS class; `colour` its frame's."""

    square: int
    kind: str = "mark"
    colour: str = COLOURS["mark"]


def _mark(frame: _Frame, mark: Mark) -> str:
    x, y = frame.corner(mark.square)
    kind, colour = escape(mark.kind), mark.colour
    # a dashed frame and a downward triangle: "this square sends you down"
    triangle = " ".join(f"{_f(px)},{_f(py)}" for px, py in (
        (x + CELL - 18, y + CELL - 16), (x + CELL - 6, y + CELL - 16), (x + CELL - 12, y + CELL - 6)))
    return (f'<g class="{kind}"><title>{kind} on {mark.square}</title>'
            f'<rect x="{_f(x + 3)}" y="{_f(y + 3)}" width="{CELL - 6}" height="{CELL - 6}" '
            f'fill="none" stroke="{colour}" stroke-width="3" stroke-dasharray="6 3"/>'
            f'<polygon points="{triangle}" fill="{colour}"/></g>')


def board_svg(board: Board, *, marks: Iterable[Mark] = (), title: str | None = None) -> str:
    """The board as a standalone `<svg>` document fragment: squares numbered in their real
    columns, ladders (green, arrow at the top) and snakes (red, head dot, arrow at the
    tail), and marked squares framed and marked with a downward triangle."""
    frame = _Frame(board, title)
    marked = sorted({m for m in marks if 1 <= m.square <= board.squares}, key=lambda m: (m.kind, m.square))
    label = title if title is not None else (board.name or f"{board.squares}-square board")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {frame.width} {frame.height}" '
        f'width="{frame.width}" height="{frame.height}" role="img" '
        f'style="max-width:100%;height:auto" font-family="Helvetica, Arial, sans-serif">',
        f"<title>{escape(isolated(label))}</title>",
        f'<rect width="{frame.width}" height="{frame.height}" fill="#ffffff"/>',
    ]
    if title:
        out.append(f'<text x="{frame.width / 2:g}" y="{MARGIN + 18}" text-anchor="middle" '
                   f'font-size="18" font-weight="bold" fill="{COLOURS["number"]}">'
                   f"{escape(isolated(title))}</text>")
    cells, numbers = [], []
    for square in range(1, board.squares + 1):
        x, y = frame.corner(square)
        shade = "light" if (board.level_of(square) + board.column_of(square)) % 2 else "dark"
        cells.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{CELL}" height="{CELL}" '
                     f'fill="{COLOURS[shade]}" stroke="{COLOURS["grid"]}"/>')
        numbers.append(f'<text x="{_f(x + 4)}" y="{_f(y + 15)}">{square}</text>')
    out.append('<g class="squares">' + "".join(cells) + "</g>")
    out += [_mark(frame, m) for m in marked]
    out += [_ladder(frame, foot, top) for foot, top in board.ladders]
    out += [_snake(frame, head, tail) for head, tail in board.snakes]
    # numbers last, haloed in white, so no snake or ladder hides one
    out.append(f'<g class="numbers" font-size="14" fill="{COLOURS["number"]}" stroke="#ffffff" '
               f'stroke-width="3" paint-order="stroke">' + "".join(numbers) + "</g>")
    foot_y = frame.top + len(board.levels) * CELL + 18
    summary = (f"Start is before square 1 · {board.squares} squares · "
               f"{len(board.ladders)} ladders · {len(board.snakes)} snakes"
               + "".join(f" · {kind}{'s' if len(squares) > 1 else ''} {', '.join(map(str, squares))}"
                         for kind, squares in _by_kind(marked).items()))
    out.append(f'<text x="{MARGIN}" y="{foot_y}" font-size="13" fill="{COLOURS["number"]}">'
               f"{escape(summary)}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _by_kind(marks: list[Mark]) -> dict[str, list[int]]:
    kinds: dict[str, list[int]] = {}
    for mark in marks:
        kinds.setdefault(mark.kind, []).append(mark.square)
    return kinds
