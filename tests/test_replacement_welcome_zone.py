"""A seat's new holder is welcomed with the deadline in their own time zone, as gm start's
welcome and every later report give it: someone of the sign-up pool who joined with
`TIMEZONE America/New_York` reads New York time, never the GM's zone."""

from __future__ import annotations

from signupkit import SignupGame

ANN, BOB, CAT, HAL = "ann@example.org", "bob@example.org", "cat@example.org", "hal@example.org"


def test_a_replacement_from_the_pool_is_welcomed_with_the_deadline_in_their_own_zone(tmp_path, monkeypatch):
    game = SignupGame.create(tmp_path / "spring", monkeypatch, signup={"max_players": 2},
                             extra={"timezone": "Europe/London"})
    game.signed_up((ANN, "Ann"), (BOB, "Bob"))
    game.gm("start")
    game.join(HAL, "Hal", "TIMEZONE America/New_York")
    game.gm("ingest")
    game.confirm(HAL)
    game.gm("ingest")
    assert game.standing()["hal"] == "pool"
    game.gm("player", "replace", "bob", "hal")
    welcome = game.outbox(to=HAL)[-1]
    assert "Welcome" in welcome.subject
    # the first deadline is 2027-04-01 18:00 UTC: 14:00 in New York, 19:00 in London
    assert "Thursday 01 April 2027, 14:00 America/New_York (EDT)" in welcome.text
    assert "Europe/London" not in welcome.text and "Europe/London" not in welcome.html
