"""Board geometry (docs/rules/, The board's levels and columns; 4.4's `distance`): squares share an
edge on the same level in columns differing by 1, or on adjacent levels in the same
column; steps count the fewest moves over such edges, on any board shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm.boards.board import load_board
from gm.boards.model import Board
from gm.rules.geometry import neighbours, steps, within

BOARDS = Path(__file__).resolve().parent.parent / "boards"


def test_serpentine_neighbours_follow_columns_not_numbers():
    board = Board.build(30)  # levels of 10: 11 stands above 10, 20 above 1
    assert sorted(neighbours(board, 10)) == [9, 11]
    assert sorted(neighbours(board, 1)) == [2, 20]
    assert sorted(neighbours(board, 15)) == [6, 14, 16, 26]


def test_non_serpentine_levels_all_run_left_to_right():
    board = Board.build(20, serpentine=False)
    assert sorted(neighbours(board, 10)) == [9, 20]
    assert steps(board, 1, 11) == 1 and steps(board, 10, 11) == 10


@pytest.mark.parametrize(("a", "b", "expected"), [
    (5, 5, 0), (5, 6, 1), (1, 20, 1), (10, 11, 1), (15, 3, 4), (1, 30, 11), (21, 10, 11),
])
def test_steps_on_the_default_board(a, b, expected):
    board = Board.build(30)
    assert steps(board, a, b) == expected == steps(board, b, a)


def test_steps_on_the_staggered_seed_board():
    """docs/rules/advanced.md's board: 21 and 81 jut out to the left (column 1) with nothing below;
    10 and 11 stand in column 11, which level 3 does not reach."""
    board = load_board(BOARDS / "advanced.yaml")
    assert sorted(neighbours(board, 21)) == [22]
    assert sorted(neighbours(board, 11)) == [10, 12]
    assert steps(board, 21, 20) == 2  # 21 -> 22 -> 20
    assert steps(board, 11, 30) == 2  # 11 -> 12 -> 30 (column 10)
    assert steps(board, 99, 82) == 1


def test_a_square_that_cannot_be_reached_has_no_steps():
    board = Board.build(6, levels=[3, 3], offsets=[0, 5])  # no column shared
    assert steps(board, 5, 2) is None and steps(board, 4, 6) == 2


def test_steps_within_a_limit_stop_early():
    board = Board.build(30)
    assert steps(board, 15, 3, limit=3) is None and steps(board, 15, 3, limit=4) == 4
    assert within(board, 15, 1) == {15: 0, 6: 1, 14: 1, 16: 1, 26: 1}
    reach = within(board, 15, 2)
    assert all(steps(board, 15, square) == d for square, d in reach.items())
    assert len(reach) == 1 + 4 + 6  # a diamond of radius 2 less the two squares two levels away
