"""The replies to order mail, through real mails handled by the order desk:
docs/rules/, Order mail "the reply says every problem found, line by line" in every ruleset, a
misspelt command answered with the command meant, an incomplete order said so in the
ack's subject, a late order's refusal that says nothing can be fixed and when the next
turn opens, deadlines in the player's own time zone, and orders while the campaign is
paused or from a player who has left."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml
from campaignkit import BOARDS, PLAIN_PLAYERS, CampaignKit

from gm.campaign.desk.inbound import Desk
from gm.campaign.standing import order_view


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message) -> str:
    return message.get_body(("html",)).get_content()


def problem_lines(message) -> list[str]:
    """The problems a refusal lists, in order."""
    return re.findall(r"^  - (.*)$", text_of(message), re.MULTILINE)


def kit_of(tmp_path: Path, monkeypatch, ruleset: str = "postal", **changes) -> CampaignKit:
    """A started campaign of PLAIN_PLAYERS (bob lives in Europe/Berlin, dave in
    America/New_York) of `ruleset`, campaign.yaml changed by `changes`."""
    kit = CampaignKit.create(tmp_path / ruleset, setenv=monkeypatch.setenv, players=PLAIN_PLAYERS, start=False)
    path = kit.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if ruleset != "postal":
        data |= {"ruleset": ruleset, "boards": {"A": str(BOARDS / "milton-bradley.yaml")},
                 "options": {"max_turns": 60}, "seed": 2**128 + 17}
    data |= changes
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    kit.start()
    return kit


def last_reply(kit: CampaignKit, player: str | None = None):
    return [m for m in kit.outbox(player=player) if m.kind in ("ack", "refusal", "help")][-1]


def stranger(kit: CampaignKit, body: str):
    """A mail from an address no player registered, through the desk."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "someone@example.net", "gm@example.org", "orders"
    message["Message-ID"] = f"<stranger-{kit.sent}@example.net>"
    message.set_content(body)
    kit.sent += 1
    with kit.campaign() as campaign:
        Desk(campaign).handle(bytes(message), source=f"stranger:{kit.sent}", received_at=kit.now)
    return kit.outbox()[-1]


# -- docs/rules/, Order mail: every problem found, line by line --------------------------------------


def test_3_postal_lists_every_problem_of_every_kind_each_on_its_line(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    # lines 3..6: a bad number, an unknown board (found by merge), a bad square, a bad turn
    outcome = kit.order("alice", ["NUMBER 9", "TRAPDOOR X 5", "TRAPDOOR H 0", "TURN two"])
    assert outcome.outcome == "refused"
    assert problem_lines(last_reply(kit)) == [
        'line 3: NUMBER needs a whole number from 1 to 6, got "9"',
        "line 4: TRAPDOOR X 5: there is no board X",
        'line 5: TRAPDOOR needs a square number (1 or more) or NONE, got "0"',
        'line 6: TURN needs a whole turn number (1 or more), got "two"',
    ]
    # a number given twice (the reader's) and an unknown board (merge's), both told
    kit.order("alice", ["NUMBER 6", "NUMBER 2", "TRAPDOOR X 5"])
    assert problem_lines(last_reply(kit)) == [
        'line 4: NUMBER given twice with different values: line 3 says "NUMBER 6", line 4 says "NUMBER 2"',
        "line 5: TRAPDOOR X 5: there is no board X",
    ]


def test_3_postal_problems_of_the_game_state_carry_their_line(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    kit.play_turn()
    with kit.campaign() as campaign:
        held = order_view(campaign, "alice")["hands"][0]["held"]
    gone = next(n for n in range(1, 7) if n not in held)
    kit.order("alice", ["TRAPDOOR A 7", f"NUMBER {gone}", "TRAPDOOR B 999", "TURN 1"])
    lines = problem_lines(last_reply(kit))
    assert lines[0] == f"line 4: you do not hold {gone} this cycle (you hold {', '.join(map(str, held))})"
    assert lines[1].startswith("line 5: board B has squares 1 to ") and lines[1].endswith("not 999")
    assert lines[2] == "line 6: TURN 1: the turn now taking orders is 2"
    assert len(lines) == 3
    with kit.campaign() as campaign:
        # nothing counted, not even the good nomination on line 3
        assert order_view(campaign, "alice")["nominations"] == []


def test_3_a_late_order_lists_its_other_problems_after_the_lateness(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    with kit.campaign() as campaign:
        deadline = campaign.deadline()
    kit.at(deadline + timedelta(minutes=5))
    kit.order("alice", ["NUMBER 8", "TRAPDOOR Q 3"])
    lines = problem_lines(last_reply(kit))
    assert lines[0].startswith("the deadline for turn 1 was ")
    assert lines[1:] == ['line 3: NUMBER needs a whole number from 1 to 6, got "8"',
                         "line 4: TRAPDOOR Q 3: there is no board Q"]


def test_4_5_advanced_lists_every_build_move_and_turn_problem_on_its_line(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch, "advanced")
    # every piece is on Start: a build from there fails the check of docs/rules/classic.md, Order mail
    kit.order("alice", ["BUILD LADDER 1", "MOVE 3", "BUILD SNAKE 0", "TURN 9"])
    reply = last_reply(kit)
    assert reply.kind == "refusal"
    lines = problem_lines(reply)
    assert [line.split(":")[0] for line in lines] == ["line 3", "line 4", "line 5", "line 5", "line 6"]
    assert lines[0].startswith("line 3: you cannot build from Start")
    assert lines[1] == 'line 4: MOVE takes no value; write just MOVE (got "MOVE 3")'
    assert any(line.startswith("line 5: one action per turn: line 3 already says") for line in lines)
    assert any(line.startswith("line 5: you cannot build from Start") for line in lines)
    assert lines[4] == "line 6: TURN 9: the turn now taking orders is 1"


def test_4_5_advanced_a_single_failing_build_is_told_once_on_its_line(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch, "advanced")
    kit.order("alice", ["BUILD SNAKE 4"])
    assert [line.split(":")[0] for line in problem_lines(last_reply(kit))] == ["line 3"]


@pytest.mark.parametrize("ruleset", ["classic", "doubles"])
def test_4_5_dice_rulesets_list_every_problem_on_its_line(tmp_path, monkeypatch, ruleset):
    kit = kit_of(tmp_path, monkeypatch, ruleset)
    kit.order("alice", ["RESIGN later", "RESING", "TURN 4", "NUMBER 3"])
    assert problem_lines(last_reply(kit)) == [
        'line 3: RESIGN takes nothing, or NONE to withdraw it: write RESIGN or RESIGN NONE; got "RESIGN later"',
        "line 4: RESING is not a command; did you mean RESIGN?",
        "line 5: TURN 4: the turn now taking orders is 1",
        "line 6: NUMBER is not a command of this game; its commands are RESIGN, ABSENCE, EXTEND",
    ]


# -- a misspelt command, and an incomplete order ----------------------------------------


def test_3_a_misspelt_command_refuses_the_message_and_names_the_command_meant(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    kit.order("alice", ["TRAPDOOR A 5", "NUMBR 5"])
    reply = last_reply(kit)
    assert reply.kind == "refusal" and "not accepted" in reply["Subject"]
    assert problem_lines(reply) == ["line 4: NUMBR is not a command; did you mean NUMBER?"]
    assert "did you mean NUMBER?" in html_of(reply)


@pytest.mark.parametrize("ruleset", ["postal", "advanced"])
def test_3_greetings_and_prose_stay_ignored_lines_not_misspelt_commands(tmp_path, monkeypatch, ruleset):
    kit = kit_of(tmp_path, monkeypatch, ruleset)
    order = "NUMBER 4" if ruleset == "postal" else "MOVE"
    kit.order("alice", ["Hi GM", order, "Name: Alice", "Same here", "More soon", "Thanks, see you"])
    reply = last_reply(kit)
    assert reply.kind == "ack", text_of(reply)
    text = text_of(reply)
    for n, line in enumerate(["Name: Alice", "Same here", "More soon", "Thanks, see you"], 5):
        assert f"line {n}: {line}" in text


def test_2_4_an_ack_says_in_its_subject_when_the_order_still_lacks_a_number(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    kit.order("alice", ["TRAPDOOR A 5"])
    incomplete = last_reply(kit)
    assert incomplete.kind == "ack"
    assert incomplete["Subject"].endswith("for turn 1 accepted, but incomplete")
    assert "not complete yet: it still needs a number" in text_of(incomplete)
    kit.order("alice", ["NUMBER 2"])
    complete = last_reply(kit)
    assert complete["Subject"].endswith("for turn 1 accepted")
    assert "not complete" not in text_of(complete)


def test_4_5_an_advanced_ack_without_an_action_says_it_is_incomplete(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch, "advanced")
    kit.order("alice", ["TURN 1"])
    reply = last_reply(kit)
    assert reply["Subject"].endswith("accepted, but incomplete")
    assert "it still needs an action, MOVE or BUILD" in text_of(reply)
    kit.order("alice", ["MOVE"])
    assert last_reply(kit)["Subject"].endswith("for turn 1 accepted")


def test_4_5_a_dice_ack_is_never_incomplete(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch, "classic")
    kit.order("alice", ["TURN 1"])
    assert last_reply(kit)["Subject"].endswith("for turn 1 accepted")


# -- late orders and deadlines in the player's own zone ----------------------------------


def test_2_4_a_late_refusal_says_nothing_can_be_fixed_and_when_the_next_turn_opens(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch, timezone="Asia/Tokyo")
    with kit.campaign() as campaign:
        deadline = campaign.deadline()
    kit.at(deadline + timedelta(hours=1))
    kit.order("bob", ["NUMBER 3"])
    reply = last_reply(kit)
    text = " ".join(text_of(reply).split())
    assert reply["Subject"].endswith("not accepted: after the deadline")
    assert "Fix the lines above" not in text and "Fix the lines above" not in html_of(reply)
    assert "Nothing can be fixed now: the deadline for turn 1 has passed" in text
    assert "The next turn's orders open when the GM resolves turn 1 and its report goes out" in text
    # the deadline it missed, in UTC and bob's own zone (Europe/Berlin), not the campaign's,
    # stated as every mail states it (mail/_when.txt)
    berlin = deadline.astimezone(ZoneInfo("Europe/Berlin"))
    utc = deadline.astimezone(ZoneInfo("UTC"))
    assert (f"the deadline for turn 1 was {utc.strftime('%A %d %B %Y, %H:%M')} UTC "
            f"({berlin.strftime('%A %d %B %Y, %H:%M')} Europe/Berlin (CET))") in text
    assert "Asia/Tokyo" not in text


def test_3_every_reply_shows_the_deadline_in_the_readers_own_zone(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch, timezone="Asia/Tokyo")
    kit.order("bob", ["NUMBER 3"])  # an ack
    kit.order("bob", ["NUMBER 9"])  # a refusal
    kit.order("bob", ["HELP"])
    kit.order("alice", ["NUMBER 9"])  # alice has no zone of her own: the campaign's
    bob = [m for m in kit.outbox(player="bob") if m.kind in ("ack", "refusal", "help")]
    assert [m.kind for m in bob] == ["ack", "refusal", "help"]
    for message in bob:
        # the help templates show no deadline today; when they do, it must be bob's
        assert "Europe/Berlin" in text_of(message) or message.kind == "help", message.kind
        assert "Asia/Tokyo" not in text_of(message) and "Asia/Tokyo" not in html_of(message)
    refusal = " ".join(text_of(bob[1]).split())
    assert "Fix the lines above" in refusal and "The deadline for turn 1: " in refusal
    assert "Asia/Tokyo" in text_of(last_reply(kit, "alice"))
    # a stranger is told the campaign's zone
    assert "Asia/Tokyo" in text_of(stranger(kit, "PLAYER bob\nPASSWORD wrong\nNUMBER 3\n"))


# -- paused and dropped ------------------------------------------------------------------


def _write(kit: CampaignKit, sql: str, args: tuple = ()) -> None:
    # the columns of migration 006, set directly: the GM commands may not be there yet
    with kit.campaign() as campaign, campaign.store.transaction() as db:
        db.execute(sql, args)


def test_issue_14_a_paused_campaign_refuses_every_order_and_still_lists_its_problems(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    _write(kit, "update campaign set paused = 1")
    assert kit.order("alice", ["NUMBER 3"]).outcome == "refused"
    good = last_reply(kit)
    assert good["Subject"].endswith("not accepted: the game is paused")
    assert problem_lines(good) == [
        "the game is paused by the GM: no order is taken until it resumes, "
        "and then every player gets a mail with the new deadline"]
    assert "Fix the lines above" not in text_of(good)
    kit.order("alice", ["NUMBER 9", "TRAPDOOR X 4"])
    lines = problem_lines(last_reply(kit))
    assert lines[0].startswith("the game is paused") and lines[1:] == [
        'line 3: NUMBER needs a whole number from 1 to 6, got "9"', "line 4: TRAPDOOR X 4: there is no board X"]
    assert kit.order("alice", ["HELP"]).outcome == "help"
    with kit.campaign() as campaign:
        assert order_view(campaign, "alice")["receipt"] == 0  # nothing was taken


def test_issue_14_a_player_who_left_is_refused_whatever_they_send_but_gets_help(tmp_path, monkeypatch):
    kit = kit_of(tmp_path, monkeypatch)
    _write(kit, "update players set dropped_turn = 1 where id = ?", ("carol",))
    for lines in (["NUMBER 3"], ["NUMBER 3", "TRAPDOOR A 4"], ["TURN 1"]):
        assert kit.order("carol", lines).outcome == "refused"
        reply = last_reply(kit, "carol")
        assert reply["Subject"].endswith("not accepted: you have left the game")
        assert problem_lines(reply) == [
            "you have left this game, so no order of yours is taken; "
            "write to the GM at gm@example.org if that is a mistake"]
        assert "Your standing order" not in text_of(reply)
    assert kit.order("carol", ["HELP"]).outcome == "help"
    assert kit.order("alice", ["NUMBER 3"]).outcome == "applied"  # the others play on
