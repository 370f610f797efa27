"""The "done when", for the rulesets whose orders are hardest to write: a new GM runs
an `advanced` and an `unleashed` campaign from cron through a pause, a replacement and a
reply to a refusal, and each player writes every order from the text part of the last
mail gm sent them, nothing else (the readers of tests/test_advanced_mail_alone.py and
tests/test_unleashed_mail_alone.py, which parse only what the mail shows).

Nothing but `gm turn` runs on a schedule (GM_NOW moving as cron would run it); the GM
types `gm pause`, `gm player replace` and `gm resume` between runs; players read what
arrives in mail/outbox and drop their letters in mail/inbox. Every command exits 0."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_advanced_mail_alone import choose
from test_season_from_cron import Players
from test_unleashed_mail_alone import ready_order

from gm.cli import cli

ROOT = Path(__file__).resolve().parent.parent
STRONG = 2**128
FIRST = datetime(2027, 1, 1, 6, tzinfo=UTC)  # Friday; the first deadline is Sunday 18:00


class Season:
    """A campaign folder run by cron, and its players, who read only their mail's text."""

    def __init__(self, folder: Path, monkeypatch, ruleset: str, players: dict[str, str]):
        self.folder, self.monkeypatch, self.ruleset = folder, monkeypatch, ruleset
        self.runner = CliRunner()
        self.players = Players(self)
        self.players.passwords = dict(players)

    def __call__(self, *args: str, at: datetime) -> str:
        self.monkeypatch.setenv("GM_NOW", at.isoformat())
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    def cron(self, at: datetime) -> list[str]:
        return self(*["turn"], at=at).splitlines()

    def text(self, address: str) -> str:
        """The text part of the last welcome, report or reminder this player got."""
        mails = [m for m in self.players.received(address)
                 if re.search(r"Welcome|report|Reminder|results", str(m["Subject"]), re.IGNORECASE)]
        return mails[-1].get_body(("plain",)).get_content().replace("\r\n", "\n")

    def order_from_mail(self, player: str, turn: int) -> str:
        """What the player writes, from the text of their last mail alone."""
        text = self.text(f"{player}@example.org")
        if self.ruleset == "advanced":
            return choose(text, "snake" if turn % 2 else "ladder")
        lines = [line for line in ready_order(text) if not line.startswith(("PLAYER", "PASSWORD", "GAME"))]
        assert lines, f"{player}'s mail offers no order to send"
        return "\n".join(lines)

    def write_all(self, players, turn: int, at: datetime) -> None:
        for player in players:
            self.players.write(player, self.order_from_mail(player, turn), at=at.isoformat())

    def state(self) -> dict:
        import json

        return json.loads(self("state", "--json", at=FIRST))

    def outcomes(self) -> list[str]:
        db = sqlite3.connect(self.folder / "gm.sqlite")
        return [row[0] for row in db.execute("select outcome from messages order by id")]


def advanced(tmp_path: Path, monkeypatch) -> Season:
    folder = tmp_path / "adv"
    folder.mkdir()
    players = {p: f"pw-{p}" for p in ("ann", "ben", "cat", "dan")}
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "adv", "title": "Advanced from cron", "ruleset": "advanced", "seed": STRONG + 5,
        "first_deadline": "2027-01-03T18:00:00Z", "turn_days": 7,
        "boards": {"A": str(ROOT / "boards" / "advanced.yaml")},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw,
                     **({"team": "red"} if p in ("ben", "cat") else {})} for p, pw in players.items()],
        "mail": {"from": "GM <gm@example.org>"},
    }))
    return Season(folder, monkeypatch, "advanced", players)


def unleashed(tmp_path: Path, monkeypatch) -> Season:
    folder = tmp_path / "unl"
    folder.mkdir()
    players = {p: f"pw-{p}" for p in ("ann", "ben", "cat")}
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "unl", "title": "Unleashed from cron", "ruleset": "unleashed", "seed": STRONG + 11,
        "first_deadline": "2027-01-03T18:00:00Z", "turn_days": 7,
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in players.items()],
        "options": {"seating": "listed"},
        "mail": {"from": "GM <gm@example.org>"},
    }))
    return Season(folder, monkeypatch, "unleashed", players)


@pytest.mark.parametrize("make", [advanced, unleashed], ids=["advanced", "unleashed"])
def test_24_a_season_from_cron_with_every_order_written_from_the_last_mails_text(tmp_path, monkeypatch, make):
    season = make(tmp_path, monkeypatch)
    players = season.players
    season("start", at=FIRST)
    season.cron(FIRST)  # the welcomes go out
    everyone = list(players.passwords)

    # turn 1: ann's first letter misspells its command and is refused; she hits Reply on the
    # refusal with the order her welcome offers, and that reply is applied
    players.write("ann", "MOVVE" if season.ruleset == "advanced" else "PLAU NONE", at="2027-01-02T09:00:00+00:00")
    season.cron(datetime(2027, 1, 2, 10, tzinfo=UTC))
    refusal = players.last("ann@example.org", "not accepted")
    assert "did you mean" in refusal.get_body(("plain",)).get_content()
    players.write("ann", season.order_from_mail("ann", 1), at="2027-01-02T11:00:00+00:00", reply_to=refusal)
    season.write_all(everyone[1:], 1, datetime(2027, 1, 2, 11, tzinfo=UTC))
    season.cron(datetime(2027, 1, 2, 22, tzinfo=UTC))
    assert season.outcomes() == ["refused"] + ["applied"] * len(everyone)
    assert players.last("ann@example.org", "accepted")["In-Reply-To"] == "<season-2@example.org>"
    season.cron(datetime(2027, 1, 3, 19, tzinfo=UTC))  # past the deadline: turn 1 resolves
    assert season.state()["turn"] == 2

    # turn 2: the GM pauses; the orders everyone writes from their report are answered with
    # a refusal saying so, and cron still reads, answers, sends and exits 0
    season("pause", at=datetime(2027, 1, 4, 9, tzinfo=UTC))
    season.write_all(everyone, 2, datetime(2027, 1, 4, 10, tzinfo=UTC))
    lines = season.cron(datetime(2027, 1, 4, 22, tzinfo=UTC))
    assert any("paused" in line for line in lines)
    for player in everyone:
        assert players.last(f"{player}@example.org", "is paused")
        assert players.last(f"{player}@example.org", "not accepted: the game is paused")
    assert "paused" in " ".join(season.cron(datetime(2027, 1, 11, 22, tzinfo=UTC)))  # past the deadline
    assert season.state()["turn"] == 2

    # ben leaves; erin takes his seat and writes her own order from her welcome alone
    season("player", "replace", "ben", "erin", "--name", "Erin", "--email", "erin@example.org",
           at=datetime(2027, 1, 12, 9, tzinfo=UTC))
    season.cron(datetime(2027, 1, 12, 22, tzinfo=UTC))
    welcome = season.text("erin@example.org")
    players.passwords["erin"] = re.search(r"password: (\S+)", welcome).group(1)
    season("resume", "2027-01-17 18:00", at=datetime(2027, 1, 13, 9, tzinfo=UTC))
    season.cron(datetime(2027, 1, 13, 22, tzinfo=UTC))
    # ann hits Reply on the paused refusal with the order her report offers: applied
    paused = players.last("ann@example.org", "not accepted: the game is paused")
    players.write("ann", season.order_from_mail("ann", 2), at="2027-01-14T09:00:00+00:00", reply_to=paused)
    season.write_all(["erin", *everyone[2:]], 2, datetime(2027, 1, 14, 9, tzinfo=UTC))
    season.cron(datetime(2027, 1, 14, 22, tzinfo=UTC))
    assert season.outcomes()[-len(everyone):] == ["applied"] * len(everyone)
    season.cron(datetime(2027, 1, 17, 19, tzinfo=UTC))
    state = season.state()
    assert state["turn"] == 3 and state["players"]["erin"]["held_by"] == ["ben"]

    # two more weeks, every order from the last report's text
    after = datetime(2027, 1, 17, 19, tzinfo=UTC)
    for week in range(2):
        season.write_all(["ann", "erin", *everyone[2:]], 3 + week, after + timedelta(days=1))
        after += timedelta(days=7)
        season.cron(after)
    assert season.state()["turn"] == 5
    # refused: ann's misspelling and the orders sent while paused; every other letter applied
    assert season.outcomes().count("refused") == 1 + len(everyone)
    assert set(season.outcomes()) == {"refused", "applied"}
