"""`gm player replace` and `gm player drop` in every ruleset: the seat, with everything it
holds, passes to the new holder in the ruleset's own state (Ruleset.rename_player), and
the game goes on with it. Campaigns from `gm campaign new --ruleset` (alice, bob, carol)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gm.cli import cli
from gm.rules.registry import BUILT_IN


@pytest.mark.parametrize("ruleset", sorted(BUILT_IN))
def test_a_seat_changes_hands_and_the_next_turn_is_played_by_its_new_holder(tmp_path, monkeypatch, ruleset):
    folder = tmp_path / ruleset
    runner = CliRunner()

    def gm(*args, now, code=0):
        monkeypatch.setenv("GM_NOW", now)
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    runner.invoke(cli, ["campaign", "new", str(folder), "--ruleset", ruleset], catch_exceptions=False)
    gm("start", now="2027-01-01T00:00:00Z")
    gm("resolve", "--force", now="2027-01-09T00:00:00Z")
    before = json.loads(gm("state", "--json", now="2027-01-09T00:00:00Z"))
    gm("player", "replace", "bob", "dora", "--name", "Dora", "--email", "dora@example.org", now="2027-01-09T01:00:00Z")
    gm("player", "drop", "carol", now="2027-01-09T01:00:00Z")
    moved = json.loads(gm("state", "--json", now="2027-01-09T02:00:00Z"))
    board = next(iter(moved["boards"]))
    assert moved["boards"][board]["players"]["dora"] == before["boards"][board]["players"]["bob"]
    assert "bob" not in moved["boards"][board]["players"]
    assert moved["players"]["dora"]["held_by"] == ["bob"] and moved["players"]["carol"]["dropped"]
    if "order" in moved:  # the order of play keeps the seat's place
        assert moved["order"] == [p if p != "bob" else "dora" for p in before["order"]]
    if not moved["over"]:
        gm("resolve", "--force", now="2027-01-17T00:00:00Z")
        after = json.loads(gm("state", "--json", now="2027-01-17T00:00:00Z"))
        assert after["turn"] == moved["turn"] + 1 and "dora" in after["players"]
    gm("publish", now="2027-01-17T00:00:00Z")
    assert "Dora" in (folder / "archive" / "index.html").read_text()
