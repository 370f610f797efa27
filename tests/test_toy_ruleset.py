"""A ruleset is its own code and templates. The toy ruleset of tests/toyrules.py
("Step", a few dozen lines written only against gm.rules.base) is registered at run time
and played through gm's own layers."""

from __future__ import annotations

import pytest
from maildirkit import START, MaildirGame
from toyrules import Step, StepOrder

from gm.boards.model import Board
from gm.mail.orderlang import parse_orders
from gm.rules import registry
from gm.rules.base import Setup
from gm.rules.chance import ReplayChance, SeededChance


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


def test_toy_ruleset_plays_a_whole_campaign_by_mail_through_start_turn_and_publish(step_registered, tmp_path):
    """gm start, players' order mail dropped in the campaign's Maildir inbox, gm turn each
    week, gm publish and gm reveal: no change to gm outside the toy's own code."""
    game = MaildirGame.create(tmp_path / "steps", ruleset="step", seed=2**70, board="squares: 8\n",
                              board_file="lane.yaml", players={"ann": "pw-ann-1", "ben": "pw-ben-2"},
                              options={"max_turns": 10})
    game.gm("start", now=START)
    for week in range(1, 10):
        state = game.state(now=START)
        if state["over"]:
            break
        for player, step in (("ann", 3), ("ben", 2)):
            if state["boards"]["A"]["players"][player]["finished"]:
                continue
            game.mail(player, f"STEP {step}")
        out = game.turn(week)
        assert f"turn {week} resolved" in out, out
    state = game.state()
    # ann: 3+3+3 = 9 > 8 in turn 3; ben: five steps of 2 = 10 > 8 in turn 5, which ends it
    assert state["over"] and state["turn"] == 6
    placings = {p: v["placing"] for p, v in state["boards"]["A"]["players"].items()}
    assert placings == {"ann": 1, "ben": 2}
    status = game.gm("status")  # the GM's summary knows no ruleset
    assert "  Ann                  placed 1\n" in status and "over after turn 5" in status
    assert "placed 1, place 1" not in status  # one board's placing is the place: said once
    game.gm("publish")
    index = (game.folder / "archive" / "index.html").read_text()
    assert "Ann" in index and "Ben" in index
    texts, kinds = game.texts(), game.kinds()
    assert {"welcome", "ack", "report"} <= set(kinds) and kinds.count("ack") == game.sent
    assert len(texts) == len(kinds)  # every queued mail was delivered
    assert any("STEP" in t for t in texts)  # the toy's own command reaches its players
    assert not any("TRAPDOOR" in t or "NUMBER" in t for t in texts)
