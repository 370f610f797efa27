"""`gm demo DIR --signup`: the robots join by mail before the start, beside a
forged JOIN, a replayed CONFIRM and an auto-reply that change nothing; the campaign then
starts with them and plays the same game as the demo whose campaign.yaml lists them, and
the archive it leaves passes `gm audit` with the joined players as its seats."""

from __future__ import annotations

import sqlite3
from collections import Counter

import pytest
from click.testing import CliRunner
from test_demo import run_demo

from gm.cli import cli
from gm.rules.postal.robot import CAST


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = tmp_path_factory.mktemp("signup-demo") / "joined"
    result = run_demo(str(folder), "--signup")
    assert result.exit_code == 0, result.output
    return folder, result.output


def test_3_1_demo_signup_robots_join_by_mail_and_the_strangers_mail_changes_nothing(played):
    folder, output = played
    assert "6 robots join it by mail" in output
    assert "in: 6; unconfirmed: 1 (the forged JOIN's)" in output
    db = sqlite3.connect(folder / "gm.sqlite")
    outcomes = Counter(o for (o,) in db.execute("select outcome from messages where turn is null"))
    assert outcomes == {"join": 7, "confirmed": 6, "duplicate": 1, "loop": 1}
    seats = [p for (p,) in db.execute("select player from signups where status = 'playing' order by id")]
    assert seats == [spec["id"] for spec in CAST]
    assert "players: []" in (folder / "campaign.yaml").read_text()
    listing = CliRunner().invoke(cli, ["-C", str(folder), "signup"]).output
    assert "playing (joined by mail): 6" in listing and "someone-else@elsewhere.example" in listing


def test_3_1_demo_signup_plays_the_same_game_as_the_listed_demo(played, tmp_path):
    _, output = played
    listed = run_demo(str(tmp_path / "listed"), "--quiet")
    assert listed.exit_code == 0, listed.output
    standings = listed.output.split("Final standings")[1].split("archive:")[0]
    assert "aggregate" in standings and standings in output


def test_3_1_demo_signup_archive_passes_the_audit_with_the_joined_seats(played):
    folder, _ = played
    result = CliRunner().invoke(cli, ["audit", str(folder / "archive")])
    assert result.exit_code == 0, result.output
