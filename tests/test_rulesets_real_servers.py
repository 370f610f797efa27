"""A whole classic, doubles and advanced campaign on the real mail servers of
tests/servers.py. Every order mail is APPENDed to a private Dovecot and every week's `gm
turn` (clock through GM_NOW) ingests it over IMAP, resolves at the deadline, sends over
SMTP (STARTTLS and AUTH, aiosmtpd) and publishes, to the campaign's end. The test reads
what the SMTP server received: each reply once, reports that say every throw, final
results; no mail lost or doubled on either side; and `gm state --json`'s end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from servergame import FIRST_DEADLINE, GM_ADDRESS, server_games  # noqa: F401 - the fixture
from test_mail_e2e import PLAYERS

pytestmark = pytest.mark.servers

DICE_BOARD = "name: Short Lane\nsquares: 20\nsnakes: [[17, 4]]\nladders: [[3, 11]]\n"
# staggered rows (docs/rules/advanced.md), long enough for builds to come before the end
STAIR_BOARD = "name: Stair\nsquares: 30\nshape: {levels: [8, 8, 7, 7], offsets: [1, 2, 1, 2]}\nladders: [[2, 9]]\n"
NAMES = {p: p.title() for p in PLAYERS}


@pytest.fixture
def server_game(server_games):  # noqa: F811
    """make(ruleset, options, board, teams): a started campaign of ann, ben and cat on the
    `imap+smtp` transport, its order mail APPENDed straight into the GM's Dovecot inbox."""

    def make(ruleset: str, options: dict, board: str, teams: dict[str, str] | None = None):
        own = {
            "id": f"{ruleset}-servers",
            "title": f"The {ruleset} campaign on real servers",
            "ruleset": ruleset,
            "seed": 2**128 + 13,  # advanced needs at least 2^128 (docs/audit.md)
            "options": options,
        }
        return server_games(ruleset, board, own, PLAYERS, teams)

    return make


def go_text(go: dict, name: str, die: int) -> str:
    """How an advanced report words one go of `gm state --json`'s log (templates/mail/advanced/_turn.txt)."""
    if go["action"] == "build":
        target = go["target"] or "Start"
        ends = f"from {target} to {go['from']}" if go["kind"] == "ladder" else f"from {go['from']} to {target}"
        return f"- {name} builds a {go['kind']} {ends}: threw {go['dice'][0]} (d{die})"
    return f"- {name} threw {go['dice'][0]} (d{die}){', NMR' if go['nmr'] else ''}:"


def throw_text(entry: dict) -> str:
    """How a dice report words one throw of `gm state --json`'s log (templates/mail/dice/_turn.txt)."""
    faces = " and ".join(str(d) for d in entry["dice"])
    total = f" ({sum(entry['dice'])})" if len(entry["dice"]) > 1 else ""
    return f"threw {faces}{total}:"


@pytest.mark.parametrize(("ruleset", "options"), [
    ("classic", {"close_after": 2, "max_turns": 30}),
    ("doubles", {"close_after": "all", "max_turns": 30}),
])
def test_a_whole_dice_campaign_on_real_servers(server_game, ruleset, options):
    game = server_game(ruleset, options, DICE_BOARD)
    opening = game.state()
    assert opening["ruleset"] == ruleset and opening["turn"] == 1 and not opening["over"]

    # turn 1: cat resigns; ben resigns and withdraws it; ann asks for HELP
    assert game.deadline() == FIRST_DEADLINE
    day_before = FIRST_DEADLINE - timedelta(days=1)
    game.append_order("cat", "TURN 1", "RESIGN", at=day_before)
    game.append_order("ben", "RESIGN", at=day_before)
    game.append_order("ben", "RESIGN NONE", at=day_before + timedelta(minutes=5))
    game.append_order("ann", "HELP", at=day_before + timedelta(minutes=10))
    early = game.gm("turn", now=day_before + timedelta(hours=1))
    assert "ingest: 4 new messages" in early and "resolve: not yet" in early  # nobody must write
    assert "send: 8 delivered" in early  # three welcomes, the GM's summary, three acks, the help
    assert len(game.to("ann", "Welcome")) == 1 and "ORDER OF PLAY" in game.to("ann", "Welcome")[0]
    cat_ack = game.to("cat", "accepted")
    assert len(cat_ack) == 1 and "RESIGN" in cat_ack[0]
    ben_acks = game.to("ben", "accepted")
    assert len(ben_acks) == 2 and "RESIGN NONE" in ben_acks[0] and "you stay in the game" in ben_acks[1]
    help_text = game.to("ann", "How to write orders")
    assert len(help_text) == 1 and "RESIGN NONE" in help_text[0]

    out = game.gm("turn", now=FIRST_DEADLINE + timedelta(hours=1))
    assert "ingest: no new mail" in out and "turn 1 resolved" in out, out
    after_1 = game.state()
    assert after_1["players"]["cat"]["resigned"] and not after_1["players"]["ben"]["resigned"]
    assert after_1["log"][0] == {"player": "cat", "action": "resign"}
    report = game.to("ann", "Turn 1 report")
    assert len(report) == 1 and "Cat resigned" in report[0]
    for entry in after_1["log"][1:]:  # every throw of the turn, with its faces
        assert throw_text(entry) in report[0], (entry, report[0])
    assert len(game.to(GM_ADDRESS, "GM report, turn 1")) == 1

    # turn 2: cat, out of play, cannot resign again; then week after week to the end
    game.append_order("cat", "RESIGN", at=game.deadline() - timedelta(days=1))
    state, turn, logs = after_1, 2, {1: after_1["log"]}
    while not state["over"]:
        assert turn <= 30, "the campaign did not end"
        out = game.gm("turn", now=game.deadline() + timedelta(hours=1))
        assert f"turn {turn} resolved" in out, out
        state = game.state()
        logs[turn], turn = state["log"], turn + 1
    last = turn - 1
    assert last >= 3
    refusal = game.to("cat", "not accepted")
    assert len(refusal) == 1 and "no longer in play" in refusal[0]

    # the end, as `gm state --json` gives it
    placings = {p: v["placing"] for p, v in state["boards"]["A"]["players"].items()}
    assert state["over"] and state["turn"] == last + 1
    assert placings["cat"] == 3  # the resigned are placed last
    assert state["winner"] in ("ann", "ben") and placings[state["winner"]] == 1
    assert all(v["place"] == placings[p] for p, v in state["players"].items())

    # each player got one report a turn (the last as final results) saying every throw of
    # the turn with its faces, and the GM one a turn
    for week, log in logs.items():
        subject = f"Final results after turn {week}" if week == last else f"Turn {week} report"
        assert len(game.to(GM_ADDRESS, f"GM report, turn {week}")) == 1, week
        for player in PLAYERS:
            (report,) = game.to(player, subject)
            for entry in log:
                if entry["action"] != "resign":
                    assert throw_text(entry) in report, (entry, report)
    for player in PLAYERS:
        finals = game.to(player, f"Final results after turn {last}")
        assert len(finals) == 1 and "THE GAME IS OVER" in finals[0] and "FINAL PLACINGS" in finals[0]
        assert NAMES[state["winner"]] in finals[0]
    assert len(game.to(GM_ADDRESS, f"GM report, turn {last} (final)")) == 1
    game.assert_nothing_lost_or_doubled()

    # gm turn published the archive each week; once over, a rerun resolves and sends nothing
    assert "Order of play" in (game.folder / "archive" / "index.html").read_text()
    assert (game.folder / "archive" / f"turn-{last:03d}.html").is_file()
    before = len(game.smtp.received)
    out = game.gm("turn", now=datetime(2027, 12, 1, tzinfo=UTC))
    assert "the campaign is over" in out and "send: 0 delivered" in out
    assert len(game.smtp.received) == before


def test_a_whole_advanced_campaign_with_a_team_on_real_servers(server_game):
    game = server_game("advanced", {"max_turns": 30}, STAIR_BOARD, teams={"ben": "red", "cat": "red"})
    state = game.state()
    assert state["teams"] == {
        "ann": {"members": ["ann"], "finished": False, "placing": None},
        "red": {"members": ["ben", "cat"], "finished": False, "placing": None},
    }
    built_tried = refused = False
    turn, logs = 1, {}
    while not state["over"]:
        assert turn <= 30, "the campaign did not end"
        pieces = state["boards"]["A"]["players"]
        ends = {sq for item in state["boards"]["A"]["snakes"] + state["boards"]["A"]["ladders"] for sq in item}
        deadline = game.deadline()
        at = deadline - timedelta(days=1)
        for player in PLAYERS:
            if pieces[player]["finished"] or (player == "cat" and turn % 2 == 0):
                continue  # cat is silent every second week: an NMR, she moves all the same
            square = pieces[player]["square"]
            action = "MOVE"
            if player == "ben" and not built_tried and square >= 3 and not {square, square - 1} & ends:
                action, built_tried = f"BUILD SNAKE {square - 1}", True
            game.append_order(player, f"TURN {turn}", action, at=at)
        if turn == 1:
            game.append_order("ann", "BUILD LADDER 1", at=at + timedelta(minutes=5))  # from Start: refused
            refused = True
        out = game.gm("turn", now=deadline + timedelta(hours=1))
        assert f"turn {turn} resolved" in out, out
        state = game.state()
        logs[turn], turn = state["log"], turn + 1
    last = turn - 1
    assert built_tried and refused and last >= 3

    # replies: an ack for each accepted order, the refusal from Start said why
    refusals = game.to("ann", "not accepted")
    assert len(refusals) == 1 and "Start" in refusals[0]
    assert any("Action: BUILD SNAKE" in t for t in game.to("ben", "accepted"))
    assert all("Action: MOVE" in t for t in game.to("ann", "accepted"))
    # reports: one a turn to each player (the last as final results) and to the GM, each
    # saying every go of its turn, with its throw and die, NMR moves marked
    dice = {p: v["die"] for p, v in state["players"].items()}
    for week, log in logs.items():
        subject = f"Final results after turn {week}" if week == last else f"Turn {week} report"
        assert len(game.to(GM_ADDRESS, f"GM report, turn {week}")) == 1, week
        for player in PLAYERS:
            (report,) = game.to(player, subject)
            for go in log:
                assert go_text(go, NAMES[go["player"]], dice[go["player"]]) in report, (go, report)
    built = [go for log in logs.values() for go in log if go["action"] == "build"]
    assert [(go["player"], go["kind"]) for go in built] == [("ben", "snake")]
    assert any(go["nmr"] and go["player"] == "cat" for log in logs.values() for go in log)
    assert all(e["by"] == "ben" for e in state["boards"]["A"]["built"])

    # the end: the winning team all in End, placed 1; the other team 2
    winner = state["winner"]
    assert state["over"] and state["boards"]["A"]["closed"] and winner in ("ann", "red")
    loser = "red" if winner == "ann" else "ann"
    assert state["teams"][winner] | {"members": None} == {"members": None, "finished": True, "placing": 1}
    assert state["teams"][loser]["placing"] == 2 and not state["teams"][loser]["finished"]
    for values in state["players"].values():
        assert values["place"] == values["aggregate"] == state["teams"][values["team"]]["placing"]
    for player in PLAYERS:
        finals = game.to(player, f"Final results after turn {last}")
        assert len(finals) == 1 and "FINAL PLACINGS" in finals[0]
        assert f"Team {winner} wins" in finals[0]
        assert "1. red: Ben, Cat" in finals[0] or "2. red: Ben, Cat" in finals[0]
    assert not any("TRAPDOOR" in text or "RESIGN" in text for _, _, _, text in game.received())
    game.assert_nothing_lost_or_doubled()
    assert "Turn 0" in (game.folder / "archive" / "index.html").read_text()
