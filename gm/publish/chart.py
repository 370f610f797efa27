"""The race chart of one board: each player's square after every turn, as numbers ready
for `templates/archive/_chart.html` to draw as inline SVG. Pure geometry, no words.

Every point is drawn exactly where its square is: a finished piece's line ends on the
finish line, and pieces on the same square share a height. Lines that run together stay
apart by width instead: the first player's line is the widest and is drawn first, each
later one narrower on top of it, so equal paths show as nested bands of their colours,
and each line ends in a marker of its own shape (repeated in the legend)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Eight colours told apart by most colour-blind readers (Okabe-Ito, darkened for white),
# then dash patterns, so even a ninth player has a line of their own.
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#8a6d00", "#56b4e9", "#000000", "#7f3c8d")
DASHES = ("", "6 3", "2 3", "8 3 2 3")

WIDTH = 360
HEIGHT = 220
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 12, 26
MARKERS = ("circle", "square", "triangle", "diamond")
THINNEST, WIDEST = 1.8, 9.0  # stroke widths of the last and the first player's line


@dataclass(frozen=True)
class Line:
    player: str
    name: str
    colour: str
    dash: str
    points: str  # "x,y x,y ..." for <polyline>
    last_x: float
    last_y: float
    finished: bool
    width: float  # stroke width: earlier players' lines are wider and drawn beneath
    marker: str  # one of MARKERS
    marker_path: str  # the marker at the line's last point, an SVG path
    legend_path: str  # the same marker in a 14 x 14 box, for the legend


@dataclass(frozen=True)
class Tick:
    value: int
    at: float


@dataclass(frozen=True)
class Chart:
    board: str
    squares: int
    width: int
    height: int
    left: int
    right: float
    top: int
    bottom: float
    finish_y: float
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    lines: tuple[Line, ...]
    # a crowded campaign's field behind its leaders' lines (archive.charts): the range of
    # every piece's square after each turn, as an SVG polygon, and its median, a polyline
    field_range: str | None = None
    field_median: str | None = None


@dataclass(frozen=True)
class FieldAt:
    """Where the whole field stands after one turn: its lowest, median and highest square
    (the finish line, one above the last square, for a finished piece)."""

    lowest: int
    median: int
    highest: int


@dataclass(frozen=True)
class Series:
    player: str
    name: str
    squares: tuple[int, ...]  # square after turn 0 (Start), 1, 2, ...
    finished_from: int | None  # the first index at which the piece has crossed


def _ticks(top: int, count: int) -> tuple[int, ...]:
    """About `count` round steps from 0 to `top`."""
    if top <= 0:
        return (0,)
    raw = top / count
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10**9) if s >= raw)
    return tuple(range(0, top + 1, step))


def marker_path(shape: str, cx: float, cy: float, r: float) -> str:
    """An SVG path of `shape` centred on (cx, cy), about `r` from centre to edge."""
    def pt(x: float, y: float) -> str:
        return f"{round(cx + x, 1):g},{round(cy + y, 1):g}"

    if shape == "square":
        k = r * 0.85
        corners = ((-k, -k), (k, -k), (k, k), (-k, k))
    elif shape == "triangle":
        corners = ((0, -r * 1.1), (r, r * 0.8), (-r, r * 0.8))
    elif shape == "diamond":
        corners = ((0, -r * 1.2), (r * 1.2, 0), (0, r * 1.2), (-r * 1.2, 0))
    else:  # a circle as two arcs, so every marker is one <path>
        return f"M{pt(-r, 0)}A{r:g},{r:g} 0 1,0 {pt(r, 0)}A{r:g},{r:g} 0 1,0 {pt(-r, 0)}Z"
    return "M" + "L".join(pt(x, y) for x, y in corners) + "Z"


def race_chart(board: str, squares: int, series: Sequence[Series],
               field: Sequence[FieldAt] | None = None) -> Chart:
    """Squares on the y axis (Start at the bottom, the finish line above N), turns on x;
    `field`, when given, from turn 0 (Start) on."""
    turns = max((len(s.squares) - 1 for s in series), default=0)
    if field:
        turns = max(turns, len(field) - 1)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    span_y = squares + 1  # one band above N for "finished"

    def x(turn: int) -> float:
        return round(LEFT + plot_w * (turn / turns if turns else 0), 1)

    def y(square: int) -> float:
        return round(TOP + plot_h * (1 - square / span_y), 1)

    lines = []
    step = min(1.4, (WIDEST - THINNEST) / (len(series) - 1)) if len(series) > 1 else 0
    for index, s in enumerate(series):
        points = []
        for turn, square in enumerate(s.squares):
            crossed = s.finished_from is not None and turn >= s.finished_from
            points.append((x(turn), y(squares + 1 if crossed else square)))
            if crossed:
                break  # a finished piece never moves again: its line ends at the finish
        width = round(THINNEST + step * (len(series) - 1 - index), 1)
        shape = MARKERS[index % len(MARKERS)]
        radius = round(width / 2 + 1.6, 1)
        lines.append(
            Line(
                player=s.player,
                name=s.name,
                colour=COLOURS[index % len(COLOURS)],
                dash=DASHES[(index // len(COLOURS)) % len(DASHES)],
                points=" ".join(f"{px:g},{py:g}" for px, py in points),
                last_x=points[-1][0],
                last_y=points[-1][1],
                finished=s.finished_from is not None,
                width=width,
                marker=shape,
                marker_path=marker_path(shape, points[-1][0], points[-1][1], radius),
                legend_path=marker_path(shape, 7, 7, 4.5),
            )
        )
    field_range = field_median = None
    if field:
        upper = [f"{x(t):g},{y(f.highest):g}" for t, f in enumerate(field)]
        lower = [f"{x(t):g},{y(f.lowest):g}" for t, f in enumerate(field)]
        field_range = " ".join(upper + lower[::-1])
        field_median = " ".join(f"{x(t):g},{y(f.median):g}" for t, f in enumerate(field))
    x_values = _ticks(turns, 8) if turns else (0,)
    y_values = _ticks(squares, 5)
    return Chart(
        board=board,
        squares=squares,
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        top=TOP,
        bottom=HEIGHT - BOTTOM,
        finish_y=y(squares + 1),
        x_ticks=tuple(Tick(t, x(t)) for t in x_values),
        y_ticks=tuple(Tick(v, y(v)) for v in y_values),
        lines=tuple(lines),
        field_range=field_range,
        field_median=field_median,
    )
