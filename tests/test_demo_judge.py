"""`gm demo DIR --judge`: three games of different rulesets behind one address, played by
their robots through `gm judge DIR turn` alone (docs/commands.md, gm demo)."""

from __future__ import annotations

import mailbox

from click.testing import CliRunner

from gm.cli import cli


def test_three_games_behind_one_address_are_played_to_their_end_by_the_judges_turn_alone(tmp_path):
    folder = tmp_path / "judge"
    result = CliRunner().invoke(cli, ["demo", str(folder), "--judge"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "1 answered list, 1 answered record" in result.output
    assert "routed" in result.output and "failed" not in result.output
    games = sorted(p.name for p in (folder / "campaigns").iterdir())
    assert len(games) == 3
    status = CliRunner().invoke(cli, ["judge", str(folder), "status"]).output
    assert all(f"{game}: finished" in status for game in games), status
    index = (folder / "site" / "index.html").read_text()
    assert all(f"campaigns/{game}/archive/index.html" in index for game in games)
    senders = {m["From"] for m in mailbox.Maildir(str(folder / "mail" / "outbox"), create=False)}
    assert len(senders) == 1  # one address for every game
    again = CliRunner().invoke(cli, ["demo", str(folder), "--judge"])
    assert again.exit_code == 1 and "--force" in again.output
