"""docs/rules/doubles.md, `doubles` (seed 004): one test per bullet and per case it names, with the
dice chosen through ScriptedChance."""

from __future__ import annotations

from test_rules_4_1_dice import DOUBLES, keys, play, route, setup_for, state_of, throws

from gm.rules.chance import SeededChance
from gm.rules.dice.events import OrderOfPlay


def test_4_3_two_d6_per_throw_the_piece_moves_their_sum():
    setup = setup_for(DOUBLES)
    outcome = play(DOUBLES, setup, state_of(setup, {"ann": 4}), {"ann": [2, 5], "bob": [1, 3], "cat": [6, 4]})
    assert [(t.dice, t.start, t.end) for t in throws(outcome)] == [
        ((2, 5), 4, 11), ((1, 3), 0, 4), ((6, 4), 0, 10)]


def test_4_3_order_of_play_is_the_listing_order_with_no_opening_throw():
    setup = setup_for(DOUBLES, players=("cat", "ann", "bob"))
    opening = DOUBLES.start(setup, SeededChance(1))
    assert opening.state.order == ("cat", "ann", "bob") and opening.draws == ()
    assert opening.events == (OrderOfPlay(("cat", "ann", "bob")),)
    assert DOUBLES.state_json(setup, opening.state)["opening"] == []


def test_4_3_a_double_gives_another_throw_in_the_same_go():
    setup = setup_for(DOUBLES, squares=60)
    outcome = play(DOUBLES, setup, state_of(setup), {"ann": [3, 3, 1, 2], "bob": [1, 2], "cat": [1, 2]})
    assert [(t.dice, t.end, t.again) for t in throws(outcome, "ann")] == [((3, 3), 6, True), ((1, 2), 9, False)]
    assert keys(outcome)[:4] == ["ann/1", "ann/2", "ann/3", "ann/4"]


def test_4_3_a_double_throws_again_whatever_the_move_did():
    setup = setup_for(DOUBLES, snakes=[(14, 3)], ladders=[(4, 20)])
    state = state_of(setup, {"ann": 10, "bob": 2, "cat": 26})
    outcome = play(DOUBLES, setup, state, {"ann": [2, 2, 1, 2], "bob": [1, 1, 2, 1], "cat": [4, 4, 1, 3]})
    snake, ladder, bounce = (throws(outcome, p)[0] for p in ("ann", "bob", "cat"))
    assert route(snake) == [(14, "roll"), (3, "snake")] and snake.again
    assert route(ladder) == [(4, "roll"), (20, "ladder")] and ladder.again
    assert bounce.bounced and bounce.end == 26 and bounce.again
    assert [len(throws(outcome, p)) for p in ("ann", "bob", "cat")] == [2, 2, 2]


def test_4_3_a_throw_that_finishes_ends_the_go_double_or_not():
    setup = setup_for(DOUBLES, close_after=2)
    outcome = play(DOUBLES, setup, state_of(setup, {"ann": 24, "bob": 25}), {"ann": [3, 3], "bob": [1, 4], "cat": [1, 2]})
    assert [(t.dice, t.finished, t.again) for t in throws(outcome, "ann")] == [((3, 3), True, False)]
    assert [(t.finished, t.again) for t in throws(outcome, "bob")] == [(True, False)]
    assert outcome.state.over and keys(outcome) == ["ann/1", "ann/2", "bob/1", "bob/2"]


def test_4_3_third_double_six_is_not_moved():
    setup = setup_for(DOUBLES, squares=100)
    outcome = play(DOUBLES, setup, state_of(setup), {"ann": [6] * 6, "bob": [1, 2], "cat": [1, 2]})
    ann = throws(outcome, "ann")
    assert [(t.dice, t.end, t.again, t.skip) for t in ann] == [
        ((6, 6), 12, True, None), ((6, 6), 24, True, None), ((6, 6), 24, False, "third-double-six")]
    assert ann[2].steps == () and ann[2].start == ann[2].end == 24  # the two moves before stand
    assert outcome.state.pieces["ann"].square == 24 and len(throws(outcome, "bob")) == 1
    entry = DOUBLES.state_json(setup, outcome.state)["log"][2]
    assert (entry["skip"], entry["steps"], entry["from"], entry["to"]) == ("third-double-six", [], 24, 24)


def test_4_3_any_other_throw_between_breaks_the_row():
    setup = setup_for(DOUBLES, squares=100)
    script = {"ann": [6, 6, 6, 6, 2, 2, 6, 6, 6, 6, 1, 2], "bob": [1, 2], "cat": [1, 2]}
    outcome = play(DOUBLES, setup, state_of(setup), script)
    assert [t.skip for t in throws(outcome, "ann")] == [None] * 6
    assert outcome.state.pieces["ann"].square == 12 + 12 + 4 + 12 + 12 + 3


def test_4_3_each_go_starts_a_new_count():
    setup = setup_for(DOUBLES, squares=100)
    first = play(DOUBLES, setup, state_of(setup), {"ann": [6] * 6, "bob": [1, 2], "cat": [1, 2]})
    second = play(DOUBLES, setup, first.state, {"ann": [6, 6, 6, 6, 1, 3], "bob": [1, 2], "cat": [1, 2]})
    assert [t.skip for t in throws(second, "ann")] == [None, None, None]
    assert second.state.pieces["ann"].square == 24 + 24 + 4
