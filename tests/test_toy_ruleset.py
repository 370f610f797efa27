"""Issue 12: a ruleset is its own code and templates. The toy ruleset of tests/toyrules.py
("Step", a few dozen lines written only against gm.rules.base) is registered at run time
and played through gm's own layers."""

from __future__ import annotations

import pytest
from toyrules import Step, StepOrder

from gm.board import Board
from gm.chance import ReplayChance, SeededChance
from gm.orderlang import parse_orders
from gm.rules import registry
from gm.rules.base import Setup


@pytest.fixture
def step_registered():
    registry.register(Step)
    yield
    registry.unregister("step")


def test_toy_ruleset_is_found_by_name_once_registered(step_registered):
    assert isinstance(registry.find_ruleset("step"), Step)
    assert "step" in registry.known()


def test_toy_ruleset_plays_to_its_end_in_the_rules_core_and_replays_from_its_draws():
    rules = Step()
    setup = Setup({"A": Board.build(10)}, ("ann", "ben", "cat"), rules.parse_options({"silent": "random"}), 7)
    state = rules.start(setup, SeededChance(7)).state
    turns = 0
    while not state.over:
        orders = {"ann": StepOrder(3), "ben": StepOrder(2)}  # cat is silent: a random step
        outcome = rules.resolve(setup, state, orders, SeededChance(7))
        assert [d.key for d in outcome.draws] == (["cat"] if state.placings["cat"] is None else [])
        assert rules.resolve(setup, state, orders, ReplayChance(outcome.draws)) == outcome
        state, turns = outcome.state, turns + 1
    # ann crosses alone in turn 4 (3+3+3+3 = 12 > 10); the campaign ends once all have crossed
    assert state.placings["ann"] == 1 and turns >= 6  # ben needs six steps of 2
    assert all(state.squares[p] > 10 and state.placings[p] for p in ("ann", "ben", "cat"))


def test_toy_ruleset_grammar_reads_its_command_with_the_common_envelope():
    grammar = Step().grammar()
    parsed = parse_orders("PLAYER ann\nPASSWORD pw\nSTEP 2\n", grammar=grammar, other_keywords=frozenset({"NUMBER"}))
    assert parsed.ok and [(c.keyword, c.value) for c in parsed.commands] == [("STEP", 2)]
    refused = parse_orders("PLAYER ann\nPASSWORD pw\nNUMBER 2\n", grammar=grammar, other_keywords=frozenset({"NUMBER"}))
    assert "STEP" in str(refused.problems[0]) and refused.problems[0].line == 3
