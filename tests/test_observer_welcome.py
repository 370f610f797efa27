"""Observers (CONTRACT campaign.yaml `observers`, free to edit at any time) are welcomed:
with the rules and the archive's address, nothing any player keeps to themselves. Those
listed at `gm start` are welcomed then; one listed later, at the next command that mails
(a notice, a resolve, `gm send`), once: the outbox keeps the record."""

from __future__ import annotations

import email
import email.policy

import pytest
from handoverkit import RULESETS, START, attachment_names, flat, html_of, new_game, text_of

OLIVE = {"name": "Olive Oyl", "email": "olive@example.org"}
LATER = "2027-01-02T00:00:00Z"


def add_observer(game, observer=OLIVE) -> None:
    game.edit(lambda data: data.setdefault("observers", []).append(dict(observer)))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_observers_listed_at_start_are_welcomed_with_the_rules_and_the_archive(tmp_path, monkeypatch, ruleset):
    game = new_game(tmp_path, monkeypatch, ruleset, observers=[OLIVE])
    [welcome] = game.outbox(to="olive@example.org")
    assert welcome.kind == "observer-welcome"
    subject = str(welcome["Subject"])
    assert subject == f"[h-{ruleset}] Welcome to Handover {ruleset.title()}: you follow the game as an observer"
    assert "report" not in subject.lower()  # a welcome is not one of the reports
    text = text_of(welcome)
    assert "Hello Olive Oyl," in text
    assert f"({ruleset} rules), has listed you as an observer" in flat(text)
    assert "You send no orders" in flat(text)
    assert "The game's archive: https://example.org/handover/index.html" in text
    assert "The rules: https://example.org/handover/rules.html" in text
    assert attachment_names(welcome) == [f"rules-{ruleset}.md"]  # the rules, and no calendar: nothing is due
    assert "Turn 1 takes orders until Friday 08 January 2027, 00:00 UTC." in text
    for player in ("Alice (alice)", "Bob (bob)", "Carol (carol)"):
        assert player in text
    seed = next(line for line in text_of(game.outbox(kind="welcome", to="bob@example.org")[0]).splitlines()
                if line.strip().startswith("Seed: "))
    assert seed in text
    # nothing a player keeps: no password, no hand, no order
    assert "PASSWORD" not in text.upper() and "YOUR HAND" not in text.upper()
    assert "has listed you as an observer" in flat(html_of(welcome))


def test_an_observer_listed_later_is_welcomed_once_at_the_next_command_that_mails(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "postal")
    add_observer(game)
    game.gm("state", "--json", now=LATER)  # reads only: mails nobody
    game.gm("orders", now=LATER)
    assert game.outbox(to="olive@example.org") == []
    game.gm("deadline", "+1d", now=LATER)
    mails = game.outbox(to="olive@example.org")
    assert [m.kind for m in mails] == ["observer-welcome", "notice"]  # welcomed before the notice
    game.gm("resolve", "--force", now=LATER)
    game.gm("send", now=LATER)
    game.gm("pause", now=LATER)
    assert [m.kind for m in game.outbox(to="olive@example.org")] == ["observer-welcome", "notice", "report", "notice"]


def test_resolve_welcomes_an_observer_listed_since_before_the_turns_report(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic")
    add_observer(game)
    game.gm("resolve", "--force", now=LATER)
    welcome, report = game.outbox(to="olive@example.org")
    assert (welcome.kind, report.kind) == ("observer-welcome", "report")
    assert "Turn 2 takes orders until" in text_of(welcome)


def test_gm_send_welcomes_an_observer_listed_since_and_delivers_the_welcome(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "advanced")
    game.gm("send", now=START)
    add_observer(game)
    out = game.gm("send", now=LATER)
    assert "send: 1 delivered" in out
    delivered = [email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                 for path in (game.folder / "mail" / "outbox" / "new").iterdir()]
    assert [str(m["To"]) for m in delivered if "as an observer" in str(m["Subject"])] == ["olive@example.org"]
    game.gm("send", now=LATER)
    assert len(game.outbox(to="olive@example.org")) == 1


def test_an_address_listed_twice_is_welcomed_once_and_a_new_address_is_welcomed(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "postal", observers=[OLIVE, dict(OLIVE, name="Olive again")])
    assert len(game.outbox(to="olive@example.org")) == 1
    game.edit(lambda data: data["observers"][0].update(email="OLIVE@example.org"))  # the same address
    game.gm("send", now=LATER)
    assert len(game.outbox(to="olive@example.org")) == 1
    game.edit(lambda data: data["observers"].append({"name": "Popeye", "email": "popeye@example.org"}))
    game.gm("send", now=LATER)
    assert [m.kind for m in game.outbox(to="popeye@example.org")] == ["observer-welcome"]


def test_an_observer_listed_after_the_end_is_told_the_campaign_is_over(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic", options={"max_turns": 1})
    game.gm("resolve", "--force", now=LATER)
    assert game.state(LATER)["over"]
    add_observer(game)
    game.gm("send", now=LATER)
    [welcome] = game.outbox(to="olive@example.org")
    assert "The campaign is over: the game's archive tells it from the start." in flat(text_of(welcome))
    assert "takes orders" not in text_of(welcome)
