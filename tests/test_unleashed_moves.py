"""docs/rules/unleashed.md, Rounds and goes-6.7, Snakes & Ladders Unleashed: rounds and goes, locks, card plays and
moving (items trump cards, once per move and once per go, depth first). One test per
bullet; states built directly on the 5 x 8 board (see unleashedkit), dice scripted.

Reach on 5 x 8 used below: short 3-14, 4-13, 4-12, 5-12 (levels 1-2); long 4-20, 5-21,
12-28 (two levels); short 21-28 (levels 3-4)."""

from __future__ import annotations

from unleashedkit import (
    P3,
    SEED,
    R,
    campaign,
    dice,
    go_of,
    of,
    order,
    play,
    run,
    squares,
    state,
    steps,
)

from gm.rules.chance import SeededChance

FAR = {"bob": 30, "cat": 31}  # out of the way: their rolls of 4 land on blanks


def at(**where: int) -> dict[str, int]:
    return {**FAR, **where}


# -- 6.5 Rounds and goes ----------------------------------------------------------------------


def test_6_5_rotate_start_round_k_starts_with_seat_k():
    setup = campaign()
    orders = []
    for turn in (1, 2, 3, 4):
        out = run(setup, state(setup, {"ann": 1, "bob": 2, "cat": 3}, turn=turn))
        orders.append(of(out, "round")[0].order)
        assert [e.player for e in of(out, "go")] == list(orders[-1])
    assert orders == [("ann", "bob", "cat"), ("bob", "cat", "ann"), ("cat", "ann", "bob"), ("ann", "bob", "cat")]


def test_6_5_rotate_start_false_every_round_starts_with_seat_1():
    setup = campaign(rotate_start=False)
    for turn in (1, 2, 3):
        out = run(setup, state(setup, {"ann": 1, "bob": 2, "cat": 3}, turn=turn))
        assert of(out, "round")[0].order == P3


def test_6_5_rotation_counts_rounds_from_the_first_round_of_play_after_a_setup_turn():
    setup = campaign(setup="players")
    out = run(setup, state(setup, {"ann": 1, "bob": 2, "cat": 3}, turn=3))  # round 2
    assert of(out, "round")[0].round == 2
    assert of(out, "round")[0].order == ("bob", "cat", "ann")


def test_6_5_go_plays_then_draws_then_rolls():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["+2", "REVERSE"]}, pile=["-3", "BLANK"])
    out = run(setup, before, {"ann": order(play("REVERSE", 20))}, dice({"ann": [1, 2]}, rest=2))
    kinds = [e.kind for e in go_of(out, "ann")]
    assert kinds == ["go", "play", "action", "drew", "roll", "step"]
    assert out.state.hands["ann"] == ["+2", "-3"]
    assert out.state.pile == ["BLANK"]
    assert out.state.pawns["ann"].square == 4


def test_6_5_pawn_not_in_play_has_no_go():
    setup = campaign()
    before = state(setup, {"ann": 1, "cat": 3}, finished={"bob": 2})
    out = run(setup, before)
    assert of(out, "round")[0].order == ("ann", "cat")
    assert [e.player for e in of(out, "go")] == ["ann", "cat"]


def test_6_5_crossing_ends_the_go_at_once_no_more_plays_no_draw_no_roll():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=33), hands={"ann": ["EXTRA-ROLL", "+1"]}, pile=["-1", "-2", "-3"])
    out = run(setup, before, {"ann": order(play("EXTRA-ROLL", 10), play("+1", 12))},
              dice({"ann": [5, 5]}, rest=2))
    ann = go_of(out, "ann")
    assert [e.kind for e in ann] == ["go", "play", "action", "roll", "cross"]
    assert ann[-1].overshoot == 2 and out.state.pawns["ann"].square == 33
    assert out.state.hands["ann"] == ["+1"]  # line 2 not tried, nothing drawn
    assert out.state.pile == ["-1", "-2", "-3"]
    assert out.state.cards[11] == "BLANK"
    # finish: round: the others still play their goes, then the campaign ends
    assert [e.player for e in of(out, "go")] == ["ann", "bob", "cat"]
    assert out.state.over and out.state.winners == ["ann"]


def test_6_5_card_placed_in_the_preceding_go_is_locked_whoever_placed_it():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["+1", "+2"], "bob": ["-1", "-2"]}, locked_cards=[10])
    out = run(setup, before, {"ann": order(play("+1", 10), play("+1", 11)),
                              "bob": order(play("-1", 11), play("-2", 10))})
    assert out.state.private["ann"]["skipped"] == [[1, "locked"]]
    assert out.state.private["bob"]["skipped"] == [[1, "locked"]]  # ann's card, ann's go preceded
    assert out.state.cards[9] == "-2" and out.state.cards[10] == "+1"
    gos = of(out, "go")
    assert (gos[0].locked_cards, gos[1].locked_cards, gos[2].locked_cards) == ((10,), (11,), (10,))
    assert out.state.locked_cards == []  # cat placed nothing in the last go


def test_6_5_lock_follows_a_swapped_card():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["SWAP-CARDS", "+1", "+1"]}, locked_cards=[10],
                   cards={10: "-3"})
    out = run(setup, before, {"ann": order(play("SWAP-CARDS", 20, "10 12"), play("+1", 12), play("+1", 10))})
    assert out.state.private["ann"]["skipped"] == [[2, "locked"]]
    assert out.state.cards[11] == "-3" and out.state.cards[9] == "+1"
    # the lock of ann's play follows the card when bob swaps it in the next go
    before = state(setup, at(ann=1), hands={"ann": ["+1"], "bob": ["SWAP-CARDS", "+2", "+2"]})
    out = run(setup, before, {"ann": order(play("+1", 20)),
                              "bob": order(play("SWAP-CARDS", 7, "20 25"), play("+2", 25), play("+2", 20))},
              dice(rest=2))
    assert out.state.private["bob"]["skipped"] == [[2, "locked"]]
    assert out.state.cards[19] == "+2" and out.state.cards[24] == "+1"


def test_6_5_item_moved_in_the_preceding_go_is_locked_even_to_its_present_squares():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["MOVE-SNAKE", "MOVE-SNAKE"]},
                   items={"S1": [3, 14], "S2": [5, 12]}, locked_items=["S1"])
    out = run(setup, before, {"ann": order(play("MOVE-SNAKE", 20, "S1 3 14"), play("MOVE-SNAKE", 21, "S1 4 13"),
                                           play("MOVE-SNAKE", 22, "S2 6 11"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"], [2, "choices"]]
    assert out.state.items == {"S1": [3, 14], "S2": [6, 11]}
    assert of(out, "go")[1].locked_items == ("S2",)


def test_6_5_moving_an_item_back_does_not_unlock_it():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["MOVE-SNAKE", "MOVE-SNAKE"], "bob": ["MOVE-SNAKE"]},
                   items={"S1": [3, 14]})
    out = run(setup, before, {"ann": order(play("MOVE-SNAKE", 20, "S1 4 13"), play("MOVE-SNAKE", 21, "S1 3 14")),
                              "bob": order(play("MOVE-SNAKE", 22, "S1 3 14"))})
    assert out.state.private["ann"]["skipped"] == []  # within one go nothing locks
    assert out.state.private["bob"]["skipped"] == [[1, "choices"]]
    assert of(out, "go")[1].locked_items == ("S1",)
    assert out.state.items == {"S1": [3, 14]}


def test_6_5_travelling_a_locked_item_is_allowed():
    setup = campaign()
    before = state(setup, at(ann=1), items={"L1": [3, 14]}, locked_items=["L1"])
    out = run(setup, before, {}, dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 3, "roll", ""), (3, 14, "item", "L1")]


def test_6_5_within_one_go_a_player_may_cover_what_they_placed():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["+1", "-1"]})
    out = run(setup, before, {"ann": order(play("+1", 10), play("-1", 10))})
    assert [(e.card, e.square, e.covered) for e in of(out, "play")] == [("+1", 10, "BLANK"), ("-1", 10, "+1")]
    assert out.state.private["ann"]["skipped"] == []


def test_6_5_preceding_go_is_the_players_own_across_rounds():
    # 2 players with rotate_start play a b, b a: bob's last go of round 1 precedes his first of round 2
    setup = campaign(players=("ann", "bob"))
    before = state(setup, {"ann": 1, "bob": 2}, hands={"bob": ["+1", "+2", "+3"]}, turn=1)
    one = run(setup, before, {"bob": order(play("+1", 10))})
    assert [e.player for e in of(one, "go")] == ["ann", "bob"]
    assert one.state.locked_cards == [10]
    two = run(setup, one.state, {"bob": order(play("+2", 10), play("+3", 11))})
    assert [e.player for e in of(two, "go")] == ["bob", "ann"]
    assert two.state.private["bob"]["skipped"] == [[1, "locked"]]
    assert two.state.cards[9] == "+1" and two.state.cards[10] == "+3"


def test_6_5_no_lock_before_the_first_go_or_after_the_setup_turn():
    setup = campaign(setup="players", pieces=1)
    start = R.start(setup, SeededChance(SEED)).state
    assert start.locked_cards == [] and start.locked_items == []
    after_setup = R.resolve(setup, start, {}, SeededChance(SEED)).state
    assert after_setup.locked_cards == [] and after_setup.locked_items == []
    assert len(after_setup.items) == 1
    first = run(setup, after_setup)
    assert of(first, "go")[0].locked_cards == () and of(first, "go")[0].locked_items == ()


def test_6_5_empty_draw_pile_no_draw_but_hands_still_played():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["+1", "+2", "+3"]}, pile=["-1"])
    out = run(setup, before, {"ann": order(play("+1", 10), play("+2", 11))})
    assert of(out, "drew")[0].count == 1
    assert out.state.hands["ann"] == ["+3", "-1"] and out.state.pile == []
    out = run(setup, out.state, {"ann": order(play("+3", 12))})
    assert out.state.hands["ann"] == ["-1"]
    assert [e.count for e in of(out, "drew") if e.player == "ann"] == [0]


# -- 6.6 Card plays -------------------------------------------------------------------------


def test_6_6_first_legal_line_is_played_and_the_rest_never_tried():
    setup = campaign()
    before = state(setup, at(ann=1), hands={"ann": ["+2", "+3"]})
    out = run(setup, before, {"ann": order(play("+1", 10), play("+2", 10), play("+3", 11))})
    assert out.state.private["ann"]["skipped"] == [[1, "not_held"]]
    assert [(e.card, e.square) for e in of(out, "play")] == [("+2", 10)]
    assert "+3" in out.state.hands["ann"]


def test_6_6_skipped_line_is_not_retried_in_that_go():
    setup = campaign(two_card_placement=True)
    before = state(setup, {"ann": 1, "bob": 12, "cat": 31}, hands={"ann": ["+1", "BACK-2"]})
    out = run(setup, before, {"ann": order(play("+1", 12), play("BACK-2", 30, "bob"), play("+1", 14))})
    assert out.state.private["ann"]["skipped"] == [[1, "occupied"]]
    assert [(e.card, e.square) for e in of(out, "play")] == [("BACK-2", 30), ("+1", 14)]
    assert out.state.cards[11] == "BLANK"


def test_6_6_own_pawn_does_not_block_a_square_and_nothing_happens_to_it():
    setup = campaign()
    before = state(setup, at(ann=10), hands={"ann": ["+3"]})
    out = run(setup, before, {"ann": order(play("+3", "ME+0"))}, dice({"ann": [1, 1]}, rest=2))
    assert out.state.cards[9] == "+3"
    assert steps(go_of(out, "ann"), "ann") == [(10, 12, "roll", "")]


def test_6_6_action_line_with_illegal_choices_is_skipped():
    setup = campaign()
    before = state(setup, {"ann": 1, "cat": 31}, hands={"ann": ["BACK-2", "FORWARD-2"]}, finished={"bob": 1})
    out = run(setup, before, {"ann": order(play("BACK-2", 20, "bob"), play("FORWARD-2", 20, "ann"),
                                           play("BACK-2", 20, "LEADER"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"], [2, "choices"]]
    act = of(out, "action")[0]
    assert (act.card, act.choices, act.automatic) == ("BACK-2", "cat", False)
    assert out.state.pawns["cat"].square == 29 + 4


def test_6_6_action_placed_without_choices_uses_the_automatic_choice_not_reactions():
    setup = campaign()
    before = state(setup, {"ann": 10, "bob": 3, "cat": 20}, hands={"ann": ["FORWARD-2"]},
                   reactions={"ann": {"FORWARD": ["cat"]}})
    out = run(setup, before, {"ann": order(play("FORWARD-2", 30))})
    act = of(out, "action")[0]
    assert (act.choices, act.automatic, act.landed) == ("bob", True, False)  # LAST
    assert steps(go_of(out, "ann"), "bob") == [(3, 5, "send", "FORWARD-2")]


def test_6_6_no_play_line_play_none_or_nmr_plays_and_draws_nothing():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 2, "cat": 3}, hands={p: ["+1"] for p in P3})
    out = run(setup, before, {"ann": order(), "bob": order(plays=False, reactions={"BACK": ["cat"]})})
    assert of(out, "play") == []
    assert [(e.player, e.count) for e in of(out, "drew")] == [("ann", 0), ("bob", 0), ("cat", 0)]
    assert [e.nmr for e in of(out, "go")] == [False, False, True]
    assert all(h == ["+1"] for h in out.state.hands.values()) and len(out.state.pile) == 10
    assert len(of(out, "roll")) == 3  # the go is still played


def test_6_6_placed_action_card_counts_as_used_by_the_placer():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 20, "cat": 31}, hands={"ann": ["BACK-2"]})
    out = run(setup, before, {"ann": order(play("BACK-2", 5, "bob"))}, dice({"ann": [2, 2]}, rest=2))
    assert len([a for a in of(out, "action") if a.card == "BACK-2"]) == 1
    assert out.state.pawns["ann"].square == 5
    assert steps(go_of(out, "ann"), "bob") == [(20, 18, "send", "BACK-2")]


def test_6_6_relative_squares_resolved_when_the_line_is_tried():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["EXTRA-ROLL", "+2"]})
    out = run(setup, before, {"ann": order(play("EXTRA-ROLL", 20), play("+2", "ME+2"))},
              dice({"ann": [2, 3, 1, 1]}, rest=2))
    assert [(e.card, e.square) for e in of(out, "play")] == [("EXTRA-ROLL", 20), ("+2", 8)]
    # the go roll (dice 3-4) from 6 lands on the +2 on 8
    assert steps(go_of(out, "ann"), "ann") == [(1, 6, "roll", ""), (6, 8, "roll", ""), (8, 10, "card", "+2")]


# -- 6.7 Moving -----------------------------------------------------------------------------


def test_6_7_crossing_needs_more_than_finish_and_keeps_the_last_square():
    setup = campaign()
    out = run(setup, state(setup, at(ann=38)), {}, dice({"ann": [3, 3]}, rest=2))
    cross = of(out, "cross")
    assert [(c.pawn, c.start, c.overshoot) for c in cross] == [("ann", 38, 3)]
    assert out.state.pawns["ann"].finished and out.state.pawns["ann"].square == 38
    assert out.state.pawns["ann"].overshoot == 3


def test_6_7_back_stops_at_start():
    setup = campaign()
    out = run(setup, state(setup, at(ann=1), cards={5: "-9"}), {}, dice({"ann": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 0, "card", "-9")]
    assert out.state.pawns["ann"].square == 0


def test_6_7_items_trump_cards():
    setup = campaign()
    before = state(setup, at(ann=1), items={"L1": [3, 14]}, cards={3: "+3", 14: "-1"})
    out = run(setup, before, {}, dice({"ann": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 3, "roll", ""), (3, 14, "item", "L1"), (14, 13, "card", "-1")]


def test_6_7_movement_cards_chain_until_a_square_with_no_effect():
    setup = campaign()
    before = state(setup, at(ann=1), cards={5: "+3", 8: "-2", 6: "+1", 7: "BLANK"})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 8, "card", "+3"), (8, 6, "card", "-2"),
                                                 (6, 7, "card", "+1")]


def test_6_7_card_once_per_go_plus_two_onto_minus_two_stays():
    setup = campaign()
    out = run(setup, state(setup, at(ann=1), cards={5: "+2", 7: "-2"}), {}, dice({"ann": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 7, "card", "+2"), (7, 5, "card", "-2")]
    assert out.state.pawns["ann"].square == 5


def test_6_7_item_once_per_move_again_in_a_new_move():
    setup = campaign()
    before = state(setup, at(ann=1), items={"L1": [4, 12]}, cards={12: "-8", 4: "EXTRA-ROLL", 8: "-4"})
    out = run(setup, before, {}, dice({"ann": [1, 2, 2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [
        (1, 4, "roll", ""), (4, 12, "item", "L1"), (12, 4, "card", "-8"),  # L1 travelled: the card on 4 acts
        (4, 8, "roll", ""), (8, 4, "card", "-4"), (4, 12, "item", "L1"),  # a new move: L1 again; -8 used
    ]
    assert out.state.pawns["ann"].square == 12


def test_6_7_card_used_once_per_go_across_moves():
    setup = campaign()
    before = state(setup, at(ann=1), cards={5: "+3", 8: "EXTRA-ROLL", 14: "-9"})
    out = run(setup, before, {}, dice({"ann": [2, 2, 3, 3]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 8, "card", "+3"), (8, 14, "roll", ""),
                                                 (14, 5, "card", "-9")]
    assert out.state.pawns["ann"].square == 5


def test_6_7_each_go_starts_with_no_card_used_and_another_players_go_counts_its_own():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 12, "cat": 31}, hands={"ann": ["BACK-2"]}, cards={10: "+3", 17: "-7"})
    out = run(setup, before, {"ann": order(play("BACK-2", 25, "bob"))}, dice({"bob": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "bob") == [(12, 10, "send", "BACK-2"), (10, 13, "card", "+3")]
    assert steps(go_of(out, "bob"), "bob") == [(13, 17, "roll", ""), (17, 10, "card", "-7"), (10, 13, "card", "+3")]


def test_6_7_a_used_card_stays_used_wherever_a_swap_moves_it():
    setup = campaign(two_card_placement=True)
    before = state(setup, at(ann=1), hands={"ann": ["EXTRA-ROLL", "SWAP-CARDS"]})
    out = run(setup, before, {"ann": order(play("EXTRA-ROLL", 10), play("SWAP-CARDS", 20, "10 6"))},
              dice({"ann": [1, 2, 1, 1]}, rest=2))
    assert out.state.cards[5] == "EXTRA-ROLL"
    assert steps(go_of(out, "ann"), "ann") == [(1, 4, "roll", ""), (4, 6, "roll", "")]
    assert len([r for r in of(out, "roll") if r.player == "ann"]) == 2


def test_6_7_covered_card_mark_does_not_carry_to_the_new_card():
    setup = campaign(two_card_placement=True)
    # ann uses the +2 on 5 in the move of her placed extra roll, then covers it: the new card is fresh
    before = state(setup, at(ann=1), hands={"ann": ["EXTRA-ROLL", "+3"]}, cards={5: "+2"})
    out = run(setup, before, {"ann": order(play("EXTRA-ROLL", 20), play("+3", 5))},
              dice({"ann": [2, 2, 1, 2]}, rest=2))
    # extra roll: 1 -> 5, +2 -> 7; the +3 covers the used +2; go roll 7 -> 10
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 7, "card", "+2"), (7, 10, "roll", "")]


def test_6_7_displaced_pawn_resolves_in_full_first_depth_first():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 12, "cat": 20}, cards={5: "BACK-2", 10: "FORWARD-3", 23: "+1"},
                   reactions={"ann": {"BACK": ["bob"]}, "bob": {"FORWARD": ["cat"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann")) == [
        ("ann", 1, 5, "roll", ""), ("bob", 12, 10, "send", "BACK-2"), ("cat", 20, 23, "send", "FORWARD-3"),
        ("cat", 23, 24, "card", "+1")]
    acts = [(a.actor, a.card, a.choices) for a in of(out, "action")]
    assert acts[:2] == [("ann", "BACK-2", "bob"), ("bob", "FORWARD-3", "cat")]


def test_6_7_only_arriving_acts_cards_swapped_or_placed_under_a_pawn():
    setup = campaign(two_card_placement=True)
    before = state(setup, {"ann": 1, "bob": 12, "cat": 20}, hands={"ann": ["+3", "SWAP-CARDS"]},
                   cards={25: "-5"})
    out = run(setup, before, {"ann": order(play("+3", "ME+0"), play("SWAP-CARDS", 30, "25 cat+0"))},
              dice({"ann": [1, 1]}, rest=2))
    assert out.state.cards[19] == "-5" and out.state.cards[0] == "+3"
    assert steps(go_of(out, "ann")) == [("ann", 1, 3, "roll", "")]
    assert squares(out)["cat"] != 15  # cat did not use the -5 in ann's go


def test_6_7_action_on_landing_ends_the_move():
    setup = campaign()
    before = state(setup, at(ann=1), cards={5: "REVERSE", 7: "+1"}, items={"L1": [7, 10]})
    out = run(setup, before, {}, dice({"ann": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", "")]
    assert out.state.reversed
    assert [(a.actor, a.card, a.landed) for a in of(out, "action")] == [("ann", "REVERSE", True)]


def test_6_7_lamppost_either_end():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 8, "cat": 31}, items={"P1": [5, 12]})
    out = run(setup, before, {}, dice({"ann": [2, 2], "bob": [2, 2]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 12, "item", "P1")]
    # bob: 8 -> 12, down P1 to 5
    assert steps(go_of(out, "bob"), "bob") == [(8, 12, "roll", ""), (12, 5, "item", "P1")]


def test_6_7_chained_lampposts_climb_and_chains_carry_on():
    setup = campaign()
    posts = {"P1": [5, 12], "P2": [12, 28]}
    before = state(setup, {"ann": 8, "bob": 1, "cat": 24}, items=posts)
    out = run(setup, before, {}, dice({"ann": [2, 2], "bob": [2, 2], "cat": [2, 2]}))
    assert steps(go_of(out, "ann"), "ann") == [(8, 12, "roll", ""), (12, 28, "item", "P2")]
    assert steps(go_of(out, "bob"), "bob") == [(1, 5, "roll", ""), (5, 12, "item", "P1"), (12, 28, "item", "P2")]
    assert steps(go_of(out, "cat"), "cat") == [(24, 28, "roll", ""), (28, 12, "item", "P2"), (12, 5, "item", "P1")]


def test_6_7_chained_snakes_and_ladders():
    setup = campaign()
    before = state(setup, {"ann": 24, "bob": 1, "cat": 31}, items={"S4": [5, 21], "S1": [21, 28], "L1": [3, 14],
                                                                   "L2": [14, 19]})
    out = run(setup, before, {}, dice({"ann": [2, 2], "bob": [1, 1]}, rest=2))
    assert steps(go_of(out, "ann"), "ann") == [(24, 28, "roll", ""), (28, 21, "item", "S1"), (21, 5, "item", "S4")]
    assert steps(go_of(out, "bob"), "bob") == [(1, 3, "roll", ""), (3, 14, "item", "L1"), (14, 19, "item", "L2")]


def test_6_7_reversed_board_snakes_climb_ladders_slide_lampposts_unchanged():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 10, "cat": 1}, reversed=True,
                   items={"S1": [5, 12], "L1": [3, 14], "P1": [4, 13]})
    out = run(setup, before, {}, dice({"ann": [2, 2], "bob": [2, 2], "cat": [1, 2]}))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", ""), (5, 12, "item", "S1")]
    assert steps(go_of(out, "bob"), "bob") == [(10, 14, "roll", ""), (14, 3, "item", "L1")]
    assert steps(go_of(out, "cat"), "cat") == [(1, 4, "roll", ""), (4, 13, "item", "P1")]
    # not reversed: the head and the foot are the entries, the tail and top do nothing
    before.reversed = False
    out = run(setup, before, {}, dice({"ann": [2, 2], "bob": [2, 2], "cat": [1, 2]}))
    assert steps(go_of(out, "ann"), "ann") == [(1, 5, "roll", "")]
    assert steps(go_of(out, "bob"), "bob") == [(10, 14, "roll", "")]
