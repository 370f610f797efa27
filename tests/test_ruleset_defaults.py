"""The built-in rulesets are written as docs/plugins.md tells a stranger to write one: they
declare their dataclasses and take the state's storage, the orders' JSON, the events read
back, the options and merge from gm's defaults (gm.rules.codec, gm.rules.options,
gm.rules.roles), which keep the stored forms older gm wrote byte for byte."""

from __future__ import annotations

import ast
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from gm.boards.board import Board
from gm.boards.moving import Step
from gm.errors import ProblemsError
from gm.rules import OptionsError
from gm.rules.advanced import Advanced
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.classic import Classic
from gm.rules.codec import from_json, to_json
from gm.rules.dice.events import Resigned, Thrown
from gm.rules.dice.state import DiceOrder
from gm.rules.grammar import Command
from gm.rules.options import option, parse_dataclass_options
from gm.rules.postal import Postal
from gm.rules.postal.state import PostalOrder, aggregates
from gm.rules.standings import standings_from_json
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.orders import PlayLine, UnleashedOrder

ROOT = Path(__file__).resolve().parent.parent
DERIVED = {"dump_state", "load_state", "order_to_json", "order_from_json", "event_from_json", "state_json",
           "parse_options", "merge", "empty_order"}


def _setup(ruleset, players=("ann", "bob"), squares=30, seed=7, **options) -> Setup:
    return Setup({"A": Board.build(squares)}, players, ruleset.parse_options(options), seed)


def test_the_built_ins_hand_write_at_most_8_members_the_interface_derives():
    written = []
    for path in sorted((ROOT / "gm" / "rules").rglob("*.py")):
        if "roles" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and {ast.unparse(b) for b in node.bases} & {"Ruleset", "Dice"}:
                written += [f"{node.name}.{item.name}" for item in node.body
                            if isinstance(item, ast.FunctionDef) and item.name in DERIVED]
    assert len(written) <= 8, written


def test_postal_state_keeps_its_stored_form_pieces_as_rows():
    rules = Postal()
    setup = _setup(rules)
    state = rules.start(setup, SeededChance(setup.seed)).state
    stored = rules.dump_state(state)
    assert json.dumps(stored, sort_keys=True) == (
        '{"boards": {"A": {"closed": false, "pieces": {"ann": [0, false, null], "bob": [0, false, null]}, '
        '"trapdoor": null}}, "hands": {"ann": {"*": [1, 2, 3, 4, 5, 6]}, "bob": {"*": [1, 2, 3, 4, 5, 6]}}, '
        '"over": false, "turn": 1}')
    assert rules.load_state(json.loads(json.dumps(stored))) == state


def test_postal_orders_keep_their_stored_form_and_a_forged_one_is_refused():
    rules = Postal()
    order = PostalOrder({"*": 3}, {"A": 12})
    assert rules.order_to_json(order) == {"numbers": {"*": 3}, "trapdoors": {"A": 12}}
    assert rules.order_from_json({"numbers": {"*": 3}, "trapdoors": {"A": 12}}) == order
    assert rules.empty_order() == PostalOrder()
    for forged in ({"numbers": {"*": "3"}, "trapdoors": {}}, {"numbers": {"*": True}, "trapdoors": {}},
                   {"numbers": [3], "trapdoors": {}}):
        with pytest.raises(ValueError):
            rules.order_from_json(forged)


def test_dice_state_keeps_pieces_as_rows_and_reads_its_log_back_by_kind():
    rules = Classic()
    setup = _setup(rules, players=("ann", "bob", "cat"), seed=2027)
    state = rules.start(setup, SeededChance(setup.seed)).state
    state = rules.resolve(setup, state, {"ann": DiceOrder(True)}, SeededChance(setup.seed)).state
    stored = json.loads(json.dumps(rules.dump_state(state)))
    assert list(stored) == ["turn", "over", "order", "pieces", "winner", "opening", "log"]
    assert stored["pieces"]["ann"] == [state.pieces["ann"].square, False, None, True]
    again = rules.load_state(stored)
    assert again == state
    assert isinstance(again.log[0], Resigned) and all(isinstance(go, Thrown) for go in again.log[1:])
    assert all(isinstance(step, Step) for go in again.log[1:] for step in go.steps)


def test_unleashed_play_lines_are_stored_as_rows():
    rules = Unleashed()
    order = UnleashedOrder(True, (PlayLine("-1", "bob+2"), PlayLine("FORWARD-3", "30", "bob")), {"BACK": ("LAST",)},
                           (("S1", 3, 9),))
    stored = rules.order_to_json(order)
    assert stored == {"sent": True, "plays": [["-1", "bob+2", None], ["FORWARD-3", "30", "bob"]],
                      "reactions": {"BACK": ["LAST"]}, "places": [["S1", 3, 9]]}
    assert rules.order_from_json(json.loads(json.dumps(stored))) == order


def test_every_built_in_event_reads_back_as_the_event_it_was():
    for rules in (Postal(), Classic(), Advanced()):
        setup = _setup(rules, players=("ann", "bob", "cat"), seed=11)
        outcome = rules.start(setup, SeededChance(setup.seed))
        events = list(outcome.events)
        state = outcome.state
        for _ in range(3):
            result = rules.resolve(setup, state, {}, SeededChance(setup.seed))
            events += result.events
            state = result.state
        for event in events:
            assert rules.event_from_json(json.loads(json.dumps(dataclasses.asdict(event)))) == event


def test_typed_standings_say_what_state_json_says():
    for rules in (Postal(), Classic(), Advanced()):
        setup = _setup(rules, players=("ann", "bob", "cat"), squares=12, seed=5)
        state = rules.start(setup, SeededChance(setup.seed)).state
        turn = 0
        while not state.over and turn < 60:
            state = rules.resolve(setup, state, {}, SeededChance(setup.seed)).state
            turn += 1
            assert rules.standings(setup, state) == standings_from_json(rules.state_json(setup, state))
        assert state.over


def test_postal_aggregates_are_the_sum_of_placings_and_their_place():
    rules = Postal()
    setup = _setup(rules, players=("ann", "bob"), squares=6)
    state = rules.start(setup, SeededChance(setup.seed)).state
    assert aggregates(setup.players, state) == {"ann": (None, None), "bob": (None, None)}
    while not state.over:
        state = rules.resolve(setup, state, {}, SeededChance(setup.seed)).state
    found = aggregates(setup.players, state)
    standings = rules.standings(setup, state)
    assert {p: (s.aggregate, s.place) for p, s in standings.players.items()} == found


def test_an_option_is_refused_in_its_fields_words_and_below_its_minimum():
    @dataclass(frozen=True)
    class Options:
        rounds: int = option(3, minimum=1, expected="a whole number of at least 1")
        style: str = "plain"

    assert parse_dataclass_options(Options, {"rounds": 5}) == Options(5)
    with pytest.raises(OptionsError) as refused:
        parse_dataclass_options(Options, {"style": 4, "rounds": 0})
    # in the order given (campaign.yaml's), each in its field's words
    assert refused.value.problems == ["option style must be text, not 4",
                                      "option rounds must be a whole number of at least 1, not 0"]
    assert isinstance(refused.value, ProblemsError)  # as gm's own option checks raise


def test_postal_option_refusals_keep_their_words():
    with pytest.raises(ProblemsError) as refused:
        Postal().parse_options({"close_after": 0, "nmr": "middle", "numbers": "each"})
    assert refused.value.problems == [
        "option close_after must be a whole number of at least 1, or all, not 0",
        "option nmr must be random, lowest or highest, not 'middle'",
        "option numbers must be shared or per-board, not 'each'",
    ]


def test_the_default_merge_refuses_on_its_line_a_command_that_gives_the_order_a_new_problem():
    rules = Classic()
    setup = _setup(rules)
    state = rules.start(setup, SeededChance(setup.seed)).state
    finished = dataclasses.replace(state, pieces={**state.pieces, "ann": dataclasses.replace(
        state.pieces["ann"], finished=True, square=30)})
    resign = Command(4, "RESIGN", "RESIGN", None, True)
    order, problems = rules.merge(setup, finished, "ann", DiceOrder(), [resign])
    assert order == DiceOrder() and [(p.code, p.line) for p in problems] == [("resign_not_in_play", 4)]
    assert rules.merge(setup, finished, "bob", DiceOrder(), [resign]) == (DiceOrder(True), [])


@dataclass(frozen=True)
class Point:
    json_row: ClassVar[bool] = True
    x: int
    y: int | None = None


@dataclass(frozen=True)
class Went:
    to: Point
    kind: str = "went"


@dataclass(frozen=True)
class Stayed:
    to: Point
    kind: str = "stayed"


def test_a_json_row_dataclass_and_events_told_apart_by_kind():
    events = (Stayed(Point(1)), Went(Point(2, 3)))
    data = to_json(events)
    assert data == [{"to": [1, None], "kind": "stayed"}, {"to": [2, 3], "kind": "went"}]
    assert from_json(tuple[Went | Stayed, ...], data) == events
    with pytest.raises(ValueError):
        from_json(Point, [1, 2, 3])
