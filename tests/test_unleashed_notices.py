"""Unleashed's notices to every player (docs/rules/unleashed.md, Leaving and pauses): the
mail that says the campaign goes on (gm resume) offers the commands the open turn takes,
PLACE in the setup turn and PLAY after it, never the other."""

from __future__ import annotations

from handoverkit import START, new_game, text_of

TURN_1_RESOLVED = "2027-01-09T00:00:00Z"
PAUSED = "2027-01-09T01:00:00Z"
RESUMED = "2027-01-09T02:00:00Z"


def resumed_notice(game, now: str) -> str:
    game.gm("pause", now=now)
    game.gm("resume", now=now)
    return text_of(game.outbox(to="bob@example.org")[-1])


def test_the_resume_notice_offers_place_in_the_setup_turn_and_no_play(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "unleashed")
    text = resumed_notice(game, START)
    assert "Turn 1 takes orders again" in text
    assert "PLACE <item>" in text and "PLAY <card>" not in text
    assert "REACT <action>" in text


def test_the_resume_notice_after_the_setup_turn_offers_play_and_no_place(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "unleashed")
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    text = resumed_notice(game, PAUSED)
    assert "Turn 2 takes orders again" in text
    assert "PLAY <card>" in text and "PLACE" not in text
    assert "REACT <action>" in text
