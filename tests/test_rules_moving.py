"""The moving mechanics every ruleset shares (gm.boards.moving, gm.rules.ranking): the
three finishes of docs/rules/postal.md, Crossing the finish and placings and 4.1, and competition ranking."""

from __future__ import annotations

import pytest

from gm.boards.moving import Aim, Finish, aim, bounce
from gm.rules.ranking import competition_places


def test_2_3_crossing_needs_p_plus_k_above_n_and_keeps_the_overshoot():
    assert aim(Finish.CROSS, 98, 2, 100) == Aim(100)  # landing on N is not enough
    assert aim(Finish.CROSS, 98, 5, 100) == Aim(98, crossed=True, overshoot=3)


def test_4_1_bounce_goes_back_from_n_by_the_excess():
    assert aim(Finish.BOUNCE, 97, 5, 100) == Aim(98, bounced=True)  # 2N - (p + k) = 200 - 102
    assert aim(Finish.BOUNCE, 95, 5, 100) == Aim(100)


@pytest.mark.parametrize(("total", "squares", "expected"), [(7, 4, 1), (8, 4, 0), (9, 4, 1), (12, 5, 2), (11, 5, 1)])
def test_4_1_on_a_board_shorter_than_the_throw_it_bounces_off_start_too(total, squares, expected):
    """t = (p + k) mod 2N, then 2N - t if t > N: worked by hand for each row."""
    assert bounce(total, squares) == expected


def test_exact_finish_leaves_a_roll_past_n_where_it_was():
    assert aim(Finish.EXACT, 97, 5, 100) == Aim(97)
    assert aim(Finish.EXACT, 97, 3, 100) == Aim(100)


def test_2_3_competition_ranking_shares_places_and_skips_the_next():
    assert competition_places({"a": 1, "b": 2, "c": 2, "d": 5}) == {"a": 1, "b": 2, "c": 2, "d": 4}
    assert competition_places({"a": 0, "b": 0}, start=4) == {"a": 4, "b": 4}
