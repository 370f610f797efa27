"""docs/rules/unleashed.md, The board-6.4 and 6.12, Snakes & Ladders Unleashed: the board, cards, deck and deal,
items and their reach and Ends, setup picks and the mix, and the seeded choices. One
test per bullet; states built directly (see unleashedkit), dice scripted.

Moves, locks and plays (6.5-6.7) are in test_unleashed_moves.py; actions, reactions,
winning and the variants (6.8-6.11) in test_unleashed_actions.py."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from unleashedkit import (
    P3,
    SEED,
    R,
    campaign,
    dice,
    of,
    options,
    order,
    play,
    run,
    state,
)

from gm.boards.model import Board
from gm.errors import ProblemsError, RulesError
from gm.rules.base import Setup
from gm.rules.chance import ScriptedChance, SeededChance
from gm.rules.unleashed.cards import DEFAULT_DECK, DEFAULT_WHITE_DOTS, canonical_sorted, read_code
from gm.rules.unleashed.deal import default_pick, setup_picks
from gm.rules.unleashed.items import Grid, default_mix, ends_ok, fits_reach, oriented
from gm.rules.unleashed.orders import UnleashedOrder

# 6.2's table, written out in canonical order, independently of gm's own table
TABLE = [("BLANK", 36), ("+1", 9), ("+2", 9), ("+3", 8), ("-1", 9), ("-2", 9), ("-3", 8),
         ("EXTRA-ROLL", 5), ("SWAP-PLAYERS", 4), ("MOVE-LADDER", 4), ("MOVE-SNAKE", 4), ("MOVE-ANY", 4),
         ("MOVE-2-LADDERS", 3), ("MOVE-2-SNAKES", 3), ("SWAP-CARDS", 4), ("REVERSE", 3),
         ("FORWARD-2", 2), ("FORWARD-3", 2), ("FORWARD-4", 1), ("BACK-2", 2), ("BACK-3", 2), ("BACK-4", 1)]
DOTS = {"SWAP-PLAYERS": 4, "MOVE-ANY": 3, "MOVE-2-LADDERS": 3, "MOVE-2-SNAKES": 3, "SWAP-CARDS": 4, "REVERSE": 3}
CANONICAL = [code for code, count in TABLE for _ in range(count)]


def shuffle(seq: list, seed: int, kind: str) -> list:
    """6.12's shuffle, computed here from the formula."""
    a = list(seq)
    for i in range(len(a) - 1, 0, -1):
        j = int(hashlib.sha256(f"{seed}:0:{kind}:{i}".encode()).hexdigest(), 16) % (i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def unshuffled() -> ScriptedChance:
    """Every shuffle swap a[i] with itself: the deck stays in canonical order."""
    return ScriptedChance(lambda turn, kind, key, cands: int(key) if kind in ("deck", "seats") else None, SEED)


def every_card(st) -> Counter:
    return Counter(st.cards) + Counter(st.pile) + sum((Counter(h) for h in st.hands.values()), Counter())


# -- 6.1 The board ---------------------------------------------------------------------


@pytest.mark.parametrize(("players", "super_size", "size"), [
    (2, True, (7, 10)), (3, True, (6, 10)), (4, True, (6, 10)), (5, True, (5, 10)), (6, True, (5, 10)),
    (2, False, (6, 8)), (3, False, (5, 8)), (4, False, (5, 8)), (5, False, (4, 8)), (6, False, (4, 8)),
])
def test_6_1_default_board_size_by_players(players, super_size, size):
    boards, problems = R.campaign_boards({}, players, options(super_size=super_size))
    assert problems == []
    assert list(boards) == ["A"]
    assert boards["A"].levels == (size[1],) * size[0]
    assert boards["A"].squares == size[0] * size[1]


def test_6_1_square_level_index_and_column_serpentine():
    grid = Grid(5, 8)
    assert [grid.level(s) for s in (1, 8, 9, 16, 17, 40)] == [1, 1, 2, 2, 3, 5]
    # odd levels left to right, even levels right to left
    assert [grid.column(s) for s in (1, 8, 9, 16, 17, 24, 25, 32, 33)] == [0, 7, 7, 0, 0, 7, 7, 0, 0]
    assert grid.squares == 40


def test_6_1_campaign_has_two_to_six_players():
    assert R.player_problems([("a", {})]) != []
    assert R.player_problems([(p, {}) for p in "abcdefg"]) != []
    assert R.player_problems([(p, {}) for p in "ab"]) == []
    assert R.player_problems([(p, {}) for p in "abcdef"]) == []


def test_6_1_reserved_words_refused_as_player_ids():
    for word in ("me", "Leader", "LAST", "next", "none"):
        assert R.player_problems([(word, {}), ("bob", {})]) != []


def test_6_1_pawn_may_stand_on_finish_without_crossing():
    setup = campaign()
    out = run(setup, state(setup, {"ann": 37, "bob": 1, "cat": 1}), {}, dice({"ann": [2, 2]}, rest=2))
    assert out.state.pawns["ann"].square == 41  # N + 1: Finish, not crossed
    assert not out.state.pawns["ann"].finished
    assert not out.state.over


def test_6_1_start_and_finish_never_named_by_a_play():
    setup = campaign()
    before = state(setup, {"ann": 36, "bob": 1, "cat": 2}, hands={"ann": ["+1", "+2"]})
    out = run(setup, before, {"ann": order(play("+1", "ann+5"), play("+1", "bob-1"), play("+2", "cat-2"))})
    assert out.state.private["ann"]["skipped"] == [[1, "square"], [2, "square"], [3, "square"]]
    assert sorted(out.state.hands["ann"]) == ["+1", "+2"]


def test_6_1_covered_card_leaves_the_game():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 1, "cat": 1}, hands={"ann": ["+3"]}, cards={10: "-2"})
    out = run(setup, before, {"ann": order(play("+3", 10))})
    played = of(out, "play")[0]
    assert (played.card, played.square, played.covered) == ("+3", 10, "-2")
    assert out.state.cards[9] == "+3"
    # one card fewer in the game: the -2 went nowhere (not to the pile, not to a hand)
    assert sum(every_card(out.state).values()) == sum(every_card(before).values()) - 1
    assert every_card(out.state)["-2"] == 0


# -- 6.2 Cards, deck, deal ----------------------------------------------------------------


def test_6_2_default_deck_table():
    assert dict(TABLE) == DEFAULT_DECK
    assert DOTS == DEFAULT_WHITE_DOTS
    assert len(CANONICAL) == 132
    counts = Counter(CANONICAL)
    assert counts["BLANK"] == 36
    assert sum(n for c, n in counts.items() if c[0] in "+-") == 52
    assert sum(n for c, n in counts.items() if c != "BLANK" and c[0] not in "+-") == 44
    assert sum(DOTS.values()) == 20


def test_6_2_codes_any_case_and_yaml_integers():
    assert read_code("move-any") == "MOVE-ANY"
    assert read_code("Forward-3") == "FORWARD-3"
    assert read_code("blank") == "BLANK"
    assert read_code(2) == "+2" and read_code("+2") == "+2" and read_code(-2) == "-2"
    for bad in ("+0", "+10", "FORWARD-10", "BACK-0", "FORWARD", "SWAP", 0, 10, True, None):
        assert read_code(bad) is None


def test_6_2_canonical_order():
    mixed = ["BACK-2", "REVERSE", "-1", "+3", "BLANK", "FORWARD-4", "EXTRA-ROLL", "+1", "FORWARD-2",
             "MOVE-ANY", "-3", "SWAP-CARDS", "BACK-4", "SWAP-PLAYERS", "+9", "BLANK", "-9"]
    assert list(canonical_sorted(mixed)) == [
        "BLANK", "BLANK", "+1", "+3", "+9", "-1", "-3", "-9", "EXTRA-ROLL", "SWAP-PLAYERS", "MOVE-ANY",
        "SWAP-CARDS", "REVERSE", "FORWARD-2", "FORWARD-4", "BACK-2", "BACK-4"]
    assert list(canonical_sorted(reversed(CANONICAL))) == CANONICAL


def test_6_2_deal_squares_first_then_hands_one_at_a_time_in_seat_order():
    setup = campaign()
    out = R.start(setup, unshuffled())
    st = out.state
    assert st.cards == CANONICAL[:40]  # square 1 gets position 0
    # the next nine go round the seats one at a time: ann, bob, cat, ann, ...
    dealt = CANONICAL[40:49]
    assert st.hands == {p: list(canonical_sorted(dealt[i::3])) for i, p in enumerate(P3)}
    assert st.hands["cat"] == ["+1", "+2", "+2"]
    assert st.hands["ann"] == ["+1", "+1", "+2"]
    assert st.pile == CANONICAL[49:]
    assert len(st.pile) == 132 - 40 - 9


def test_6_2_deal_follows_the_seats_not_the_player_list():
    setup = campaign(seating="random")
    chance = ScriptedChance(lambda t, kind, key, cands: int(key) if kind == "deck" else (0 if kind == "seats" else None))
    st = R.start(setup, chance).state
    # seats shuffled with every j = 0: i=2 swaps a[2], a[0] -> cat bob ann; i=1 swaps a[1], a[0] -> bob cat ann
    assert st.seats == ["bob", "cat", "ann"]
    dealt = CANONICAL[40:49]
    assert st.hands["bob"] == list(canonical_sorted(dealt[0::3]))
    assert st.hands["ann"] == list(canonical_sorted(dealt[2::3]))


def test_6_2_four_card_hands_dealt():
    setup = campaign(four_card_hands=True)
    st = R.start(setup, unshuffled()).state
    assert all(len(h) == 4 for h in st.hands.values())
    assert len(st.pile) == 132 - 40 - 12


def test_6_2_shuffle_and_deal_by_the_formula():
    setup = campaign(seed=SEED)
    st = R.start(setup, SeededChance(SEED)).state
    deck = shuffle(CANONICAL, SEED, "deck")
    assert st.cards == deck[:40]
    assert st.hands["ann"] == list(canonical_sorted([deck[40], deck[43], deck[46]]))
    assert st.hands["cat"] == list(canonical_sorted([deck[42], deck[45], deck[48]]))
    assert st.pile == deck[49:]


def test_6_2_hands_shown_in_canonical_order_after_a_draw():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 1, "cat": 1}, hands={"ann": ["REVERSE", "-1", "+2"]}, pile=["BLANK"])
    out = run(setup, before, {"ann": order(play("+2", 20))})
    assert out.state.hands["ann"] == ["BLANK", "-1", "REVERSE"]


def test_6_11_simple_removes_the_white_dot_cards_before_the_deal():
    st = R.start(campaign(simple=True), unshuffled()).state
    counts = every_card(st)
    assert sum(counts.values()) == 132 - 20
    assert counts["SWAP-PLAYERS"] == 0 and counts["SWAP-CARDS"] == 0 and counts["REVERSE"] == 0
    assert counts["MOVE-ANY"] == 1 and counts["MOVE-2-SNAKES"] == 0 and counts["EXTRA-ROLL"] == 5


def test_6_11_blank_removal_removes_blanks_before_the_deal():
    st = R.start(campaign(blank_removal=12), unshuffled()).state
    counts = every_card(st)
    assert counts["BLANK"] == 24
    assert sum(counts.values()) == 120
    with pytest.raises(ProblemsError):
        options(blank_removal=37)


def test_6_2_custom_deck_carries_no_white_dots():
    deck = {"BLANK": 40, 1: 10, -2: 5, "move-any": 4, "SWAP-CARDS": 2}
    st = R.start(campaign(deck=deck, simple=True), unshuffled()).state
    counts = every_card(st)
    assert dict(counts) == {"BLANK": 40, "+1": 10, "-2": 5, "MOVE-ANY": 4, "SWAP-CARDS": 2}


def test_6_2_white_dots_option_replaces_the_dots_table():
    st = R.start(campaign(white_dots={"REVERSE": 1}, simple=True), unshuffled()).state
    counts = every_card(st)
    assert counts["REVERSE"] == 2
    assert counts["SWAP-PLAYERS"] == 4  # the table's dots no longer apply
    assert sum(counts.values()) == 131
    st = R.start(campaign(deck={"BLANK": 60, "MOVE-ANY": 4}, white_dots={"MOVE-ANY": 3}, simple=True),
                 unshuffled()).state
    assert every_card(st)["MOVE-ANY"] == 1
    with pytest.raises(ProblemsError):
        options(white_dots={"REVERSE": 4})  # more dots than cards


def test_6_2_board_file_cards_are_taken_out_of_the_deck():
    cards = ["+1"] * 9 + ["REVERSE"] * 3 + ["BLANK"] * 28
    board = Board.build(40, levels=[8] * 5, chains=True).with_extra(cards=cards, lampposts=[])
    opts = options(seating="listed", setup="random", super_size=False)
    boards, problems = R.campaign_boards({"A": board}, 3, opts)
    assert problems == []
    st = R.start(Setup(boards, P3, opts, SEED), unshuffled()).state
    assert st.cards == cards
    counts = every_card(st)
    assert counts["+1"] == 9 and counts["REVERSE"] == 3 and counts["BLANK"] == 36
    assert sum(counts.values()) == 132
    assert st.hands["ann"] == ["BLANK", "BLANK", "BLANK"]  # the deal starts from what is left: 8 blanks first


def test_6_2_deck_shortfall_refused_saying_how_many_cards_lack():
    opts = options(seating="listed", setup="random", super_size=False, deck={"BLANK": 45})
    boards, problems = R.campaign_boards({}, 3, opts)
    assert len(problems) == 1 and "4 cards short" in problems[0]
    with pytest.raises(RulesError, match="4 cards short"):
        R.start(Setup(boards, P3, opts, SEED), SeededChance(SEED))
    opts = options(seating="listed", setup="random", super_size=False, deck={"BLANK": 49})
    assert R.campaign_boards({}, 3, opts)[1] == []


# -- 6.3 Items ------------------------------------------------------------------------------


def test_6_3_reach_short_and_long_in_either_order():
    grid = Grid(5, 8)
    assert fits_reach(grid, "S1", 3, 14) and fits_reach(grid, "S1", 14, 3)  # levels 1-2, columns 2-2
    assert fits_reach(grid, "L2", 3, 13) and fits_reach(grid, "P1", 3, 15)  # column 3 and 1
    assert not fits_reach(grid, "S1", 3, 12)  # columns 2 and 4
    assert not fits_reach(grid, "S1", 3, 20)  # two levels: long reach only
    assert fits_reach(grid, "S4", 4, 20) and fits_reach(grid, "L5", 4, 18) and fits_reach(grid, "P2", 22, 4)
    assert not fits_reach(grid, "S4", 4, 17)  # columns 3 and 0
    assert not fits_reach(grid, "S4", 4, 12)  # one level only
    assert not fits_reach(grid, "S1", 3, 4)  # same level
    assert not fits_reach(grid, "S1", 0, 9) and not fits_reach(grid, "S1", 40, 41)
    assert oriented(grid, 14, 3) == (3, 14) and oriented(grid, 3, 14) == (3, 14)


def test_6_3_ends_rule():
    assert ends_ok({"S1": (3, 14), "S2": (14, 27)})  # a snake chain: tail of S2's head... same kind
    assert ends_ok({"P1": (3, 14), "P2": (14, 30)})
    assert not ends_ok({"S1": (3, 14), "L1": (14, 27)})  # a snake with a ladder
    assert not ends_ok({"S1": (3, 14), "S2": (4, 14)})  # two heads
    assert not ends_ok({"S1": (3, 14), "L2": (3, 13)})  # a tail and a foot
    assert not ends_ok({"L1": (3, 14), "L2": (3, 13)})  # two feet


def test_6_3_move_breaking_ends_is_not_legal():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 30, "cat": 30}, hands={"ann": ["MOVE-ANY"]},
                   items={"S1": [3, 14], "L1": [5, 12]})
    out = run(setup, before, {"ann": order(play("MOVE-ANY", 20, "L1 4 14"), play("MOVE-ANY", 20, "L1 4 13"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]  # 14 holds S1's head: two upper ends
    assert out.state.items["L1"] == [4, 13]


def test_6_3_two_item_move_lifts_both_then_places_both():
    setup = campaign()
    items = {"S1": [3, 14], "S2": [4, 13]}
    before = state(setup, {"ann": 1, "bob": 30, "cat": 30}, hands={"ann": ["MOVE-SNAKE", "MOVE-2-SNAKES"]},
                   items=items)
    out = run(setup, before, {"ann": order(play("MOVE-SNAKE", 20, "S1 4 13"),
                                           play("MOVE-2-SNAKES", 21, "S1 4 13 S2 3 14"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]
    assert out.state.items == {"S1": [4, 13], "S2": [3, 14]}


def test_6_3_item_moved_onto_a_pawn_does_nothing_to_it():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 14, "cat": 30}, hands={"ann": ["MOVE-SNAKE"]},
                   items={"S1": [5, 12]})
    out = run(setup, before, {"ann": order(play("MOVE-SNAKE", 20, "S1 3 bob+0"))})
    assert out.state.items["S1"] == [3, 14]
    assert [e for e in out.events if e.kind == "step" and e.pawn == "bob" and e.by != "roll"] == []


def test_6_3_cards_under_item_ends_leave_items_alone():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 30, "cat": 30}, hands={"ann": ["+2", "SWAP-CARDS"]},
                   items={"L1": [3, 14]}, cards={20: "-1"})
    out = run(setup, before, {"ann": order(play("+2", 3))},)
    assert out.state.items == {"L1": [3, 14]} and out.state.cards[2] == "+2"
    out = run(campaign(two_card_placement=True), before,
              {"ann": order(play("+2", 14), play("SWAP-CARDS", 10, "14 20"))})
    assert out.state.items == {"L1": [3, 14]}
    assert out.state.cards[13] == "-1" and out.state.cards[19] == "+2"


def test_6_3_items_in_the_box_stay_out():
    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 30, "cat": 30}, hands={"ann": ["MOVE-SNAKE"]}, items={"S1": [3, 14]})
    out = run(setup, before, {"ann": order(play("MOVE-SNAKE", 20, "S2 5 12"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]
    assert "S2" not in out.state.items


def test_6_3_pieces_limits():
    assert options(pieces=14).piece_count == 14
    assert options().piece_count == 12 and options(super_size=False).piece_count == 9
    assert options(mix={"snakes": 2, "ladders": 1}).piece_count == 3
    for bad in ({"pieces": 15}, {"pieces": 10, "super_size": False}, {"pieces": -1},
                {"mix": {"snakes": 2, "ladders": 2}, "pieces": 5}, {"mix": {"snakes": 7}},
                {"mix": {"lampposts": 3}}, {"mix": {"dragons": 1}},
                {"mix": {"snakes": 6, "ladders": 4}, "super_size": False}):
        with pytest.raises(ProblemsError):
            options(**bad)


# -- 6.4 Setup ------------------------------------------------------------------------------


def largest_remainder(pieces: int) -> tuple[int, int, int]:
    """4 : 4 : 1 by largest remainder, ties to lampposts, then snakes, then ladders."""
    weights = {"S": 4, "L": 4, "P": 1}
    quota = {k: pieces * w / 9 for k, w in weights.items()}
    seats = {k: int(q) for k, q in quota.items()}
    tie_order = {"P": 0, "S": 1, "L": 2}
    for k in sorted(quota, key=lambda k: (-(quota[k] - seats[k]), tie_order[k]))[:pieces - sum(seats.values())]:
        seats[k] += 1
    return seats["S"], seats["L"], seats["P"]


def test_6_4_default_mix_table():
    table = {1: (1, 0, 0), 2: (1, 1, 0), 3: (1, 1, 1), 4: (2, 2, 0), 5: (2, 2, 1), 6: (3, 2, 1), 7: (3, 3, 1),
             8: (4, 3, 1), 9: (4, 4, 1), 10: (5, 4, 1), 11: (5, 5, 1), 12: (5, 5, 2), 13: (6, 6, 1), 14: (6, 6, 2)}
    for pieces, (s, lad, p) in table.items():
        assert largest_remainder(pieces) == (s, lad, p)
        assert default_mix(pieces) == {"S": s, "L": lad, "P": p}
        assert options(pieces=pieces).kind_limits == {"S": s, "L": lad, "P": p}
    assert options(mix={"ladders": 3}).kind_limits == {"S": 0, "L": 3, "P": 0}


def test_6_4_random_setup_default_picks_at_start_within_the_mix():
    setup = campaign(super_size=True)
    out = R.start(setup, SeededChance(SEED))
    picks = of(out, "pick")
    assert len(picks) == 12 and len(out.state.items) == 12
    assert all(p.player is None and p.default for p in picks)
    assert [p.pick for p in picks] == list(range(1, 13))
    kinds = Counter(item[0] for item in out.state.items)
    assert kinds == {"S": 5, "L": 5, "P": 2}
    draws = [d for d in out.draws if d.kind == "setup"]
    assert [(d.turn, d.key) for d in draws] == [(0, str(n)) for n in range(1, 13)]
    assert out.state.turn == 1 and not out.state.setup
    assert ends_ok({k: tuple(v) for k, v in out.state.items.items()})
    grid = out.state.grid
    assert all(fits_reach(grid, k, *v) for k, v in out.state.items.items())
    # turn 1 is a round
    after = R.resolve(setup, out.state, {}, SeededChance(SEED))
    assert of(after, "round")[0].round == 1


def test_6_4_default_pick_lists_item_then_lower_then_upper():
    setup = campaign(pieces=1)
    seen = []

    def script(turn, kind, key, cands):
        if kind == "setup":
            seen.append(cands)
            return cands[0]
        return None

    out = R.start(setup, ScriptedChance(script, SEED))
    # pieces 1: mix 1/0/0, so snakes only; S1 first, lower 1 (column 0): uppers 15, 16 (columns 1, 0)
    assert seen[0][:3] == ("S1 1 15", "S1 1 16", "S1 2 14")
    assert all(c.startswith("S") for c in seen[0])
    assert out.state.items == {"S1": [1, 15]}


def test_6_4_default_pick_falls_back_to_any_kind_then_ends_short():
    opts = options(mix={"snakes": 6}, super_size=False)
    setup = campaign()
    two_levels = state(setup, {}, items={"S1": [1, 16], "S2": [3, 14], "S3": [5, 12]})
    two_levels.rows = 2  # long snakes (two levels apart) have nowhere to go
    two_levels.cards = two_levels.cards[:16]
    picked = default_pick(two_levels, opts, 0, ScriptedChance(lambda t, k, key, c: c[0]))
    assert picked is not None and picked[0] == "L1"
    one_level = state(setup, {})
    one_level.rows = 1
    events: list = []
    setup_picks(one_level, opts, 0, SeededChance(SEED), None, events)
    assert one_level.items == {} and events == []


def test_6_4_players_setup_turn_picks_from_the_last_seat_down_with_place_lists():
    setup = campaign(setup="players", pieces=5)
    start = R.start(setup, SeededChance(SEED))
    assert start.state.setup and start.state.turn == 1 and start.state.items == {}
    lists = {
        "cat": (("S1", 3, 14), ("L1", 12, 5)),  # both legal: S1 now, L1 at cat's next pick
        "bob": (("S1", 4, 13), ("L2", 3, 12), ("L2", 6, 10)),  # S1 taken, 3-12 out of reach: L2 6-10
        # ann: no list: a default pick
    }
    orders = {p: UnleashedOrder(True, None, {}, places) for p, places in lists.items()}
    first = []

    def script(turn, kind, key, cands):
        if kind == "setup":
            first.append((turn, key, cands))
            return cands[0]
        return None

    out = R.resolve(setup, start.state, orders, ScriptedChance(script, SEED))
    picks = [(p.pick, p.player, p.item, p.lower, p.upper, p.default) for p in of(out, "pick")]
    assert picks == [
        (1, "cat", "S1", 3, 14, False),
        (2, "bob", "L2", 6, 10, False),
        (3, "ann", "S2", 1, 15, True),
        (4, "cat", "L1", 5, 12, False),
        (5, "bob", "P1", 2, 16, True),
    ]
    # mix for 5 pieces is 2/2/1: pick 3 lists snakes and ladders (one of each in play) and lampposts
    turn, key, cands = first[0]
    assert (turn, key) == (1, "3")
    assert not any(c.startswith(("S1 ", "L2 ")) for c in cands)
    assert any(c.startswith("P1 ") for c in cands) and any(c.startswith("L3 ") for c in cands)
    # pick 5: snakes and ladders are at 2 = 2: lampposts only (P1 2-14 and 2-15 break Ends)
    assert first[1][1] == "5"
    assert {c[0] for c in first[1][2]} == {"P"}
    assert not out.state.setup and out.state.turn == 2
    assert of(out, "round") == [] and of(out, "roll") == []
    # turn 2 is round 1: it starts with seat 1
    nxt = R.resolve(setup, out.state, {}, dice(rest=2))
    assert of(nxt, "round")[0].round == 1 and of(nxt, "round")[0].order == P3


def test_6_4_place_lines_may_exceed_the_mix():
    setup = campaign(setup="players", mix={"snakes": 1, "ladders": 1})
    start = R.start(setup, SeededChance(SEED)).state
    orders = {"cat": UnleashedOrder(True, None, {}, (("L1", 3, 14),)),
              "bob": UnleashedOrder(True, None, {}, (("L2", 5, 12),))}
    out = R.resolve(setup, start, orders, SeededChance(SEED))
    assert out.state.items == {"L1": [3, 14], "L2": [5, 12]}


def test_6_4_board_setup_takes_the_board_files_items():
    board = Board.build(40, levels=[8] * 5, chains=True, snakes=[(14, 3), (34, 18)], ladders=[(4, 20)]).with_extra(
        cards=None, lampposts=[[7, 23]])
    opts = options(seating="listed", super_size=False)
    boards, problems = R.campaign_boards({"A": board}, 3, opts)
    assert problems == []
    out = R.start(Setup(boards, P3, opts, SEED), SeededChance(SEED))
    assert out.state.items == {"S1": [3, 14], "S4": [18, 34], "L4": [4, 20], "P2": [7, 23]}
    assert not out.state.setup
    assert all(not p.default for p in of(out, "pick"))
    for bad in ({"pieces": 4}, {"mix": {"snakes": 2}}, {"setup": "random"}):
        opts = options(seating="listed", super_size=False, **bad)
        assert R.campaign_boards({"A": board}, 3, opts)[1] != []


# -- 6.5 seating and 6.12 randomness --------------------------------------------------------


def test_6_12_seating_random_shuffles_the_player_list():
    players = ("alice", "bob", "carol", "dave", "erin")
    setup = campaign(players=players, seating="random")
    st = R.start(setup, SeededChance(SEED)).state
    assert st.seats == shuffle(list(players), SEED, "seats")
    assert R.start(campaign(players=players), SeededChance(SEED)).state.seats == list(players)


def test_6_12_dice_keys_count_the_dice_of_the_go_even_for_another_pawn():
    setup = campaign()
    # ann lands on BACK-2 sending cat onto EXTRA-ROLL: cat's extra roll is dice ann/3, ann/4
    before = state(setup, {"ann": 1, "bob": 30, "cat": 12}, cards={5: "BACK-2", 10: "EXTRA-ROLL"},
                   reactions={"ann": {"BACK": ["cat"]}})
    out = run(setup, before, {}, dice({"ann": [2, 2, 3, 3]}, rest=2))
    ann_dice = [(d.turn, d.key) for d in out.draws if d.kind == "dice" and d.key.startswith("ann/")]
    assert ann_dice == [(1, "ann/1"), (1, "ann/2"), (1, "ann/3"), (1, "ann/4")]
    rolls = [(r.player, r.roller, r.dice, r.extra) for r in of(out, "roll")]
    assert rolls[:2] == [("ann", "ann", (2, 2), False), ("ann", "cat", (3, 3), True)]
    assert out.state.pawns["cat"].square == 16 + 4  # 10 + 6 = 16, then cat's own roll of 4
    assert [d.key for d in out.draws if d.kind == "dice" and d.key.startswith("cat/")] == ["cat/1", "cat/2"]


def test_6_12_dice_by_the_formula():
    setup = campaign()
    out = run(setup, state(setup, {"ann": 1, "bob": 1, "cat": 1}), {}, SeededChance(SEED))
    for roll in of(out, "roll"):
        want = tuple(int(hashlib.sha256(f"{SEED}:1:dice:{roll.player}/{i}".encode()).hexdigest(), 16) % 6 + 1
                     for i in (1, 2))
        assert roll.dice == want


def test_6_4_setup_defaults_to_players_without_listed_items_board_with_them():
    opts = options(seating="listed", super_size=False)
    boards, _ = R.campaign_boards({}, 3, opts)
    st = R.start(Setup(boards, P3, opts, SEED), SeededChance(SEED)).state
    assert st.setup and st.items == {} and st.turn == 1
    board = Board.build(40, levels=[8] * 5, chains=True, ladders=[(4, 20)]).with_extra(cards=None, lampposts=[])
    boards, problems = R.campaign_boards({"A": board}, 3, opts)
    assert problems == []
    st = R.start(Setup(boards, P3, opts, SEED), SeededChance(SEED)).state
    assert not st.setup and st.items == {"L4": [4, 20]}
