"""Counts in the GM's output agree in number: "1 player", "a reminder queued for 1 player",
"1 player has written", never "1 players" (gm.counts, the one place they are made)."""

from __future__ import annotations

import email
import email.policy
import re
import sqlite3
from pathlib import Path

import yaml
from click.testing import CliRunner

from gm.cli import cli
from gm.counts import count, one_or_many

GM = Path(__file__).resolve().parent.parent / "gm"


def test_count_agrees_in_number():
    assert count(1, "player") == "1 player"
    assert count(0, "player") == "0 players"
    assert count(2, "new message") == "2 new messages"
    assert count(3, "reply", "replies") == "3 replies"
    assert one_or_many(1, "has", "have") == "has" and one_or_many(2, "has", "have") == "have"


def test_counts_of_one_in_start_status_remind_and_ingest(tmp_path, monkeypatch):
    """A one-player campaign: every count in what the GM reads is 1 or 0."""
    folder = tmp_path / "solo"
    folder.mkdir()
    (folder / "board.yaml").write_text("name: Tiny\nsquares: 12\nsnakes: [[11, 4]]\nladders: [[2, 9]]\n")
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "solo", "seed": 2**70, "first_deadline": "2027-01-08T18:00:00Z", "boards": {"A": "board.yaml"},
        "players": [{"id": "ann", "name": "Ann", "email": "ann@example.org"}],
        "observers": [{"name": "Lewis", "email": "lewis@example.org"}],
    }))
    runner = CliRunner()

    def gm(*args: str) -> str:
        monkeypatch.setenv("GM_NOW", "2027-01-01T00:00:00Z")
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    assert "started solo: 1 player, 1 board, a password issued to 1 player" in gm("start")
    (raw,) = sqlite3.connect(folder / "gm.sqlite").execute("select raw from outbox where kind = 'gm-start'").fetchone()
    start_mail = email.message_from_bytes(raw, policy=email.policy.default)
    for kind in ("plain", "html"):
        assert "has started with 1 player and 1 board." in start_mail.get_body((kind,)).get_content()
    status = gm("status")
    assert "1 player, 1 observer" in status
    assert "orders: 0 of 1 order in; 0 players have written" in status
    assert "a reminder queued for 1 player: ann" in gm("remind")
    assert "turn 1: 0 of 1 order in" in gm("orders")
    (folder / "mail" / "inbox" / "new" / "x.eml").write_bytes(
        b"From: stranger@elsewhere.example\r\nTo: gm@example.org\r\nSubject: hi\r\nMessage-ID: <x@e>\r\n\r\nhello\r\n")
    assert gm("ingest").startswith("ingest: 1 new message (1 refused)")
    assert "1 snake, 1 ladder" in gm("board", "check", str(folder / "board.yaml"))
    assert "no password issued" not in status


# f-strings that put a count before a plural noun by hand: each goes through gm.counts
_BY_HAND = re.compile(r"\{(?:len|sum)\([^{}]*\)\} [a-z]+s\b|\{[a-z_.]+\} (?:players|messages|orders|reports|turns"
                      r"|pages|boards|passwords|reminders|refusals|robots|observers|replies|snakes|ladders|draws)\b")


def test_gm_output_makes_no_count_by_hand():
    found = [f"{path.relative_to(GM)}:{n}: {line.strip()}"
             for folder in ("cli", "campaign", "demo") for path in sorted((GM / folder).glob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if _BY_HAND.search(line)]
    assert found == []
