"""A whole campaign by mail on the Maildir transport with every piece of administration a
real one meets: an observer, a seat handed to a newcomer, a player who drops out, and a
pause in the middle (the "done when"). Players read their passwords from the mail
gm delivered to mail/outbox and write their orders into mail/inbox; the GM runs `gm turn`
and the administration commands only."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import re
from email.message import EmailMessage
from email.utils import format_datetime

import pytest
import yaml
from click.testing import CliRunner

from gm import clock
from gm.cli import cli

BOARDS = {
    "A": {"name": "Short", "squares": 20, "ladders": [[3, 11]], "snakes": [[17, 6]]},
    "B": {"name": "Shorter", "squares": 14},
}
PLAYERS = [("ann", "Ann"), ("ben", "Ben"), ("cat", "Cat"), ("dan", "Dan")]


class Game:
    def __init__(self, folder, monkeypatch):
        self.folder, self.monkeypatch, self.runner, self.count = folder, monkeypatch, CliRunner(), 0
        self.passwords = {p: f"{p}-secret-7" for p, _ in PLAYERS}
        self.addresses = {p: f"{p}@example.org" for p, _ in PLAYERS}
        self.now = "2027-01-01T00:00:00Z"

    def gm(self, *args: str, code: int = 0) -> str:
        self.monkeypatch.setenv("GM_NOW", self.now)
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    def state(self) -> dict:
        return json.loads(self.gm("state", "--json"))

    def delivered(self, to: str | None = None) -> list[EmailMessage]:
        box = mailbox.Maildir(self.folder / "mail" / "outbox", create=False)
        mails = [email.message_from_bytes(box.get_bytes(key), policy=email.policy.default) for key in sorted(box.keys())]
        mails.sort(key=lambda m: email.utils.parsedate_to_datetime(m["Date"]))
        return [m for m in mails if to is None or m["To"] == to]

    def write(self, player: str, lines: str) -> None:
        """An order mail dropped into the campaign's inbox, as a mail server would."""
        self.count += 1
        message = EmailMessage()
        message["From"] = self.addresses[player]
        message["To"] = "gm@example.org"
        message["Subject"] = "my orders"
        message["Date"] = format_datetime(clock.parse_time(self.now))
        message["Message-ID"] = f"<order-{self.count}@example.org>"
        message.set_content(f"PLAYER {player}\nPASSWORD {self.passwords[player]}\n{lines}\n")
        mailbox.Maildir(self.folder / "mail" / "inbox", create=False).add(bytes(message))

    def orders(self, players) -> None:
        state = self.state()
        for player in players:
            held = state["players"][player]["numbers_left"]
            moving = any(not b["closed"] and not b["players"][player]["finished"] for b in state["boards"].values())
            if moving and len(held) > 1:
                self.write(player, f"NUMBER {held[-1]}")


@pytest.fixture
def game(tmp_path, monkeypatch):
    folder = tmp_path / "club"
    folder.mkdir()
    for board, data in BOARDS.items():
        (tmp_path / f"{board}.yaml").write_text(yaml.safe_dump(data))
    g = Game(folder, monkeypatch)
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "club", "title": "The Club Cup", "seed": 2**70 + 11, "turn_days": 7,
        "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {b: f"../{b}.yaml" for b in BOARDS},
        "players": [{"id": p, "name": n, "email": g.addresses[p], "password": g.passwords[p]} for p, n in PLAYERS],
        "options": {"close_after": 2, "max_turns": 40},
        "observers": [{"name": "Lewis", "email": "lewis@example.org"}],
        "archive_url": "https://example.org/club/",
        "mail": {"from": "Club GM <gm@example.org>"},
    }))
    g.gm("start")
    g.gm("send")
    return g


def test_a_campaign_with_a_replacement_a_drop_a_pause_and_an_observer_runs_by_mail(game):
    turns_played = 0
    active = ["ann", "ben", "cat", "dan"]
    while not game.state()["over"]:
        turn = game.state()["turn"]
        deadline = clock.parse_time(game.state()["deadline"])
        game.now = clock.iso(deadline.replace(hour=9))  # the morning of the deadline day
        if turn == 2:
            out = game.gm("player", "replace", "ben", "dora", "--name", "Dora Maar", "--email", "dora@example.org")
            assert "dora holds ben's seat" in out
            game.gm("send")
            seat = game.delivered(to="dora@example.org")[-1]
            game.passwords["dora"] = re.search(r"Your password: (\S+)", seat.get_body(("plain",)).get_content()).group(1)
            game.addresses["dora"] = "dora@example.org"
            active = ["ann", "dora", "cat", "dan"]
        if turn == 3:
            game.gm("player", "drop", "cat")
            active.remove("cat")
        if turn == 4:
            game.gm("pause")
            game.orders(["ann"])
            # gm turn runs from cron: paused, it still answers the mail and sends it, exit 0
            assert "resolve: the campaign is paused" in game.gm("turn")
            refusal = game.delivered(to="ann@example.org")[-1]
            assert "paused" in refusal.get_body(("plain",)).get_content()
            game.gm("resume", "+2d")
            deadline = clock.parse_time(game.state()["deadline"])
            game.now = clock.iso(deadline.replace(hour=9))
        game.orders(active)
        game.write("cat", "NUMBER 1") if turn >= 3 else None  # cat has left: refused
        game.now = clock.iso(deadline.replace(hour=19))
        out = game.gm("turn")
        assert "resolved" in out, out
        turns_played += 1
        assert turns_played < 40

    state = game.state()
    assert state["players"]["dora"]["held_by"] == ["ben"]
    assert state["players"]["cat"]["dropped"] is True
    assert "ben" not in state["players"]
    # the observer got every turn's public report, and the final results
    reports = [m for m in game.delivered(to="lewis@example.org") if "report" in str(m["Subject"]).lower()]
    assert len(reports) == turns_played
    assert "final results" in str(reports[-1]["Subject"])
    assert all("PASSWORD" not in m.get_body(("plain",)).get_content() for m in reports)
    # every report after the change says who held the seat, and links the turn's page
    later = reports[-1].get_body(("plain",)).get_content()
    assert "Dora Maar holds the seat Ben held until turn 1" in " ".join(later.split())
    assert "https://example.org/club/turn-" in later
    # cat's orders after leaving were refused, each with one reply; nothing unanswered
    refused = [m for m in game.delivered(to="cat@example.org") if "refused" in str(m["Subject"]).lower()
               or "not accepted" in str(m["Subject"]).lower()]
    assert len(refused) >= 1
    status = game.gm("status")
    assert "UNANSWERED" not in status
    # the archive says who held the seat when
    game.gm("publish")
    index = (game.folder / "archive" / "index.html").read_text()
    assert "Dora Maar" in index and "Ben" in index
    # turn 1 is told under Ben's name, and his line leads to the seat's page, now Dora's
    first = (game.folder / "archive" / "turn-001.html").read_text()
    assert "Ben" in first and "Dora Maar" not in first and "player-dora.html" in first
    assert not (game.folder / "archive" / "player-ben.html").exists()
    assert "Ben" in (game.folder / "archive" / "player-dora.html").read_text()
