"""docs/rules/advanced.md and 4.5, the advanced game (seed 003): one test per bullet, dice chosen
through ScriptedChance.

Unless a test says otherwise the board is the default 30-square one (levels of 10,
serpentine): level 1 holds 1-10 in columns 0-9, level 2 holds 11-20 right to left
(square s in column 20 - s), level 3 holds 21-30 in columns 0-9. So 10 and 11 share an
edge, and so do 1 and 20. States are built directly: pieces where a case needs them."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gm.boards.board import load_board
from gm.boards.model import Board
from gm.errors import ProblemsError
from gm.mail.orderlang import parse_orders
from gm.rules.advanced import Advanced
from gm.rules.advanced.building import die_for, least_successful_face
from gm.rules.advanced.events import BuildTried, Built, CampaignOver, Moved, TeamPlaced
from gm.rules.advanced.state import AdvancedOrder, AdvancedState
from gm.rules.base import Setup
from gm.rules.chance import ScriptedChance, SeededChance
from gm.rules.grammar import ruleset_keywords

RULES = Advanced()
BOARDS = Path(__file__).resolve().parent.parent / "boards"
MOVE = AdvancedOrder("move")
NOTHING = AdvancedOrder()


def snake(target: int) -> AdvancedOrder:
    return AdvancedOrder("build", "snake", target)


def ladder(target: int) -> AdvancedOrder:
    return AdvancedOrder("build", "ladder", target)


def campaign(board: Board | None = None, players=("ann", "bob", "cat"), teams: Mapping[str, str] | None = None,
             seed: int = 2**128 + 1, **options: Any) -> Setup:
    return Setup({"A": board or Board.build(30)}, tuple(players), RULES.parse_options(options), seed,
                 {p: {"team": t} for p, t in (teams or {}).items()})


def state(setup: Setup, squares: Mapping[str, int] | None = None, *, dice: Mapping[str, int] | None = None,
          ended=(), builds: Mapping[str, int] | None = None, built=(), turn: int = 1,
          order: tuple[str, ...] | None = None) -> AdvancedState:
    """A state before `turn`: every player on Start with a d6 unless told."""
    players = setup.players
    return AdvancedState(
        turn=turn, over=False, order=order or players,
        dice={p: (dice or {}).get(p, 6) for p in players},
        squares={p: (squares or {}).get(p, 0) for p in players},
        ended={p: p in ended for p in players},
        builds={p: (builds or {}).get(p, 0) for p in players},
        built=tuple(built), placings={p: None for p in players},
    )


def dice(rolls: Mapping[str, int]) -> ScriptedChance:
    """Dice by key (`ann/1`, any turn); a key not given is an error, so every throw a
    case makes is one it names."""
    def script(turn, kind, key, candidates):
        assert kind == "dice", kind
        if key not in rolls:
            raise AssertionError(f"unexpected throw {key} in turn {turn}")
        return rolls[key]
    return ScriptedChance(script)


def play(setup: Setup, before: AdvancedState, orders: Mapping[str, AdvancedOrder], rolls: Mapping[str, int]):
    return RULES.resolve(setup, before, orders, dice(rolls))


def go_of(outcome, player: str):
    return next(e for e in outcome.events if isinstance(e, Moved | BuildTried) and e.player == player)


# -- Teams --------------------------------------------------------------------------------


def test_4_4_a_player_without_a_team_is_a_team_of_one_named_by_their_id():
    setup = campaign(teams={"bob": "red", "cat": "red"})
    data = RULES.state_json(setup, state(setup))
    assert data["teams"] == {
        "ann": {"members": ["ann"], "finished": False, "placing": None},
        "red": {"members": ["bob", "cat"], "finished": False, "placing": None},
    }
    assert [data["players"][p]["team"] for p in ("ann", "bob", "cat")] == ["ann", "red", "red"]


def test_4_4_a_team_id_may_not_be_the_id_of_a_player_outside_it():
    problems = RULES.player_problems((("ann", {}), ("bob", {"team": "ann"}), ("cat", {"team": "red"})))
    assert len(problems) == 1 and "team ann is the id of player ann" in problems[0]
    # a team named after one of its own members is fine
    assert RULES.player_problems((("ann", {"team": "ann"}), ("bob", {"team": "ann"}), ("cat", {}))) == []
    assert RULES.player_problems((("ann", {"team": 7}),))[0].startswith("player ann: team must be an id")


def test_4_4_teams_are_listed_in_order_of_their_first_member():
    setup = campaign(players=("ann", "bob", "cat", "dan"), teams={"ann": "zeta", "bob": "alpha", "dan": "zeta"})
    assert list(RULES.state_json(setup, state(setup))["teams"]) == ["zeta", "alpha", "cat"]
    assert RULES.state_json(setup, state(setup))["teams"]["zeta"]["members"] == ["ann", "dan"]


# -- Board --------------------------------------------------------------------------------


def test_4_4_the_sample_board_is_the_seeds_picture():
    board = load_board(BOARDS / "advanced.yaml")
    assert board.squares == 99 and board.levels == (10,) * 9 + (9,)
    assert board.offsets == (2, 2, 1, 2, 1, 2, 1, 2, 1, 2) and board.serpentine
    assert board.snakes == () and board.ladders == ()
    # the seed's picture: 1 under 20, 10 under 11, 21 juts out left, 81 too, 99 above 82
    assert board.column_of(1) == board.column_of(20) == 2
    assert board.column_of(10) == board.column_of(11) == 11
    assert board.column_of(21) == board.column_of(81) == 1
    assert board.column_of(99) == board.column_of(82) == 2 and board.column_of(91) == 10


# -- Setup --------------------------------------------------------------------------------


@pytest.mark.parametrize(("throw", "die"), [(1, 6), (2, 6), (3, 6), (4, 8), (5, 8), (6, 12)])
def test_4_4_setup_throw_of_a_d6_gives_each_players_die(throw, die):
    setup = campaign(players=("ann",))
    outcome = RULES.start(setup, dice({"ann/1": throw, "ann/2": 1}))
    assert die_for(throw) == die and outcome.state.dice == {"ann": die}
    assert [(d.key, d.candidates) for d in outcome.draws] == [("ann/1", (1, 2, 3, 4, 5, 6)),
                                                               ("ann/2", tuple(range(1, die + 1)))]


def test_4_4_order_of_play_is_lowest_throw_of_own_die_first():
    setup = campaign(players=("ann", "bob", "cat"))
    outcome = RULES.start(setup, dice({"ann/1": 6, "bob/1": 1, "cat/1": 4,
                                       "ann/2": 11, "bob/2": 2, "cat/2": 7}))
    assert outcome.state.order == ("bob", "cat", "ann")
    assert RULES.state_json(setup, outcome.state)["players"]["ann"] | {} == {
        "numbers_left": None, "aggregate": None, "place": None, "seat": 3, "die": 12, "team": "ann",
        "builds": 0, "resigned": False}


def test_4_4_tied_players_throw_again_lowest_first_within_their_position_until_no_ties():
    """ann 3, bob 5, cat 3, dan 1, eve 5: dan first; ann and cat share 2nd-3rd and throw
    again (cat 2, ann 4); bob and eve share 4th-5th: 6 and 6 tie again, then 1 and 2."""
    setup = campaign(players=("ann", "bob", "cat", "dan", "eve"))
    rolls = {f"{p}/1": 1 for p in setup.players}
    rolls |= {"ann/2": 3, "bob/2": 5, "cat/2": 3, "dan/2": 1, "eve/2": 5,
              "ann/3": 4, "cat/3": 2, "bob/3": 6, "eve/3": 6, "bob/4": 2, "eve/4": 1}
    outcome = RULES.start(setup, dice(rolls))
    assert outcome.state.order == ("dan", "cat", "ann", "eve", "bob")
    # every throw is an opening event, sorted by die index then listing order
    opening = RULES.state_json(setup, outcome.state)["opening"]
    assert [(o["key"], o["purpose"], o["roll"]) for o in opening] == [
        ("ann/1", "die", 1), ("bob/1", "die", 1), ("cat/1", "die", 1), ("dan/1", "die", 1), ("eve/1", "die", 1),
        ("ann/2", "order", 3), ("bob/2", "order", 5), ("cat/2", "order", 3), ("dan/2", "order", 1),
        ("eve/2", "order", 5),
        ("ann/3", "order", 4), ("bob/3", "order", 6), ("cat/3", "order", 2), ("eve/3", "order", 6),
        ("bob/4", "order", 2), ("eve/4", "order", 1),
    ]
    assert all(d.turn == 0 for d in outcome.draws)


# -- A go ---------------------------------------------------------------------------------


def test_4_4_no_order_is_a_move_marked_nmr():
    setup = campaign()
    outcome = play(setup, state(setup), {"ann": MOVE}, {"ann/1": 2, "bob/1": 3, "cat/1": 4})
    assert (go_of(outcome, "ann").nmr, go_of(outcome, "bob").nmr) == (False, True)
    assert outcome.state.squares == {"ann": 2, "bob": 3, "cat": 4}
    assert RULES.state_json(setup, outcome.state)["log"][1]["nmr"] is True


def test_4_4_a_player_in_end_has_no_go_and_every_go_throws_the_die_once():
    setup = campaign()
    before = state(setup, {"ann": 28, "bob": 5}, dice={"bob": 12}, ended=("ann",), turn=7)
    outcome = play(setup, before, {"ann": MOVE, "bob": snake(4)}, {"bob/1": 1, "cat/1": 6})
    assert [(d.turn, d.key, len(d.candidates)) for d in outcome.draws] == [(7, "bob/1", 12), (7, "cat/1", 6)]
    assert outcome.state.squares["ann"] == 28


def test_4_4_a_go_follows_the_order_of_play():
    setup = campaign()
    outcome = play(setup, state(setup, order=("cat", "ann", "bob")), {}, {"ann/1": 1, "bob/1": 1, "cat/1": 1})
    assert [d.key for d in outcome.draws] == ["cat/1", "ann/1", "bob/1"]


# -- MOVE ---------------------------------------------------------------------------------


def test_4_4_move_past_n_reaches_end_with_no_bounce():
    setup = campaign()
    outcome = play(setup, state(setup, {"ann": 27}), {"ann": MOVE}, {"ann/1": 4, "bob/1": 1, "cat/1": 1})
    assert outcome.state.ended["ann"] and outcome.state.squares["ann"] == 27
    log = RULES.state_json(setup, outcome.state)["log"][0]
    assert (log["steps"], log["to"], log["from"], log["finished"], log["bounced"]) == ([], 27, 27, True, False)


def test_4_4_landing_on_n_is_not_enough():
    setup = campaign()
    outcome = play(setup, state(setup, {"ann": 27}), {}, {"ann/1": 3, "bob/1": 1, "cat/1": 1})
    assert not outcome.state.ended["ann"] and outcome.state.squares["ann"] == 30


def test_4_4_move_takes_snakes_and_ladders_built_ones_included():
    """Board ladder 3->12; a snake built from 14 to 4 (head 14). ann lands on 3, climbs to
    12; bob lands on 14 and slides to 4."""
    setup = campaign(Board.build(30, ladders=[(3, 12)]))
    before = state(setup, {"ann": 1, "bob": 10}, built=[Built("snake", 14, 4, "cat", 1)])
    outcome = play(setup, before, {}, {"ann/1": 2, "bob/1": 4, "cat/1": 1})
    assert outcome.state.squares == {"ann": 12, "bob": 4, "cat": 1}
    assert [(s.square, s.via) for s in go_of(outcome, "bob").steps] == [(14, "roll"), (4, "snake")]


# -- BUILD --------------------------------------------------------------------------------


def test_4_4_least_successful_face_table():
    table = {6: (3, 4, 5, 6), 8: (3, 5, 6, 7), 12: (5, 7, 9, 11)}
    for die, faces in table.items():
        assert tuple(least_successful_face(die, k) for k in (1, 2, 3, 4)) == faces
        assert least_successful_face(die, 9) == faces[3]  # 4th and later
        for k, least in enumerate(faces, 1):
            assert 6 * least > die * (min(k, 4) + 1) >= 6 * (least - 1)


@pytest.mark.parametrize(("die", "builds", "roll", "built"), [
    (6, 0, 2, False), (6, 0, 3, True), (6, 3, 5, False), (6, 3, 6, True),
    (8, 1, 4, False), (8, 1, 5, True), (12, 5, 10, False), (12, 5, 11, True),
])
def test_4_4_build_succeeds_when_six_times_the_throw_beats_size_times_construction_plus_one(die, builds, roll, built):
    setup = campaign()
    before = state(setup, {"ann": 15}, dice={"ann": die}, builds={"ann": builds})
    outcome = play(setup, before, {"ann": snake(14)}, {"ann/1": roll, "bob/1": 1, "cat/1": 1})
    go = go_of(outcome, "ann")
    assert (go.construction, go.needed, go.built) == (builds + 1, least_successful_face(die, builds + 1), built)
    assert go.reason == (None if built else "roll")


def test_4_4_construction_number_counts_items_built_not_failed_builds():
    setup = campaign()
    before = state(setup, {"ann": 15})
    first = play(setup, before, {"ann": snake(14)}, {"ann/1": 2, "bob/1": 1, "cat/1": 1})  # fails
    assert first.state.builds["ann"] == 0
    second = play(setup, first.state, {"ann": snake(14)}, {"ann/1": 3, "bob/1": 1, "cat/1": 1})
    assert go_of(second, "ann").construction == 1 and second.state.builds["ann"] == 1
    third = play(setup, second.state, {"ann": ladder(16)}, {"ann/1": 4, "bob/1": 1, "cat/1": 1})
    assert (go_of(third, "ann").construction, go_of(third, "ann").needed) == (2, 4)


@pytest.mark.parametrize(("case", "start", "target", "built", "roll", "reason"), [
    # every check fails: the roll is reported
    ("roll first", 15, 20, [Built("snake", 15, 1, "bob", 1)], 2, "roll"),
    # the rest fail from lower on: lower before own-square
    ("lower before own-square", 15, 15, [Built("snake", 15, 2, "bob", 1)], 6, "lower"),
    ("lower: never to Start", 15, 0, [], 6, "lower"),
    ("lower: never from square 1", 1, 0, [], 6, "lower"),
    ("own-square before target", 15, 14, [Built("snake", 15, 2, "bob", 1), Built("ladder", 18, 14, "bob", 1)], 6,
     "own-square"),
    ("own-square: a tail counts too", 15, 14, [Built("snake", 19, 15, "bob", 1)], 6, "own-square"),
    ("target before distance", 15, 2, [Built("ladder", 20, 2, "bob", 1)], 6, "target"),
    ("distance last", 15, 2, [], 6, "distance"),
])
def test_4_4_build_checks_in_order_the_first_failing_is_the_reason(case, start, target, built, roll, reason):
    setup = campaign()
    before = state(setup, {"ann": start}, built=built)
    outcome = play(setup, before, {"ann": snake(target)}, {"ann/1": roll, "bob/1": 1, "cat/1": 1})
    go = go_of(outcome, "ann")
    assert (go.built, go.reason) == (False, reason), case
    assert outcome.state.built == tuple(built) and outcome.state.squares["ann"] == start  # the turn is wasted


def test_4_4_build_fails_on_distance_even_when_the_roll_succeeds():
    """ann on 15 (level 2, column 5) with a d6 builds to 3 (level 1, column 2): 4 steps
    (down one, across three). A 6 reaches 3 steps: too far. A d12's 8 reaches 4: built."""
    setup = campaign()
    outcome = play(setup, state(setup, {"ann": 15}), {"ann": ladder(3)}, {"ann/1": 6, "bob/1": 1, "cat/1": 1})
    assert (go_of(outcome, "ann").needed, go_of(outcome, "ann").reason) == (3, "distance")
    outcome = play(setup, state(setup, {"ann": 15}, dice={"ann": 12}), {"ann": ladder(3)},
                   {"ann/1": 8, "bob/1": 1, "cat/1": 1})
    assert go_of(outcome, "ann").built


def test_4_4_distance_counts_edge_steps_on_the_board_not_numbers():
    """On the seed's board 21 (level 3, column 1) and 20 (level 2, column 2) are one apart
    in number but two steps apart (21 -> 22 -> 20). A throw of 3 reaches 1 step; 4 reaches 2."""
    setup = campaign(load_board(BOARDS / "advanced.yaml"))
    before = state(setup, {"ann": 21})
    short = play(setup, before, {"ann": snake(20)}, {"ann/1": 3, "bob/1": 1, "cat/1": 1})
    assert go_of(short, "ann").reason == "distance"
    enough = play(setup, before, {"ann": snake(20)}, {"ann/1": 4, "bob/1": 1, "cat/1": 1})
    assert go_of(enough, "ann").built


def test_4_4_a_square_that_cannot_be_reached_is_too_far():
    """Two levels that share no column (columns 0-2 and 5-7): from 5 on level 2 no step
    leads down to 2 on level 1, whatever the throw."""
    setup = campaign(Board.build(6, levels=[3, 3], offsets=[0, 5]))
    outcome = play(setup, state(setup, {"ann": 5}, dice={"ann": 12}), {"ann": snake(2)},
                   {"ann/1": 12, "bob/1": 1, "cat/1": 1})
    assert go_of(outcome, "ann").reason == "distance"


def test_4_4_a_snake_has_its_head_on_s_and_a_ladder_its_top_on_s():
    setup = campaign()
    outcome = play(setup, state(setup, {"ann": 15, "bob": 25}), {"ann": snake(14), "bob": ladder(24)},
                   {"ann/1": 3, "bob/1": 3, "cat/1": 1})
    data = RULES.state_json(setup, outcome.state)["boards"]["A"]
    assert data["snakes"] == [[15, 14]] and data["ladders"] == [[24, 25]]
    assert data["built"] == [{"kind": "snake", "from": 15, "to": 14, "by": "ann", "turn": 1},
                             {"kind": "ladder", "from": 24, "to": 25, "by": "bob", "turn": 1}]
    assert outcome.state.builds == {"ann": 1, "bob": 1, "cat": 0}


def test_4_4_built_items_are_permanent_and_act_for_everyone():
    """ann builds a snake 15 -> 14 in turn 1; bob, later in the same round, lands on 15
    and slides to 14, and in turn 2 he takes it again from 9."""
    setup = campaign()
    built = play(setup, state(setup, {"ann": 15, "bob": 12}), {"ann": snake(14)},
                 {"ann/1": 3, "bob/1": 3, "cat/1": 1}).state
    assert built.squares["bob"] == 14  # bob landed on 15, the head, after ann built it
    again = dataclasses.replace(built, squares={**built.squares, "bob": 9})
    later = play(setup, again, {}, {"ann/1": 6, "bob/1": 6, "cat/1": 1})
    assert [(s.square, s.via) for s in go_of(later, "bob").steps] == [(15, "roll"), (14, "snake")]


def test_4_4_only_arriving_acts():
    """bob stands on 14 when ann builds a ladder from 15 down to 14: bob stays on 14, and
    ann stays on 15, the top."""
    setup = campaign()
    outcome = play(setup, state(setup, {"ann": 15, "bob": 14}), {"ann": ladder(14), "bob": snake(13)},
                   {"ann/1": 6, "bob/1": 1, "cat/1": 1})
    assert go_of(outcome, "ann").built
    assert outcome.state.squares["ann"] == 15 and outcome.state.squares["bob"] == 14


# -- End ----------------------------------------------------------------------------------


def test_4_4_team_wins_the_moment_its_last_member_reaches_end():
    """ann and cat are team red; ann is already in End. In order bob, cat, dan, cat
    crosses: red wins at once, dan has no go (no throw is drawn for him)."""
    setup = campaign(players=("ann", "bob", "cat", "dan"), teams={"ann": "red", "cat": "red"})
    before = state(setup, {"ann": 29, "bob": 20, "cat": 28, "dan": 25}, ended=("ann",),
                   order=("bob", "cat", "dan", "ann"), turn=9)
    outcome = play(setup, before, {}, {"bob/1": 2, "cat/1": 3})
    assert [d.key for d in outcome.draws] == ["bob/1", "cat/1"]
    data = RULES.state_json(setup, outcome.state)
    assert data["over"] and data["winner"] == "red" and data["boards"]["A"]["closed"]
    assert data["teams"]["red"] == {"members": ["ann", "cat"], "finished": True, "placing": 1}
    assert data["turn"] == 10
    assert outcome.events[-1] == CampaignOver(9, "red", "team")


def test_4_4_one_member_in_end_does_not_win_for_the_team():
    setup = campaign(teams={"ann": "red", "cat": "red"})
    outcome = play(setup, state(setup, {"ann": 29}), {}, {"ann/1": 3, "bob/1": 1, "cat/1": 1})
    assert outcome.state.ended["ann"] and not outcome.state.over and outcome.state.winner is None


def test_4_4_laggard_placing():
    """dan (blue, alone) crosses: blue 1st. The others by laggard, competition ranking from
    2: green (cat 17, eve 17) 2nd; red (ann in End, bob on 3) and gold (fay on 3) share 3rd."""
    setup = campaign(players=("ann", "bob", "cat", "dan", "eve", "fay"),
                     teams={"ann": "red", "bob": "red", "cat": "green", "eve": "green", "dan": "blue",
                            "fay": "gold"})
    before = state(setup, {"ann": 26, "bob": 3, "cat": 17, "dan": 29, "eve": 17, "fay": 3}, ended=("ann",),
                   order=("dan", "ann", "bob", "cat", "eve", "fay"))
    outcome = play(setup, before, {}, {"dan/1": 2})
    data = RULES.state_json(setup, outcome.state)
    assert {t: v["placing"] for t, v in data["teams"].items()} == {"red": 3, "green": 2, "blue": 1, "gold": 3}
    assert [e.team for e in outcome.events if isinstance(e, TeamPlaced)] == ["blue", "green", "red", "gold"]


def test_4_4_a_member_in_end_counts_as_past_n_for_the_laggard():
    """max_turns ends it. red: ann in End (she last stood on 27), bob on 29; blue: cat
    on 28. ann counts as past N, so red's laggard is bob (29), ahead of blue's 28 (by
    ann's 27 red would be behind)."""
    setup = campaign(players=("ann", "bob", "cat"), teams={"ann": "red", "bob": "red", "cat": "blue"},
                     max_turns=1)
    before = state(setup, {"ann": 27, "bob": 29, "cat": 28}, ended=("ann",), order=("ann", "bob", "cat"))
    outcome = play(setup, before, {"bob": snake(28), "cat": snake(27)}, {"bob/1": 1, "cat/1": 1})
    data = RULES.state_json(setup, outcome.state)
    assert data["winner"] is None
    assert {t: v["placing"] for t, v in data["teams"].items()} == {"red": 1, "blue": 2}


def test_4_4_after_max_turns_it_ends_with_no_winner_placed_from_one():
    setup = campaign(players=("ann", "bob", "cat"), teams={"bob": "red", "cat": "red"}, max_turns=5)
    before = state(setup, {"ann": 10, "bob": 12, "cat": 10}, turn=5)
    outcome = play(setup, before, {}, {"ann/1": 1, "bob/1": 1, "cat/1": 1})
    data = RULES.state_json(setup, outcome.state)
    assert data["over"] and data["winner"] is None
    # ann 11; red's laggard cat 11: equal laggards share 1st
    assert {t: v["placing"] for t, v in data["teams"].items()} == {"ann": 1, "red": 1}
    assert outcome.events[-1] == CampaignOver(5, None, "max_turns")


def test_4_4_each_players_placing_is_their_teams():
    setup = campaign(players=("ann", "bob", "cat"), teams={"bob": "red", "cat": "red"}, max_turns=1)
    outcome = play(setup, state(setup, {"ann": 10, "bob": 12, "cat": 2}), {}, {"ann/1": 1, "bob/1": 1, "cat/1": 1})
    data = RULES.state_json(setup, outcome.state)
    assert {p: (v["placing"]) for p, v in data["boards"]["A"]["players"].items()} == {"ann": 1, "bob": 2, "cat": 2}
    assert {p: (v["aggregate"], v["place"]) for p, v in data["players"].items()} == {
        "ann": (1, 1), "bob": (2, 2), "cat": (2, 2)}


def test_4_4_options_max_turns_defaults_to_200_and_is_checked():
    assert RULES.parse_options({}).max_turns == 200
    with pytest.raises(ProblemsError) as error:
        RULES.parse_options({"max_turns": 0})
    assert "max_turns" in error.value.problems[0]


def test_4_4_no_resign_in_advanced():
    assert "RESIGN" not in RULES.grammar().keywords
    parsed = parse_orders("PLAYER ann\nPASSWORD pw\nRESIGN\n", grammar=RULES.grammar(),
                          other_keywords=ruleset_keywords() | {"RESIGN"})
    assert not parsed.ok and parsed.problems[0].line == 3


# -- 4.5 Orders by mail -------------------------------------------------------------------


def _merge(text: str, standing: AdvancedOrder = NOTHING):
    parsed = parse_orders(f"PLAYER ann\nPASSWORD pw\n{text}\n", grammar=RULES.grammar(),
                          other_keywords=frozenset())
    assert parsed.ok, parsed.problems
    setup = campaign()
    return RULES.merge(setup, state(setup), "ann", standing, parsed.commands)


def test_4_5_orders_are_move_build_snake_and_build_ladder():
    assert _merge("MOVE") == (MOVE, [])
    assert _merge("build snake 12") == (snake(12), [])
    assert _merge("Build Ladder: 7") == (ladder(7), [])
    for bad in ("MOVE 3", "BUILD 12", "BUILD SNAKE", "BUILD SNAKE twelve", "BUILD TOWER 3"):
        parsed = parse_orders(f"PLAYER ann\nPASSWORD pw\n{bad}\n", grammar=RULES.grammar(), other_keywords=frozenset())
        assert not parsed.ok and parsed.problems[0].line == 3, bad


def test_4_5_two_actions_refused():
    order, problems = _merge("MOVE\nBUILD SNAKE 3", standing=ladder(4))
    assert order == ladder(4)  # refused whole: the standing order stands
    assert [(p.code, p.line) for p in problems] == [("two_actions", 4)]
    order, problems = _merge("MOVE\nMOVE")
    assert [p.code for p in problems] == ["two_actions"]


def test_4_5_each_accepted_message_replaces_the_action():
    assert _merge("MOVE", standing=snake(3)) == (MOVE, [])
    assert _merge("BUILD LADDER 2", standing=MOVE) == (ladder(2), [])
    assert _merge("TURN 1", standing=snake(3)) == (snake(3), [])  # no action named: it stands


def _refused(setup: Setup, before: AdvancedState, order: AdvancedOrder, player: str = "ann") -> list[str]:
    return [p.code for p in RULES.order_problems(setup, before, player, order)]


def test_4_5_refused_on_receipt_any_order_from_a_player_in_end():
    setup = campaign()
    assert _refused(setup, state(setup, {"ann": 28}, ended=("ann",)), MOVE) == ["in_end"]


def test_4_5_refused_on_receipt_a_build_from_start():
    setup = campaign()
    assert _refused(setup, state(setup), snake(1)) == ["build_from_start"]


def test_4_5_refused_on_receipt_a_square_outside_1_to_s_minus_1():
    setup = campaign()
    before = state(setup, {"ann": 12})
    assert _refused(setup, before, snake(12)) == ["target_not_below"]
    assert _refused(setup, before, snake(0)) == ["target_not_below"]
    assert _refused(setup, before, ladder(25)) == ["target_not_below"]
    assert _refused(setup, state(setup, {"ann": 1}), snake(0)) == ["target_not_below"]
    assert _refused(setup, before, snake(11)) == []


def test_4_5_refused_on_receipt_s_or_t_already_holding_an_item_end():
    setup = campaign(Board.build(30, snakes=[(12, 4)], ladders=[(9, 21)]))
    assert _refused(setup, state(setup, {"ann": 12}), snake(11)) == ["own_square_taken"]
    assert _refused(setup, state(setup, {"ann": 21}), snake(20)) == ["own_square_taken"]
    assert _refused(setup, state(setup, {"ann": 10}), ladder(9)) == ["target_taken"]
    built = state(setup, {"ann": 16}, built=[Built("ladder", 17, 15, "bob", 1)])
    assert _refused(setup, built, snake(15)) == ["target_taken"]


def test_4_5_refused_on_receipt_t_more_than_half_the_die_steps_from_s():
    """ann on 15 (level 2, column 5): 3 is four steps away. A d6 reaches at most 3: refused;
    a d8 reaches 4: accepted (the throw decides at the go)."""
    setup = campaign()
    assert _refused(setup, state(setup, {"ann": 15}), ladder(3)) == ["too_far"]
    assert _refused(setup, state(setup, {"ann": 15}, dice={"ann": 8}), ladder(3)) == []


def test_4_5_what_earlier_goes_of_the_round_build_is_judged_only_at_the_go():
    """bob's ladder 14 -> 15 is accepted on receipt; ann, earlier in the round, builds a
    snake from 16 to 14 first: bob's target now holds a tail, the reason at his go."""
    setup = campaign()
    before = state(setup, {"ann": 16, "bob": 15}, order=("ann", "bob", "cat"))
    assert _refused(setup, before, ladder(14), "bob") == []
    outcome = play(setup, before, {"ann": snake(14), "bob": ladder(14)}, {"ann/1": 6, "bob/1": 6, "cat/1": 1})
    assert go_of(outcome, "ann").built and go_of(outcome, "bob").reason == "target"


def test_4_5_players_in_play_who_sent_nothing_count_for_resolve():
    setup = campaign()
    before = state(setup, {"ann": 28}, ended=("ann",))
    assert [RULES.must_order(setup, before, p) for p in setup.players] == [False, True, True]
    assert not RULES.order_complete(setup, before, "bob", AdvancedOrder())
    assert RULES.order_complete(setup, before, "bob", MOVE)


def test_4_5_every_refusal_code_has_words():
    from gm.mail.words import problem_text

    setup = campaign(Board.build(30, snakes=[(12, 4)]))
    problems = [
        *RULES.order_problems(setup, state(setup, {"ann": 28}, ended=("ann",)), "ann", MOVE),
        *RULES.order_problems(setup, state(setup), "ann", snake(3)),
        *RULES.order_problems(setup, state(setup, {"ann": 12}), "ann", snake(20)),
        *RULES.order_problems(setup, state(setup, {"ann": 15}), "ann", snake(4)),
        *RULES.order_problems(setup, state(setup, {"ann": 15}), "ann", ladder(3)),
        *_merge("MOVE\nMOVE")[1],
    ]
    codes = {p.code for p in problems}
    assert codes == {"in_end", "build_from_start", "own_square_taken", "target_not_below", "target_taken",
                     "too_far", "two_actions"}
    for p in problems:
        text = problem_text("advanced", p)
        assert text and "{" not in text and p.code not in text
    for bad in ("MOVE 3", "BUILD", "BUILD SNAKE", "BUILD SNAKE 1 2", "BUILD SNAKE x"):
        parsed = parse_orders(f"PLAYER ann\nPASSWORD pw\n{bad}\n", grammar=RULES.grammar(), other_keywords=frozenset())
        assert problem_text("advanced", parsed.problems[0].why).startswith("line 3: ")


# -- docs/audit.md and CONTRACT --------------------------------------------------------------


def test_5_seeded_dice_follow_the_formula_computed_by_hand():
    """Turn 0: each player's d6 is `{seed}:0:dice:{player}/1` mod 6 (+1), their die throw
    `/2` mod the die's size; turn 1: `{seed}:1:dice:{player}/1`."""
    seed = 2**128 + 12345

    def face(turn: int, key: str, size: int) -> int:
        digest = hashlib.sha256(f"{seed}:{turn}:dice:{key}".encode()).hexdigest()
        return int(digest, 16) % size + 1

    setup = campaign(players=("ann", "bob"), seed=seed)
    opening = RULES.start(setup, SeededChance(seed))
    for player in setup.players:
        size = {1: 6, 2: 6, 3: 6, 4: 8, 5: 8, 6: 12}[face(0, f"{player}/1", 6)]
        assert opening.state.dice[player] == size
        throw = next(t for t in opening.state.opening if t.key == f"{player}/2")
        assert throw.roll == face(0, f"{player}/2", size)
    turn = RULES.resolve(setup, opening.state, {}, SeededChance(seed))
    for player in setup.players:
        assert go_of(turn, player).roll == face(1, f"{player}/1", opening.state.dice[player])


def test_contract_state_json_has_every_key():
    setup = campaign(players=("ann", "bob", "cat"), teams={"bob": "red", "cat": "red"})
    before = state(setup, {"ann": 12, "bob": 5}, dice={"ann": 8})
    outcome = play(setup, before, {"ann": snake(11)}, {"ann/1": 4, "bob/1": 3, "cat/1": 2})
    data = RULES.state_json(setup, outcome.state)
    assert set(data) == {"turn", "over", "order", "winner", "teams", "boards", "players", "opening", "log"}
    board = data["boards"]["A"]
    assert set(board) == {"squares", "closed", "trapdoor", "snakes", "ladders", "built", "players"}
    assert (board["trapdoor"], board["closed"], board["squares"]) == (None, False, 30)
    assert board["players"]["ann"] == {"square": 12, "finished": False, "placing": None}
    assert data["players"]["ann"] == {"numbers_left": None, "aggregate": None, "place": None, "seat": 1,
                                      "die": 8, "team": "ann", "builds": 1, "resigned": False}
    assert data["teams"]["red"] == {"members": ["bob", "cat"], "finished": False, "placing": None}
    assert data["log"][0] == {"player": "ann", "action": "build", "kind": "snake", "target": 11, "dice": [4],
                              "from": 12, "construction": 1, "needed": 3, "built": True, "reason": None}
    assert data["log"][1] == {"player": "bob", "action": "move", "dice": [3], "from": 5,
                              "steps": [{"square": 8, "via": "roll"}], "to": 8, "bounced": False,
                              "finished": False, "again": False, "skip": None, "nmr": True}
    assert data["order"] == ["ann", "bob", "cat"] and data["winner"] is None and data["turn"] == 2


def test_state_survives_storage_and_replays():
    from gm.rules.chance import ReplayChance

    setup = campaign(teams={"bob": "red"})
    opening = RULES.start(setup, SeededChance(setup.seed))
    outcome = RULES.resolve(setup, opening.state, {"ann": MOVE}, SeededChance(setup.seed))
    assert RULES.resolve(setup, opening.state, {"ann": MOVE}, ReplayChance(outcome.draws)) == outcome
    assert RULES.load_state(RULES.dump_state(outcome.state)) == outcome.state
    for event in opening.events + outcome.events:
        assert RULES.event_from_json(dataclasses.asdict(event)) == event


def test_board_in_every_mail_square_1_is_told_no_square_is_below_it():
    """docs/rules/advanced.md, The board in every mail: from square 1 (no board square
    below it) the player's part says so, instead of calling the squares below "not free"."""
    from gm.mail.mailout import environment
    from gm.rules.advanced.views import own_facts

    setup = campaign()
    for kind in ("text", "html"):
        part = environment(kind, "advanced").get_template(f"mail/advanced/_turn.{'txt' if kind == 'text' else 'html'}")
        on_1 = part.module.build_options(own_facts(setup, "ann", "Ann", state(setup, {"ann": 1}), (), None))
        assert "Square 1 is the lowest on the board: no square is below it to BUILD to, so MOVE." in on_1
        assert "No square below yours" not in on_1
        # elsewhere with nothing free within reach the old words stand
        crowded = state(setup, {"bob": 5}, dice={"bob": 2}, built=(Built("snake", 4, 3, "cat", 1),))
        on_5 = part.module.build_options(own_facts(setup, "bob", "Bob", crowded, (), None))
        assert "No square below yours within 1 steps is free of snakes and ladders" in on_5


def test_end_and_placings_the_running_standings_place_each_team_by_its_slowest_member():
    """docs/rules/advanced.md, The end and placings: while the campaign runs the archive's
    Place column holds the place each team has now, as the end would give it: red (ann on
    20, bob on 3) is behind green (cat on 9) though ann is furthest of all."""
    from gm.rules.advanced.views import standings

    setup = campaign(teams={"ann": "red", "bob": "red"})
    now = state(setup, {"ann": 20, "bob": 3, "cat": 9})
    lines = standings(setup, now, {"ann": "Ann", "bob": "Bob", "cat": "Cat"})
    assert [(s.name, s.place) for s in lines] == [("Cat", 1), ("Ann", 2), ("Bob", 2)]
    assert all(s.total is None for s in lines)  # nothing final yet
