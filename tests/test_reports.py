"""Mail gm sends (docs/rules/postal.md, What players see, 3): every message multipart/alternative with a text and an
HTML part and proper headers; turn reports that show exactly what 2.6 allows plus the
player's own numbers; the GM report with everything; deadlines in the player's terms with
an .ics attachment; ready orders as mailto: links that never carry the password."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qs, urlsplit

import icalendar
import pytest
from campaignkit import HOSTILE_PLAYERS, PLAIN_PLAYERS, CampaignKit
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.campaign import turns


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A whole campaign with plain names (easy to search), a help, a refusal and reminders."""
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(tmp_path_factory.mktemp("reports") / "c", setenv=patch.setenv,
                                 players=PLAIN_PLAYERS)
        kit.order("alice", ["HELP"])
        kit.order("bob", ["NUMBER 9"])
        with kit.campaign() as campaign:
            turns.remind(campaign)
        kit.play_to_end()
        yield kit
        kit.close()


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message) -> str:
    return message.get_body(("html",)).get_content()


def test_every_mail_has_a_text_and_an_html_alternative(played):
    messages = played.outbox()
    assert {m.kind for m in messages} >= {"welcome", "gm-start", "ack", "refusal", "help", "reminder",
                                          "report", "gm-report"}
    for message in messages:
        alternatives = [p for p in message.walk() if p.get_content_type() == "multipart/alternative"]
        assert len(alternatives) == 1, message["Subject"]
        kinds = [p.get_content_type() for p in alternatives[0].iter_parts()]
        assert kinds == ["text/plain", "text/html"], message["Subject"]


def test_every_mail_has_date_from_to_and_a_unique_message_id(played):
    messages = played.outbox()
    ids = [m["Message-ID"] for m in messages]
    assert len(set(ids)) == len(ids)
    for message in messages:
        assert parsedate_to_datetime(message["Date"]).tzinfo is not None
        assert "gm@example.org" in message["From"] and "@" in message["To"]
        assert message["Subject"].startswith(f"{'Re: ' if message.kind in ('ack', 'refusal', 'help') else ''}[kit-2027]")


def test_3_replies_thread_and_say_they_are_automatic(played):
    for message in played.outbox():
        if message.kind in ("ack", "refusal", "help"):
            assert message["Auto-Submitted"] == "auto-replied"
            assert message["In-Reply-To"].startswith("<kit-") and message["References"]
        else:
            assert message["In-Reply-To"] is None


def test_turn_mail_subjects_name_campaign_and_turn(played):
    for message in played.outbox():
        if message.kind in ("report", "gm-report", "reminder", "ack"):
            assert re.search(r"[Tt]urns? \d+", message["Subject"]), message["Subject"]
    final = played.outbox(kind="report")[-1]
    assert final["Subject"].startswith("[kit-2027] Final results after turn ")


def report(played, turn: int, player: str):
    return next(m for m in played.outbox(kind="report", player=player) if m.turn == turn)


def test_2_6_report_shows_start_and_end_per_board_and_trapdoors(played):
    with played.campaign() as campaign:
        row = campaign.store.one("select * from turns where turn = 2")
        before = campaign.ruleset.load_state(json.loads(row["state_before"]))
        after = campaign.ruleset.load_state(json.loads(row["state_after"]))
    text = text_of(report(played, 2, "alice"))
    for board in ("A", "B"):
        assert f"BOARD {board} (" in text
        start, end = before.boards[board].pieces["carol"].square, after.boards[board].pieces["carol"].square
        assert f"- Carol Danvers: {start or 'Start'} -> {end}" in text
    trapdoor = after.boards["A"].trapdoor
    assert f"Trapdoor on turn 3: {'square ' + str(trapdoor) if trapdoor else 'none'}" in text


def test_2_4_report_marks_nmr_players(played):
    # the kit's dave sends no number on turns 2, 6, 10...
    text = text_of(report(played, 2, "alice"))
    assert re.search(r"- Dave Bowman: .*\(NMR\)", text)
    assert "NMR: no number arrived in time" in text
    assert "(chosen for you: no number arrived)" in text_of(report(played, 2, "dave"))


def test_2_6_own_copy_adds_own_number_numbers_left_and_nominations(played):
    text = text_of(report(played, 2, "alice"))
    own = text.split("YOUR NUMBERS")[1]
    assert re.search(r"you played \d; you now hold [\d, ]+", own)
    assert "Your trapdoor nomination on board A: 9" in own  # the kit nominates 5 + 2 * turn
    assert "played" not in text.split("YOUR NUMBERS")[0]  # nobody else's number


def test_2_3_final_results_show_placings_and_aggregate(played):
    final = played.outbox(kind="report", player="alice")[-1]
    text = text_of(final)
    assert "FINAL STANDINGS" in text and "aggregate" in text
    assert re.search(r"You finished \d+(st|nd|rd|th) with an aggregate of \d+", text)
    assert not final.get_payload()[1:] or all(p.get_content_type() != "text/calendar" for p in final.walk())


def test_gm_report_shows_numbers_routes_votes_and_nmr_choices(played):
    texts = "".join(text_of(m) for m in played.outbox(kind="gm-report"))
    assert re.search(r"Dave Bowman played \d \(NMR: chosen for them\)", texts)
    assert re.search(r"\+\d ->", texts) and ("by snake" in texts or "by ladder" in texts)
    assert "TRAPDOOR VOTES" in texts and "The Garden Path" in texts


# -- deadlines ----------------------------------------------------------------------------------


def test_deadline_in_utc_and_in_the_players_own_zone(played):
    assert "Europe/Berlin" in text_of(report(played, 1, "bob"))
    assert "America/New_York" in text_of(report(played, 1, "dave"))
    alice = text_of(report(played, 1, "alice"))
    assert "UTC" in alice and "Europe/Berlin" not in alice


def calendar_of(message):
    parts = [p for p in message.walk() if p.get_content_type() == "text/calendar"]
    assert len(parts) == 1, message["Subject"]
    assert parts[0].get_filename().endswith(".ics")
    return icalendar.Calendar.from_ical(parts[0].get_payload(decode=True))


def test_report_and_reminder_attach_the_deadline_as_ics(played):
    message = report(played, 1, "bob")
    event = next(iter(calendar_of(message).walk("VEVENT")))
    with played.campaign() as campaign:
        deadline = campaign.store.one("select deadline from turns where turn = 2")["deadline"]
    assert event.decoded("dtstart").strftime("%Y-%m-%dT%H:%M:%SZ") == deadline
    assert "turn 2" in str(event["summary"])
    reminder = played.outbox(kind="reminder")[0]
    assert next(iter(calendar_of(reminder).walk("VEVENT")))["uid"].startswith("kit-2027-turn-1-")


def test_reminder_and_report_for_one_turn_share_a_calendar_uid(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    kit.play_turn()
    kit.at(kit.now + timedelta(days=5))
    with kit.campaign() as campaign:
        turns.remind(campaign)
    uid = {str(next(iter(calendar_of(m).walk("VEVENT")))["uid"])
           for m in kit.outbox(player="carol") if m.kind in ("report", "reminder")}
    assert uid == {"kit-2027-turn-2-carol@example.org"}
    kit.close()


# -- ready orders ---------------------------------------------------------------------------------


def mailto_links(message) -> list[str]:
    return [unquote_html(h) for h in re.findall(r'href="(mailto:[^"]+)"', html_of(message))]


def unquote_html(href: str) -> str:
    return href.replace("&amp;", "&")


def test_report_has_a_mailto_link_per_number_still_held(played):
    message = report(played, 2, "alice")
    held = re.search(r"you now hold ([\d, ]+)", text_of(message)).group(1).split(", ")
    links = mailto_links(message)
    assert len(links) == len(held)
    for link, number in zip(links, held, strict=True):
        parts = urlsplit(link)
        query = parse_qs(parts.query)
        assert parts.path == "gm@example.org"
        body = query["body"][0].splitlines()
        assert body == ["GAME kit-2027", "PLAYER alice", "PASSWORD (your password)", "TURN 3", f"NUMBER {number}"]
        assert query["subject"] == ["[kit-2027] Order for turn 3"]


def test_a_ready_order_with_the_password_filled_in_is_accepted(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    kit.play_turn()
    link = mailto_links(next(m for m in kit.outbox(kind="report", player="carol")))[-1]
    body = parse_qs(urlsplit(link).query)["body"][0].replace("(your password)", "pw-carol")
    raw = kit.mail("carol", body)
    from gm.campaign.desk.inbound import Desk

    with kit.campaign() as campaign:
        outcome = Desk(campaign).handle(raw, source="ready", received_at=kit.now)
    assert outcome.outcome == "applied", outcome.problems
    kit.close()


def test_no_mail_but_the_welcome_carries_a_password(tmp_path, monkeypatch):
    players = [p.__class__(p.id, p.name, p.email, p.password, p.timezone) for p in HOSTILE_PLAYERS]
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=players)
    for _ in range(3):
        kit.play_turn()
    for message in kit.outbox():
        raw = message.as_string()
        for player in players:
            assert player.password not in raw, (message.kind, message["Subject"])
    kit.close()


def test_per_board_numbers_give_a_ready_order_per_board(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS,
                             options={"numbers": "per-board", "max_turns": 4})
    kit.play_turn(pick=lambda turn, player, held: held[0])
    message = next(iter(kit.outbox(kind="report", player="alice")))
    text = text_of(message)
    assert "  NUMBER A 2\n" in text and "  NUMBER B 2\n" in text
    bodies = [parse_qs(urlsplit(link).query)["body"][0] for link in mailto_links(message)]
    assert sum("NUMBER A " in b for b in bodies) == 5 and sum("NUMBER B " in b for b in bodies) == 5
    kit.close()


def test_2_5_a_double_turn_is_reported_as_one(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS,
                             options={"double_turns": True})
    for _ in range(5):
        kit.play_turn()
    subjects = [m["Subject"] for m in kit.outbox(kind="report", player="alice")]
    assert any(s.startswith("[kit-2027] Turns 5 and 6 report; turn 7 due") for s in subjects), subjects
    kit.close()


@settings(max_examples=100, deadline=None)
@given(uid=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=120),
       description=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_deadline_ics_is_byte_for_byte_a_whole_icalendar_build(uid, description):
    """A turn's calendar files are built once and each player's UID line put in place: the
    bytes must be those icalendar writes for that player's whole calendar."""
    from datetime import UTC, datetime

    from gm.mail import calendar

    deadline = datetime(2027, 3, 28, 18, 0, tzinfo=UTC)
    whole = calendar._calendar(uid, "Kit Cup: orders for turn 3 due", description, deadline, deadline, 0)
    assert calendar.deadline_ics(uid=uid, summary="Kit Cup: orders for turn 3 due", description=description,
                                 deadline=deadline, stamp=deadline) == whole
