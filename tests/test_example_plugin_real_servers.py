"""A whole pig race campaign (examples/pig-race, a ruleset from its own package)
by mail on the real servers of tests/servers.py, as tests/test_rulesets_real_servers.py
plays the built-ins. Each player submits ROLL/HOLD orders to the aiosmtpd server over SMTP
(STARTTLS and AUTH, as a mail client does); what it accepted for the GM's address is
delivered into the GM's Dovecot INBOX (an IMAP APPEND dated when it was sent: aiosmtpd
keeps mail, it does not deliver it). Every week's `gm turn` (clock through GM_NOW)
ingests over IMAP, resolves at the deadline, sends over SMTP and publishes, to the race's
end. Then `gm reveal`, and `gm audit` on the archive with every mail the players got."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from servergame import GM_ADDRESS, server_games  # noqa: F401 - the fixture
from test_example_plugin import pig_installed  # noqa: F401 - the fixture: gm-pig-race installed

pytestmark = pytest.mark.servers

PLAYERS = {"ann": "pw-ann-1", "ben": "pw-ben-2", "cat": "pw-cat-3"}
LANE = "name: The Short Sty\nsquares: 24\nladders: [[3, 12], [9, 16]]\nsnakes: [[14, 5], [22, 10]]\n"
# ann pushes her luck (five dice bust more often than not), ben plays safe-ish, cat holds
ORDERS = {"ann": "ROLL 5", "ben": "ROLL 2", "cat": "HOLD"}
MAX_TURNS = 12


@pytest.fixture
def pig_server_game(server_games, pig_installed):  # noqa: F811
    """A started pig race of ann, ben and cat on the `imap+smtp` transport, its players'
    orders submitted over SMTP."""
    own = {"id": "pig-servers", "title": "The pig race on real servers", "ruleset": "pig", "seed": 2**128 + 26,
           "options": {"max_turns": MAX_TURNS}}
    return server_games("sty", LANE, own, PLAYERS)


def test_a_whole_pig_race_by_mail_on_real_servers(pig_server_game, tmp_path):
    game = pig_server_game
    state = game.state()
    assert state["ruleset"] == "pig" and state["turn"] == 1 and not state["over"]

    turn, ordered = 1, Counter()
    while not state["over"]:
        assert turn <= MAX_TURNS, "the campaign did not end"
        deadline = game.deadline()
        at = deadline - timedelta(days=1)
        racing = [p for p in PLAYERS if not state["boards"]["A"]["players"][p]["finished"]]
        for player in racing:
            if player == "cat" and turn == 1:
                continue  # cat's only message of turn 1 names both: refused, she holds silently
            game.send_order(player, f"TURN {turn}", ORDERS[player], at=at)
            ordered[player] += 1
        if turn == 1:
            game.send_order("cat", "ROLL 3", "HOLD", at=at + timedelta(minutes=5))
            game.send_order("ann", "HELP", at=at + timedelta(minutes=10))
        out = game.gm("turn", now=deadline + timedelta(hours=1))
        assert f"turn {turn} resolved" in out, out
        state = game.state()
        turn += 1
    last = turn - 1
    assert last >= 3

    # the plugin's words reach the players: its commands, its refusal of ROLL with HOLD
    assert any("ROLL <1-5> or HOLD" in t for t in game.to("ann", "How to write orders"))
    refusal = game.to("cat", "not accepted")
    assert len(refusal) == 1 and "a turn's order is ROLL or HOLD, not both" in refusal[0]
    acks = game.to("ann", "accepted")
    assert len(acks) == ordered["ann"] and all("Your order for turn" in t and "ROLL 5" in t for t in acks)
    # reports: one a turn to each player (the last as final results) and to the GM, each
    # telling the goes in the plugin's words; ann's five dice went bust at least once
    reports = {}
    for week in range(1, last + 1):
        subject = f"Final results after turn {week}" if week == last else f"Turn {week} report"
        assert len(game.to(GM_ADDRESS, f"GM report, turn {week}")) == 1, week
        for player in PLAYERS:
            (reports[player, week],) = game.to(player, subject)
            assert "THE GOES, in order of play" in reports[player, week]
    assert "- Cat had no order, so held: Start -> " in reports["ann", 1]
    busts = [week for week in range(1, last + 1)
             if re.search(r"- Ann rolled [2-6, ]*1( of 5 dice)?: a 1, BUST: stays on ", reports["ben", week])]
    assert busts, [reports["ben", week] for week in range(1, last + 1)]
    for player in PLAYERS:
        final = reports[player, last]
        assert "FINAL STANDINGS" in final and not any(w in final for w in ("TRAPDOOR", "NUMBER <", "BUILD"))
    game.assert_nothing_lost_or_doubled()

    # the end, as `gm state --json` gives it
    pieces = state["boards"]["A"]["players"]
    assert state["over"] and state["turn"] == last + 1
    assert all(v["placing"] is not None for v in pieces.values())
    assert {p: v["place"] for p, v in state["players"].items()} == {p: v["placing"] for p, v in pieces.items()}

    # gm turn published the archive each week, the plugin's rules page with it
    archive = game.folder / "archive"
    rules_page = (archive / "rules.html").read_text()
    assert "Pig race" in rules_page and "push-your-luck" in rules_page
    assert (archive / f"turn-{last:03d}.html").is_file()
    assert '<h2 id="goes">The goes</h2>' in (archive / "turn-001.html").read_text()

    # once over: a rerun sends nothing; the reveal; the audit replays it against the mail
    before = len(game.smtp.received)
    out = game.gm("turn", now=datetime(2027, 12, 1, tzinfo=UTC))
    assert "the campaign is over" in out and "send: 0 delivered" in out
    assert len(game.smtp.received) == before
    game.gm("reveal", now=datetime(2027, 12, 2, tzinfo=UTC))
    mail = game.players_mail(tmp_path / "players-mail")
    audit = game.gm("audit", str(archive), "--mail", str(mail), now=datetime(2027, 12, 3, tzinfo=UTC), ok=False)
    assert audit.exit_code == 0, audit.output
    assert audit.output.startswith("ok: pig-servers (pig) replays exactly"), audit.output
    # the mail the players got was checked, not just the archive
    assert "with the mail given: the history mailed: the record hashes of" in audit.output
    assert "with the mail given: the orders played" in audit.output
