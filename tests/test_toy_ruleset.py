"""Issue 12: a ruleset is its own code and templates. The toy ruleset of tests/toyrules.py
("Step", a few dozen lines written only against gm.rules.base) is registered at run time
and played through gm's own layers."""

from __future__ import annotations

import pytest
from toyrules import Step, StepOrder

from gm.boards.board import Board
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
    import email
    import email.policy
    import json
    from datetime import UTC, datetime, timedelta
    from email.message import EmailMessage

    import yaml
    from click.testing import CliRunner

    from gm.cli import cli

    folder = tmp_path / "steps"
    folder.mkdir()
    (folder / "lane.yaml").write_text("squares: 8\n")
    players = {"ann": "pw-ann-1", "ben": "pw-ben-2"}
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "steps", "ruleset": "step", "seed": 2**70, "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {"A": "lane.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in players.items()],
        "options": {"max_turns": 10},
    }))
    runner = CliRunner()

    def gm(*args, now):
        result = runner.invoke(cli, ["-C", str(folder), *args], env={"GM_NOW": now})
        assert result.exit_code == 0, result.output
        return result.output

    gm("start", now="2027-01-01T00:00:00Z")
    sent = 0
    for week in range(1, 10):
        state = json.loads(gm("state", "--json", now="2027-01-01T00:00:00Z"))
        if state["over"]:
            break
        for player, step in (("ann", 3), ("ben", 2)):
            if state["boards"]["A"]["players"][player]["finished"]:
                continue
            sent += 1
            mail = EmailMessage()
            mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "my step"
            mail["Message-ID"] = f"<{sent}@example.org>"
            mail.set_content(f"PLAYER {player}\nPASSWORD {players[player]}\nSTEP {step}\n")
            (folder / "mail" / "inbox" / "new" / f"{sent}.eml").write_bytes(bytes(mail))
        after_deadline = datetime(2027, 1, 8, 19, tzinfo=UTC) + timedelta(days=7 * (week - 1))
        out = gm("turn", now=after_deadline.strftime("%Y-%m-%dT%H:%M:%SZ"))
        assert f"turn {week} resolved" in out, out
    state = json.loads(gm("state", "--json", now="2027-03-01T00:00:00Z"))
    # ann: 3+3+3 = 9 > 8 in turn 3; ben: five steps of 2 = 10 > 8 in turn 5, which ends it
    assert state["over"] and state["turn"] == 6
    placings = {p: v["placing"] for p, v in state["boards"]["A"]["players"].items()}
    assert placings == {"ann": 1, "ben": 2}
    status = gm("status", now="2027-03-01T00:00:00Z")  # the GM's summary knows no ruleset
    assert "  Ann                  placed 1, place 1" in status and "over after turn 5" in status
    gm("publish", now="2027-03-01T00:00:00Z")
    index = (folder / "archive" / "index.html").read_text()
    assert "Ann" in index and "Ben" in index
    boxes = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
             for p in sorted((folder / "mail" / "outbox" / "new").iterdir())]
    texts = [m.get_body(("plain",)).get_content() for m in boxes]
    import sqlite3

    kinds = [k for (k,) in sqlite3.connect(folder / "gm.sqlite").execute("select kind from outbox")]
    assert {"welcome", "ack", "report"} <= set(kinds) and kinds.count("ack") == sent
    assert len(boxes) == len(kinds)  # every queued mail was delivered
    assert any("STEP" in t for t in texts)  # the toy's own command reaches its players
    assert not any("TRAPDOOR" in t or "NUMBER" in t for t in texts)
