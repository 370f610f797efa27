"""Golden mail of the dice rulesets: a player's welcome and a turn report of a
fixed campaign of `advanced`, `classic` and `doubles`, word for word (the text part, as
the player reads it). The advanced ones draw the board with pieces and built items and say
how steps are counted; the welcomes say why the order of play is what it is.

Hashes (commitments, receipts, record hashes) hold random salts and are written <sha256>.
When a change to these mails' words is intended, regenerate with

    GM_REGEN_GOLDEN=1 python -m pytest tests/test_mail_golden_dice.py

and read `git diff tests/data/golden/mail` before committing it: accept it only when
every difference is one the change meant to make.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.boards.board import load_board
from gm.cli import cli
from gm.rules.geometry import steps

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden" / "mail"
START = datetime(2027, 1, 1, tzinfo=UTC)
PLAYERS = {"ann": "Ann", "bob": "Bob", "cat": "Cat", "dave": "Dave"}
BOARD = {"advanced": "advanced.yaml", "classic": "milton-bradley.yaml", "doubles": "milton-bradley.yaml"}
TURNS = 3
HASH = re.compile(r"\b[0-9a-f]{64}\b")


def _mails(folder: Path, ruleset: str) -> dict[str, str]:
    """Ann's welcome and her report of turn TURNS, in a campaign whose players build (in
    advanced, from turn 2: a ladder or a snake one step down) and, in the dice games, one
    resigns."""
    folder.mkdir()
    players = [{"id": p, "name": n, "email": f"{p}@example.org", "password": f"pw-{p}"} for p, n in PLAYERS.items()]
    if ruleset == "advanced":
        players[1]["team"] = players[2]["team"] = "red"
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "golden", "title": "Golden", "ruleset": ruleset, "seed": 2**128 + 5,
        "first_deadline": "2027-01-08T18:00:00Z", "archive_url": "https://example.org/golden/",
        "boards": {"A": str(ROOT / "boards" / BOARD[ruleset])}, "players": players,
    }))
    runner = CliRunner()
    sent = 0

    def gm(*args: str, now: datetime) -> str:
        result = runner.invoke(cli, ["-C", str(folder), *args], env={"GM_NOW": now.isoformat()})
        assert result.exit_code == 0, result.output
        return result.output

    def order(player: str, line: str) -> None:
        nonlocal sent
        sent += 1
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
        mail["Message-ID"] = f"<{sent}@example.org>"
        mail.set_content(f"PLAYER {player}\nPASSWORD pw-{player}\n{line}\n")
        (folder / "mail" / "inbox" / "new" / f"{sent}.eml").write_bytes(bytes(mail))

    gm("start", now=START)
    board = load_board(ROOT / "boards" / BOARD[ruleset])
    for turn in range(1, TURNS + 1):
        state = json.loads(gm("state", "--json", now=START))
        if ruleset != "advanced" and turn == 2:
            order("dave", "RESIGN")
        for index, player in enumerate(PLAYERS):
            if ruleset != "advanced" or (player, turn) == ("dave", TURNS):
                continue  # the dice games need no order; dave forgets his last one (NMR)
            square = state["boards"]["A"]["players"][player]["square"]
            ends = {end for pair in state["boards"]["A"]["snakes"] + state["boards"]["A"]["ladders"] for end in pair}
            below = [t for t in range(1, square) if t not in ends and steps(board, square, t, limit=1)]
            item = ("SNAKE", "LADDER")[(turn + index) % 2]
            order(player, f"BUILD {item} {min(below)}" if turn > 1 and below and square not in ends else "MOVE")
        gm("turn", now=START + timedelta(days=7 * turn, hours=19))
    gm("send", now=START + timedelta(days=7 * TURNS, hours=20))
    found = {}
    for path in sorted((folder / "mail" / "outbox" / "new").iterdir()):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        subject = str(message["Subject"])
        if message["To"] != "ann@example.org":
            continue
        name = "welcome" if "Welcome" in subject else f"report-{TURNS}" if f"Turn {TURNS} report" in subject else None
        if name:
            text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
            # the welcome's ready ENTROPY line is random words (docs/audit.md, Players' entropy)
            text = re.sub(r"(?m)^(  ENTROPY ).*$", r"\1<random words>", text)
            found[name] = HASH.sub("<sha256>", f"Subject: {subject}\n\n{text}")
    assert set(found) == {"welcome", f"report-{TURNS}"}, sorted(found)
    return found


@pytest.mark.parametrize("ruleset", ["advanced", "classic", "doubles"])
def test_4_6_the_welcome_and_a_report_word_for_word(tmp_path, ruleset):
    for name, text in _mails(tmp_path / ruleset, ruleset).items():
        path = GOLDEN / ruleset / f"{name}-ann.txt"
        if os.environ.get("GM_REGEN_GOLDEN"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"{path} differs: regenerate and read the diff"
