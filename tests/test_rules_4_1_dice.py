"""docs/rules/classic.md, doubles.md and advanced.md (common to classic and doubles) and 4.5 (their orders by mail), one test
per bullet and per case a bullet names; the dice are chosen through ScriptedChance.

The helpers here (`setup_for`, `faces`, `state_of`, `play`, `throws`) are shared by
test_rules_4_2_classic.py and test_rules_4_3_doubles.py."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from gm.boards.model import Board
from gm.errors import ProblemsError, RulesError
from gm.rules.base import Outcome, Setup
from gm.rules.chance import ReplayChance, ScriptedChance, SeededChance
from gm.rules.classic import Classic
from gm.rules.dice.events import Placed, Resigned, Thrown
from gm.rules.dice.state import DiceOrder, DicePiece, DiceState
from gm.rules.doubles import Doubles
from gm.rules.grammar import Command, CommandProblem
from gm.yamlfile import parse

PLAYERS = ("ann", "bob", "cat")
CLASSIC, DOUBLES = Classic(), Doubles()


# -- helpers ----------------------------------------------------------------------------


def setup_for(ruleset: Any, squares: int = 30, players: Iterable[str] = PLAYERS, *, snakes: Any = (),
              ladders: Any = (), seed: int = 2027, **options: Any) -> Setup:
    board = Board.build(squares, snakes=snakes, ladders=ladders)
    return Setup({"A": board}, tuple(players), ruleset.parse_options(options), seed)


def faces(script: Mapping[str, int | Iterable[int]], turn: int | None = None) -> ScriptedChance:
    """Dice by key: `{"ann/1": 6}`, or per player in order `{"ann": [6, 2]}` (ann/1, ann/2).
    A die the script does not name fails the test: every throw is the case's own."""
    keyed: dict[str, int] = {}
    for key, value in script.items():
        if "/" in key:
            keyed[key] = value  # type: ignore[assignment]
        else:
            keyed |= {f"{key}/{i}": face for i, face in enumerate(value, 1)}  # type: ignore[arg-type]

    def pick(at: int, kind: str, key: str, candidates: tuple[Any, ...]) -> Any:
        assert kind == "dice" and candidates == (1, 2, 3, 4, 5, 6), (kind, candidates)
        assert turn is None or at == turn, f"die {key} drawn in turn {at}"
        assert key in keyed, f"the case throws no die {key} (turn {at})"
        return keyed[key]

    return ScriptedChance(pick)


def state_of(setup: Setup, squares: Mapping[str, int] | None = None, *, order: Iterable[str] | None = None,
             turn: int = 1, resigned: Iterable[str] = (), finished: Mapping[str, int] | None = None) -> DiceState:
    """A state before `turn`: pieces where the case puts them (finished ones on N with
    their placing), the order of play given or the listing order."""
    n = next(iter(setup.boards.values())).squares
    squares, finished, resigned = dict(squares or {}), dict(finished or {}), set(resigned)
    pieces = {p: DicePiece(n if p in finished else squares.get(p, 0), p in finished, finished.get(p),
                           p in resigned) for p in setup.players}
    first = min(finished, key=finished.get) if finished else None
    return DiceState(turn, False, tuple(order or setup.players), pieces, winner=first)


def play(ruleset: Any, setup: Setup, state: DiceState, script: Mapping[str, Any],
         orders: Mapping[str, DiceOrder] | None = None) -> Outcome:
    """Resolve `state`'s turn with the scripted dice, and check it replays from its draws."""
    outcome = ruleset.resolve(setup, state, orders or {}, faces(script, state.turn))
    assert ruleset.resolve(setup, state, orders or {}, ReplayChance(outcome.draws)) == outcome
    return outcome


def throws(outcome: Outcome, player: str | None = None) -> list[Thrown]:
    return [e for e in outcome.events if isinstance(e, Thrown) and player in (None, e.player)]


def route(throw: Thrown) -> list[tuple[int, str]]:
    return [(s.square, s.via) for s in throw.steps]


def placings(outcome: Outcome) -> dict[str, int | None]:
    return {p: piece.placing for p, piece in outcome.state.pieces.items()}


def keys(outcome: Outcome) -> list[str]:
    return [d.key for d in outcome.draws]


# -- 4.1 one board, public layout ------------------------------------------------------------


def test_4_1_one_board_per_campaign():
    assert CLASSIC.one_board and DOUBLES.one_board  # the campaign layer refuses a second board
    two = Setup({"A": Board.build(30), "B": Board.build(30)}, PLAYERS, CLASSIC.parse_options({}), 1)
    with pytest.raises(RulesError):
        CLASSIC.start(two, SeededChance(1))


def test_4_1_the_layout_is_public_and_drawn_before_any_reveal():
    assert not CLASSIC.hidden_boards and not DOUBLES.hidden_boards
    setup = setup_for(CLASSIC, snakes=[(27, 5)], ladders=[(3, 22)])
    pictures = CLASSIC.archive_boards(setup, CLASSIC.start(setup, SeededChance(1)).state, ())
    assert len(pictures) == 1 and pictures[0].svg.startswith("<svg")


# -- 4.1 order of play, turns, goes ----------------------------------------------------------------


@pytest.mark.parametrize("ruleset", [CLASSIC, DOUBLES], ids=["classic", "doubles"])
def test_4_1_the_order_of_play_is_fixed_before_turn_1_and_never_changes(ruleset):
    setup = setup_for(ruleset, players=("ann", "bob", "cat", "dan"), close_after="all")
    state = ruleset.start(setup, SeededChance(setup.seed)).state
    order = state.order
    assert sorted(order) == sorted(setup.players)
    while not state.over:
        state = ruleset.resolve(setup, state, {}, SeededChance(setup.seed)).state
        assert state.order == order


def test_4_1_a_turn_is_one_round_each_player_in_play_has_one_go_in_order_of_play():
    setup = setup_for(CLASSIC, players=("ann", "bob", "cat", "dan"), close_after=3)
    state = state_of(setup, {"ann": 3, "bob": 4}, order=("cat", "dan", "ann", "bob"), resigned=["bob"],
                     finished={"dan": 1})
    outcome = play(CLASSIC, setup, state, {"cat": [2], "ann": [4]})
    assert [t.player for t in throws(outcome)] == ["cat", "ann"]  # dan finished, bob resigned: no go
    assert outcome.state.turn == 2 and not outcome.state.over


def test_4_1_a_go_is_one_throw_plus_every_throw_it_earns_all_in_that_turn():
    setup = setup_for(CLASSIC, squares=50)
    outcome = play(CLASSIC, setup, state_of(setup, turn=4), {"ann": [6, 6, 2], "bob": [1], "cat": [3]})
    assert [(t.player, t.dice, t.again) for t in throws(outcome)] == [
        ("ann", (6,), True), ("ann", (6,), True), ("ann", (2,), False), ("bob", (1,), False), ("cat", (3,), False)]
    assert {t.turn for t in throws(outcome)} == {4}
    assert outcome.state.pieces["ann"].square == 14


# -- 4.1 dice ---------------------------------------------------------------------------------


def test_4_1_dice_keys_count_the_dice_thrown_for_that_player_in_the_turn_from_1():
    setup = setup_for(CLASSIC, squares=50)
    state = state_of(setup, turn=3)
    outcome = play(CLASSIC, setup, state, {"ann": [6, 6, 1], "bob": [6, 2], "cat": [5]})
    assert keys(outcome) == ["ann/1", "ann/2", "ann/3", "bob/1", "bob/2", "cat/1"]
    assert {d.turn for d in outcome.draws} == {3} and {d.kind for d in outcome.draws} == {"dice"}
    # the next turn counts from 1 again
    again = play(CLASSIC, setup, outcome.state, {"ann": [2], "bob": [2], "cat": [2]})
    assert keys(again) == ["ann/1", "bob/1", "cat/1"] and {d.turn for d in again.draws} == {4}


def test_4_1_a_throw_of_two_dice_takes_the_next_two_first_die_first():
    setup = setup_for(DOUBLES, squares=60)
    outcome = play(DOUBLES, setup, state_of(setup), {"ann/1": 3, "ann/2": 3, "ann/3": 2, "ann/4": 5,
                                                     "bob/1": 1, "bob/2": 4, "cat/1": 6, "cat/2": 2})
    assert keys(outcome)[:4] == ["ann/1", "ann/2", "ann/3", "ann/4"]
    assert [t.dice for t in throws(outcome, "ann")] == [(3, 3), (2, 5)]
    assert [t.dice for t in throws(outcome, "bob")] == [(1, 4)]


def test_4_1_rolls_before_turn_1_use_turn_0_and_i_counts_on_across_them():
    setup = setup_for(CLASSIC)
    opening = CLASSIC.start(setup, faces({"ann": [5, 2], "bob": [5, 4], "cat": [1]}, turn=0))
    assert [(d.turn, d.key) for d in opening.draws] == [
        (0, "ann/1"), (0, "bob/1"), (0, "cat/1"), (0, "ann/2"), (0, "bob/2")]
    turn_1 = play(CLASSIC, setup, opening.state, {"ann": [1], "bob": [1], "cat": [1]})
    assert keys(turn_1) == ["bob/1", "cat/1", "ann/1"]  # turn 1 counts from 1 again


def test_4_1_seeded_dice_follow_the_formula_of_rules_5():
    seed = 2**64 + 12345
    setup = setup_for(DOUBLES, squares=100, seed=seed)
    state = DOUBLES.start(setup, SeededChance(seed)).state
    for _ in range(3):
        outcome = DOUBLES.resolve(setup, state, {}, SeededChance(seed))
        for draw in outcome.draws:
            digest = hashlib.sha256(f"{seed}:{state.turn}:dice:{draw.key}".encode()).hexdigest()
            assert draw.value == int(digest, 16) % 6 + 1
        thrown = [face for t in throws(outcome) for face in t.dice]
        assert thrown == [d.value for d in outcome.draws]
        state = outcome.state
    player, i = "ann", 1
    by_hand = int(hashlib.sha256(f"{seed}:1:dice:{player}/{i}".encode()).hexdigest(), 16) % 6 + 1
    first = DOUBLES.resolve(setup, DOUBLES.start(setup, SeededChance(seed)).state, {}, SeededChance(seed))
    assert throws(first, "ann")[0].dice[0] == by_hand


def test_4_1_seeded_opening_throws_follow_the_formula_of_rules_5():
    seed = 90210
    setup = setup_for(CLASSIC, players=("ann", "bob", "cat", "dan", "eve", "fay"), seed=seed)
    opening = CLASSIC.start(setup, SeededChance(seed))
    for throw in opening.state.opening:
        digest = hashlib.sha256(f"{seed}:0:dice:{throw.key}".encode()).hexdigest()
        assert throw.roll == int(digest, 16) % 6 + 1 and throw.key.startswith(throw.player + "/")


# -- 4.1 moving -----------------------------------------------------------------------------------


def test_4_1_a_throw_of_k_from_p_aims_at_p_plus_k():
    setup = setup_for(CLASSIC)
    thrown = throws(play(CLASSIC, setup, state_of(setup, {"ann": 7}), {"ann": [4], "bob": [2], "cat": [3]}))
    assert (thrown[0].start, thrown[0].end, route(thrown[0])) == (7, 11, [(11, "roll")])


def test_4_1_past_n_the_piece_bounces_back_from_n():
    setup = setup_for(CLASSIC)
    thrown = throws(play(CLASSIC, setup, state_of(setup, {"ann": 28}), {"ann": [5], "bob": [1], "cat": [1]}), "ann")
    assert thrown[0].end == 27 and thrown[0].bounced and route(thrown[0]) == [(27, "roll")]


def test_4_1_a_bounce_lands_and_takes_its_snake():
    setup = setup_for(CLASSIC, snakes=[(27, 5)])
    thrown = throws(play(CLASSIC, setup, state_of(setup, {"ann": 28}), {"ann": [5], "bob": [1], "cat": [1]}), "ann")
    assert route(thrown[0]) == [(27, "roll"), (5, "snake")] and thrown[0].end == 5 and thrown[0].bounced


@pytest.mark.parametrize(("squares", "start", "k", "end"), [(3, 2, 5, 1), (2, 0, 4, 0), (2, 1, 6, 1), (4, 3, 6, 1)])
def test_4_1_bounce_off_start_on_a_short_board(squares, start, k, end):
    """t = (p + k) mod 2N, then 2N - t if t > N."""
    setup = setup_for(CLASSIC, squares=squares, players=("ann", "bob"))
    script = {"ann": [k] + ([1] if k == 6 and end != squares else []), "bob": [1]}
    thrown = throws(play(CLASSIC, setup, state_of(setup, {"ann": start}), script), "ann")
    assert thrown[0].end == end and thrown[0].bounced


def test_4_1_squares_passed_over_n_included_do_nothing():
    setup = setup_for(CLASSIC, snakes=[(30, 5)], ladders=[(9, 20)])
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 28, "bob": 7}), {"ann": [4], "bob": [3], "cat": [1]})
    assert throws(outcome, "ann")[0].end == 28  # over the snake's head on N and back
    assert throws(outcome, "bob")[0].end == 10  # over the ladder's foot on 9


# -- 4.1 finishing ---------------------------------------------------------------------------------


def test_4_1_a_move_that_ends_on_n_finishes_and_stays_on_n():
    setup = setup_for(CLASSIC, close_after=2)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 26}), {"ann": [4], "bob": [1], "cat": [1]})
    thrown = throws(outcome, "ann")[0]
    assert thrown.finished and outcome.state.pieces["ann"] == DicePiece(30, True, 1, False)


def test_4_1_a_ladder_whose_top_is_n_finishes():
    setup = setup_for(CLASSIC, ladders=[(25, 30)], close_after=2)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 22}), {"ann": [3], "bob": [1], "cat": [1]})
    thrown = throws(outcome, "ann")[0]
    assert route(thrown) == [(25, "roll"), (30, "ladder")] and thrown.finished
    assert outcome.state.pieces["ann"].placing == 1


def test_4_1_a_snake_whose_head_is_n_takes_the_piece_down():
    setup = setup_for(CLASSIC, snakes=[(30, 4)])
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 26}), {"ann": [4], "bob": [1], "cat": [1]})
    thrown = throws(outcome, "ann")[0]
    assert route(thrown) == [(30, "roll"), (4, "snake")] and not thrown.finished
    assert outcome.state.pieces["ann"] == DicePiece(4, False, None, False)


def test_4_1_finishing_ends_the_go_whatever_the_throw():
    setup = setup_for(CLASSIC, close_after=2)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 24}), {"ann": [6], "bob": [2], "cat": [2]})
    assert [(t.dice, t.again) for t in throws(outcome, "ann")] == [((6,), False)]
    assert keys(outcome) == ["ann/1", "bob/1", "cat/1"]  # no second throw for ann; the round goes on


def test_4_1_finishers_are_placed_1_2_3_in_the_order_they_finish():
    setup = setup_for(CLASSIC, players=("ann", "bob", "cat", "dan"), close_after=3)
    state = state_of(setup, {"ann": 25, "bob": 28, "cat": 29, "dan": 3}, order=("cat", "bob", "ann", "dan"))
    outcome = play(CLASSIC, setup, state, {"cat": [1], "bob": [2], "ann": [5]})
    assert [e.player for e in outcome.events if isinstance(e, Placed) and e.how == "finished"] == ["cat", "bob", "ann"]
    assert placings(outcome) == {"cat": 1, "bob": 2, "ann": 3, "dan": 4}
    assert outcome.state.winner == "cat"


# -- 4.1 end -----------------------------------------------------------------------------------


def test_4_1_close_after_1_by_default_ends_the_campaign_at_once():
    """(a): the rest of the go and of the round is not played."""
    setup = setup_for(CLASSIC)
    assert setup.options.close_after == 1
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 20, "bob": 24, "cat": 10}, order=("cat", "bob", "ann")),
                   {"cat": [3], "bob": [6]})
    assert keys(outcome) == ["cat/1", "bob/1"]  # ann does not throw
    state = outcome.state
    assert state.over and state.turn == 2 and state.winner == "bob"
    assert placings(outcome) == {"bob": 1, "ann": 2, "cat": 3}
    assert outcome.events[-1].reason == "close_after"


def test_4_1_close_after_above_the_number_of_players_counts_as_that_number():
    setup = setup_for(CLASSIC, close_after=7)
    assert setup.options.finishers_needed(3) == 3
    state = state_of(setup, {"ann": 27, "bob": 28, "cat": 1})
    first = play(CLASSIC, setup, state, {"ann": [3], "bob": [1], "cat": [1]})
    assert not first.state.over and placings(first)["ann"] == 1
    second = play(CLASSIC, setup, first.state, {"bob": [1, 1], "cat": [1]})  # 29, then 30: a 1 does not throw again
    assert throws(second, "bob")[0].end == 30 and second.state.over  # only cat is left in play: (b)
    assert placings(second) == {"ann": 1, "bob": 2, "cat": 3}


def test_4_1_close_after_all():
    setup = setup_for(CLASSIC, players=("ann", "bob", "cat", "dan"), close_after="all")
    assert setup.options.finishers_needed(4) == 4
    state = state_of(setup, {"ann": 27, "bob": 29, "cat": 5, "dan": 8})
    outcome = play(CLASSIC, setup, state, {"ann": [3], "bob": [1], "cat": [2], "dan": [2]})
    assert not outcome.state.over  # two finished, two still in play
    last = play(CLASSIC, setup, outcome.state, {"cat": [2], "dan": [2]})
    assert not last.state.over and last.state.turn == 3


def test_4_1_the_campaign_ends_when_only_one_player_is_in_play():
    setup = setup_for(CLASSIC, close_after="all")
    state = state_of(setup, {"ann": 27, "cat": 12}, resigned=["bob"])
    outcome = play(CLASSIC, setup, state, {"ann": [3]})
    assert outcome.state.over and outcome.events[-1].reason == "in_play"
    assert keys(outcome) == ["ann/1"]  # cat, alone in play, has no go
    assert placings(outcome) == {"ann": 1, "cat": 2, "bob": 3}


def test_4_1_the_end_is_checked_after_the_turns_resignations():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup, {"ann": 5, "bob": 9, "cat": 2}), {},
                   orders={"bob": DiceOrder(True), "cat": DiceOrder(True)})
    assert outcome.draws == () and outcome.state.over and outcome.events[-1].reason == "in_play"
    assert outcome.state.winner is None
    assert placings(outcome) == {"ann": 1, "bob": 2, "cat": 3}  # the resigned after, by square


def test_4_1_a_single_player_campaign_ends_when_nobody_is_in_play():
    setup = setup_for(CLASSIC, players=("ann",))
    resigned = play(CLASSIC, setup, state_of(setup, {"ann": 5}), {}, orders={"ann": DiceOrder(True)})
    assert resigned.state.over and placings(resigned) == {"ann": 1}
    alone = play(CLASSIC, setup, state_of(setup, {"ann": 5}), {"ann": [4]})
    assert not alone.state.over  # one player in play, alone in the campaign: it goes on


def test_4_1_max_turns_ends_the_campaign_after_that_turn_with_no_winner():
    setup = setup_for(DOUBLES, max_turns=2)
    state = state_of(setup, {"ann": 3, "bob": 9, "cat": 1})
    first = play(DOUBLES, setup, state, {"ann": [1, 2], "bob": [1, 2], "cat": [1, 2]})
    assert not first.state.over
    second = play(DOUBLES, setup, first.state, {"ann": [1, 2], "bob": [1, 2], "cat": [2, 3]})
    assert second.state.over and second.state.turn == 3 and second.state.winner is None
    assert second.events[-1].reason == "max_turns"
    assert placings(second) == {"bob": 1, "ann": 2, "cat": 2}


def test_4_1_players_not_placed_go_after_the_finishers_by_square_then_the_resigned():
    """Competition ranking throughout: finisher 1; in play 2, 2, 4; resigned 5, 5."""
    players = ("ann", "bob", "cat", "dan", "eve", "fay")
    setup = setup_for(CLASSIC, players=players, close_after=3, max_turns=3)
    state = state_of(setup, {"bob": 10, "cat": 10, "dan": 20, "eve": 12, "fay": 20}, turn=3,
                     resigned=["dan", "fay"], finished={"ann": 1})
    outcome = play(CLASSIC, setup, state, {"bob": [4], "cat": [4], "eve": [1]})
    assert placings(outcome) == {"ann": 1, "bob": 2, "cat": 2, "eve": 4, "dan": 5, "fay": 5}
    assert {e.player: e.how for e in outcome.events if isinstance(e, Placed)} == {
        "bob": "square", "cat": "square", "eve": "square", "dan": "resigned", "fay": "resigned"}


# -- 4.1 resigning -----------------------------------------------------------------------------------


def test_4_1_resign_takes_effect_before_the_first_go():
    setup = setup_for(CLASSIC)
    state = state_of(setup, {"ann": 4, "bob": 7, "cat": 2})
    outcome = play(CLASSIC, setup, state, {"ann": [3], "cat": [5]}, orders={"bob": DiceOrder(True)})
    assert isinstance(outcome.events[0], Resigned) and outcome.events[0].player == "bob"
    assert keys(outcome) == ["ann/1", "cat/1"]
    assert outcome.state.pieces["bob"] == DicePiece(7, False, None, True)  # stays where it is
    log = CLASSIC.state_json(setup, outcome.state)["log"]
    assert log[0] == {"player": "bob", "action": "resign"} and [e["player"] for e in log[1:]] == ["ann", "cat"]


def test_4_1_resign_cannot_be_undone_after_that_turn():
    setup = setup_for(CLASSIC)
    outcome = play(CLASSIC, setup, state_of(setup), {"ann": [3], "cat": [5]}, orders={"bob": DiceOrder(True)})
    state = outcome.state
    withdraw = Command(2, "RESIGN NONE", "RESIGN", None, False)
    order, problems = CLASSIC.merge(setup, state, "bob", DiceOrder(), [withdraw])
    assert problems == [] and order == DiceOrder(False)  # accepted, changing nothing
    later = play(CLASSIC, setup, state, {"ann": [1], "cat": [1]}, orders={"bob": order})
    assert later.state.pieces["bob"].resigned and not throws(later, "bob")


# -- 4.5 orders by mail ----------------------------------------------------------------------------


def test_4_5_resign_and_resign_none_are_the_only_commands():
    for ruleset in (CLASSIC, DOUBLES):
        grammar = ruleset.grammar(None)
        assert grammar.keywords == ("RESIGN",)
        read = grammar.spec("RESIGN").read
        assert read((), "", None) == (None, True)
        assert read(("none",), "none", None) == (None, False)
        with pytest.raises(CommandProblem) as refused:
            read(("now",), "now", None)
        assert refused.value.problem.code == "resign_form" and refused.value.problem.facts == {"rest": "now"}


def test_4_5_commands_of_other_rulesets_are_refused():
    from gm.mail.orderlang import parse_orders

    grammar = CLASSIC.grammar(CLASSIC.parse_options({}))
    ok = parse_orders("PLAYER ann\nPASSWORD pw\nresign\n", grammar=grammar, other_keywords={"NUMBER", "MOVE"})
    assert ok.ok and [(c.keyword, c.value) for c in ok.commands] == [("RESIGN", True)]
    for foreign in ("NUMBER 3", "MOVE", "TRAPDOOR A 12"):
        parsed = parse_orders(f"PLAYER ann\nPASSWORD pw\n{foreign}\n", grammar=grammar,
                              other_keywords={"NUMBER", "TRAPDOOR", "MOVE"})
        assert not parsed.ok, foreign


def test_4_5_resign_none_withdraws_it_before_the_deadline():
    setup = setup_for(DOUBLES)
    state = state_of(setup)
    order, problems = DOUBLES.merge(setup, state, "ann", DOUBLES.empty_order(),
                                    [Command(3, "RESIGN", "RESIGN", None, True)])
    assert order.resign and problems == []
    order, problems = DOUBLES.merge(setup, state, "ann", order, [Command(3, "RESIGN NONE", "RESIGN", None, False)])
    assert not order.resign and problems == []
    outcome = play(DOUBLES, setup, state, {"ann": [1, 2], "bob": [1, 2], "cat": [1, 2]}, orders={"ann": order})
    assert not outcome.state.pieces["ann"].resigned


def test_4_5_resign_none_with_nothing_to_withdraw_is_accepted():
    setup = setup_for(CLASSIC)
    order, problems = CLASSIC.merge(setup, state_of(setup), "ann", DiceOrder(),
                                    [Command(3, "RESIGN NONE", "RESIGN", None, False)])
    assert order == DiceOrder(False) and problems == []
    assert CLASSIC.order_problems(setup, state_of(setup), "ann", order) == []


def test_4_5_a_resign_from_a_player_no_longer_in_play_is_refused():
    setup = setup_for(CLASSIC, close_after=2)
    state = state_of(setup, {"bob": 3}, resigned=["bob"], finished={"ann": 1})
    for player in ("ann", "bob"):
        order, problems = CLASSIC.merge(setup, state, player, DiceOrder(), [Command(4, "RESIGN", "RESIGN", None, True)])
        assert [(p.code, p.line) for p in problems] == [("resign_not_in_play", 4)]
        assert [p.code for p in CLASSIC.order_problems(setup, state, player, DiceOrder(True))] == ["resign_not_in_play"]
    assert CLASSIC.merge(setup, state, "cat", DiceOrder(), [Command(4, "RESIGN", "RESIGN", None, True)])[1] == []


def test_4_5_no_player_must_send_anything():
    setup = setup_for(CLASSIC)
    state = state_of(setup)
    for ruleset in (CLASSIC, DOUBLES):
        assert not any(ruleset.must_order(setup, state, p) for p in PLAYERS)
        assert all(ruleset.in_play(setup, state, p) for p in PLAYERS)
        assert ruleset.order_complete(setup, state, "ann", ruleset.empty_order())


def test_4_5_every_refusal_has_its_words_in_the_dice_templates():
    from gm.mail.words import problem_text
    from gm.rules.problem import problem

    for ruleset in ("classic", "doubles"):
        text = problem_text(ruleset, problem("resign_not_in_play", line=4))
        assert text.startswith("line 4: ") and "no longer in play" in text
        assert "NONE" in problem_text(ruleset, problem("resign_form", rest="now"))


# -- options -----------------------------------------------------------------------------------------


def test_options_defaults_and_keys():
    assert CLASSIC.parse_options({}) == CLASSIC.options_type(close_after=1, max_turns=200, enter_on_one=False)
    assert set(CLASSIC.option_keys) == {"close_after", "max_turns", "enter_on_one"}
    assert set(DOUBLES.option_keys) == {"close_after", "max_turns"}  # enter_on_one is refused as unknown


def test_options_refused_with_every_problem_and_its_line():
    raw = parse("close_after: 0\nmax_turns: many\nenter_on_one: maybe\n")
    with pytest.raises(ProblemsError) as refused:
        CLASSIC.parse_options(raw)
    problems = refused.value.problems
    assert len(problems) == 3
    assert problems[0].startswith("line 1: option close_after") and problems[2].startswith("line 3: option enter_on_one")
    assert DOUBLES.parse_options(parse("close_after: all\n")).close_after == "all"


# -- gm state --json ------------------------------------------------------------------------------------


def test_state_json_has_every_contract_key():
    setup = setup_for(CLASSIC, snakes=[(27, 5)], ladders=[(3, 22)])
    opening = CLASSIC.start(setup, faces({"ann": [4], "bob": [6], "cat": [2]}))
    data = CLASSIC.state_json(setup, opening.state)
    assert set(data) >= {"turn", "over", "boards", "players", "order", "winner", "teams", "opening", "log"}
    assert (data["turn"], data["over"], data["order"], data["winner"], data["teams"], data["log"]) == (
        1, False, ["bob", "cat", "ann"], None, None, [])
    board = data["boards"]["A"]
    assert (board["squares"], board["closed"], board["trapdoor"]) == (30, False, None)
    assert board["snakes"] == [[27, 5]] and board["ladders"] == [[3, 22]]
    assert board["players"]["ann"] == {"square": 0, "finished": False, "placing": None}
    assert data["players"]["ann"] == {"numbers_left": None, "aggregate": None, "place": None, "seat": 3,
                                      "die": 6, "team": None, "builds": None, "resigned": False}
    assert data["opening"] == [{"player": "ann", "purpose": "order", "key": "ann/1", "roll": 4},
                               {"player": "bob", "purpose": "order", "key": "bob/1", "roll": 6},
                               {"player": "cat", "purpose": "order", "key": "cat/1", "roll": 2}]
    outcome = play(CLASSIC, setup, opening.state, {"bob": [6, 3], "cat": [1], "ann": [3]},
                   orders={})
    data = CLASSIC.state_json(setup, outcome.state)
    assert data["log"][0] == {"player": "bob", "action": "move", "dice": [6], "from": 0,
                              "steps": [{"square": 6, "via": "roll"}], "to": 6, "bounced": False,
                              "finished": False, "again": True, "skip": None, "nmr": False}
    assert data["log"][3]["steps"] == [{"square": 3, "via": "roll"}, {"square": 22, "via": "ladder"}]
    json.dumps(data)  # plain JSON


def test_state_json_once_over_closed_aggregate_and_place_are_the_placing():
    setup = setup_for(DOUBLES)
    outcome = play(DOUBLES, setup, state_of(setup, {"ann": 20, "bob": 27}), {"ann": [4, 6]})
    data = DOUBLES.state_json(setup, outcome.state)
    assert data["over"] and data["boards"]["A"]["closed"] and data["winner"] == "ann"
    assert {p: (v["aggregate"], v["place"]) for p, v in data["players"].items()} == {
        "ann": (1, 1), "bob": (2, 2), "cat": (3, 3)}
    assert data["boards"]["A"]["players"]["ann"] == {"square": 30, "finished": True, "placing": 1}


def test_state_dumps_and_loads_back_exactly():
    for ruleset in (CLASSIC, DOUBLES):
        setup = setup_for(ruleset, close_after="all", snakes=[(27, 5)], ladders=[(3, 22)])
        state = ruleset.start(setup, SeededChance(5)).state
        while not state.over:
            state = ruleset.resolve(setup, state, {"cat": DiceOrder(state.turn == 4)}, SeededChance(5)).state
            assert ruleset.load_state(json.loads(json.dumps(ruleset.dump_state(state)))) == state
        assert ruleset.order_from_json(ruleset.order_to_json(DiceOrder(True))) == DiceOrder(True)


def test_resolve_refuses_once_over_and_orders_from_strangers():
    setup = setup_for(CLASSIC)
    with pytest.raises(RulesError):
        CLASSIC.resolve(setup, replace(state_of(setup), over=True), {}, SeededChance(1))
    with pytest.raises(RulesError):
        CLASSIC.resolve(setup, state_of(setup), {"zed": DiceOrder(True)}, SeededChance(1))


def test_the_golden_dice_campaigns_exercise_what_they_should():
    """tests/data/golden/campaigns/{classic,doubles}.json (test_golden_campaigns.py replays
    them): a roll-off with a tie, sixes and doubles thrown again, bounces, snakes and ladders,
    needs-one skips, a resignation placed last, and an end."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent / "data" / "golden" / "campaigns"
    for name in ("classic", "doubles"):
        golden = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        log = [e for t in golden["turns"] for e in t["state"]["log"]]
        moves = [e for e in log if e["action"] == "move"]
        assert any(e["again"] for e in moves) and any(e["bounced"] for e in moves)
        assert {s["via"] for e in moves for s in e["steps"]} == {"roll", "snake", "ladder"}
        assert any(e["action"] == "resign" for e in log)
        last = golden["turns"][-1]["state"]
        assert last["over"] and last["winner"]
        resigned = [p for p, v in last["players"].items() if v["resigned"]]
        assert all(last["players"][p]["place"] == len(last["players"]) for p in resigned)
        if name == "classic":
            assert any(e["skip"] == "needs-one" for e in moves)
            assert max(int(o["key"].rpartition("/")[2]) for o in golden["opening"]["state"]["opening"]) > 1
