"""The race chart (gm/publish/chart.py, templates/archive/_chart.html): every point is drawn
where its square is, so a finished line reaches the finish line and equal squares are drawn
at equal heights; lines that run together are told apart by width, colour and marker."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gm.publish.chart import Series, race_chart
from gm.publish.render import _environment

SVG = "{http://www.w3.org/2000/svg}"


def points(line) -> list[tuple[float, float]]:
    return [tuple(float(v) for v in p.split(",")) for p in line.points.split()]


def drawn(chart) -> ET.Element:
    """The chart as the archive draws it, parsed back from the SVG."""
    macro = _environment().get_template("archive/_chart.html").module.race
    html = str(macro(chart))
    return ET.fromstring(re.search(r"<svg.*?</svg>", html, re.S).group(0))


# Three players: two walk the same path and both finish at turn 3; one lags.
CHART = race_chart("A", 30, [
    Series("ann", "Ann", (0, 10, 25, 28), 3),
    Series("ben", "Ben", (0, 10, 25, 28), 3),
    Series("cat", "Cat", (0, 4, 9, 12), None),
])


def test_a_finished_piece_line_ends_exactly_on_the_finish_line():
    ann, ben, _ = CHART.lines
    assert ann.finished and ben.finished
    assert points(ann)[-1][1] == CHART.finish_y == ann.last_y
    assert points(ben)[-1][1] == CHART.finish_y


def test_a_finished_piece_is_on_the_finish_line_in_the_drawn_svg():
    svg = drawn(CHART)
    finish = next(line for line in svg.iter(f"{SVG}line") if line.get("stroke-dasharray") == "4 3")
    first = svg.findall(f"{SVG}polyline")[0]
    last_y = float(first.get("points").split()[-1].split(",")[1])
    assert last_y == float(finish.get("y1")) == CHART.finish_y


def test_two_pieces_on_the_same_square_at_a_turn_are_drawn_at_the_same_height():
    ann, ben, cat = CHART.lines
    assert points(ann) == points(ben)  # same squares every turn: the very same points
    assert points(ann)[1][1] != points(cat)[1][1]  # squares 10 and 4 do differ
    # and a running piece's point sits on its square's height, not a shifted one
    start = next(t.at for t in CHART.y_ticks if t.value == 0)
    assert points(cat)[0][1] == start


def test_pieces_on_the_same_path_stay_distinguishable():
    lines = race_chart("A", 30, [Series(p, p.upper(), (0, 5, 9), None) for p in "abcdefghij"]).lines
    assert len({(line.colour, line.dash) for line in lines}) == len(lines)
    widths = [line.width for line in lines]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths)
    assert len({line.marker for line in lines[:4]}) == 4
    assert all(line.marker_path for line in lines)


def test_wider_lines_are_drawn_first_so_narrower_ones_show_on_top():
    svg = drawn(CHART)
    widths = [float(p.get("stroke-width")) for p in svg.findall(f"{SVG}polyline")]
    assert widths == sorted(widths, reverse=True) and widths[0] > widths[-1]
    markers = svg.findall(f"{SVG}path[@class='marker']")
    assert len(markers) == 3 and len({m.get("d") for m in markers}) == 3


def test_one_player_chart_has_one_line():
    chart = race_chart("A", 10, [Series("a", "A", (0, 3), None)])
    assert len(chart.lines) == 1 and chart.lines[0].width > 0
