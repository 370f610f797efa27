"""docs/rules/postal.md, the postal game: one test per bullet and per hand-worked case.

Unless a test says otherwise the board is the default 30-square one (levels of 10,
serpentine): level 1 holds 1-10 in columns 0-9, level 2 holds 11-20 right to left
(square s in column 20 - s), level 3 holds 21-30 in columns 0-9. Each docstring states
the case: set up, orders, and the result checked for every piece that matters."""

from __future__ import annotations

import dataclasses

import pytest
from rulehelpers import (
    RULES,
    board,
    by_hand_index,
    campaign,
    closings,
    elections,
    events,
    find_seed,
    held,
    moved,
    nominate,
    order,
    piece,
    placed,
    placing,
    placings,
    play,
    played,
    square,
    start_state,
    state,
    trapdoor,
)

from gm.errors import ProblemsError, RulesError
from gm.rules.postal.events import CampaignOver
from gm.rules.postal.options import SHARED, PostalOptions
from gm.rules.postal.state import PostalOrder, aggregates

FIVE = ("ann", "bob", "cat", "dan", "eve")


# == 2.1 Numbers ========================================================================


def test_2_1_a_used_number_is_gone():
    """Turn 1, ann holds 1-6 and plays 3: she moves 3 and holds 1, 2, 4, 5, 6."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup), {"ann": order(3)})
    assert square(result, "ann") == 3
    assert held(result, "ann") == (1, 2, 4, 5, 6)


def test_2_1_a_fresh_set_the_moment_the_sixth_is_used():
    """Turn 6, ann holds only 4 and plays it: she moves 4 and holds 1-6 again (never an
    empty hand)."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup, turn=6, hands={"ann": (4,)}), {"ann": order(4)})
    assert square(result, "ann") == 4
    assert held(result, "ann") == (1, 2, 3, 4, 5, 6)


def test_2_1_turns_1_to_6_are_one_cycle():
    """ann plays 6, 5, 4, 3, 2 in turns 1-5 and sends nothing in turn 6: her hand holds
    5, 4, 3, 2, 1 numbers after turns 1-5, the full set after turn 6; turn 7 starts cycle
    2 and she may play 6 again. The board is long enough that she never crosses."""
    setup = campaign(board(100), players=["ann"])
    st = start_state(setup)
    sizes = []
    for number in (6, 5, 4, 3, 2, None):
        st = play(setup, st, {"ann": order(number)} if number else {}).state
        sizes.append(len(held(st, "ann")))
    assert sizes == [5, 4, 3, 2, 1, 6]
    assert square(st, "ann") == 21
    result = play(setup, st, {"ann": order(6)})
    assert square(result, "ann") == 27
    assert held(result, "ann") == (1, 2, 3, 4, 5)


def test_2_1_the_sixth_turn_is_forced():
    """Turn 6, ann holds only 2 and sends nothing: she moves 2, the number is 'forced',
    and she is not an NMR (the GM's ruling); she owes no number."""
    setup = campaign(players=["ann"])
    before = state(setup, turn=6, hands={"ann": (2,)}, squares={"ann": 10})
    assert RULES.needs_number(setup, before, "ann") == []
    result = play(setup, before, {})
    assert square(result, "ann") == 12
    [event] = played(result, "ann")
    assert (event.number, event.source) == (2, "forced")


def test_2_1_a_number_not_held_is_refused():
    """Turn 5, ann holds 5 and 6 and orders 3: the order is refused, nothing resolves."""
    setup = campaign(players=["ann"])
    before = state(setup, turn=5)
    problems = RULES.order_problems(setup, before, "ann", order(3))
    assert [(p.code, p.facts["number"]) for p in problems] == [("number_not_held", 3)]
    with pytest.raises(RulesError):
        play(setup, before, {"ann": order(3)})


def test_2_1_a_number_moves_a_piece_only_then_is_it_used():
    """One board; ann crossed it earlier (placing 1) and holds 3-6 at turn 3; bob moves 4.
    ann uses nothing: she still holds 3, 4, 5, 6; bob holds 3, 5, 6."""
    setup = campaign(players=["ann", "bob", "cat"])
    before = state(setup, turn=3, squares={"ann": 27}, finished={"A": {"ann": 1}})
    result = play(setup, before, {"bob": order(4), "cat": order(5)})
    assert held(result, "ann") == (3, 4, 5, 6)
    assert held(result, "bob") == (3, 5, 6)
    assert played(result, "ann") == []
    assert moved(result, "ann") == []
    assert square(result, "ann") == 27


def test_2_1_finished_player_set_stays_when_other_boards_are_closed():
    """Shared numbers, boards A and B; ann crossed A and B is closed: she has crossed
    every open board, so she sends no number, uses nothing and keeps 3-6."""
    setup = campaign({"A": board(), "B": board()}, players=["ann", "bob", "cat"])
    before = state(
        setup, turn=3, finished={"A": {"ann": 1}, "B": {"bob": 1, "cat": 2, "ann": 3}}, closed=["B"]
    )
    assert RULES.needs_number(setup, before, "ann") == []
    assert RULES.order_problems(setup, before, "ann", order(4))
    result = play(setup, before, {"bob": order(4), "cat": order(5)})
    assert held(result, "ann") == (3, 4, 5, 6)


def test_2_1_shared_number_still_used_while_one_board_moves():
    """Shared numbers, boards A and B; ann crossed A, is on 10 on B, plays 4: she moves
    to 14 on B only and her 4 is used."""
    setup = campaign({"A": board(), "B": board()}, players=["ann", "bob", "cat"])
    before = state(setup, squares={"A": {"ann": 28}, "B": {"ann": 10}}, finished={"A": {"ann": 1}})
    result = play(setup, before, {"ann": order(4), "bob": order(1), "cat": order(1)})
    assert square(result, "ann", "B") == 14
    assert square(result, "ann", "A") == 28
    assert moved(result, "ann", "A") == []
    assert held(result, "ann") == (1, 2, 3, 5, 6)


def test_2_1_shared_number_moves_every_board():
    """Shared numbers, boards A (30 squares) and B (50 squares, snake 9->2); ann on 5 on A
    and on 4 on B plays 5: she is on 10 on A and 2 on B (the snake); one number used."""
    setup = campaign({"A": board(), "B": board(50, snakes=[[9, 2]])}, players=["ann"])
    result = play(
        setup, state(setup, squares={"A": {"ann": 5}, "B": {"ann": 4}}), {"ann": order(5)}
    )
    assert square(result, "ann", "A") == 10
    assert square(result, "ann", "B") == 2
    assert held(result, "ann") == (1, 2, 3, 4, 6)
    assert len(played(result, "ann")) == 1


def test_2_1_per_board_numbers_each_board_its_own_set():
    """numbers: per-board, boards A and B; ann plays 2 on A and 6 on B: she moves 2 on A
    and 6 on B, and holds 1,3,4,5,6 for A and 1-5 for B."""
    setup = campaign({"A": board(), "B": board()}, players=["ann"], numbers="per-board")
    result = play(setup, state(setup), {"ann": order(numbers={"A": 2, "B": 6})})
    assert (square(result, "ann", "A"), square(result, "ann", "B")) == (2, 6)
    assert held(result, "ann", "A") == (1, 3, 4, 5, 6)
    assert held(result, "ann", "B") == (1, 2, 3, 4, 5)


def test_2_1_per_board_a_crossed_boards_set_stays():
    """numbers: per-board; ann crossed A earlier; she plays 3 on B: her A set stays 3-6,
    her B set loses the 3; a number for A is refused."""
    setup = campaign(
        {"A": board(), "B": board()}, players=["ann", "bob", "cat"], numbers="per-board"
    )
    before = state(setup, turn=3, squares={"A": {"ann": 29}}, finished={"A": {"ann": 1}})
    assert RULES.needs_number(setup, before, "ann") == ["B"]
    assert RULES.order_problems(setup, before, "ann", order(numbers={"A": 3, "B": 3}))
    others = order(numbers={"A": 3, "B": 3})
    result = play(setup, before, {"ann": order(numbers={"B": 3}), "bob": others, "cat": others})
    assert held(result, "ann", "A") == (3, 4, 5, 6)
    assert held(result, "ann", "B") == (4, 5, 6)


def test_2_1_per_board_a_closed_boards_set_stays():
    """numbers: per-board; board A is closed (ann never crossed it); she plays 6 on B: her
    A set stays 3-6 and she owes no number for A."""
    setup = campaign(
        {"A": board(), "B": board()}, players=["ann", "bob", "cat"], numbers="per-board"
    )
    before = state(
        setup,
        turn=3,
        squares={"A": {"ann": 12}},
        finished={"A": {"bob": 1, "cat": 2, "ann": 3}},
        closed=["A"],
    )
    assert RULES.needs_number(setup, before, "ann") == ["B"]
    result = play(setup, before, {"ann": order(numbers={"B": 6})})
    assert held(result, "ann", "A") == (3, 4, 5, 6)
    assert held(result, "ann", "B") == (3, 4, 5)
    assert square(result, "ann", "A") == 12


# == 2.2 Trapdoors ======================================================================


def test_2_2_the_most_nominated_square_becomes_next_turns_trapdoor():
    """Four players; ann, bob and cat nominate 17 on A, dan nominates 12: 17 (3 votes)
    is A's trapdoor for turn 2; the tally lists 17 first."""
    setup = campaign(players=["ann", "bob", "cat", "dan"])
    orders = {p: order(1, A=17) for p in ("ann", "bob", "cat")} | {"dan": order(1, A=12)}
    result = play(setup, state(setup), orders)
    assert trapdoor(result) == 17
    [election] = elections(result)
    assert (election.turn, election.tally, election.elected) == (1, ((17, 3), (12, 1)), 17)


def test_2_2_the_trapdoor_lasts_the_next_turn_only():
    """A's trapdoor is 15 in turn 2 and nobody nominates: ann on 12 plays 3, lands on 15,
    drops to 6; after the turn A has no trapdoor, and in turn 3 bob (on 12) plays 3, lands
    on 15 and stays there."""
    setup = campaign(players=["ann", "bob"])
    before = state(setup, turn=2, squares={"ann": 12, "bob": 10}, trapdoors=15)
    result = play(setup, before, {"ann": order(3), "bob": order(2)})
    assert square(result, "ann") == 6
    assert square(result, "bob") == 12
    assert trapdoor(result) is None
    result = play(setup, result.state, {"ann": order(4), "bob": order(3)})
    assert square(result, "bob") == 15
    assert square(result, "ann") == 10


def test_2_2_below_the_threshold_there_is_no_trapdoor():
    """Default threshold 3; two players nominate 17: no trapdoor."""
    setup = campaign()
    result = play(
        setup, state(setup), {"ann": order(1, A=17), "bob": order(1, A=17), "cat": order(1)}
    )
    assert trapdoor(result) is None


def test_2_2_threshold_option():
    """trapdoor_threshold 2: two nominations for 17 elect it; threshold 4: three do not."""
    setup = campaign(trapdoor_threshold=2)
    result = play(
        setup, state(setup), {"ann": order(1, A=17), "bob": order(1, A=17), "cat": order(1)}
    )
    assert trapdoor(result) == 17
    setup = campaign(players=FIVE, trapdoor_threshold=4)
    result = play(setup, state(setup), {p: order(1, A=17) for p in ("ann", "bob", "cat")})
    assert trapdoor(result) is None


def test_2_2_a_finished_player_may_nominate():
    """ann crossed A (placing 1) and sends only a nomination for 17; bob and cat nominate
    17 too: three nominations, 17 is the trapdoor."""
    setup = campaign()
    before = state(setup, turn=2, squares={"ann": 29}, finished={"A": {"ann": 1}})
    result = play(
        setup, before, {"ann": nominate(A=17), "bob": order(2, A=17), "cat": order(2, A=17)}
    )
    assert trapdoor(result) == 17


def test_2_2_nominations_for_a_closed_board_are_ignored():
    """Boards A and B; B is closed. Everyone nominates 5 on B and 9 on A: A's trapdoor is
    9, B has none and no election is held for it."""
    setup = campaign({"A": board(), "B": board()})
    before = state(setup, finished={"B": {"ann": 1, "bob": 2, "cat": 3}}, closed=["B"])
    result = play(setup, before, {p: order(1, A=9, B=5) for p in ("ann", "bob", "cat")})
    assert trapdoor(result, "A") == 9
    assert trapdoor(result, "B") is None
    assert [e.board for e in elections(result)] == ["A"]


def test_2_2_a_board_that_closes_this_turn_gets_no_trapdoor():
    """close_after 1; ann crosses A this turn and everyone nominated 17 on A: A closes and
    has no trapdoor."""
    setup = campaign(close_after=1)
    before = state(setup, squares={"ann": 28})
    result = play(setup, before, {p: order(6, A=17) for p in ("ann", "bob", "cat")})
    assert result.state.boards["A"].closed
    assert trapdoor(result) is None


def test_2_2_a_tie_is_broken_by_the_seeded_formula():
    """Six players; three nominate 12, three nominate 17 on A in turn 4. The tied squares
    ascending are [12, 17]; the index is sha256("{seed}:4:trapdoor:A") % 2, computed here
    by hand. Two seeds are used, one that picks 12 and one that picks 17."""
    players = ("ann", "bob", "cat", "dan", "eve", "fay")
    for want in (12, 17):
        seed = find_seed(want, [12, 17], 4, "trapdoor", "A")
        assert [12, 17][by_hand_index(seed, 4, "trapdoor", "A", 2)] == want
        setup = campaign(players=players, seed=seed)
        orders = {p: order(4, A=12 if i < 3 else 17) for i, p in enumerate(players)}
        result = play(setup, state(setup, turn=4), orders)
        assert trapdoor(result) == want
        [election] = elections(result)
        assert election.tied == (12, 17)


def test_2_2_drop_one_level_in_the_same_column():
    """Trapdoor 25 (level 3, column 4); ann on 21 plays 4, lands on 25: she drops to 16
    (level 2, column 4)."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup, squares={"ann": 21}, trapdoors=25), {"ann": order(4)})
    assert square(result, "ann") == 16


def test_2_2_drop_from_level_one_goes_to_start():
    """Trapdoor 5 (level 1); ann on 1 plays 4, lands on 5: she drops to Start (0)."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup, squares={"ann": 1}, trapdoors=5), {"ann": order(4)})
    assert square(result, "ann") == 0
    assert moved(result, "ann")[0].steps[-1].via == "trapdoor"


def test_2_2_drop_on_an_irregular_shape_goes_to_the_nearest_end():
    """Levels [5, 3, 2], offsets [0, 3, -1], serpentine, on boards A and B alike: level 1
    is columns 0-4 (squares 1-5), level 2 runs right to left over columns 5, 4, 3
    (squares 6, 7, 8), level 3 is columns -1, 0 (squares 9, 10). A's trapdoor is 6 (column
    5): nothing below in column 5, so ann drops to level 1's nearest end, square 5
    (column 4). B's trapdoor is 9 (column -1): level 2 spans 3-5, so she drops to its
    nearest end, square 8 (column 3). ann is on 3 on A and 6 on B and plays 3."""
    shape = {"levels": [5, 3, 2], "offsets": [0, 3, -1]}
    setup = campaign({"A": board(10, **shape), "B": board(10, **shape)}, players=["ann"])
    before = state(setup, squares={"A": {"ann": 3}, "B": {"ann": 6}}, trapdoors={"A": 6, "B": 9})
    result = play(setup, before, {"ann": order(3)})
    assert square(result, "ann", "A") == 5
    assert square(result, "ann", "B") == 8


def test_2_2_drop_on_an_offset_level_not_serpentine():
    """Levels [5, 3, 2], offsets [0, 3, -1], serpentine false: squares 6, 7, 8 are in
    columns 3, 4, 5; 10 is in column 0. Trapdoor 8 (column 5) drops to 5 (column 4, the
    end of level 1); trapdoor 10 (column 0) drops to 6 (column 3, the left end of level
    2)."""
    b = board(10, levels=[5, 3, 2], offsets=[0, 3, -1], serpentine=False)
    assert b.drop_target(8) == 5
    assert b.drop_target(10) == 6
    assert b.drop_target(7) == 5
    assert b.drop_target(6) == 4


def test_2_2_a_snake_can_bring_a_piece_to_the_trapdoor():
    """Snake 27->15, trapdoor 15; ann on 24 plays 3: 27, snake to 15, drops to 6."""
    setup = campaign(board(30, snakes=[[27, 15]]), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 24}, trapdoors=15), {"ann": order(3)})
    assert square(result, "ann") == 6


def test_2_2_a_ladder_can_bring_a_piece_to_the_trapdoor():
    """Ladder 3->25, trapdoor 25; ann on 1 plays 2: 3, ladder to 25, drops to 16."""
    setup = campaign(board(30, ladders=[[3, 25]]), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 1}, trapdoors=25), {"ann": order(2)})
    assert square(result, "ann") == 16


def test_2_2_the_trapdoor_supersedes_a_ladder_foot():
    """Ladder 15->28 and trapdoor 15; ann on 12 plays 3: she drops to 6, the ladder does
    nothing. Next turn (no trapdoor) bob lands on 15 and climbs to 28."""
    setup = campaign(board(30, ladders=[[15, 28]]), players=["ann", "bob"])
    result = play(
        setup,
        state(setup, squares={"ann": 12, "bob": 9}, trapdoors=15),
        {"ann": order(3), "bob": order(1)},
    )
    assert square(result, "ann") == 6
    assert square(result, "bob") == 10
    result = play(setup, result.state, {"ann": order(2), "bob": order(5)})
    assert square(result, "bob") == 28


def test_2_2_the_trapdoor_supersedes_a_snake_head():
    """Snake 25->2 and trapdoor 25; ann on 21 plays 4: she drops to 16, not down the
    snake to 2."""
    setup = campaign(board(30, snakes=[[25, 2]]), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 21}, trapdoors=25), {"ann": order(4)})
    assert square(result, "ann") == 16


def test_2_2_a_drop_onto_a_snake_head_takes_the_snake():
    """Trapdoor 25 drops to 16, where snake 16->3 starts; ann on 21 plays 4: 25, 16, 3."""
    setup = campaign(board(30, snakes=[[16, 3]]), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 21}, trapdoors=25), {"ann": order(4)})
    assert square(result, "ann") == 3
    assert [(s.square, s.via) for s in moved(result, "ann")[0].steps] == [
        (25, "number"),
        (16, "trapdoor"),
        (3, "snake"),
    ]


def test_2_2_a_drop_onto_a_ladder_foot_takes_the_ladder():
    """Trapdoor 15 drops to 6, where ladder 6->9 starts; ann on 10 plays 5: 15, 6, 9."""
    setup = campaign(board(30, ladders=[[6, 9]]), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 10}, trapdoors=15), {"ann": order(5)})
    assert square(result, "ann") == 9


def test_2_2_a_drop_onto_a_ladder_back_to_the_trapdoor_stops_there():
    """Trapdoor 15 drops to 6; ladder 6->15 leads back. ann on 11 plays 4: 15, drop to 6,
    ladder to 15, and she stays on 15 (its effect was used in this move, RULES 1)."""
    setup = campaign(board(30, ladders=[[6, 15]]), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 11}, trapdoors=15), {"ann": order(4)})
    assert square(result, "ann") == 15


def test_2_2_a_drop_onto_a_chain_follows_it():
    """chains: true, ladders 6->12 and 12->19 (19 is level 2, column 1); trapdoor 15 drops
    to 6: ann on 14 plays 1, ends on 19."""
    setup = campaign(board(30, ladders=[[6, 12], [12, 19]], chains=True), players=["ann"])
    result = play(setup, state(setup, squares={"ann": 14}, trapdoors=15), {"ann": order(1)})
    assert square(result, "ann") == 19


def test_2_2_passing_over_the_trapdoor_does_nothing():
    """Trapdoor 15; ann on 12 plays 6, passes over 15 and stands on 18."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup, squares={"ann": 12}, trapdoors=15), {"ann": order(6)})
    assert square(result, "ann") == 18


def test_2_2_announce_trapdoors_option():
    """announce_trapdoors defaults to true, accepts false, refuses 'no'; it only decides
    what reports show, so a turn resolves the same with it on or off."""
    assert PostalOptions().announce_trapdoors is True
    assert RULES.parse_options({"announce_trapdoors": False}).announce_trapdoors is False
    with pytest.raises(ProblemsError):
        RULES.parse_options({"announce_trapdoors": "no"})
    results = []
    for announce in (True, False):
        setup = campaign(announce_trapdoors=announce)
        orders = {p: order(2, A=9) for p in ("ann", "bob", "cat")}
        results.append(play(setup, state(setup, trapdoors=5, squares={"ann": 3}), orders))
    assert results[0] == results[1]
    assert trapdoor(results[0]) == 9


# == 2.3 Crossing the finish, placings ==================================================


def test_2_3_landing_on_n_is_not_crossing():
    """ann on 26 plays 4 and stands on 30 (N): she has not crossed."""
    setup = campaign()
    result = play(
        setup, state(setup, squares={"ann": 26}), {p: order(4) for p in ("ann", "bob", "cat")}
    )
    assert square(result, "ann") == 30
    assert piece(result, "ann").finished is False
    assert placing(result, "ann") is None


def test_2_3_crossing_when_p_plus_k_exceeds_n():
    """ann on 26 plays 5 (31 > 30): she crosses with overshoot 1, is placed 1st, and her
    square stays 26 (the last she stood on)."""
    setup = campaign()
    result = play(
        setup, state(setup, squares={"ann": 26}), {p: order(5) for p in ("ann", "bob", "cat")}
    )
    assert piece(result, "ann").finished is True
    assert placing(result, "ann") == 1
    assert square(result, "ann") == 26
    [move] = moved(result, "ann")
    assert (move.crossed, move.overshoot) == (True, 1)


def test_2_3_a_finished_piece_never_moves_again():
    """ann crossed A in turn 1; in turn 2 she sends nothing: no move on A, square and
    placing unchanged."""
    setup = campaign()
    st = play(
        setup, state(setup, squares={"ann": 28}), {p: order(6) for p in ("ann", "bob", "cat")}
    ).state
    result = play(setup, st, {"bob": order(1), "cat": order(1)})
    assert moved(result, "ann") == []
    assert (square(result, "ann"), placing(result, "ann")) == (28, 1)


def test_2_3_a_crossing_square_ignores_items():
    """Ladder 3->30 on a 30 board: a move past 30 crosses, no item is ever taken on the
    way; a move ending on 3 climbs to 30 but does not cross."""
    setup = campaign(board(30, ladders=[[3, 30]]), players=["ann", "bob"])
    result = play(
        setup, state(setup, squares={"ann": 1, "bob": 29}), {"ann": order(2), "bob": order(6)}
    )
    assert (square(result, "ann"), piece(result, "ann").finished) == (30, False)
    assert (piece(result, "bob").finished, placing(result, "bob")) == (True, 1)


def test_2_3_earlier_turn_is_placed_first():
    """Turn 1: ann on 29 plays 2 and crosses (overshoot 1); bob on 27 plays 2 to 29.
    Turn 2: bob plays 6 and crosses with overshoot 5: ann 1st, bob 2nd."""
    setup = campaign(players=FIVE)
    st = play(
        setup, state(setup, squares={"ann": 29, "bob": 27}), {p: order(2) for p in FIVE}
    ).state
    result = play(setup, st, {"bob": order(6), "cat": order(1), "dan": order(1), "eve": order(1)})
    assert placing(result, "ann") == 1
    assert placing(result, "bob") == 2


def test_2_3_larger_overshoot_is_placed_first():
    """Same turn: ann on 29 plays 6 (overshoot 5), bob on 28 plays 3 (overshoot 1):
    ann 1st, bob 2nd."""
    setup = campaign(players=FIVE)
    result = play(
        setup, state(setup, squares={"ann": 29, "bob": 28}), {"ann": order(6), "bob": order(3)}
    )
    assert placing(result, "ann") == 1
    assert placing(result, "bob") == 2


def test_2_3_equal_overshoot_shares_a_place_and_skips_the_next():
    """close_after 4, five players. Turn 1: ann on 27 plays 5 and bob on 29 plays 3 (both
    overshoot 2), cat on 30 plays 1 (overshoot 1), dan on 22 plays 4 to 26: ann 1, bob 1,
    cat 3. Turn 2: dan plays 6 and crosses: 4th (the board then closes; eve, on 1, is 5th)."""
    setup = campaign(players=FIVE, close_after=4)
    before = state(setup, squares={"ann": 27, "bob": 29, "cat": 30, "dan": 22})
    result = play(
        setup, before, {"ann": order(5), "bob": order(3), "cat": order(1), "dan": order(4)}
    )
    assert placings(result) == {"ann": 1, "bob": 1, "cat": 3, "dan": None, "eve": None}
    assert not result.state.boards["A"].closed
    result = play(setup, result.state, {"dan": order(6), "eve": order(1)})
    assert placings(result) == {"ann": 1, "bob": 1, "cat": 3, "dan": 4, "eve": 5}


def test_2_3_board_closes_when_close_after_players_have_crossed():
    """Default close_after 3, five players: ann and bob crossed earlier (1, 2); cat
    crosses in turn 3. A closes at the end of turn 3: cat 3rd, dan (on 20) 4th, eve (on
    12) 5th, reason close_after."""
    setup = campaign(players=FIVE)
    before = state(
        setup,
        turn=3,
        squares={"ann": 30, "bob": 29, "cat": 27, "dan": 14, "eve": 8},
        finished={"A": {"ann": 1, "bob": 2}},
    )
    result = play(setup, before, {"cat": order(4), "dan": order(6), "eve": order(4)})
    assert result.state.boards["A"].closed
    assert placings(result) == {"ann": 1, "bob": 2, "cat": 3, "dan": 4, "eve": 5}
    assert [(c.board, c.reason, c.turn) for c in closings(result)] == [("A", "close_after", 3)]
    assert result.state.over is True


def test_2_3_board_stays_open_below_close_after():
    """Default close_after 3, five players: only ann and bob have crossed: A stays open."""
    setup = campaign(players=FIVE)
    result = play(
        setup, state(setup, squares={"ann": 30, "bob": 29}), {"ann": order(4), "bob": order(4)}
    )
    assert not result.state.boards["A"].closed
    assert result.state.over is False


def test_2_3_closing_places_non_crossers_after_crossers_by_square():
    """close_after 3, six players. Turn 1: ann on 28 and bob on 29 play 5 and 4
    (overshoot 3 each), cat on 30 plays 1 (overshoot 1): ann 1, bob 1, cat 3. The board
    closes: dan on 16 and eve on 14 both play 2 and 4, ending on 18 together: 4th
    equal; fay on Start plays 6: 6th."""
    players = ("ann", "bob", "cat", "dan", "eve", "fay")
    setup = campaign(players=players)
    before = state(setup, squares={"ann": 28, "bob": 29, "cat": 30, "dan": 16, "eve": 14})
    orders = {
        "ann": order(5),
        "bob": order(4),
        "cat": order(1),
        "dan": order(2),
        "eve": order(4),
        "fay": order(6),
    }
    result = play(setup, before, orders)
    assert placings(result) == {"ann": 1, "bob": 1, "cat": 3, "dan": 4, "eve": 4, "fay": 6}
    assert {(p.player, p.crossed) for p in placed(result)} >= {
        ("dan", False),
        ("fay", False),
        ("ann", True),
    }


def test_2_3_close_after_above_player_count_counts_as_player_count():
    """close_after 5 with two players: after ann crosses, A stays open; when bob crosses
    the next turn (2 of 2), it closes."""
    setup = campaign(players=["ann", "bob"], close_after=5)
    result = play(
        setup, state(setup, squares={"ann": 29, "bob": 24}), {"ann": order(6), "bob": order(1)}
    )
    assert not result.state.boards["A"].closed
    result = play(setup, result.state, {"bob": order(6)})
    assert result.state.boards["A"].closed
    assert placings(result) == {"ann": 1, "bob": 2}


def test_2_3_close_after_all_with_one_player():
    """close_after all, ann alone: A stays open until she crosses, then closes; she is
    1st and the campaign is over."""
    setup = campaign(players=["ann"], close_after="all")
    result = play(setup, state(setup, squares={"ann": 20}), {"ann": order(5)})
    assert not result.state.boards["A"].closed
    result = play(setup, result.state, {"ann": order(6)})
    assert result.state.boards["A"].closed
    assert placing(result, "ann") == 1
    assert result.state.over


def test_2_3_close_after_all_with_several_players():
    """close_after all, three players. Turn 1: ann on 29, bob on 27, cat on 5 all play 3:
    ann crosses, bob stands on 30, cat on 8; A stays open (one crossed). Turn 2: bob plays
    1 and crosses, cat plays 2 to 10: every player but one has crossed, A closes; ann 1st,
    bob 2nd, cat (not crossed) 3rd."""
    setup = campaign(close_after="all")
    before = state(setup, squares={"ann": 29, "bob": 27, "cat": 5})
    result = play(setup, before, {p: order(3) for p in ("ann", "bob", "cat")})
    assert not result.state.boards["A"].closed
    assert (square(result, "bob"), square(result, "cat")) == (30, 8)
    result = play(setup, result.state, {"bob": order(1), "cat": order(2)})
    assert result.state.boards["A"].closed
    assert placings(result) == {"ann": 1, "bob": 2, "cat": 3}
    assert [p.crossed for p in placed(result) if p.player == "cat"] == [False]


def test_2_3_max_turns_closes_every_open_board():
    """max_turns 4, boards A and B; in turn 4 nobody crosses: both boards close (reason
    max_turns), pieces placed by square (ann on 20, bob on 15, cat on 15: 1, 2, 2 on A);
    the campaign is over and the turn counter is 5."""
    setup = campaign({"A": board(), "B": board()}, max_turns=4)
    squares = {"ann": 17, "bob": 12, "cat": 9}
    before = state(
        setup, turn=4, squares={"A": squares, "B": squares}, hands={p: (3, 5, 6) for p in squares}
    )
    result = play(setup, before, {"ann": order(3), "bob": order(3), "cat": order(6)})
    assert placings(result, "A") == {"ann": 1, "bob": 2, "cat": 2}
    assert {(c.board, c.reason) for c in closings(result)} == {
        ("A", "max_turns"),
        ("B", "max_turns"),
    }
    assert result.state.over
    assert result.state.turn == 5
    assert events(result, CampaignOver)


def test_2_3_before_max_turns_the_campaign_goes_on():
    """max_turns 4: at the end of turn 3 nothing closes."""
    setup = campaign(max_turns=4)
    result = play(setup, state(setup, turn=3), {p: order(4) for p in ("ann", "bob", "cat")})
    assert not result.state.over
    assert closings(result) == []


def test_2_3_aggregate_is_the_sum_of_placings_lowest_wins_ties_share():
    """Boards A and B closed; four players placed A: ann 1, bob 2, cat 3, dan 4 and
    B: ann 4, bob 1, cat 2, dan 3. Aggregates: ann 5, bob 3, cat 5, dan 7; places: bob 1,
    ann 2, cat 2, dan 4. state_json shows them once the campaign is over."""
    players = ("ann", "bob", "cat", "dan")
    setup = campaign({"A": board(), "B": board()}, players=players)
    st = state(
        setup,
        finished={
            "A": {"ann": 1, "bob": 2, "cat": 3, "dan": 4},
            "B": {"ann": 4, "bob": 1, "cat": 2, "dan": 3},
        },
        closed=["A", "B"],
    )
    st = dataclasses.replace(st, over=True)
    assert aggregates(setup.players, st) == {
        "ann": (5, 2),
        "bob": (3, 1),
        "cat": (5, 2),
        "dan": (7, 4),
    }
    data = RULES.state_json(setup, st)
    assert data["players"]["ann"]["aggregate"] == 5 and data["players"]["ann"]["place"] == 2
    assert data["players"]["dan"]["place"] == 4


def test_2_3_with_one_board_the_aggregate_is_the_placing():
    """One board, closed: ann 1, bob 1, cat 3 -> aggregates 1, 1, 3 and places 1, 1, 3."""
    setup = campaign()
    st = dataclasses.replace(
        state(setup, finished={"A": {"ann": 1, "bob": 1, "cat": 3}}, closed=["A"]), over=True
    )
    assert aggregates(setup.players, st) == {"ann": (1, 1), "bob": (1, 1), "cat": (3, 3)}


def test_2_3_aggregate_hidden_until_the_campaign_ends():
    """While a board is open, state_json shows aggregate and place as null."""
    setup = campaign()
    data = RULES.state_json(setup, state(setup, finished={"A": {"ann": 1}}))
    assert data["players"]["ann"] == {
        "numbers_left": [1, 2, 3, 4, 5, 6],
        "aggregate": None,
        "place": None,
    }


def test_2_3_the_campaign_ends_when_every_board_is_closed():
    """Boards A and B, close_after 1. Turn 1: ann crosses A only (she is on 27 on A, 2 on
    B): A closes, B open, the campaign goes on. Turn 2: bob crosses B: B closes, the
    campaign is over; resolving again is refused."""
    setup = campaign({"A": board(), "B": board()}, close_after=1)
    before = state(setup, squares={"A": {"ann": 27}, "B": {"ann": 2, "bob": 28}})
    result = play(setup, before, {"ann": order(5), "bob": order(1), "cat": order(1)})
    assert result.state.boards["A"].closed and not result.state.boards["B"].closed
    assert not result.state.over
    result = play(setup, result.state, {"ann": order(1), "bob": order(6), "cat": order(2)})
    assert result.state.over
    assert [e.turn for e in events(result, CampaignOver)] == [2]
    with pytest.raises(RulesError):
        play(setup, result.state, {})


# == 2.4 Orders, missed turns ===========================================================


def test_2_4_a_number_is_required_unless_finished_or_forced():
    """Turn 3: ann (moving, four numbers) owes a number; bob (crossed the only board) owes
    none; at turn 6, cat with one number left owes none."""
    setup = campaign()
    before = state(setup, turn=3, squares={"bob": 25}, finished={"A": {"bob": 1}})
    assert RULES.needs_number(setup, before, "ann") == [SHARED]
    assert RULES.needs_number(setup, before, "bob") == []
    assert RULES.needs_number(setup, state(setup, turn=6), "cat") == []


def test_2_4_nmr_random_uses_the_seeded_formula():
    """nmr: random (default); ann holds 3, 4, 5, 6 at turn 3 and sends nothing. The number
    is [3, 4, 5, 6][sha256("{seed}:3:nmr:ann") % 4], computed here by hand; a seed is
    chosen that does not give the lowest. The event marks her NMR."""
    seed = find_seed(5, [3, 4, 5, 6], 3, "nmr", "ann")
    setup = campaign(players=["ann"], seed=seed)
    result = play(setup, state(setup, turn=3, squares={"ann": 2}), {})
    expected = [3, 4, 5, 6][by_hand_index(seed, 3, "nmr", "ann", 4)]
    assert expected == 5
    assert square(result, "ann") == 2 + expected
    [event] = played(result, "ann")
    assert (event.number, event.source) == (expected, "nmr")
    assert held(result, "ann") == (3, 4, 6)


def test_2_4_nmr_lowest_and_highest():
    """ann holds 3-6 at turn 3 and sends nothing: nmr lowest moves her 3, highest 6."""
    for policy, number in (("lowest", 3), ("highest", 6)):
        setup = campaign(players=["ann"], nmr=policy)
        result = play(setup, state(setup, turn=3), {})
        assert square(result, "ann") == number
        assert played(result, "ann")[0].source == "nmr"


def test_2_4_an_order_with_only_nominations_is_still_nmr():
    """ann sends a nomination but no number: she is NMR, and her nomination counts."""
    setup = campaign(nmr="lowest")
    orders = {"ann": nominate(A=9), "bob": order(1, A=9), "cat": order(1, A=9)}
    result = play(setup, state(setup), orders)
    assert played(result, "ann")[0].source == "nmr"
    assert trapdoor(result) == 9


def test_2_4_a_forced_number_may_be_sent():
    """Turn 6, ann holds only 2 and sends 2: moved 2, source 'order'."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup, turn=6, hands={"ann": (2,)}), {"ann": order(2)})
    assert square(result, "ann") == 2
    assert played(result, "ann")[0].source == "order"


def test_2_4_orders_that_cannot_be_played_are_refused():
    """A nomination outside 1..N, a nomination for a board that does not exist, a number
    from a player who crossed every open board, and an order from a non-player are all
    refused."""
    setup = campaign()
    before = state(setup, squares={"bob": 25}, finished={"A": {"bob": 1}})
    assert RULES.order_problems(setup, before, "ann", order(1, A=31))
    assert RULES.order_problems(setup, before, "ann", order(1, A=0))
    assert RULES.order_problems(setup, before, "ann", order(1, Z=3))
    assert RULES.order_problems(setup, before, "bob", order(1))
    assert RULES.order_problems(setup, before, "bob", nominate(A=30)) == []
    with pytest.raises(RulesError):
        play(setup, before, {"zed": order(1)})


# == 2.5 Double turns ===================================================================


def test_2_5_turns_5_and_6_of_every_cycle_are_one():
    """double_turns: turns 5, 11, 17 start a double turn; 1-4 and 6 do not; without the
    option none does."""
    on = PostalOptions(double_turns=True)
    assert [t for t in range(1, 19) if on.is_double(t)] == [5, 11, 17]
    assert not any(PostalOptions().is_double(t) for t in range(1, 19))


def test_2_5_one_order_turn_5_number_then_turn_6_forced():
    """double_turns; turn 5, ann holds 2 and 5 and orders 5: she moves 5 (turn 5) then 2
    (turn 6, forced); she holds a fresh set and the next turn is 7."""
    setup = campaign(players=["ann"], double_turns=True)
    result = play(
        setup, state(setup, turn=5, squares={"ann": 3}, hands={"ann": (2, 5)}), {"ann": order(5)}
    )
    assert square(result, "ann") == 10
    assert [(m.turn, m.number) for m in moved(result, "ann")] == [(5, 5), (6, 2)]
    assert [e.source for e in played(result, "ann")] == ["order", "forced"]
    assert held(result, "ann") == (1, 2, 3, 4, 5, 6)
    assert result.state.turn == 7


def test_2_5_the_trapdoor_in_force_acts_in_both_halves():
    """double_turns; trapdoor 15. ann on 8 holds 2, 5, orders 2: 10 in half one, then 5
    to 15, drops to 6. bob on 12 holds 3, 4, orders 3: 15, drops to 6, then 4 to 10."""
    setup = campaign(players=["ann", "bob"], double_turns=True)
    before = state(
        setup,
        turn=5,
        squares={"ann": 8, "bob": 12},
        trapdoors=15,
        hands={"ann": (2, 5), "bob": (3, 4)},
    )
    result = play(setup, before, {"ann": order(2), "bob": order(3)})
    assert square(result, "ann") == 6
    assert square(result, "bob") == 10


def test_2_5_double_turn_nominations_elect_the_trapdoor_for_turn_7():
    """double_turns; in turn 5 all three nominate 17 (trapdoor 9 in force): after the
    double turn the trapdoor is 17, for turn 7; the election is recorded as turn 5's."""
    setup = campaign(double_turns=True)
    result = play(
        setup, state(setup, turn=5, trapdoors=9), {p: order(5, A=17) for p in ("ann", "bob", "cat")}
    )
    assert result.state.turn == 7
    assert trapdoor(result) == 17
    assert [e.turn for e in elections(result)] == [5]


def test_2_5_a_board_closing_in_the_first_half():
    """double_turns, close_after 1, boards A and B, two players holding 2 and 5 at turn 5.
    Both order 5. On A, ann on 27 crosses in half one and bob moves 10 -> 15; A closes at
    the end of half one (bob placed 2nd there) and is not played in half two, so bob stays
    on 15. On B both move in both halves: 1 + 5 + 2 = 8."""
    setup = campaign(
        {"A": board(), "B": board()}, players=["ann", "bob"], double_turns=True, close_after=1
    )
    before = state(
        setup,
        turn=5,
        squares={"A": {"ann": 27, "bob": 10}, "B": {"ann": 1, "bob": 1}},
        hands={"ann": (2, 5), "bob": (2, 5)},
    )
    result = play(setup, before, {"ann": order(5), "bob": order(5)})
    assert result.state.boards["A"].closed
    assert [(c.board, c.turn) for c in closings(result)] == [("A", 5)]
    assert placings(result, "A") == {"ann": 1, "bob": 2}
    assert square(result, "bob", "A") == 15
    assert [m.turn for m in moved(result, "bob", "A")] == [5]
    assert square(result, "ann", "B") == 8
    assert square(result, "bob", "B") == 8
    assert result.state.turn == 7


def test_2_5_placings_follow_the_halves():
    """double_turns, five players. ann on 29 holds 1, 2 and orders 2: crosses in half one
    (overshoot 1). bob on 25 holds 1, 6, orders 1: 26 in half one, then 6 in half two
    (overshoot 2). ann is placed ahead of bob despite the smaller overshoot."""
    setup = campaign(players=FIVE, double_turns=True)
    before = state(
        setup, turn=5, squares={"ann": 29, "bob": 25}, hands={"ann": (1, 2), "bob": (1, 6)}
    )
    result = play(setup, before, {"ann": order(2), "bob": order(1)})
    assert (placing(result, "ann"), placing(result, "bob")) == (1, 2)


def test_2_5_max_turns_on_the_first_half():
    """double_turns, max_turns 5; turn 5: ann on 3 holds 2, 5 and orders 5. Half one is
    played (she is on 8); every board closes at the end of turn 5, half two is not
    played (she keeps her 2), and the turn counter moves to 7."""
    setup = campaign(players=["ann", "bob"], double_turns=True, max_turns=5)
    before = state(
        setup, turn=5, squares={"ann": 3, "bob": 1}, hands={"ann": (2, 5), "bob": (2, 5)}
    )
    result = play(setup, before, {"ann": order(5), "bob": order(2)})
    assert square(result, "ann") == 8
    assert square(result, "bob") == 3
    assert [m.turn for m in moved(result, "ann")] == [5]
    assert [(c.reason, c.turn) for c in closings(result)] == [("max_turns", 5)]
    assert placings(result) == {"ann": 1, "bob": 2}
    assert held(result, "ann") == (2,)
    assert result.state.over
    assert result.state.turn == 7
    assert [e.turn for e in events(result, CampaignOver)] == [5]


def test_2_5_max_turns_on_the_second_half():
    """double_turns, max_turns 6: both halves of turn 5&6 are played, then the boards
    close; the turn counter is 7."""
    setup = campaign(players=["ann"], double_turns=True, max_turns=6)
    result = play(setup, state(setup, turn=5, hands={"ann": (2, 5)}), {"ann": order(5)})
    assert square(result, "ann") == 7
    assert [(c.reason, c.turn) for c in closings(result)] == [("max_turns", 6)]
    assert result.state.turn == 7


def test_2_5_campaign_over_in_half_one_still_counts_both():
    """double_turns, close_after 1, one board: ann crosses in half one; the campaign ends
    and the turn counter still moves from 5 to 7."""
    setup = campaign(players=["ann", "bob"], double_turns=True, close_after=1)
    result = play(
        setup, state(setup, turn=5, squares={"ann": 29}), {"ann": order(5), "bob": order(5)}
    )
    assert result.state.over
    assert result.state.turn == 7
    assert [m.turn for m in moved(result, "bob")] == [5]
    assert [e.turn for e in events(result, CampaignOver)] == [5]


def test_2_5_nmr_in_a_double_turn_uses_the_first_halfs_turn():
    """double_turns, nmr random; turn 11, ann holds 1 and 4 and sends nothing: half one
    plays [1, 4][sha256("{seed}:11:nmr:ann") % 2] (by hand), half two the other."""
    seed = find_seed(4, [1, 4], 11, "nmr", "ann")
    setup = campaign(players=["ann"], double_turns=True, seed=seed)
    result = play(setup, state(setup, turn=11, hands={"ann": (1, 4)}), {})
    assert [(e.turn, e.number, e.source) for e in played(result, "ann")] == [
        (11, 4, "nmr"),
        (12, 1, "forced"),
    ]
    assert result.state.turn == 13


# == 2.6 / CONTRACT: the state JSON =====================================================


def test_2_6_state_json_shape():
    """state_json after turn 1 on board A (ann moved 3, trapdoor 17 elected): turn 2,
    not over, board A with squares, closed, trapdoor and per-player square, finished,
    placing; per-player numbers_left, aggregate, place. No numbers played appear."""
    setup = campaign()
    result = play(setup, state(setup), {p: order(3, A=17) for p in ("ann", "bob", "cat")})
    data = RULES.state_json(setup, result.state)
    assert data["turn"] == 2 and data["over"] is False
    assert data["boards"]["A"] == {
        "squares": 30,
        "closed": False,
        "trapdoor": 17,
        "players": {
            p: {"square": 3, "finished": False, "placing": None} for p in ("ann", "bob", "cat")
        },
    }
    assert data["players"]["ann"] == {
        "numbers_left": [1, 2, 4, 5, 6],
        "aggregate": None,
        "place": None,
    }


def test_2_6_state_json_per_board_numbers_are_an_object():
    """numbers: per-board: numbers_left is an object board -> list."""
    setup = campaign({"A": board(), "B": board()}, numbers="per-board")
    data = RULES.state_json(setup, start_state(setup))
    assert data["players"]["ann"]["numbers_left"] == {
        "A": [1, 2, 3, 4, 5, 6],
        "B": [1, 2, 3, 4, 5, 6],
    }


def test_2_6_state_round_trips_through_dump_and_load():
    """dump_state / load_state give back the same state."""
    setup = campaign()
    st = play(
        setup, state(setup, squares={"ann": 28}), {p: order(6, A=4) for p in ("ann", "bob", "cat")}
    ).state
    assert RULES.load_state(RULES.dump_state(st)) == st


def test_2_4_an_empty_order_is_an_nmr():
    """An empty PostalOrder from ann (nmr highest, turn 1): she is NMR and moves 6."""
    setup = campaign(nmr="highest")
    result = play(setup, state(setup), {"ann": PostalOrder()})
    assert square(result, "ann") == 6


# == rulings on points docs/rules/ leaves open (each also in the report) ===================


def test_2_2_a_tie_below_the_threshold_elects_nothing():
    """Threshold 3, four players: two nominate 12 and two nominate 17: most is 2, below
    the threshold, so no trapdoor and no tie is drawn."""
    setup = campaign(players=("ann", "bob", "cat", "dan"))
    orders = {"ann": order(1, A=12), "bob": order(1, A=12), "cat": order(1, A=17)}
    orders["dan"] = order(1, A=17)
    result = play(setup, state(setup), orders)
    assert trapdoor(result) is None
    assert elections(result)[0].tied == ()


def test_2_3_crossers_beyond_close_after_are_all_placed_as_crossers():
    """close_after 1, three players: ann (overshoot 4) and bob (overshoot 1) cross in the
    same turn: the board closes with ann 1st, bob 2nd (both crossed), cat 3rd."""
    setup = campaign(close_after=1)
    before = state(setup, squares={"ann": 29, "bob": 26, "cat": 3})
    result = play(setup, before, {"ann": order(5), "bob": order(5), "cat": order(5)})
    assert placings(result) == {"ann": 1, "bob": 2, "cat": 3}
    assert {p.player: p.crossed for p in placed(result)} == {"ann": True, "bob": True, "cat": False}


def test_2_3_pieces_on_start_share_a_place_when_a_board_closes():
    """max_turns 1, four players; ann on 4 plays 6 to 10, bob plays 2 from Start; cat and
    dan drop from square 5 (trapdoor, level 1) to Start: ann 1, bob 2, cat 3, dan 3."""
    setup = campaign(players=("ann", "bob", "cat", "dan"), max_turns=1)
    before = state(setup, squares={"ann": 4, "cat": 1, "dan": 2}, trapdoors=5)
    orders = {"ann": order(6), "bob": order(2), "cat": order(4), "dan": order(3)}
    result = play(setup, before, orders)
    assert [square(result, p) for p in ("ann", "bob", "cat", "dan")] == [10, 2, 0, 0]
    assert placings(result) == {"ann": 1, "bob": 2, "cat": 3, "dan": 3}


def test_2_4_per_board_nmr_only_on_the_board_without_a_number():
    """numbers per-board, nmr lowest: ann sends 6 for A and nothing for B in turn 1: she
    moves 6 on A (order) and 1 on B (NMR)."""
    setup = campaign(
        {"A": board(), "B": board()}, players=["ann"], numbers="per-board", nmr="lowest"
    )
    result = play(setup, state(setup), {"ann": order(numbers={"A": 6})})
    assert (square(result, "ann", "A"), square(result, "ann", "B")) == (6, 1)
    assert {e.hand: e.source for e in played(result, "ann")} == {"A": "order", "B": "nmr"}


def test_2_4_a_nomination_for_a_closed_board_is_accepted_and_ignored():
    """Board B is closed: a nomination for B (a square within 1..N) does not make the
    order unplayable; one outside 1..N is still refused."""
    setup = campaign({"A": board(), "B": board()})
    before = state(setup, finished={"B": {"ann": 1, "bob": 2, "cat": 3}}, closed=["B"])
    assert RULES.order_problems(setup, before, "ann", order(1, B=7)) == []
    assert RULES.order_problems(setup, before, "ann", order(1, B=31))


def test_2_options_defaults_and_refusals():
    """RULES 2 option defaults: numbers shared, threshold 3, announce true, close_after 3,
    max_turns 200, nmr random, double_turns false. Bad values are refused by name."""
    assert PostalOptions() == RULES.parse_options({})
    o = PostalOptions()
    assert (o.numbers, o.trapdoor_threshold, o.announce_trapdoors, o.close_after) == (
        "shared",
        3,
        True,
        3,
    )
    assert (o.max_turns, o.nmr, o.double_turns) == (200, "random", False)
    assert RULES.parse_options({"close_after": "all"}).close_after == "all"
    for key, bad in [
        ("numbers", "each"),
        ("trapdoor_threshold", 0),
        ("close_after", 0),
        ("close_after", "most"),
        ("close_after", True),
        ("max_turns", 0),
        ("nmr", "middle"),
        ("double_turns", "yes"),
    ]:
        with pytest.raises(ProblemsError) as caught:
            RULES.parse_options({key: bad})
        assert key in str(caught.value)


def test_2_2_a_piece_already_standing_on_the_trapdoor_is_not_dropped():
    """Trapdoor 15 for turn 2, and ann already stands on 15 (she came there in turn 1):
    the trapdoor acts on a piece that comes to it during its move, so she moves on from
    15 with her 3 to 18."""
    setup = campaign(players=["ann"])
    result = play(setup, state(setup, turn=2, squares={"ann": 15}, trapdoors=15), {"ann": order(3)})
    assert square(result, "ann") == 18
