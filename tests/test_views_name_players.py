"""A player's own mail (the welcome, a reminder) names the other players by name, as the
reports do (docs/rules/advanced.md, What players see), never by their bare ids."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from maildirkit import FIRST_DEADLINE, MaildirGame

BOARDS = Path(__file__).resolve().parent.parent / "boards"
PLAYERS = {"ann": "pw-ann", "bob": "pw-bob", "cat": "pw-cat"}


def _reminder_to_ann(tmp_path: Path, ruleset: str, board: str) -> str:
    """Ann's reminder two days before the first deadline."""
    game = MaildirGame.create(tmp_path / ruleset, ruleset=ruleset, seed=2**130 + 7,
                              board=(BOARDS / board).read_text(), players=PLAYERS)
    game.gm("start", now="2027-01-01T00:00:00Z")
    before = (FIRST_DEADLINE - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    game.gm("remind", now=before)
    game.gm("send", now=before)
    [reminder] = [t for m, t in zip(game.outbox(), game.texts(), strict=True)
                  if "Reminder" in m["Subject"] and m["To"].startswith("ann@")]
    return reminder


def test_an_advanced_reminder_lists_the_pieces_by_name(tmp_path):
    text = _reminder_to_ann(tmp_path, "advanced", "advanced.yaml")
    assert "A Ann, B Bob, C Cat" in text
    assert "A ann" not in text

