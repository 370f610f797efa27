"""A whole Unleashed campaign (docs/rules/unleashed.md) on the real mail servers of tests/servers.py,
the way tests/test_rulesets_real_servers.py runs the dice rulesets (whose ServerGame and
`server_game` fixture this file uses): every order mail is APPENDed to a private Dovecot,
and every week's `gm turn` (clock through GM_NOW) ingests it over IMAP, resolves at the
deadline, sends over SMTP (STARTTLS and AUTH, aiosmtpd) and publishes, to the end.

What the SMTP server received is read: each player's welcome and every report hold their
own hand (6.14) and every roll of the round; a refused command names this ruleset's
commands (6.13); an NMR is marked; final results to everyone; no mail lost or doubled."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from servergame import server_games  # noqa: F401 - the fixture server_game builds on
from test_rulesets_real_servers import (  # noqa: F401  (server_game is a fixture)
    FIRST_DEADLINE,
    GM_ADDRESS,
    NAMES,
    server_game,
)

from gm.rules.unleashed.cards import movement

pytestmark = pytest.mark.servers

# 8 levels of 8: a few weeks; no items listed, so `setup: random` places them at gm start
BOARD = "name: Unleashed Lane\nsquares: 64\nshape: {levels: [8, 8, 8, 8, 8, 8, 8, 8]}\nsnakes: []\nladders: []\n"
OPTIONS = {"setup": "random", "seating": "listed", "max_turns": 30}


def hand_line(hand: list[str]) -> str:
    """How a report words the addressee's hand (templates/mail/unleashed/_turn.txt)."""
    return f"Your hand: {', '.join(hand) if hand else 'empty'}"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def rolls(folder, turn: int) -> list[tuple[int, int]]:
    """The dice of every roll of `turn`, from its stored events."""
    with sqlite3.connect(folder / "gm.sqlite") as db:
        (text,) = db.execute("select events from turns where turn = ?", (turn,)).fetchone()
    return [tuple(e["dice"]) for e in json.loads(text) if e["kind"] == "roll"]


def test_a_whole_unleashed_campaign_on_real_servers(server_game):  # noqa: F811
    game = server_game("unleashed", OPTIONS, BOARD)
    state = game.state()
    assert state["ruleset"] == "unleashed" and state["turn"] == 1 and not state["over"]
    assert state["boards"]["A"]["items"], "setup: random places the items at gm start"

    assert game.deadline() == FIRST_DEADLINE
    turn, nmr_seen = 1, False
    while not state["over"]:
        assert turn <= 30, "the campaign did not end"
        deadline = game.deadline()
        at = deadline - timedelta(days=1)
        pawns = state["boards"]["A"]["players"]
        for player in NAMES:
            if pawns[player]["finished"] or (player == "cat" and turn % 2 == 0):
                continue  # cat forgets every second week: an NMR, her go is still played
            lines = [f"TURN {turn}"]
            if turn == 1:
                lines += ["REACT BACK LAST", "REACT SWAP-PLAYERS ME LEADER"]
            playable = [c for c in state["players"][player]["hand"] if c == "BLANK" or movement(c)]
            lines += [f"PLAY {playable[0]} ON ME+4"] if playable else ["PLAY NONE"]
            game.send_order(player, *lines, at=at)
        if turn == 1:
            game.send_order("ann", "NUMBER 3", at=at + timedelta(minutes=5))  # a postal command: refused
        out = game.gm("turn", now=deadline + timedelta(hours=1))
        assert f"turn {turn} resolved" in out, out
        state = game.state()
        hands = {p: v["hand"] for p, v in state["players"].items()}
        subject = f"Final results after turn {turn}" if state["over"] else f"Turn {turn} report"
        dice = rolls(game.folder, turn)
        assert dice, f"turn {turn} rolled no dice"
        for player in NAMES:
            (report,) = game.to(player, subject)
            # 6.14: the addressee's own hand, as it stands after the turn
            if not state["over"]:
                assert hand_line(hands[player]) in report, (player, turn, report)
            for other, hand in hands.items():
                if other != player and hand and ", ".join(hand) not in ", ".join(hands[player]):
                    assert hand_line(hand).split(": ", 1)[1] not in report, (player, other, turn)
            for a, b in dice:  # every roll of the round, its faces and sum
                assert f"{a} + {b} = {a + b}" in report, (player, turn, (a, b))
            if player == "cat" and turn % 2 == 0 and not pawns["cat"]["finished"]:
                assert "NMR" in report
                nmr_seen = True
        assert len(game.to(GM_ADDRESS, f"GM report, turn {turn}")) == 1
        turn += 1
    last = turn - 1
    assert last >= 3 and nmr_seen

    # the welcome showed each player their dealt hand; the postal NUMBER was refused,
    # naming the commands this ruleset knows (6.13)
    for player in NAMES:
        (welcome,) = game.to(player, "Welcome")
        assert "YOUR HAND (only you see it):" in welcome
    (refusal,) = game.to("ann", "not accepted")
    assert "NUMBER" in refusal and "PLAY" in refusal and "REACT" in refusal
    acks = game.to("ann", "accepted")
    assert acks and "REACT BACK: LAST" in acks[0] and "REACT SWAP-PLAYERS: ME LEADER" in acks[0]
    assert "Hand: " in acks[0]

    # the end: final results to everyone, placings in `gm state --json`
    placings = {p: v["placing"] for p, v in state["boards"]["A"]["players"].items()}
    assert state["over"] and sorted(placings.values())[0] == 1
    assert state["winners"] and all(placings[w] == 1 for w in state["winners"])
    for player in NAMES:
        (final,) = game.to(player, f"Final results after turn {last}")
        assert "is over" in final and f"You placed {ordinal(placings[player])}." in final
    assert len(game.to(GM_ADDRESS, f"GM report, turn {last}")) == 1
    game.assert_nothing_lost_or_doubled()

    # gm turn published the archive each week; once over, a rerun resolves and sends nothing
    assert (game.folder / "archive" / f"turn-{last:03d}.html").is_file()
    before = len(game.smtp.received)
    out = game.gm("turn", now=datetime(2027, 12, 1, tzinfo=UTC))
    assert "the campaign is over" in out and "send: 0 delivered" in out
    assert len(game.smtp.received) == before
