"""A whole classic and a whole doubles campaign by mail (docs/rules/classic.md, Order mail, 4.6): gm start, order
mail dropped in the campaign's Maildir inbox (a RESIGN, a RESIGN refused once out of play,
a HELP), gm turn each week to the end, gm status, gm publish. The reports and the archive
say every throw."""

from __future__ import annotations

import email
import email.policy
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli

PASSWORDS = {"ann": "pw-ann-1", "bob": "pw-bob-2", "cat": "pw-cat-3"}
FIRST_DEADLINE = datetime(2027, 1, 8, 18, tzinfo=UTC)


class Campaign:
    def __init__(self, folder: Path):
        self.folder = folder
        self.runner = CliRunner()
        self.sent = 0

    def gm(self, *args: str, now: datetime | str, ok: bool = True) -> str:
        when = now if isinstance(now, str) else now.strftime("%Y-%m-%dT%H:%M:%SZ")
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], env={"GM_NOW": when})
        if ok:
            assert result.exit_code == 0, result.output
        return result.output

    def mail(self, player: str, *lines: str) -> None:
        self.sent += 1
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
        message["Message-ID"] = f"<{self.sent}@example.org>"
        message.set_content("\n".join([f"PLAYER {player}", f"PASSWORD {PASSWORDS[player]}", *lines]) + "\n")
        (self.folder / "mail" / "inbox" / "new" / f"{self.sent}.eml").write_bytes(bytes(message))

    def state(self) -> dict:
        return json.loads(self.gm("state", "--json", now="2027-01-01T00:00:00Z"))

    def outbox(self) -> list[tuple[str, str | None, str, str, str]]:
        """(kind, player, subject, text, html) of every queued mail, in order."""
        db = sqlite3.connect(self.folder / "gm.sqlite")
        rows = db.execute("select kind, player, raw from outbox order by id").fetchall()
        result = []
        for kind, player, raw in rows:
            message = email.message_from_bytes(raw or b"", policy=email.policy.default)
            plain, html = message.get_body(("plain",)), message.get_body(("html",))
            # a welcome's body (it holds a password) is dropped once sent
            result.append((kind, player, str(message["Subject"]), plain.get_content() if plain else "",
                           html.get_content() if html else ""))
        return result


def new_campaign(tmp_path: Path, ruleset: str, options: dict) -> Campaign:
    folder = tmp_path / ruleset
    folder.mkdir()
    (folder / "board.yaml").write_text("name: Short Lane\nsquares: 20\nsnakes: [[17, 4]]\nladders: [[3, 11]]\n")
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": f"{ruleset}-mail", "title": f"The {ruleset} test", "ruleset": ruleset, "seed": 2**70 + 4,
        "first_deadline": "2027-01-08T18:00:00Z", "boards": {"A": "board.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in PASSWORDS.items()],
        "options": options,
    }))
    return Campaign(folder)


@pytest.mark.parametrize(("ruleset", "options"), [
    ("classic", {"close_after": 2, "max_turns": 30}),
    ("doubles", {"close_after": "all", "max_turns": 30}),
])
def test_a_whole_dice_campaign_by_mail(tmp_path, ruleset, options):
    game = new_campaign(tmp_path, ruleset, options)
    game.gm("start", now="2027-01-01T00:00:00Z")
    opening = game.state()
    assert opening["ruleset"] == ruleset and opening["turn"] == 1 and opening["log"] == []
    welcome = [m for m in game.outbox() if m[0] == "welcome"]
    assert len(welcome) == 3 and "ORDER OF PLAY" in welcome[0][3]
    order_names = [p.title() for p in opening["order"]]
    assert " ".join(f"{i}. {n}" for i, n in enumerate(order_names, 1)) in " ".join(welcome[0][3].split())
    if ruleset == "classic":
        first = opening["opening"][0]
        assert f"{first['player'].title()} {first['roll']}" in welcome[0][3]  # the turn-0 throws
    assert "RESIGN" in welcome[0][3] and "NUMBER" not in welcome[0][3] and "TRAPDOOR" not in welcome[0][3]

    # turn 1: cat resigns; bob resigns and withdraws it; ann asks for HELP
    game.mail("cat", "TURN 1", "RESIGN")
    game.mail("bob", "RESIGN")
    game.mail("bob", "RESIGN NONE")
    game.mail("ann", "HELP")
    early = game.gm("turn", now=FIRST_DEADLINE - timedelta(hours=1))
    assert "turn 1 resolved" not in early  # nobody must write: the turn waits for its deadline
    out = game.gm("turn", now=FIRST_DEADLINE + timedelta(hours=1))
    assert "turn 1 resolved" in out, out
    after_1 = game.state()
    assert after_1["players"]["cat"]["resigned"] and not after_1["players"]["bob"]["resigned"]
    assert after_1["log"][0] == {"player": "cat", "action": "resign"}
    assert {e["player"] for e in after_1["log"][1:]} == {"ann", "bob"}
    mails = game.outbox()
    acks = [m for m in mails if m[0] == "ack"]
    assert len(acks) == 3 and "RESIGN NONE" in acks[1][3] and "you stay in the game" in acks[2][3]
    help_text = next(m[3] for m in mails if m[0] == "help")
    assert "RESIGN NONE" in help_text and "NUMBER" not in help_text and "TRAPDOOR" not in help_text
    report = next(m for m in mails if m[0] == "report" and m[1] == "ann")
    text = " ".join(report[3].split())
    assert "Cat resigned" in text
    for entry in after_1["log"][1:]:  # every throw, with its faces and where it went
        faces = " and ".join(str(d) for d in entry["dice"])
        start = "Start" if entry["from"] == 0 else str(entry["from"])
        assert f"{faces}" in text and f"{start} -> " in text
    assert "Cat resigned" in report[4]

    # turn 2: cat, out of play, cannot resign again
    game.mail("cat", "RESIGN")
    week, state = 2, after_1
    while not state["over"]:
        now = FIRST_DEADLINE + timedelta(days=7 * (week - 1), hours=1)
        assert f"turn {week} resolved" in game.gm("turn", now=now)
        state, week = game.state(), week + 1
        assert week < 32
    refusal = next(m for m in game.outbox() if m[0] == "refusal")
    assert refusal[1] == "cat" and "no longer in play" in refusal[3]

    placings = {p: v["placing"] for p, v in state["boards"]["A"]["players"].items()}
    assert placings["cat"] == 3  # the resigned are placed last
    assert state["winner"] in ("ann", "bob") and placings[state["winner"]] == 1
    assert all(v["place"] == placings[p] for p, v in state["players"].items())
    final = [m for m in game.outbox() if m[0] == "report" and "Final results" in m[2]]
    assert len(final) == 3 and "THE GAME IS OVER" in final[0][3] and "FINAL PLACINGS" in final[0][3]

    status = game.gm("status", now="2027-06-01T00:00:00Z")
    assert f"over after turn {state['turn'] - 1}" in status

    game.gm("publish", now="2027-06-01T00:00:00Z")
    archive = game.folder / "archive"
    index = (archive / "index.html").read_text()
    assert "Order of play" in index and all(n in index for n in ("Ann", "Bob", "Cat"))
    boards = (archive / "boards.html").read_text()
    assert "<svg" in boards  # the public board is drawn before any reveal
    turn_1 = " ".join((archive / "turn-001.html").read_text().split())
    assert "The throws" in turn_1 and "resigned before the first go" in turn_1
    entry = after_1["log"][1]
    faces = " and ".join(str(d) for d in entry["dice"])
    start = "Start" if entry["from"] == 0 else str(entry["from"])
    assert f"<li>threw {faces}" in turn_1 and f": {start} -> " in turn_1
    player_page = (archive / f"player-{entry['player']}.html").read_text()
    assert "Throws" in player_page and faces in player_page
