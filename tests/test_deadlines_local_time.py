"""A weekly deadline keeps its local time when the clocks change (docs/campaign.md
`turn_days`): whole days are counted in the campaign's `timezone`, whoever sets the next
deadline (a resolved turn, `gm resume`, `gm deadline +3d`); a fraction of a day is counted
in hours.

The campaign: `classic` (nobody has to write, so cron resolves every week at its deadline),
timezone Europe/London, turn 1 due Monday 22 March 2027 09:00 GMT; British summer time
starts on Sunday 28 March 2027, so 09:00 London is 08:00 UTC from then on."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
import yaml
from handoverkit import PASSWORDS, PLAIN, Game

from gm import clock


def london(tmp_path, monkeypatch, **extra) -> Game:
    folder = tmp_path / "spring"
    folder.mkdir()
    (tmp_path / "board.yaml").write_text(yaml.safe_dump(PLAIN))
    config = {
        "id": "spring", "ruleset": "classic", "seed": 2**130 + 11, "boards": {"A": "../board.yaml"},
        "timezone": "Europe/London", "turn_days": 7, "first_deadline": "2027-03-22 09:00",
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in PASSWORDS.items()],
        "mail": {"from": "GM <gm@example.org>"},
    } | extra
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    game = Game(folder, monkeypatch)
    game.gm("start", now="2027-03-15T12:00:00Z")
    return game


def deadline_of(game: Game, now: str) -> str:
    return json.loads(game.gm("state", "--json", now=now))["deadline"]


def test_a_weekly_deadline_stays_at_its_local_hour_after_the_clocks_go_forward(tmp_path, monkeypatch):
    game = london(tmp_path, monkeypatch)
    assert deadline_of(game, "2027-03-15T12:00:00Z") == "2027-03-22T09:00:00Z"  # 09:00 GMT
    # the GM's cron runs at 09:05 London time every Monday
    assert "turn 1 resolved" in game.gm("turn", now="2027-03-22T09:05:00Z")
    # a week later is 09:00 British summer time, 08:00 UTC (not 10:00 London)
    assert deadline_of(game, "2027-03-22T09:06:00Z") == "2027-03-29T08:00:00Z"
    status = game.gm("status", now="2027-03-22T09:06:00Z")
    assert "deadline Monday 29 March 2027, 09:00 Europe/London (BST)" in status
    # so 09:05 London on the 29th (08:05 UTC) is after it, and the run resolves turn 2
    assert "turn 2 resolved" in game.gm("turn", now="2027-03-29T08:05:00Z")
    assert deadline_of(game, "2027-03-29T08:06:00Z") == "2027-04-05T08:00:00Z"
    # the report tells the players the hour they know
    report = [m for m in game.outbox(kind="report", to="alice@example.org") if "Turn 2 report" in m["Subject"]][-1]
    assert "Mon 05 Apr 08:00 UTC" in report["Subject"]


def test_gm_resume_and_deadline_plus_days_keep_the_local_hour_across_the_change(tmp_path, monkeypatch):
    game = london(tmp_path, monkeypatch)
    # `+3d` from Friday 26 March 09:00 GMT is Monday 29 March 09:00 BST
    game.gm("deadline", "2027-03-26 09:00", "--earlier", now="2027-03-16T12:00:00Z")
    game.gm("deadline", "+3d", now="2027-03-16T12:00:00Z")
    assert deadline_of(game, "2027-03-16T12:00:00Z") == "2027-03-29T08:00:00Z"
    # `+12h` stays hours: 12 hours after 08:00 UTC
    game.gm("deadline", "+12h", now="2027-03-16T12:00:00Z")
    assert deadline_of(game, "2027-03-16T12:00:00Z") == "2027-03-29T20:00:00Z"
    # resumed at 10:00 GMT on Saturday 27 March: turn_days later is 10:00 BST on 3 April
    game.gm("pause", now="2027-03-20T12:00:00Z")
    game.gm("resume", now="2027-03-27T10:00:00Z")
    assert deadline_of(game, "2027-03-27T10:00:00Z") == "2027-04-03T09:00:00Z"


def test_a_deadline_keeps_its_local_hour_when_the_clocks_go_back_too(tmp_path, monkeypatch):
    game = london(tmp_path, monkeypatch, first_deadline="2027-10-25 09:00")  # BST: 08:00 UTC
    assert deadline_of(game, "2027-03-15T12:00:00Z") == "2027-10-25T08:00:00Z"
    assert "turn 1 resolved" in game.gm("turn", now="2027-10-25T08:05:00Z")
    # the clocks go back on 31 October: 09:00 GMT is 09:00 UTC
    assert deadline_of(game, "2027-10-25T08:06:00Z") == "2027-11-01T09:00:00Z"


@pytest.mark.parametrize(("days", "zone", "after"), [
    (7, "Europe/London", datetime(2027, 3, 29, 8, 0, tzinfo=UTC)),  # whole days: the local hour
    (7.0, "Europe/London", datetime(2027, 3, 29, 8, 0, tzinfo=UTC)),
    (7, "UTC", datetime(2027, 3, 29, 9, 0, tzinfo=UTC)),
    (3.5, "Europe/London", datetime(2027, 3, 25, 21, 0, tzinfo=UTC)),  # a fraction: hours (84)
    (10.5, "Europe/London", datetime(2027, 4, 1, 21, 0, tzinfo=UTC)),  # 252 hours, across the change
])
def test_whole_turn_days_count_local_days_and_a_fraction_counts_hours(days, zone, after):
    assert clock.days_later(datetime(2027, 3, 22, 9, 0, tzinfo=UTC), days, zone) == after


def test_a_local_time_the_clocks_skip_is_taken_an_hour_later():
    # 01:30 on 28 March 2027 does not exist in London: the moment is 02:30 BST, 01:30 UTC
    assert clock.days_later(datetime(2027, 3, 27, 1, 30, tzinfo=UTC), 1, "Europe/London") == \
        datetime(2027, 3, 28, 1, 30, tzinfo=UTC)
