"""A whole three-player, two-board campaign played through the CLI from .eml files, the
state JSON checked turn by turn against the result worked out by hand from docs/rules/."""

from __future__ import annotations

import sqlite3


def squares(state: dict, board: str) -> dict:
    return {p: (v["square"], v["finished"], v["placing"]) for p, v in state["boards"][board]["players"].items()}


def test_whole_campaign_from_eml_files_matches_the_rules_turn_by_turn(campaign):
    run = campaign
    # turn 1: ann 2 (ladder 2->9 on A), ben 5, cat sends nothing (NMR, lowest: 1);
    # ann and ben nominate A 5, which reaches the threshold of 2
    mails = [
        run.order("ann", "NUMBER 2\nTRAPDOOR A 5\n", date="Sat, 02 Jan 2027 10:00:00 +0000"),
        run.order("ben", "NUMBER 5\nTRAPDOOR A 5\n", date="Sat, 02 Jan 2027 11:00:00 +0000"),
    ]
    assert "2 new messages (2 applied)" in run("ingest", *map(str, mails), now="2027-01-02T12:00:00Z")
    run("resolve", now="2027-01-03T12:00:00Z", code=1)  # before the deadline
    assert "turn 1 resolved" in run("resolve", now="2027-01-03T18:00:00Z")
    state = run.state()
    assert state["turn"] == 2 and not state["over"]
    assert squares(state, "A") == {"ann": (9, False, None), "ben": (5, False, None), "cat": (1, False, None)}
    assert squares(state, "B") == {"ann": (2, False, None), "ben": (5, False, None), "cat": (1, False, None)}
    assert state["boards"]["A"]["trapdoor"] == 5 and state["boards"]["B"]["trapdoor"] is None
    assert {p: v["numbers_left"] for p, v in state["players"].items()} == {
        "ann": [1, 3, 4, 5, 6], "ben": [1, 2, 3, 4, 6], "cat": [2, 3, 4, 5, 6]}

    # turn 2: ann 4 crosses A (9+4 > 12, overshoot 1); ben first sends a bad number, then 4;
    # cat, in HTML mail, plays 4 onto the trapdoor at 5 on level 1 of A: down to Start.
    # On B ben crosses (5+4 > 8).
    mails = [
        run.order("ann", "NUMBER 4\n", date="Sun, 03 Jan 2027 19:00:00 +0000"),
        run.order("ben", "NUMBER 7\n", date="Sun, 03 Jan 2027 19:10:00 +0000"),
        run.order("ben", "NUMBER 4\n", date="Sun, 03 Jan 2027 19:20:00 +0000"),
        run.order("cat", "NUMBER 4\n", date="Sun, 03 Jan 2027 19:30:00 +0000", html=True),
    ]
    out = run("ingest", *map(str, mails), now="2027-01-04T00:00:00Z")
    assert "4 new messages (3 applied, 1 refused)" in out
    assert "turn 2 resolved" in run("resolve", now="2027-01-10T18:00:00Z")
    state = run.state()
    assert squares(state, "A") == {"ann": (9, True, 1), "ben": (9, False, None), "cat": (0, False, None)}
    assert squares(state, "B") == {"ann": (6, False, None), "ben": (5, True, 1), "cat": (5, False, None)}
    assert state["boards"]["A"]["trapdoor"] is None
    assert not state["boards"]["A"]["closed"] and not state["boards"]["B"]["closed"]

    # turn 3: ben 6 crosses A (overshoot 3, 2nd), A closes with 2 crossed and cat is placed 3rd;
    # on B ann (6+6, overshoot 4) places ahead of cat (5+5, overshoot 2): 2nd and 3rd. B closes.
    mails = [
        run.order("ann", "NUMBER 6\n", date="Mon, 11 Jan 2027 09:00:00 +0000"),
        run.order("ben", "NUMBER 6\n", date="Mon, 11 Jan 2027 09:00:00 +0000"),
        run.order("cat", "NUMBER 5\n", date="Mon, 11 Jan 2027 09:00:00 +0000"),
    ]
    run("ingest", *map(str, mails), now="2027-01-11T10:00:00Z")
    # every order is in, so `gm turn` resolves before the deadline
    out = run("turn", now="2027-01-11T10:00:00Z")
    assert "turn 3 resolved" in out and "the campaign is over" in out
    state = run.state()
    assert state["over"] and state["turn"] == 4
    assert squares(state, "A") == {"ann": (9, True, 1), "ben": (9, True, 2), "cat": (5, False, 3)}
    assert squares(state, "B") == {"ann": (6, True, 2), "ben": (5, True, 1), "cat": (5, True, 3)}
    assert state["boards"]["A"]["closed"] and state["boards"]["B"]["closed"]
    assert {p: (v["aggregate"], v["place"]) for p, v in state["players"].items()} == {
        "ann": (3, 1), "ben": (3, 1), "cat": (6, 3)}
    assert {p: v["numbers_left"] for p, v in state["players"].items()} == {
        "ann": [1, 3, 5], "ben": [1, 2, 3], "cat": [2, 3, 6]}

    # every reply and report sits in mail/outbox once sent, and a second send adds nothing
    run("send", now="2027-01-11T10:05:00Z")
    outbox = list((run.folder / "mail" / "outbox" / "new").iterdir())
    db = sqlite3.connect(run.folder / "gm.sqlite")
    kinds = dict(db.execute("select kind, count(*) from outbox group by kind").fetchall())
    assert kinds == {"welcome": 3, "gm-start": 1, "ack": 8, "refusal": 1, "report": 9, "gm-report": 3}
    assert len(outbox) == sum(kinds.values())
    assert "send: 0 delivered" in run("send", now="2027-01-11T10:06:00Z")


def test_resolve_refuses_when_more_than_half_have_no_number(campaign):
    out = campaign("resolve", now="2027-01-04T00:00:00Z", code=1)
    assert "3 of the 3 players" in out and "ann, ben, cat" in out
    assert campaign.state()["turn"] == 1
    assert "turn 1 resolved" in campaign("resolve", "--force", now="2027-01-04T00:00:00Z")


def test_resolve_preview_saves_nothing(campaign):
    out = campaign("resolve", "--preview", "--force", now="2027-01-04T00:00:00Z")
    assert "GM REPORT" in out and "nothing was saved" in out
    assert campaign.state()["turn"] == 1
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    assert db.execute("select count(*) from turns").fetchone()[0] == 0


def test_undo_rolls_back_and_the_same_orders_resolve_the_same(campaign):
    mail = campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
    campaign("ingest", str(mail), now="2027-01-02T12:00:00Z")
    campaign("resolve", "--force", now="2027-01-04T00:00:00Z")
    first = campaign.state()
    assert "turn 1 undone" in campaign("undo", now="2027-01-04T00:01:00Z")
    assert campaign.state()["turn"] == 1
    campaign("resolve", "--force", now="2027-01-04T00:02:00Z")
    assert campaign.state()["boards"] == first["boards"]


def test_undo_refuses_once_reports_were_sent_unless_forced(campaign):
    campaign("resolve", "--force", now="2027-01-04T00:00:00Z")
    campaign("send", now="2027-01-04T00:01:00Z")
    out = campaign("undo", now="2027-01-04T00:02:00Z", code=1)
    assert "already sent" in out
    assert campaign.state()["turn"] == 2
    campaign("undo", "--force", now="2027-01-04T00:03:00Z")
    assert campaign.state()["turn"] == 1


def test_deadline_is_shown_in_the_gm_zone_and_utc_and_can_be_moved(campaign):
    out = campaign("deadline", "2027-01-05 20:00", "--earlier", now="2027-01-01T00:00:00Z")
    assert "Tuesday 05 January 2027, 20:00 UTC" in out
    out = campaign("deadline", "2027-01-05T20:00+01:00", "--earlier", now="2027-01-01T00:00:00Z")
    assert "19:00 UTC" in out
    assert campaign.state()["deadline"] == "2027-01-05T19:00:00Z"


def test_remind_mails_only_players_without_a_number(campaign):
    mail = campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
    campaign("ingest", str(mail), now="2027-01-02T12:00:00Z")
    out = campaign("remind", now="2027-01-02T13:00:00Z")
    assert "reminders queued for 2 players: ben, cat" in out


def test_start_twice_is_refused_and_changes_nothing(campaign):
    before = campaign.state()
    out = campaign("start", now="2027-01-01T00:00:00Z", code=1)
    assert "already started" in out
    assert campaign.state() == before


def test_a_second_command_on_a_busy_campaign_waits_then_refuses_and_changes_nothing(campaign, monkeypatch):
    import fcntl
    import os

    import gm.campaign.store

    monkeypatch.setattr(gm.campaign.store, "LOCK_WAIT_SECONDS", 0.2)
    handle = os.open(campaign.folder / ".gm.lock", os.O_RDWR)
    fcntl.flock(handle, fcntl.LOCK_EX)  # as a first gm command would hold it
    try:
        out = campaign("resolve", "--force", now="2027-01-04T00:00:00Z", code=1)
    finally:
        os.close(handle)
    assert "another gm command is working on this campaign" in out
    assert campaign.state()["turn"] == 1
    assert "turn 1 resolved" in campaign("resolve", "--force", now="2027-01-04T00:00:00Z")
