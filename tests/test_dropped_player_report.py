"""A player who has left the game (gm player drop) still gets the turn reports, but none of
them asks him for an order: no ready order to fill in, no deadline, no calendar entry; each
says he has left. The players still in the game get theirs as before."""

from __future__ import annotations

import pytest
from handoverkit import RULESETS, attachment_names, flat, html_of, new_game, text_of


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_dropped_players_reports_end_with_no_order_to_send(tmp_path, monkeypatch, ruleset):
    game = new_game(tmp_path, monkeypatch, ruleset, options={"setup": "random"} if ruleset == "unleashed" else None)
    game.gm("player", "drop", "bob", now="2027-01-02T00:00:00Z")
    game.gm("resolve", "--force", now="2027-01-08T00:05:00Z")
    game.gm("resolve", "--force", now="2027-01-15T00:05:00Z")
    reports = game.outbox(kind="report", to="bob@example.org")
    assert len(reports) == 2
    for report in reports:
        text, html = text_of(report), html_of(report)
        assert "You have left the game, so you send no more orders" in flat(text)
        assert "You have left the game, so you send no more orders" in flat(html)
        assert "PLAYER bob" not in text and "PLAYER bob" not in html  # no ready order
        assert "due" not in str(report["Subject"]) and "deadline" not in text.lower()
        assert not [name for name in attachment_names(report) if name.endswith(".ics")]
    # alice, still playing, is asked for turn 3 as ever
    alice = game.outbox(kind="report", to="alice@example.org")[-1]
    assert "TURN 3" in text_of(alice) and "due" in str(alice["Subject"])


def test_the_gm_report_says_a_dropped_player_is_listed_after_those_still_playing(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "advanced")
    game.order("bob", "MOVE", now="2027-01-02T00:00:00Z")
    game.gm("resolve", "--force", now="2027-01-08T00:05:00Z")
    before = text_of(game.outbox(kind="gm-report")[-1])
    assert "furthest on first.)" in flat(before) and "left the game" not in before
    game.gm("player", "drop", "bob", now="2027-01-09T00:00:00Z")
    game.gm("resolve", "--force", now="2027-01-15T00:05:00Z")
    report = game.outbox(kind="gm-report")[-1]
    text = flat(text_of(report))
    assert "the rest are listed furthest on first, then those who resigned or left the game." in text
    assert "then those who resigned or left the game" in flat(html_of(report))
    standings = text[text.index("STANDINGS AFTER"):]
    assert standings.index("- Bob:") > max(standings.index("- Alice:"), standings.index("- Carol:"))
