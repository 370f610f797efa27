"""docs/rules/classic.md, `classic` (seed 002): one test per bullet and per case it names, with the
dice chosen through ScriptedChance."""

from __future__ import annotations

from test_rules_4_1_dice import CLASSIC, faces, keys, play, route, setup_for, state_of, throws

from gm.rules.dice.events import OpeningThrow, OrderOfPlay
from gm.rules.doubles import Doubles


def test_4_2_one_d6():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [2], "bob": [3], "cat": [4]})
    assert all(d.candidates == (1, 2, 3, 4, 5, 6) for d in outcome.draws)
    assert [t.dice for t in throws(outcome)] == [(2,), (3,), (4,)]


def test_4_2_order_of_play_highest_throw_first_then_listing_order_from_them_wrapping():
    setup = setup_for(CLASSIC, players=("ann", "bob", "cat", "dan"))
    opening = CLASSIC.start(setup, faces({"ann": [2], "bob": [1], "cat": [5], "dan": [3]}, turn=0))
    assert opening.state.order == ("cat", "dan", "ann", "bob")
    assert opening.events[-1] == OrderOfPlay(("cat", "dan", "ann", "bob"))


def test_4_2_those_sharing_the_highest_throw_throw_again_until_one_is_highest():
    setup = setup_for(CLASSIC, players=("ann", "bob", "cat", "dan"))
    script = {"ann": [6, 4, 2], "bob": [3], "cat": [6, 4, 5], "dan": [6, 1]}
    opening = CLASSIC.start(setup, faces(script, turn=0))
    # round 1: ann, cat, dan tie on 6; round 2 (/2): ann and cat tie on 4; round 3 (/3): cat
    assert keys(opening) == ["ann/1", "bob/1", "cat/1", "dan/1", "ann/2", "cat/2", "dan/2", "ann/3", "cat/3"]
    assert opening.state.order == ("cat", "dan", "ann", "bob")
    thrown = [(e.key, e.roll) for e in opening.events if isinstance(e, OpeningThrow)]
    assert thrown == [("ann/1", 6), ("bob/1", 3), ("cat/1", 6), ("dan/1", 6), ("ann/2", 4), ("cat/2", 4),
                      ("dan/2", 1), ("ann/3", 2), ("cat/3", 5)]
    # gm state --json: sorted by the die's index, then by listing order
    assert [t.key for t in opening.state.opening] == [k for k, _ in thrown]


def test_4_2_a_lone_player_still_throws_for_the_order_of_play():
    setup = setup_for(CLASSIC, players=("ann",))
    opening = CLASSIC.start(setup, faces({"ann": [3]}, turn=0))
    assert keys(opening) == ["ann/1"] and opening.state.order == ("ann",)


def test_4_2_a_six_gives_another_throw_in_the_same_go():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [6, 3], "bob": [5], "cat": [1]})
    assert [(t.dice, t.start, t.end, t.again) for t in throws(outcome, "ann")] == [
        ((6,), 0, 6, True), ((3,), 6, 9, False)]
    assert [(t.dice, t.again) for t in throws(outcome, "bob")] == [((5,), False)]


def test_4_2_six_throws_again_after_a_snake():
    setup = setup_for(CLASSIC, snakes=[(16, 2)])
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 10}), {"ann": [6, 4], "bob": [1], "cat": [1]})
    first, second = throws(outcome, "ann")
    assert route(first) == [(16, "roll"), (2, "snake")] and first.again
    assert (second.start, second.end) == (2, 6)


def test_4_2_six_throws_again_after_a_ladder():
    setup = setup_for(CLASSIC, ladders=[(6, 20)])
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [6, 2], "bob": [1], "cat": [1]})
    first, second = throws(outcome, "ann")
    assert route(first) == [(6, "roll"), (20, "ladder")] and first.again and second.end == 22


def test_4_2_six_throws_again_after_a_bounce():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 27}), {"ann": [6, 1], "bob": [1], "cat": [1]})
    first, second = throws(outcome, "ann")
    assert first.bounced and first.end == 27 and first.again and second.end == 28


def test_4_2_no_limit_on_sixes():
    setup = setup_for(CLASSIC, squares=100)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [6, 6, 6, 6, 6, 6, 6, 2], "bob": [1], "cat": [1]})
    assert [t.end for t in throws(outcome, "ann")] == [6, 12, 18, 24, 30, 36, 42, 44]


def test_4_2_a_six_that_finishes_throws_no_more():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 24}), {"ann": [6]})
    assert [(t.finished, t.again) for t in throws(outcome, "ann")] == [(True, False)] and outcome.state.over


def test_4_2_enter_on_one_a_piece_on_start_stays_there_on_any_other_throw():
    setup = setup_for(CLASSIC, enter_on_one=True)
    outcome = play(CLASSIC, setup, state_of(setup, {"bob": 4}), {"ann": [4], "bob": [4], "cat": [2]})
    ann = throws(outcome, "ann")[0]
    assert (ann.start, ann.end, ann.steps, ann.skip, ann.again) == (0, 0, (), "needs-one", False)
    assert throws(outcome, "bob")[0].end == 8  # a piece off Start moves as usual
    entry = CLASSIC.state_json(setup, outcome.state)["log"][0]
    assert entry["skip"] == "needs-one" and entry["steps"] == [] and entry["to"] == entry["from"] == 0


def test_4_2_enter_on_one_a_six_on_start_ends_the_go():
    setup = setup_for(CLASSIC, enter_on_one=True)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [6], "bob": [6, 1], "cat": [1]})
    assert [(t.end, t.skip, t.again) for t in throws(outcome, "ann")] == [(0, "needs-one", False)]
    assert keys(outcome) == ["ann/1", "bob/1", "cat/1"]  # bob's six on Start earns nothing either


def test_4_2_enter_on_one_a_one_moves_to_square_1_and_takes_its_ladder():
    setup = setup_for(CLASSIC, ladders=[(1, 12)], enter_on_one=True)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [1], "bob": [2], "cat": [1]})
    ann = throws(outcome, "ann")[0]
    assert route(ann) == [(1, "roll"), (12, "ladder")] and ann.skip is None and not ann.again


def test_4_2_enter_on_one_a_bounce_back_to_start_needs_a_one_again():
    setup = setup_for(CLASSIC, squares=3, players=("ann", "bob"), enter_on_one=True)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 1, "bob": 1}), {"ann": [5], "bob": [1]})
    assert throws(outcome, "ann")[0].end == 0 and throws(outcome, "ann")[0].bounced
    later = play(CLASSIC, setup, outcome.state, {"ann": [3], "bob": [2]})
    assert throws(later, "ann")[0].skip == "needs-one" and later.state.pieces["ann"].square == 0


def test_4_2_enter_on_one_is_off_by_default_and_classic_only():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [4], "bob": [5], "cat": [1]})
    assert throws(outcome, "ann")[0].end == 4
    assert "enter_on_one" not in Doubles.option_keys
