"""Who gets the deadline as a calendar file (gm.mail.calendar): a player who still has it
to meet, in every mail that sets or tells it (welcome, report, reminder, `gm deadline`,
`gm resume`); never a player who resigned, was dropped or has finished everything, nor
an observer, nor anyone once the campaign is over. Each later file of a turn replaces the
entry: the same UID, and a SEQUENCE past every move of the deadline."""

from __future__ import annotations

import re

from handoverkit import START, calendar_of, flat, new_game, text_of

TURN_1_RESOLVED = "2027-01-09T00:00:00Z"
ALSO = "2027-01-09T01:00:00Z"


def field(ics: str, name: str) -> str:
    return re.search(rf"^{name}[:;](.*?)\r?$", ics, re.M).group(1)


def test_welcomes_at_start_carry_the_first_deadline(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "postal")
    for player in ("alice", "bob", "carol"):
        welcome = game.outbox(kind="welcome", to=f"{player}@example.org")[0]
        ics = calendar_of(welcome)
        assert field(ics, "UID") == f"h-postal-turn-1-{player}@example.org"
        assert field(ics, "DTSTART") == "20270108T000000Z"
        assert "The deadline is attached as a calendar entry (h-postal-turn-1-deadline.ics)." in text_of(welcome)


def test_a_resigned_players_reports_carry_no_calendar_file(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic", observers=[{"name": "Olive", "email": "olive@example.org"}])
    game.order("alice", "RESIGN", now=START)
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    assert game.state(TURN_1_RESOLVED)["players"]["alice"]["resigned"]
    resigned = game.outbox(kind="report", to="alice@example.org")[-1]
    assert calendar_of(resigned) is None
    assert "calendar" not in text_of(resigned)
    for player in ("bob", "carol"):
        ics = calendar_of(game.outbox(kind="report", to=f"{player}@example.org")[-1])
        assert field(ics, "DTSTART") == "20270115T000000Z"
    assert calendar_of(game.outbox(kind="report", to="olive@example.org")[-1]) is None


def test_a_dropped_players_reports_carry_no_calendar_file(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "postal")
    game.gm("player", "drop", "carol", now=START)
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    assert calendar_of(game.outbox(kind="report", to="carol@example.org")[-1]) is None
    assert calendar_of(game.outbox(kind="report", to="bob@example.org")[-1]) is not None


def test_a_player_who_finished_gets_no_calendar_file_while_the_others_play_on(tmp_path, monkeypatch):
    tiny = {"name": "Tiny", "squares": 12, "shape": {"levels": [12]}}
    game = new_game(tmp_path, monkeypatch, "classic", board=tiny, options={"close_after": "all", "max_turns": 60})
    for week in range(1, 60):
        now = f"2027-{1 + week // 4:02d}-{1 + (week % 4) * 7:02d}T12:00:00Z"
        game.gm("resolve", "--force", now=now)
        state = game.state(now)
        finished = [p for p, facts in state["boards"]["A"]["players"].items() if facts["finished"]]
        if finished and not state["over"]:
            break
        assert not state["over"], f"the game ended with {finished} finished: choose another board"
    else:
        raise AssertionError("nobody finished before the end: choose another seed")
    for player in ("alice", "bob", "carol"):
        report = game.outbox(kind="report", to=f"{player}@example.org")[-1]
        assert (calendar_of(report) is None) == (player in finished), player


def test_gm_deadline_and_resume_carry_the_new_deadline_to_the_players_still_in(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic", observers=[{"name": "Olive", "email": "olive@example.org"}])
    game.order("alice", "RESIGN", now=START)
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    report = calendar_of(game.outbox(kind="report", to="bob@example.org")[-1])
    assert field(report, "SEQUENCE") == "0"
    game.gm("deadline", "+2d", now=ALSO)
    notices = {m["To"]: m for m in game.outbox(kind="notice") if "New deadline" in str(m["Subject"])}
    for player in ("bob", "carol"):
        notice = notices[f"{player}@example.org"]
        ics = calendar_of(notice)
        assert field(ics, "UID") == field(report, "UID").replace("bob", player)  # it updates the entry
        assert field(ics, "DTSTART") == "20270117T000000Z" and field(ics, "SEQUENCE") == "1"
        assert ("The new deadline is attached as a calendar entry (h-classic-turn-2-deadline.ics); it replaces"
                in flat(text_of(notice)))
    assert calendar_of(notices["alice@example.org"]) is None  # resigned: told, but nothing is due
    assert calendar_of(notices["olive@example.org"]) is None
    game.gm("pause", now=ALSO)
    paused = [m for m in game.outbox(kind="notice") if "paused" in str(m["Subject"])]
    assert paused and all(calendar_of(m) is None for m in paused)
    game.gm("resume", "2027-01-20 18:00", now=ALSO)
    resumed = {m["To"]: m for m in game.outbox(kind="notice") if "goes on" in str(m["Subject"])}
    ics = calendar_of(resumed["carol@example.org"])
    assert field(ics, "DTSTART") == "20270120T180000Z" and field(ics, "SEQUENCE") == "2"
    assert calendar_of(resumed["alice@example.org"]) is None


def test_a_reminder_after_a_moved_deadline_keeps_its_sequence(tmp_path, monkeypatch):
    """A reminder with SEQUENCE 0 after a move would not update the entry, or bring the old
    time back: it carries the latest."""
    game = new_game(tmp_path, monkeypatch, "postal")
    game.gm("deadline", "+1d", now=START)
    game.gm("remind", now=START)
    reminder = calendar_of(game.outbox(kind="reminder", to="bob@example.org")[-1])
    assert field(reminder, "SEQUENCE") == "1" and field(reminder, "DTSTART") == "20270109T000000Z"


def test_the_final_results_carry_no_calendar_file(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic", options={"max_turns": 1})
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    finals = game.outbox(kind="report")
    assert finals and all(calendar_of(m) is None for m in finals)


def test_the_dice_rulesets_calendar_says_the_dice_are_thrown_and_nothing_need_be_sent(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "doubles")
    ics = calendar_of(game.outbox(kind="welcome", to="bob@example.org")[0])
    assert field(ics, "SUMMARY") == "Handover Doubles: turn 1 is thrown"
    assert "you need send nothing" in ics.replace("\r\n ", "")
