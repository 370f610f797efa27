"""The board drawn as SVG (gm.boards.svg, `gm board draw`), shared with the HTML archive, and
the game-length plot (gm.boards.plot)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import gm.cli.analysis  # noqa: F401 - registers design/analyze/draw on the board group
from gm.analysis.analyze import analyze
from gm.boards.board import load_board
from gm.boards.model import Board
from gm.boards.plot import length_plot
from gm.boards.svg import CELL, MARGIN, Mark, board_svg
from gm.cli.board import board as board_group
from gm.rules.registry import board_ruleset, find_ruleset

BOARDS = Path(__file__).resolve().parent.parent / "boards"
SVG = "{http://www.w3.org/2000/svg}"


def parsed(text: str) -> ET.Element:
    return ET.fromstring(text)


def groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == kind]


@pytest.mark.parametrize("path", sorted(BOARDS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_sample_board_draws_as_well_formed_svg_with_every_square_numbered(path):
    board = find_ruleset(board_ruleset(yaml.safe_load(path.read_text()))).read_board(path)
    root = parsed(board_svg(board))
    assert root.tag == f"{SVG}svg"
    numbers = next(g for g in groups(root, "numbers"))
    assert [int(t.text) for t in numbers] == list(range(1, board.squares + 1))
    assert len(groups(root, "snake")) == len(board.snakes)
    assert len(groups(root, "ladder")) == len(board.ladders)


def test_svg_scales_by_its_viewbox_to_a_phone_width():
    root = parsed(board_svg(load_board(BOARDS / "milton-bradley.yaml")))
    _, _, width, height = (float(x) for x in root.get("viewBox").split())
    assert root.get("style") == "max-width:100%;height:auto"
    # 390 px wide, numbers drawn at 14 px still come out at 10 px or more
    assert 14 * 390 / width >= 10
    assert width == 2 * MARGIN + 10 * CELL and height > width


def test_svg_is_self_contained_with_no_ids_links_or_scripts():
    """The archive puts many boards on one page: ids would clash, links would leak."""
    text = board_svg(load_board(BOARDS / "ziggurat.yaml"), marks=[Mark(20, "trapdoor")], title="Z")
    assert not re.search(r"\b(id|href|xlink:href)=", text)
    assert "<script" not in text and "<style" not in text and "url(" not in text


def test_title_and_name_are_escaped():
    board = Board.build(10, name="Snakes & <Ladders>")
    text = board_svg(board, title='A "quoted" <title> & more')
    parsed(text)  # still well-formed
    assert "&lt;title&gt; &amp; more" in text
    assert "<Ladders>" not in board_svg(board)


def test_squares_stand_in_their_real_columns_level_one_at_the_bottom():
    """The ziggurat's level 2 holds 10 squares from column 1 and runs right to left, so its
    first square, 13, stands in column 10: straight above square 11, not above 12."""
    board = load_board(BOARDS / "ziggurat.yaml")
    root = parsed(board_svg(board))
    numbers = {int(t.text): (float(t.get("x")), float(t.get("y"))) for t in groups(root, "numbers")[0]}
    assert board.column_of(13) == board.column_of(11) == 10
    assert numbers[13][0] == numbers[11][0]
    assert numbers[13][1] == numbers[11][1] - CELL
    left, _ = board.width
    for square in (1, 25, 48):
        x = numbers[square][0]
        assert x == MARGIN + (board.column_of(square) - left) * CELL + 4


def test_snakes_and_ladders_end_in_arrows_and_trapdoors_are_marked():
    board = Board.build(30, snakes=[(27, 5)], ladders=[(3, 22)])
    root = parsed(board_svg(board, marks=[Mark(12, "trapdoor"), Mark(40, "trapdoor")]))  # 40 is off the board: ignored
    for kind in ("snake", "ladder"):
        (group,) = groups(root, kind)
        assert group.find(f".//{SVG}polygon") is not None  # the arrowhead
    traps = groups(root, "trapdoor")
    assert [t.find(f"{SVG}title").text for t in traps] == ["trapdoor on 12"]
    assert "trapdoor 12" in board_svg(board, marks=[Mark(12, "trapdoor")])


def test_the_same_board_always_draws_the_same_picture():
    board = load_board(BOARDS / "spiral.yaml")
    assert board_svg(board) == board_svg(board)


def test_draw_command_writes_the_archive_drawing(tmp_path):
    out = tmp_path / "board.svg"
    result = CliRunner().invoke(board_group, ["draw", str(BOARDS / "small.yaml"), "-o", str(out),
                                              "--mark", "7"])
    assert result.exit_code == 0, result.output
    board = load_board(BOARDS / "small.yaml")
    assert out.read_text() == board_svg(board, marks=[Mark(7)], title=board.name)


def test_draw_command_refuses_a_mark_off_the_board():
    result = CliRunner().invoke(board_group, ["draw", str(BOARDS / "small.yaml"), "--mark", "31"])
    assert result.exit_code == 1
    assert "Error: --mark 31 is not a square of" in result.output


def test_length_plot_shows_each_analysed_ruleset_side_by_side_for_each_board():
    small = load_board(BOARDS / "small.yaml")
    gms = ("classic", "doubles", "postal")  # gm's own: an installed plugin (pig race) would add a column
    text = length_plot([("The Garden Path", analyze(small, only=gms)), ("again <&>", analyze(small, only=gms))])
    root = parsed(text)
    titles = [t.text for t in root.iter(f"{SVG}text") if t.text and ": expected" in t.text]
    assert titles == ["classic: expected 15.22 turns, median 12, p90 29",
                      "doubles: expected 13.31 turns, median 10, p90 27",
                      "postal: expected 9.52 turns, median 9, p90 15"] * 2
    assert "again &lt;&amp;&gt;" in text
    assert not re.search(r"\b(id|href)=", text)
