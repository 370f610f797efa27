"""Absences and extension votes by mail (docs/rules/postal.md and docs/rules/classic.md,
Absences and extension votes; docs/campaign.md absence: and extend:). Driven by mail
through the CLI on the started three-player postal campaign of campaignfixtures (ann,
ben, cat; first deadline 2027-01-03 18:00 UTC, a week a turn) and on a classic one."""

from __future__ import annotations

import json
from datetime import timedelta

from handoverkit import outbox_of
from test_admin import edit_yaml, order_mail, outcomes, text
from test_dice_by_mail import FIRST_DEADLINE, new_campaign

from gm.campaign.folder import Campaign

NOW = "2027-01-01T10:00:00Z"
DATE = "Fri, 01 Jan 2027 10:00:00 +0000"


def send(campaign, player, lines, now=NOW, date=DATE):
    campaign("ingest", str(campaign.order(player, lines, date=date)), now=now)
    return outbox_of(campaign.folder, to=f"{player}@example.org")[-1]


def deadline(campaign) -> str:
    opened = Campaign.open(campaign.folder)
    try:
        return opened.row()["deadline"]
    finally:
        opened.close()


def test_absence_in_standing_mode_is_recorded_and_moves_no_deadline(campaign):
    reply = send(campaign, "ann", "ABSENCE 2027-01-02 2027-01-05\n")
    assert "Absence recorded: from 2027-01-02 to 2027-01-05 (4 days" in text(reply)
    assert "Deadlines do not move" in text(reply)
    assert deadline(campaign) == "2027-01-03T18:00:00Z"
    shown = json.loads(campaign("state", "--json", now=NOW))
    assert shown["absences"] == [{"player": "ann", "from": "2027-01-02", "until": "2027-01-05",
                                  "declared_at": "2027-01-01T10:00:00Z"}]


def extend_mode(data):
    data["absence"] = {"mode": "extend", "max_days": 14, "max_days_per_player": 28}


def votes_on(data):
    data["extend"] = {"quorum": 0.66, "max_days": 3, "per_turn": 1}


def notices(campaign):
    return [m for m in outbox_of(campaign.folder) if str(m["Subject"] or "").startswith("[trio] New deadline")]


def test_absence_in_extend_mode_moves_the_deadline_past_it_and_tells_everyone_without_naming(campaign):
    edit_yaml(campaign, extend_mode)
    reply = send(campaign, "ann", "ABSENCE 2027-01-03 2027-01-04\n")
    assert "Absence recorded" in text(reply)
    # the same time of day, on the day after the absence ends
    assert deadline(campaign) == "2027-01-05T18:00:00Z"
    told = notices(campaign)
    assert sorted(m["To"] for m in told) == ["ann@example.org", "ben@example.org", "cat@example.org"]
    for message in told:
        assert "a player is away" in text(message) and "Ann" not in text(message).replace("Hello Ann", "")
        assert "05 January 2027, 18:00" in text(message)


def test_the_new_calendar_file_replaces_the_old_one_with_a_higher_sequence(campaign):
    edit_yaml(campaign, extend_mode)
    send(campaign, "ann", "ABSENCE 2027-01-03 2027-01-04\n")
    files = [part.get_content() for m in notices(campaign) for part in m.iter_attachments()
             if part.get_content_type() == "text/calendar"]
    assert files and all("SEQUENCE:1" in (f if isinstance(f, str) else f.decode()) for f in files)


def test_an_absence_declared_under_24_hours_before_the_deadline_moves_nothing(campaign):
    edit_yaml(campaign, extend_mode)
    reply = send(campaign, "ann", "ABSENCE 2027-01-03 2027-01-04\n", now="2027-01-02T19:00:00Z",
                 date="Sat, 02 Jan 2027 19:00:00 +0000")
    assert "Absence recorded" in text(reply)
    assert deadline(campaign) == "2027-01-03T18:00:00Z"
    assert notices(campaign) == []


def test_the_deadline_moves_once_per_turn_and_absence(campaign):
    edit_yaml(campaign, extend_mode)
    send(campaign, "ann", "ABSENCE 2027-01-03 2027-01-04\n")
    send(campaign, "ann", "ABSENCE 2027-01-05 2027-01-06\n")
    # the second absence holds the new deadline and moves it once more; neither again
    assert deadline(campaign) == "2027-01-07T18:00:00Z"
    send(campaign, "ben", "ABSENCE 2027-01-01 2027-01-02\n")
    assert deadline(campaign) == "2027-01-07T18:00:00Z"
    assert len(notices(campaign)) == 6


def test_absence_limits_and_bad_dates_are_refused_and_change_nothing(campaign):
    cases = {
        "ABSENCE 2027-01-20 2027-02-10\n": "longer than the 14 days",
        "ABSENCE 2027-01-05 2027-01-02\n": "is before the first",
        "ABSENCE 2026-12-30 2027-01-02\n": "has passed already",
        "ABSENCE 2027-02-30 2027-03-01\n": "ABSENCE takes two dates",
        "ABSENCE next week\n": "ABSENCE takes two dates",
        "ABSENCE 2027-01-05\n": "ABSENCE takes two dates",
    }
    for lines, said in cases.items():
        reply = send(campaign, "ann", lines)
        assert said in text(reply), (lines, text(reply))
    assert json.loads(campaign("state", "--json", now=NOW))["absences"] == []


def test_absences_over_the_campaign_are_capped_per_player(campaign):
    send(campaign, "ann", "ABSENCE 2027-02-01 2027-02-14\n")
    send(campaign, "ann", "ABSENCE 2027-03-01 2027-03-14\n")
    reply = send(campaign, "ann", "ABSENCE 2027-04-01 2027-04-01\n")
    assert "past the 28 days of absence" in text(reply) and "28 declared already" in text(reply)
    # cancelled absences give their days back
    reply = send(campaign, "ann", "ABSENCE NONE\n")
    assert "2 absences of yours still to come are cancelled" in text(reply)
    assert "Absence recorded" in text(send(campaign, "ann", "ABSENCE 2027-04-01 2027-04-01\n"))


def test_absence_from_an_unauthenticated_mail_is_refused_and_recorded_nowhere(campaign):
    path = order_mail(campaign, "mallory@example.net", "ann", "wrong", "ABSENCE 2027-01-03 2027-01-04\n",
                      DATE)
    campaign("ingest", str(path), now=NOW)
    assert outcomes(campaign)[-1][0] == "refused"
    assert json.loads(campaign("state", "--json", now=NOW))["absences"] == []


def test_reminders_skip_a_player_who_is_away(campaign):
    send(campaign, "ann", "ABSENCE 2027-01-02 2027-01-05\n")
    campaign("remind", now="2027-01-02T12:00:00Z")
    reminded = {m["To"] for m in outbox_of(campaign.folder, kind="reminder")}
    assert "ann@example.org" not in reminded and "ben@example.org" in reminded


def test_extend_votes_are_refused_with_a_reason_when_the_campaign_takes_none(campaign):
    reply = send(campaign, "ann", "EXTEND 2\n")
    assert "takes no votes to extend" in text(reply)


def test_votes_below_quorum_say_how_many_are_in_and_needed(campaign):
    edit_yaml(campaign, votes_on)
    reply = send(campaign, "ann", "EXTEND 2\n")
    assert "1 vote in, 2 needed" in text(reply)
    assert deadline(campaign) == "2027-01-03T18:00:00Z"
    assert "extend votes: ann 2d (2 needed)" in campaign("status", now=NOW)


def test_votes_reaching_quorum_move_the_deadline_by_the_smallest_and_clear(campaign):
    edit_yaml(campaign, votes_on)
    send(campaign, "ann", "EXTEND 3\n")
    reply = send(campaign, "ben", "EXTEND 2\n")
    assert "completed the quorum" in text(reply)
    assert deadline(campaign) == "2027-01-05T18:00:00Z"
    assert json.loads(campaign("state", "--json", now=NOW))["extend_votes"] == []
    told = notices(campaign)
    assert len(told) == 3 and all("voted by mail to extend" in text(m) for m in told)
    # the per-turn cap: a turn is extended by vote once
    assert "extended by vote 1 time already" in text(send(campaign, "cat", "EXTEND 1\n"))


def test_a_withdrawn_vote_no_longer_counts(campaign):
    edit_yaml(campaign, votes_on)
    send(campaign, "ann", "EXTEND 2\n")
    assert "your vote is withdrawn" in text(send(campaign, "ann", "EXTEND NONE\n"))
    reply = send(campaign, "ben", "EXTEND 2\n")
    assert "1 vote in, 2 needed" in text(reply)
    assert deadline(campaign) == "2027-01-03T18:00:00Z"


def test_a_vote_out_of_range_or_after_the_deadline_is_refused(campaign):
    edit_yaml(campaign, votes_on)
    assert "from 1 to 3" in text(send(campaign, "ann", "EXTEND 4\n"))
    assert "from 1 to 3" in text(send(campaign, "ann", "EXTEND soon\n"))
    late = send(campaign, "ann", "EXTEND 2\n", now="2027-01-03T19:00:00Z", date="Sun, 03 Jan 2027 19:00:00 +0000")
    assert "not accepted: after the deadline" in late["Subject"]


def test_an_order_and_an_absence_in_one_mail_are_both_acknowledged(campaign):
    reply = send(campaign, "ann", "NUMBER 5\nABSENCE 2027-01-02 2027-01-05\n")
    assert "Order #1" in reply["Subject"] and "Absence recorded" in text(reply)


def test_a_next_turns_deadline_inside_an_absence_moves_past_it_in_extend_mode(campaign):
    edit_yaml(campaign, extend_mode)
    send(campaign, "ben", "ABSENCE 2027-01-09 2027-01-11\n")
    assert deadline(campaign) == "2027-01-03T18:00:00Z"
    for player in ("ann", "ben", "cat"):
        send(campaign, player, "NUMBER 3\n")
    campaign("turn", now="2027-01-03T19:00:00Z")
    # turn 2's deadline, 2027-01-10 18:00, is inside ben's absence: the day after it ends
    assert deadline(campaign) == "2027-01-12T18:00:00Z"
    assert any("a player is away" in text(m) for m in notices(campaign))


# -- a dice ruleset, where nobody has to write ----------------------------------------------


def classic_campaign(tmp_path):
    game = new_campaign(tmp_path, "classic", {"close_after": 2, "max_turns": 30})
    path = game.folder / "campaign.yaml"
    path.write_text(path.read_text() + "absence: {mode: extend}\nextend: {quorum: 0.5}\n")
    game.gm("start", now="2027-01-01T00:00:00Z")
    return game


def test_classic_refuses_extend_votes_with_a_reason_and_moves_no_deadline(tmp_path):
    game = classic_campaign(tmp_path)
    game.mail("ann", "EXTEND 2")
    game.gm("ingest", now="2027-01-02T00:00:00Z")
    kind, _, subject, said, _ = game.outbox()[-1]
    assert "nobody has to send an order this turn" in said
    assert json.loads(game.gm("status", now="2027-01-02T00:00:00Z") and game.gm("state", "--json", now=NOW))[
        "extend_votes"] == []


def test_classic_takes_an_absence_as_in_standing_mode_and_audits(tmp_path):
    game = classic_campaign(tmp_path)
    game.mail("ann", "ABSENCE 2027-01-07 2027-01-10")
    game.gm("ingest", now="2027-01-02T00:00:00Z")
    said = game.outbox()[-1][3]
    assert "Absence recorded" in said and "Deadlines do not move" in said
    state = json.loads(game.gm("state", "--json", now=NOW))
    assert state["absences"][0]["player"] == "ann"
    assert "away: ann 2027-01-07 to 2027-01-10" in game.gm("status", now="2027-01-02T00:00:00Z")
    deadline = FIRST_DEADLINE
    for _ in range(40):
        if game.state()["over"]:
            break
        game.gm("turn", now=deadline + timedelta(hours=1))
        deadline += timedelta(days=7)
    assert game.state()["over"]
    game.gm("reveal", now=deadline)
    game.gm("publish", now=deadline)
    game.gm("audit", str(game.folder / "archive"), now=deadline)  # exits 0: the record holds


def test_a_postal_campaign_with_moved_deadlines_finishes_and_passes_the_audit(campaign):
    edit_yaml(campaign, lambda data: (extend_mode(data), votes_on(data)))
    send(campaign, "ann", "ABSENCE 2027-01-03 2027-01-04\n")
    send(campaign, "ben", "EXTEND 1\n")
    send(campaign, "cat", "EXTEND 2\n")
    assert deadline(campaign) == "2027-01-06T18:00:00Z"
    for _ in range(40):
        if campaign.state()["over"]:
            break
        moment = deadline(campaign).replace("18:00:00Z", "19:00:00Z")
        campaign("resolve", "--force", now=moment)
    assert campaign.state()["over"]
    campaign("reveal", now="2027-12-01T00:00:00Z")
    campaign("publish", now="2027-12-01T00:00:00Z")
    campaign("audit", str(campaign.folder / "archive"), now="2027-12-01T00:00:00Z")


def test_reports_mark_a_player_away(campaign):
    send(campaign, "ann", "ABSENCE 2027-01-02 2027-01-05\n")
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    reports = outbox_of(campaign.folder, kind="report")
    assert reports and all("Away (a declared absence): Ann." in text(m) for m in reports)
