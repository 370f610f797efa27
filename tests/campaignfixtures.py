"""Fixtures shared by the campaign tests (registered in conftest.py): a started
three-player, two-board campaign driven through the CLI with a set clock, and a cheap
scrypt cost so tests that start many players stay fast."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli

BOARD_A = {"name": "Little Ladder", "squares": 12, "ladders": [[2, 9]], "snakes": [[11, 4]]}
BOARD_B = {"name": "Plain Eight", "squares": 8}
PLAYERS = {"ann": "ann-pass-1", "ben": "ben-pass-2", "cat": "cat-pass-3"}


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch):
    """The hash format and checks are unchanged; only the cost is lower."""
    import gm.campaign.passwords

    monkeypatch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**10)


@pytest.fixture
def campaign(tmp_path, monkeypatch):
    folder = tmp_path / "trio"
    folder.mkdir()
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(BOARD_A))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(BOARD_B))
    config = {
        "id": "trio",
        "seed": 7,
        "first_deadline": "2027-01-03T18:00:00Z",
        "turn_days": 7,
        "boards": {"A": "../a.yaml", "B": "../b.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in PLAYERS.items()],
        "options": {"close_after": 2, "nmr": "lowest", "trapdoor_threshold": 2},
        "mail": {"from": "GM <gm@example.org>"},
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    runner = CliRunner()

    class Run:
        mails = tmp_path / "mails"
        count = 0

        def __call__(self, *args: str, now: str, code: int = 0) -> str:
            monkeypatch.setenv("GM_NOW", now)
            result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
            assert result.exit_code == code, result.output
            return result.output

        def order(self, player: str, lines: str, *, date: str, html: bool = False) -> Path:
            self.count += 1
            message = EmailMessage()
            message["From"] = f"{player.title()} <{player}@example.org>"
            message["To"] = "gm@example.org"
            message["Subject"] = "orders"
            message["Date"] = date
            message["Message-ID"] = f"<{self.count}.{player}@example.org>"
            body = f"PLAYER {player}\nPASSWORD {PLAYERS[player]}\n{lines}"
            if html:
                message.set_content("<div>" + "</div><div>".join(body.splitlines()) + "</div>", subtype="html")
            else:
                message.set_content(body)
            self.mails.mkdir(exist_ok=True)
            path = self.mails / f"{self.count}.eml"
            path.write_bytes(bytes(message))
            return path

        def state(self) -> dict:
            return json.loads(self("state", "--json", now="2027-01-01T00:00:00Z"))

    run = Run()
    run.folder = folder
    run("start", now="2027-01-01T00:00:00Z")
    return run
