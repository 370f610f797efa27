"""docs/rules/unleashed.md, Actions-6.11, Snakes & Ladders Unleashed: every action, reactions and automatic
choices, winning and placings, and the variants. One test per bullet; states built
directly on the 5 x 8 board (see unleashedkit), dice scripted."""

from __future__ import annotations

import pytest
from unleashedkit import (
    campaign,
    dice,
    go_of,
    of,
    options,
    order,
    play,
    run,
    squares,
    state,
    steps,
)

FAR = {"bob": 30, "cat": 31}


def at(**where: int) -> dict[str, int]:
    return {**FAR, **where}


def acted(out, card: str | None = None) -> list[tuple]:
    return [(a.actor, a.card, a.choices, a.automatic, a.landed) for a in of(out, "action")
            if card is None or a.card == card]


# -- 6.8 Actions ------------------------------------------------------------------------------


def test_6_8_extra_roll_placed_rolls_at_once_before_the_draw():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["EXTRA-ROLL"]}, pile=["+1"])
    out = run(setup, before, {"ann": order(play("EXTRA-ROLL", 20))}, dice({"ann": [1, 2, 2, 2]}, rest=2))
    assert [e.kind for e in go_of(out, "ann")] == ["go", "play", "action", "roll", "step", "drew", "roll", "step"]
    assert [(r.dice, r.extra) for r in of(out, "roll") if r.player == "ann"] == [((1, 2), True), ((2, 2), False)]
    assert out.state.pawns["ann"].square == 8
    assert out.state.hands["ann"] == ["+1"]  # no extra card is played


def test_6_8_extra_roll_landed_on_is_a_new_move():
    setup = campaign()
    before = state(setup, at(ann=1), cards={5: "EXTRA-ROLL"})
    out = run(setup, before, {}, dice({"ann": [2, 2, 3, 4]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 12, "roll", "")]
    assert acted(out) == [("ann", "EXTRA-ROLL", "", False, True)]


def test_6_8_reverse_toggles_whether_placed_or_landed_on_and_moves_no_item():
    setup = campaign()
    items = {"S1": [3, 14], "L1": [5, 12]}
    before = state(setup, {"ann": 1, "bob": 20, "cat": 31}, hands={"ann": ["REVERSE"]}, cards={24: "REVERSE"},
                   items=items)
    out = run(setup, before, {"ann": order(play("REVERSE", 30))}, dice({"ann": [3, 4], "bob": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "REVERSE", "", False, False), ("bob", "REVERSE", "", False, True)]
    assert not out.state.reversed  # toggled twice
    assert out.state.items == items
    out = run(setup, before, {}, dice({"ann": [3, 4], "bob": [2, 2]}, rest=2))
    assert out.state.reversed


def test_6_8_reverse_takes_effect_at_once_for_the_rest_of_the_go():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["REVERSE"]}, items={"S1": [5, 12]})
    out = run(setup, before, {"ann": order(play("REVERSE", 20))}, dice({"ann": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 12, "item", "S1")]


def test_6_8_forward_may_cross_and_back_stops_at_start():
    setup = campaign(two_card_placement=True)
    before = state(setup, {"ann": 1, "bob": 39, "cat": 2}, hands={"ann": ["FORWARD-3", "BACK-4"]})
    out = run(setup, before, {"ann": order(play("FORWARD-3", 20, "bob"), play("BACK-4", 21, "cat"))},
              dice({"ann": [1, 2]}, rest=2))
    assert [(c.pawn, c.start, c.overshoot) for c in of(out, "cross")] == [("bob", 39, 1)]
    assert steps(go_of(out, "ann"), "cat") == [(2, 0, "send", "BACK-4")]
    assert out.state.pawns["bob"].finished and out.state.pawns["bob"].square == 39
    assert [e.player for e in of(out, "go")] == ["ann", "cat"]  # bob crossed: no go


def test_6_8_send_is_never_the_actor():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 20, "cat": 10}, cards={5: "BACK-2"},
                   reactions={"ann": {"BACK": ["ann", "ME"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "BACK-2", "bob", True, True)]  # no reaction legal: automatic LEADER
    assert out.state.pawns["ann"].square == 5


def test_6_8_sent_pawn_arriving_on_the_card_that_moved_it_stays_there():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 10, "cat": 31}, hands={"ann": ["FORWARD-2"]})
    out = run(setup, before, {"ann": order(play("FORWARD-2", 12, "bob"))}, dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann"), "bob") == [(10, 12, "send", "FORWARD-2")]
    assert len(acted(out)) == 1


def test_6_8_swap_players_a_resolves_then_b():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 20, "cat": 10}, cards={5: "SWAP-PLAYERS", 20: "+1", 10: "-1"},
                   reactions={"ann": {"SWAP-PLAYERS": ["bob cat"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "SWAP-PLAYERS", "bob cat", False, True)]
    assert steps(go_of(out, "ann"))[1:] == [
        ("bob", 20, 10, "swap", "SWAP-PLAYERS"), ("cat", 10, 20, "swap", "SWAP-PLAYERS"),
        ("bob", 10, 9, "card", "-1"), ("cat", 20, 21, "card", "+1")]


def test_6_8_swap_players_actor_lands_on_the_swap_and_the_other_stays_on_it():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 20, "cat": 10}, cards={5: "SWAP-PLAYERS"})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "SWAP-PLAYERS", "ann bob", True, True)]
    assert steps(go_of(out, "ann"))[1:] == [("ann", 5, 20, "swap", "SWAP-PLAYERS"),
                                            ("bob", 20, 5, "swap", "SWAP-PLAYERS")]


def test_6_8_swap_players_b_skipped_when_displaced():
    setup = campaign()
    # ann (8, the foot of lamppost P1 8-9) swaps with bob (20, on a FORWARD-1); ann resolves 20 first:
    # FORWARD-1 sends bob 8 -> 9, down P1 back to 8. Displaced, even back to the same square, so his
    # own arrival from the swap is not resolved: he does not climb P1 again
    before = state(setup, {"ann": 8, "bob": 20, "cat": 31}, hands={"ann": ["SWAP-PLAYERS"]},
                   cards={20: "FORWARD-1"}, items={"P1": [8, 9]}, reactions={"ann": {"FORWARD": ["bob"]}})
    out = run(setup, before, {"ann": order(play("SWAP-PLAYERS", 30, "ann bob"))}, dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann"), "bob") == [(20, 8, "swap", "SWAP-PLAYERS"), (8, 9, "send", "FORWARD-1"),
                                                 (9, 8, "item", "P1")]


def test_6_8_swap_players_b_resolves_when_not_displaced():
    setup = campaign()
    before = state(setup, {"ann": 8, "bob": 20, "cat": 31}, hands={"ann": ["SWAP-PLAYERS"]},
                   cards={20: "FORWARD-1"}, items={"P1": [8, 9]}, reactions={"ann": {"FORWARD": ["cat"]}})
    out = run(setup, before, {"ann": order(play("SWAP-PLAYERS", 30, "ann bob"))}, dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann"), "bob") == [(20, 8, "swap", "SWAP-PLAYERS"), (8, 9, "item", "P1")]
    assert steps(go_of(out, "ann"), "cat") == [(31, 32, "send", "FORWARD-1")]


def test_6_8_swap_players_b_skipped_when_crossed():
    setup = campaign()
    before = state(setup, {"ann": 38, "bob": 10, "cat": 31}, hands={"ann": ["SWAP-PLAYERS"]},
                   cards={10: "FORWARD-4", 38: "-5"}, reactions={"ann": {"FORWARD": ["bob"]}})
    out = run(setup, before, {"ann": order(play("SWAP-PLAYERS", 30, "ann bob"))}, dice({"ann": [1, 1]}, rest=2))
    assert [(c.pawn, c.start, c.overshoot) for c in of(out, "cross")] == [("bob", 38, 1)]
    assert steps(go_of(out, "ann"), "bob") == [(10, 38, "swap", "SWAP-PLAYERS")]  # not on to 33 by the -5
    assert out.state.pawns["bob"].square == 38


def test_6_8_swap_players_needs_two_players_in_play_on_different_squares():
    setup = campaign()
    before = state(setup, {"ann": 1, "cat": 20}, hands={"ann": ["SWAP-PLAYERS"]}, finished={"bob": 1})
    out = run(setup, before, {"ann": order(play("SWAP-PLAYERS", 30, "ann bob"), play("SWAP-PLAYERS", 30, "cat cat"),
                                           play("SWAP-PLAYERS", 30, "ME cat"))}, dice({"ann": [1, 1]}, rest=2))
    assert out.state.private["ann"]["skipped"] == [[1, "choices"], [2, "choices"]]
    assert steps(go_of(out, "ann"), "cat") == [(20, 1, "swap", "SWAP-PLAYERS")]
    before = state(setup, {"ann": 1, "bob": 20, "cat": 20}, hands={"ann": ["SWAP-PLAYERS"]})
    out = run(setup, before, {"ann": order(play("SWAP-PLAYERS", 30, "bob cat"))}, dice({"ann": [1, 1]}, rest=2))
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]


def test_6_8_swap_cards_exchanges_top_cards_and_nothing_resolves():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 12, "cat": 31}, hands={"ann": ["SWAP-CARDS"]},
                   cards={12: "REVERSE", 25: "+3"}, items={"L1": [5, 12]})
    out = run(setup, before, {"ann": order(play("SWAP-CARDS", 20, "bob+0 25"))}, dice({"ann": [1, 1]}, rest=2))
    assert out.state.cards[11] == "+3" and out.state.cards[24] == "REVERSE"
    assert out.state.items == {"L1": [5, 12]}
    assert steps(go_of(out, "ann"), "bob") == []
    assert acted(out, "SWAP-CARDS") == [("ann", "SWAP-CARDS", "12 25", False, False)]


def test_6_8_swap_cards_needs_two_different_squares_of_the_board():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 12, "cat": 38}, hands={"ann": ["SWAP-CARDS"]})
    out = run(setup, before, {"ann": order(play("SWAP-CARDS", 20, "12 bob+0"), play("SWAP-CARDS", 20, "5 cat+3"),
                                           play("SWAP-CARDS", 20, "bob-12 5"))}, dice({"ann": [1, 1]}, rest=2))
    assert out.state.private["ann"]["skipped"] == [[1, "choices"], [2, "choices"], [3, "choices"]]
    assert out.state.hands["ann"] == ["SWAP-CARDS"]


def test_6_8_move_actions_name_items_of_their_kind_in_play():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["MOVE-SNAKE", "MOVE-LADDER", "MOVE-ANY"]},
                   items={"S1": [3, 14], "L1": [5, 12], "P1": [6, 11]})
    lines = [play("MOVE-SNAKE", 20, "L1 4 13"), play("MOVE-LADDER", 20, "S1 4 13"), play("MOVE-LADDER", 20, "L2 4 13"),
             play("MOVE-ANY", 20, "P1 7 10")]
    out = run(setup, before, {"ann": order(*lines)})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"], [2, "choices"], [3, "choices"]]
    assert out.state.items["P1"] == [7, 10]
    for card, triple, item in (("MOVE-SNAKE", "S1 4 13", "S1"), ("MOVE-LADDER", "L1 13 4", "L1")):
        out = run(setup, before, {"ann": order(play(card, 20, triple))})
        assert out.state.items[item] == [4, 13] and out.state.locked_items == []  # cat's go was the last
        assert of(out, "go")[1].locked_items == (item,)


def test_6_8_move_needs_reach_resolved_at_the_go():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 12, "cat": 31}, hands={"ann": ["MOVE-LADDER"]}, items={"L1": [5, 12]})
    out = run(setup, before, {"ann": order(play("MOVE-LADDER", 20, "L1 3 bob+0"), play("MOVE-LADDER", 20,
                                                                                         "L1 bob-8 bob+0"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]  # 3-12: columns 2 and 4
    assert out.state.items["L1"] == [4, 12]


def test_6_8_move_two_items_one_or_two_triples_of_different_items():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["MOVE-2-LADDERS"]}, items={"L1": [3, 14], "L2": [5, 12]})
    out = run(setup, before, {"ann": order(play("MOVE-2-LADDERS", 20, "L1 4 13 L1 6 11"),
                                           play("MOVE-2-LADDERS", 20, "L2 6 11"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]
    assert out.state.items == {"L1": [3, 14], "L2": [6, 11]}
    out = run(setup, before, {"ann": order(play("MOVE-2-LADDERS", 20, "L1 4 13 L2 6 11"))})
    assert out.state.items == {"L1": [4, 13], "L2": [6, 11]}
    assert set(of(out, "go")[1].locked_items) == {"L1", "L2"}


def test_6_8_naming_present_squares_neither_moves_nor_locks():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["MOVE-ANY"]}, items={"S1": [3, 14]})
    out = run(setup, before, {"ann": order(play("MOVE-ANY", 20, "S1 14 3"))})
    assert acted(out) == [("ann", "MOVE-ANY", "S1 3 14", False, False)]
    assert out.state.items == {"S1": [3, 14]}
    assert of(out, "go")[1].locked_items == ()


# -- 6.9 Reactions and automatic choices --------------------------------------------------------


def test_6_9_first_reaction_legal_at_that_moment_is_used():
    setup = campaign()
    before = state(setup, {"ann": 1, "cat": 20}, cards={5: "FORWARD-2"}, finished={"bob": 3},
                   reactions={"ann": {"FORWARD": ["bob", "NEXT", "cat"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "FORWARD-2", "cat", False, True)]  # bob out of play; NEXT is cat
    before = state(setup, {"ann": 1, "bob": 12, "cat": 20}, cards={5: "MOVE-SNAKE"}, items={"S1": [3, 14]},
                   reactions={"ann": {"MOVE-SNAKE": ["S2 4 13", "S1 bob-8 bob+1", "S1 4 13"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "MOVE-SNAKE", "S1 4 13", False, True)]  # S2 in the box; 4 and 13 resolved from bob


def test_6_9_reactions_serve_landings_also_for_another_players_pawn():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 12, "cat": 20}, hands={"ann": ["BACK-2"]}, cards={10: "SWAP-CARDS",
                                                                                              25: "+3"},
                   reactions={"bob": {"SWAP-CARDS": ["ME+0 25"]}})
    out = run(setup, before, {"ann": order(play("BACK-2", 30, "bob"))}, dice({"ann": [1, 1]}, rest=2))
    assert acted(out)[1] == ("bob", "SWAP-CARDS", "10 25", False, True)
    assert out.state.cards[9] == "+3" and out.state.cards[24] == "SWAP-CARDS"
    assert steps(go_of(out, "ann"), "bob") == [(12, 10, "send", "BACK-2")]  # nothing resolves after a swap


def test_6_9_automatic_forward_last_back_leader_ties_to_lowest_seat():
    setup = campaign()
    # round 2 starts with bob; cat acts; ann and bob tie: the lowest seat (ann) is chosen all the same
    before = state(setup, {"ann": 10, "bob": 10, "cat": 1}, cards={5: "FORWARD-2", 14: "BACK-3"}, turn=2)
    out = run(setup, before, {}, dice({"cat": [2, 2], "bob": [2, 2], "ann": [3, 3]}))
    assert acted(out, "BACK-3") == [("bob", "BACK-3", "ann", True, True)]  # LEADER: ann 10 vs cat 1
    out = run(setup, state(setup, {"ann": 10, "bob": 10, "cat": 1}, cards={5: "FORWARD-2", 14: "BACK-3"}, turn=3),
              {}, dice({"cat": [2, 2], "ann": [3, 3], "bob": [3, 3]}))
    assert acted(out, "FORWARD-2") == [("cat", "FORWARD-2", "ann", True, True)]  # LAST: tie ann / bob
    before = state(setup, {"ann": 1, "bob": 20, "cat": 20}, cards={5: "BACK-2"})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert acted(out, "BACK-2") == [("ann", "BACK-2", "bob", True, True)]  # LEADER: tie bob / cat


def test_6_9_automatic_swap_players_leader_only_when_strictly_ahead():
    setup = campaign()
    out = run(setup, state(setup, {"ann": 1, "bob": 20, "cat": 10}, cards={5: "SWAP-PLAYERS"}), {},
              dice({"ann": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "SWAP-PLAYERS", "ann bob", True, True)]
    out = run(setup, state(setup, {"ann": 1, "bob": 5, "cat": 3}, cards={5: "SWAP-PLAYERS"}), {},
              dice({"ann": [2, 2]}, rest=2))
    assert acted(out, "SWAP-PLAYERS") == [("ann", "SWAP-PLAYERS", "", True, True)]
    assert steps(go_of(out, "ann")) == [("ann", 1, 5, "roll", "")]
    before = state(setup, {"ann": 20, "bob": 10, "cat": 12}, hands={"ann": ["SWAP-PLAYERS"]})
    out = run(setup, before, {"ann": order(play("SWAP-PLAYERS", 30))}, dice({"ann": [1, 1]}, rest=2))
    assert acted(out) == [("ann", "SWAP-PLAYERS", "", True, False)]


def test_6_9_automatic_move_and_swap_cards_move_nothing():
    setup = campaign()
    items = {"S1": [3, 14]}
    before = state(setup, {"ann": 1, "bob": 30, "cat": 31}, cards={5: "MOVE-ANY", 34: "SWAP-CARDS"}, items=items)
    out = run(setup, before, {}, dice({"ann": [2, 2], "bob": [2, 2]}, rest=2))
    assert acted(out) == [("ann", "MOVE-ANY", "", True, True), ("bob", "SWAP-CARDS", "", True, True)]
    assert out.state.items == items and out.state.cards[4] == "MOVE-ANY" and out.state.cards[33] == "SWAP-CARDS"


def test_6_9_with_no_other_pawn_in_play_a_send_or_swap_does_nothing():
    setup = campaign()
    before = state(setup, {"ann": 1}, cards={5: "BACK-2"}, finished={"bob": 1, "cat": 2},
                   reactions={"ann": {"BACK": ["LEADER"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2]}))
    assert acted(out) == [("ann", "BACK-2", "", True, True)]
    assert squares(out)["ann"] == 5


# -- 6.10 Winning and placings ------------------------------------------------------------------


def test_6_10_finish_round_plays_the_round_out_then_ends():
    setup = campaign(players=("ann", "bob", "cat", "dan"))
    before = state(setup, {"ann": 38, "bob": 37, "cat": 10, "dan": 11})
    out = run(setup, before, {}, dice({"ann": [3, 3], "bob": [3, 4], "cat": [1, 2], "dan": [1, 1]}))
    assert [(c.pawn, c.overshoot) for c in of(out, "cross")] == [("ann", 3), ("bob", 3)]
    assert out.state.over and out.state.winners == ["ann", "bob"]
    places = {p: pawn.placing for p, pawn in out.state.pawns.items()}
    assert places == {"ann": 1, "bob": 1, "cat": 3, "dan": 3}  # shared overshoot, shared square 13
    end = of(out, "end")[0]
    assert end.winners == ("ann", "bob") and dict(end.placings) == places


def test_6_10_placings_overshoot_larger_first_then_squares_further_first():
    setup = campaign(players=("ann", "bob", "cat", "dan"))
    before = state(setup, {"ann": 39, "bob": 37, "cat": 10, "dan": 20})
    out = run(setup, before, {}, dice({"ann": [1, 2], "bob": [3, 4], "cat": [1, 2], "dan": [1, 1]}))
    places = {p: pawn.placing for p, pawn in out.state.pawns.items()}
    assert places == {"bob": 1, "ann": 2, "dan": 3, "cat": 4}
    assert out.state.winners == ["bob"]


def test_6_10_finish_first_ends_at_the_crossing():
    setup = campaign(finish="first", two_card_placement=True)
    before = state(setup, {"ann": 1, "bob": 39, "cat": 2}, hands={"ann": ["FORWARD-3", "+1"]}, pile=["-1", "-2"])
    out = run(setup, before, {"ann": order(play("FORWARD-3", 20, "bob"), play("+1", 21))})
    assert [e.kind for e in out.events][-3:] == ["action", "cross", "end"]
    assert of(out, "roll") == [] and of(out, "drew") == []
    assert [e.player for e in of(out, "go")] == ["ann"]
    assert out.state.over and out.state.winners == ["bob"] and out.state.cards[20] == "BLANK"
    assert out.state.pawns["cat"].placing == 2 and out.state.pawns["ann"].placing == 3


def test_6_10_finish_round_default_later_goes_still_played():
    setup = campaign()
    out = run(setup, state(setup, {"ann": 38, "bob": 37, "cat": 10}), {}, dice({"ann": [3, 3]}, rest=1))
    assert [e.player for e in of(out, "go")] == ["ann", "bob", "cat"]
    assert out.state.pawns["bob"].square == 39 and out.state.over


def test_6_10_finished_pawn_is_out_of_play_for_good():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 39, "cat": 20}, hands={"ann": ["FORWARD-3", "+1"]},
                   cards={5: "BACK-2"})
    out = run(setup, before, {"ann": order(play("FORWARD-3", 30, "bob"))}, dice({"ann": [2, 2]}, rest=2))
    # bob crossed in ann's go: he is never chosen (LEADER now cat), has no go, keeps square 39
    assert acted(out, "BACK-2") == [("ann", "BACK-2", "cat", True, True)]
    assert [e.player for e in of(out, "go")] == ["ann", "cat"]
    assert out.state.pawns["bob"].square == 39 and out.state.pawns["bob"].finished


def test_6_10_finished_pawn_does_not_block_a_square():
    setup = campaign(finish="round")
    before = state(setup, {"ann": 1, "bob": 39, "cat": 20}, hands={"ann": ["+1"], "cat": ["+2"]})
    out = run(setup, before, {"ann": order(play("+1", 10)), "cat": order(play("+2", 39))},
              dice({"bob": [2, 2]}, rest=2))
    assert out.state.pawns["bob"].finished and out.state.cards[38] == "+2"


def test_6_10_max_turns_ends_the_campaign_without_a_winner():
    setup = campaign(max_turns=3)
    out = run(setup, state(setup, {"ann": 1, "bob": 10, "cat": 10}, turn=2))
    assert not out.state.over
    out = run(setup, state(setup, {"ann": 1, "bob": 10, "cat": 10}, turn=3))
    assert out.state.over and out.state.winners == []
    assert {p: pawn.placing for p, pawn in out.state.pawns.items()} == {"bob": 1, "cat": 1, "ann": 3}


# -- 6.11 Variants ---------------------------------------------------------------------------


def test_6_11_two_card_placement_second_judged_after_the_first_draw_after_both():
    setup = campaign(two_card_placement=True)
    before = state(setup, {"ann": 1, "bob": 12, "cat": 31}, hands={"ann": ["BACK-2", "+1", "+2"]},
                   pile=["-1", "-2", "-3"])
    out = run(setup, before, {"ann": order(play("BACK-2", 30, "bob"), play("+1", 10), play("+2", 11))})
    assert out.state.private["ann"]["skipped"] == [[2, "occupied"]]  # bob was sent onto 10 by the first play
    assert [(e.card, e.square) for e in of(out, "play")] == [("BACK-2", 30), ("+2", 11)]
    assert [e.kind for e in go_of(out, "ann")].count("drew") == 1 and of(out, "drew")[0].count == 2
    assert out.state.hands["ann"] == ["+1", "-1", "-2"]
    one = run(campaign(), before, {"ann": order(play("+1", 20), play("+2", 21))})
    assert len(of(one, "play")) == 1


def test_6_11_compulsory_play_no_roll_when_holding_cards_and_playing_none():
    setup = campaign(compulsory_play=True)
    before = state(setup, {"ann": 1, "bob": 2, "cat": 3}, hands={"ann": ["+1"], "bob": ["+1"]})
    out = run(setup, before, {"ann": order(play("+1", 10)), "bob": order()})  # cat: no cards; NMR
    assert [(e.player, e.reason) for e in of(out, "no_roll")] == [("bob", "compulsory_play")]
    assert [r.player for r in of(out, "roll")] == ["ann", "cat"]
    assert squares(out)["bob"] == 2
    out = run(setup, before, {"ann": order(play("+1", 10))})  # bob NMR while holding a card
    assert [e.player for e in of(out, "no_roll")] == ["bob"]
    out = run(campaign(), before, {"bob": order()})
    assert of(out, "no_roll") == []


def test_6_11_four_card_hands_refilled():
    setup = campaign(four_card_hands=True)
    before = state(setup, at(ann=1), hands={"ann": ["+1", "+2", "+3", "-1"]})
    out = run(setup, before, {"ann": order(play("+1", 10))})
    assert len(out.state.hands["ann"]) == 4


def test_6_11_snake_eyes_off_moves_two():
    setup = campaign()
    out = run(setup, state(setup, at(ann=5)), {}, dice({"ann": [1, 1]}, rest=2))
    assert of(out, "roll")[0].snake_eyes is None
    assert squares(out)["ann"] == 7
    assert options(snake_eyes=False).snake_eyes == "off"
    with pytest.raises(Exception):  # noqa: B017 - the problems error of parse_options
        options(snake_eyes="mean")


def test_6_11_snake_eyes_self_sends_the_roller_to_start_also_on_an_extra_roll():
    setup = campaign(snake_eyes="self")
    out = run(setup, state(setup, at(ann=5), cards={7: "+2"}), {}, dice({"ann": [1, 1]}, rest=2))
    assert of(out, "roll")[0].snake_eyes == "self"
    assert steps(go_of(out, "ann"), "ann") == [(5, 0, "snake_eyes", "")]
    before = state(setup, {"ann": 1, "bob": 12, "cat": 31}, cards={5: "BACK-2", 10: "EXTRA-ROLL"},
                   reactions={"ann": {"BACK": ["bob"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2, 1, 1]}, rest=2))
    # bob's extra roll in ann's go: the roller (bob) goes to Start
    assert steps(go_of(out, "ann"), "bob") == [(12, 10, "send", "BACK-2"), (10, 0, "snake_eyes", "")]


def test_6_11_snake_eyes_evil_react_list_else_leader():
    setup = campaign(snake_eyes="evil")
    before = state(setup, {"ann": 5, "bob": 20, "cat": 10}, cards={10: "+3"},
                   reactions={"ann": {"SNAKE-EYES": ["ann", "cat"]}})
    out = run(setup, before, {}, dice({"ann": [1, 1]}, rest=2))
    assert of(out, "roll")[0].snake_eyes == "evil"
    assert steps(go_of(out, "ann")) == [("cat", 10, 0, "snake_eyes", "")]  # ann does not move; no further effect
    before.reactions = {}
    out = run(setup, before, {}, dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann")) == [("bob", 20, 0, "snake_eyes", "")]  # LEADER
    # REACT SNAKE-EYES sent in the turn's order counts at once
    out = run(setup, before, {"ann": order(plays=False, reactions={"SNAKE-EYES": ["cat"]})},
              dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann")) == [("cat", 10, 0, "snake_eyes", "")]
    assert out.state.reactions["ann"] == {"SNAKE-EYES": ["cat"]}


def test_6_11_snake_eyes_evil_with_no_other_pawn_in_play_does_nothing():
    setup = campaign(snake_eyes="evil")
    before = state(setup, {"ann": 5}, finished={"bob": 1, "cat": 2})
    out = run(setup, before, {}, dice({"ann": [1, 1]}))
    assert of(out, "roll")[0].snake_eyes == "evil"
    assert steps(out.events) == [] and squares(out)["ann"] == 5


def test_6_5_swap_cards_may_name_a_locked_card_the_lock_only_stops_placing():
    # reading: a lock forbids placing a card on the locked card; SWAP-CARDS places nothing, so it may
    # move the locked card, and the lock follows it
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["SWAP-CARDS"]}, cards={10: "-3"}, locked_cards=[10])
    out = run(setup, before, {"ann": order(play("SWAP-CARDS", 20, "10 12"))})
    assert out.state.cards[11] == "-3" and out.state.private["ann"]["skipped"] == []


def test_6_8_two_item_move_with_a_locked_item_is_not_legal():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["MOVE-2-SNAKES"]}, items={"S1": [3, 14], "S2": [5, 12]},
                   locked_items=["S2"])
    out = run(setup, before, {"ann": order(play("MOVE-2-SNAKES", 20, "S1 4 13 S2 6 11"),
                                           play("MOVE-2-SNAKES", 20, "S1 4 13"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]
    assert out.state.items == {"S1": [4, 13], "S2": [5, 12]}
