"""docs/rules/advanced.md by mail: a whole advanced campaign with a team of two and a player on
their own, through `gm start`, order mail dropped in the campaign's Maildir inbox, `gm
turn` each week (ingest, resolve, send, publish), a refusal on receipt, and `gm
publish`, to the end. The clock is GM_NOW."""

from __future__ import annotations

import email
import email.policy
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import yaml
from click.testing import CliRunner

from gm.cli import cli

PASSWORDS = {"ann": "pw-ann-1", "bob": "pw-bob-2", "cat": "pw-cat-3"}
# a small staggered board, so that the campaign ends in a few weeks
BOARD = "name: Short Stair\nsquares: 16\nshape: {levels: [6, 5, 5], offsets: [1, 0, 1]}\nladders: [[2, 9]]\n"


def _mail(folder, n: int, player: str, body: str) -> None:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
    mail["Message-ID"] = f"<{n}@example.org>"
    mail.set_content(f"PLAYER {player}\nPASSWORD {PASSWORDS[player]}\n{body}\n")
    (folder / "mail" / "inbox" / "new" / f"{n}.eml").write_bytes(bytes(mail))


def _outbox(folder):
    boxes = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
             for p in sorted((folder / "mail" / "outbox" / "new").iterdir())]
    return [(m["To"], m["Subject"], m.get_body(("plain",)).get_content()) for m in boxes]


def test_4_5_a_whole_advanced_campaign_with_teams_by_mail(tmp_path):
    folder = tmp_path / "adv"
    folder.mkdir()
    (folder / "stair.yaml").write_text(BOARD)
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "adv", "title": "Advanced by mail", "ruleset": "advanced", "seed": 2**128 + 17,
        "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {"A": "stair.yaml"},
        "players": [
            {"id": "ann", "name": "Ann", "email": "ann@example.org", "password": PASSWORDS["ann"]},
            {"id": "bob", "name": "Bob", "email": "bob@example.org", "password": PASSWORDS["bob"], "team": "red"},
            {"id": "cat", "name": "Cat", "email": "cat@example.org", "password": PASSWORDS["cat"], "team": "red"},
        ],
        "options": {"max_turns": 30},
    }))
    runner = CliRunner()

    def gm(*args, now, ok=True):
        result = runner.invoke(cli, ["-C", str(folder), *args], env={"GM_NOW": now})
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert (result.exit_code == 0) == ok, result.output
        return result.output

    gm("start", now="2027-01-01T00:00:00Z")
    state = json.loads(gm("state", "--json", now="2027-01-01T00:00:00Z"))
    assert state["teams"] == {
        "ann": {"members": ["ann"], "finished": False, "placing": None},
        "red": {"members": ["bob", "cat"], "finished": False, "placing": None},
    }
    assert [o["purpose"] for o in state["opening"][:3]] == ["die", "die", "die"]
    gm("send", now="2027-01-01T00:00:00Z")
    welcome = [t for to, s, t in _outbox(folder) if "Welcome" in s]
    assert len(welcome) == 3 and all("THE ORDER OF PLAY" in t for t in welcome)
    assert all(f"1. {dict(ann='Ann', bob='Bob', cat='Cat')[state['order'][0]]} (d" in t for t in welcome)

    sent = 0
    # week 1: ann asks to build from Start: refused on receipt (docs/rules/classic.md, Order mail); she then moves
    sent += 1
    _mail(folder, sent, "ann", "BUILD LADDER 1")
    sent += 1
    _mail(folder, sent, "bob", "HELP")  # the help explains MOVE and BUILD, with bob's standing order
    built_tried = refused_once = False
    for week in range(1, 31):
        state = json.loads(gm("state", "--json", now="2027-01-01T00:00:00Z"))
        if state["over"]:
            break
        pieces = state["boards"]["A"]["players"]
        ends = {sq for item in state["boards"]["A"]["snakes"] + state["boards"]["A"]["ladders"] for sq in item}
        for player in ("ann", "bob", "cat"):
            if pieces[player]["finished"] or (player == "cat" and week % 3 == 0):
                continue  # cat is silent every third week: NMR, she moves all the same
            square = pieces[player]["square"]
            order = "MOVE"
            if player == "bob" and not built_tried and square >= 3 and square not in ends and square - 1 not in ends:
                order, built_tried = f"BUILD SNAKE {square - 1}", True
            sent += 1
            _mail(folder, sent, player, order)
        if week == 2 and not refused_once:
            # two actions in one message: refused whole (one action per turn)
            sent += 1
            _mail(folder, sent, "ann", "MOVE\nBUILD SNAKE 1")
            refused_once = True
        after_deadline = datetime(2027, 1, 8, 19, tzinfo=UTC) + timedelta(days=7 * (week - 1))
        out = gm("turn", now=after_deadline.strftime("%Y-%m-%dT%H:%M:%SZ"))
        assert f"turn {week} resolved" in out, out
    state = json.loads(gm("state", "--json", now="2027-06-01T00:00:00Z"))
    assert state["over"] and state["boards"]["A"]["closed"]
    assert built_tried and refused_once
    winner = state["winner"]
    assert winner in ("ann", "red")
    # docs/rules/advanced.md End: the winning team is all in End, placed 1, the other team 2
    assert state["teams"][winner]["finished"] and state["teams"][winner]["placing"] == 1
    loser = "red" if winner == "ann" else "ann"
    assert state["teams"][loser]["placing"] == 2 and not state["teams"][loser]["finished"]
    for values in state["players"].values():
        assert values["place"] == values["aggregate"] == state["teams"][values["team"]]["placing"]

    gm("publish", now="2027-06-01T00:00:00Z")
    index = (folder / "archive" / "index.html").read_text()
    assert "Turn 0" in index and "Ann" in index
    turn_one = (folder / "archive" / "turn-001.html").read_text()
    assert "The goes" in turn_one and "threw" in turn_one
    boards_page = (folder / "archive" / "boards.html").read_text()
    assert "<svg" in boards_page and "the board" in boards_page  # the file's ladder 2 -> 9

    db = sqlite3.connect(folder / "gm.sqlite")
    outcomes = dict(db.execute("select message_id, outcome from messages"))
    assert outcomes["<1@example.org>"] == "refused"  # a build from Start
    kinds = [k for (k,) in db.execute("select kind from outbox")]
    assert {"welcome", "ack", "refusal", "report"} <= set(kinds)
    gm("send", now="2027-06-01T00:00:00Z")
    mails = _outbox(folder)
    refusals = [t for to, s, t in mails if "not accepted" in s]
    assert len(refusals) == 2
    assert any("Start" in t for t in refusals) and any("one action per turn" in t for t in refusals)
    acks = [t for to, s, t in mails if "accepted" in s and "not accepted" not in s]
    assert any("Action: BUILD SNAKE" in t for t in acks) and any("Action: MOVE" in t for t in acks)
    reports = [t for to, s, t in mails if "report" in s.lower() and to != "gm@example.org"]
    assert any("(NMR)" in t or ", NMR" in t for t in reports)
    assert any("builds a snake" in t for t in reports)
    finals = [t for to, s, t in mails if "Final results" in s]
    assert len(finals) == 3 and all("FINAL PLACINGS" in t for t in finals)
    helps = [(s, t) for to, s, t in mails if "How to write orders" in s]
    assert len(helps) == 1 and helps[0][0].endswith("How to write orders (turn 1)")
    assert "BUILD LADDER <square>" in helps[0][1] and "Your order for turn 1:" in helps[0][1]
    assert not any("TRAPDOOR" in t or "NUMBER <" in t or "RESIGN" in t for to, s, t in mails)
