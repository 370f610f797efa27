"""The GM's administration (CONTRACT.md commands): `gm player replace|drop|email|password`,
`gm pause`, `gm resume`, `gm deadline`, and observers. Driven through the CLI on a started
three-player campaign (campaignfixtures.campaign: ann, ben, cat; first deadline
2027-01-03 18:00 UTC, a week a turn, `nmr: lowest`)."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage

import yaml
from handoverkit import outbox_of

from gm.campaign.folder import Campaign

NOW = "2027-01-02T10:00:00Z"
PASSWORDS = {"ann": "ann-pass-1", "ben": "ben-pass-2", "cat": "cat-pass-3"}


def outbox(campaign, kind=None, to=None):
    """Every queued mail, parsed, with its outbox kind."""
    return outbox_of(campaign.folder, kind=kind, to=to)


def text(message) -> str:
    return message.get_body(("plain",)).get_content()


def order_mail(campaign, sender: str, player: str, password: str, lines: str, date: str):
    """An order mail from any address (the fixture's own writes only the three players')."""
    campaign.count += 1
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm@example.org"
    message["Subject"] = "orders"
    message["Date"] = date
    message["Message-ID"] = f"<{campaign.count}.admin@example.org>"
    message.set_content(f"PLAYER {player}\nPASSWORD {password}\n{lines}")
    campaign.mails.mkdir(exist_ok=True)
    path = campaign.mails / f"{campaign.count}.eml"
    path.write_bytes(bytes(message))
    return path


def outcomes(campaign) -> list[tuple[str, str]]:
    opened = Campaign.open(campaign.folder)
    try:
        return [(r["outcome"], r["player"]) for r in opened.store.rows("select * from messages order by id")]
    finally:
        opened.close()


def edit_yaml(campaign, change) -> None:
    path = campaign.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


def password_in(message) -> str:
    return re.search(r"password: (\S+)", text(message)).group(1)


# -- gm player replace ----------------------------------------------------------------------


def test_replace_hands_the_seat_with_its_pieces_numbers_and_the_open_order(campaign):
    campaign("ingest", str(campaign.order("ben", "NUMBER 5\n", date="Sat, 02 Jan 2027 09:00:00 +0000")), now=NOW)
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    before = campaign.state()
    campaign("ingest", str(campaign.order("ben", "NUMBER 2\n", date="Mon, 04 Jan 2027 09:00:00 +0000")),
             now="2027-01-04T10:00:00Z")
    out = campaign("player", "replace", "ben", "dora", "--name", "Dora Maar", "--email", "Dora@Example.org",
                   now="2027-01-04T11:00:00Z")
    assert "dora holds ben's seat" in out
    after = campaign.state()
    # the seat keeps its place and everything it holds, keyed by its new holder
    assert list(after["players"]) == ["ann", "dora", "cat"]
    assert after["players"]["dora"]["numbers_left"] == before["players"]["ben"]["numbers_left"]
    for board in after["boards"]:
        assert after["boards"][board]["players"]["dora"] == before["boards"][board]["players"]["ben"]
    assert after["players"]["dora"]["held_by"] == ["ben"]
    assert after["players"]["ann"]["held_by"] == []
    # ben's order for the open turn stands for dora until she sends her own
    orders = campaign("orders", "--full", now="2027-01-04T11:00:00Z")
    assert re.search(r"dora\s+ok\s+\(order #1\)\s+number 2", orders), orders


def test_replace_mails_new_a_password_and_tells_old_whose_password_and_address_stop_working(campaign):
    campaign("player", "replace", "ben", "dora", "--name", "Dora Maar", "--email", "dora@example.org", now=NOW)
    seat = outbox(campaign, to="dora@example.org")
    assert [m.kind for m in seat] == ["welcome"]  # a password in clear: its body goes once sent
    assert "take over Ben's seat" in str(seat[0]["Subject"])
    told = outbox(campaign, to="ben@example.org")[-1]
    assert "Dora Maar takes over your seat" in str(told["Subject"])
    assert "Your password no longer works" in " ".join(text(told).split())
    password = password_in(seat[0])
    date = "Sat, 02 Jan 2027 11:00:00 +0000"
    campaign("ingest", str(campaign.order("ben", "NUMBER 3\n", date=date)),
             str(order_mail(campaign, "ben@example.org", "dora", password, "NUMBER 3\n", date)),
             str(order_mail(campaign, "dora@example.org", "dora", password, "NUMBER 4\n", date)), now=NOW)
    assert outcomes(campaign) == [("refused", None), ("refused", None), ("applied", "dora")]


def test_replace_refuses_a_taken_id_an_unknown_seat_and_a_bad_address_and_changes_nothing(campaign):
    state = campaign.state()
    mails = len(outbox(campaign))
    for args, why in (
        (("ben", "Ann", "--email", "x@example.org"), "the id Ann is taken"),
        (("zed", "dora", "--email", "dora@example.org"), "no player 'zed'"),
        (("ben", "dora", "--email", "not-an-address"), "is not an address"),
        (("ben", "dora", "--email", "cat@example.org"), "is cat's address"),
        (("ben", "do ra", "--email", "dora@example.org"), "must be letters"),
    ):
        out = campaign("player", "replace", *args[:2], "--name", "Dora", *args[2:], now=NOW, code=1)
        assert why in out
    assert campaign.state() == state
    assert len(outbox(campaign)) == mails


def test_a_replaced_player_cannot_be_replaced_again_but_the_new_holder_can(campaign):
    campaign("player", "replace", "ben", "dora", "--name", "Dora", "--email", "dora@example.org", now=NOW)
    out = campaign("player", "replace", "ben", "ed", "--name", "Ed", "--email", "ed@example.org", now=NOW, code=1)
    assert "ben no longer plays: dora holds the seat" in out
    campaign("player", "replace", "dora", "ed", "--name", "Ed", "--email", "ed@example.org", now=NOW)
    assert campaign.state()["players"]["ed"]["held_by"] == ["ben", "dora"]


def test_campaign_yaml_may_list_a_replaced_seat_as_at_start_or_as_now(campaign):
    campaign("player", "replace", "ben", "dora", "--name", "Dora", "--email", "dora@example.org", now=NOW)
    assert "turn 1" in campaign("status", now=NOW)  # campaign.yaml still says ben: fine

    def as_now(data):
        data["players"][1] = {"id": "dora", "name": "Dora Maar", "email": "dora@example.org"}

    edit_yaml(campaign, as_now)
    out = campaign("status", now=NOW)
    assert "Dora Maar" in out  # a name is free to edit, for the seat's holder too

    def someone_else(data):
        data["players"][1] = {"id": "eve", "name": "Eve", "email": "eve@example.org"}

    edit_yaml(campaign, someone_else)
    out = campaign("status", now=NOW, code=1)
    assert "player eve (added)" in out and "player ben (removed)" in out


def test_undo_refuses_to_give_a_seat_back_to_its_former_holder(campaign):
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("player", "replace", "ben", "dora", "--name", "Dora", "--email", "dora@example.org",
             now="2027-01-03T20:00:00Z")
    out = campaign("undo", now="2027-01-03T21:00:00Z", code=1)
    assert "dora took over a seat after turn 1 was resolved" in out
    assert campaign.state()["turn"] == 2


# -- gm player drop ---------------------------------------------------------------------------


def test_drop_moves_the_player_by_the_nmr_option_waits_for_nobody_and_tells_them(campaign):
    out = campaign("player", "drop", "cat", now=NOW)
    assert "cat has left the game" in out
    told = outbox(campaign, to="cat@example.org")[-1]
    assert "You have left" in str(told["Subject"])
    state = campaign.state()
    assert state["players"]["cat"]["dropped"] is True
    assert state["players"]["ann"]["dropped"] is False
    # cat's order is not taken, and the turn does not wait for cat nor count cat as missing
    date = "Sat, 02 Jan 2027 11:00:00 +0000"
    campaign("ingest", str(campaign.order("cat", "NUMBER 6\n", date=date)),
             str(campaign.order("ann", "NUMBER 6\n", date=date)),
             str(campaign.order("ben", "NUMBER 6\n", date=date)), now=NOW)
    assert outcomes(campaign)[0] == ("refused", "cat")
    turn = campaign("turn", now="2027-01-02T12:00:00Z")  # before the deadline: due since all are in
    assert "turn 1 resolved" in turn
    after = campaign.state()
    assert after["players"]["cat"]["numbers_left"] == [2, 3, 4, 5, 6]  # nmr: lowest played 1 for cat


def test_drop_after_an_acknowledged_order_plays_that_order_and_leaves_from_the_next_turn(campaign):
    """docs/audit.md, What the GM cannot choose: an acknowledged order is played, so a player
    dropped after one was acknowledged for the open turn leaves from the next turn."""
    date = "Sat, 02 Jan 2027 11:00:00 +0000"
    campaign("ingest", str(campaign.order("cat", "NUMBER 6\n", date=date)), now=NOW)
    assert outcomes(campaign)[0] == ("applied", "cat")
    campaign("player", "drop", "cat", now=NOW)
    assert "from turn 2 on" in " ".join(outbox(campaign, to="cat@example.org")[-1].get_body(("plain",)).get_content().split())
    campaign("ingest", str(campaign.order("ann", "NUMBER 5\n", date=date)),
             str(campaign.order("ben", "NUMBER 5\n", date=date)), now=NOW)
    assert "turn 1 resolved" in campaign("turn", now="2027-01-02T12:00:00Z")
    after = campaign.state()
    assert after["players"]["cat"]["numbers_left"] == [1, 2, 3, 4, 5]  # the 6 acknowledged was played
    assert after["players"]["cat"]["dropped"] is True
    opened = Campaign.open(campaign.folder)
    try:
        assert opened.dropped_players(1) == set() and opened.dropped_players(2) == {"cat"}
    finally:
        opened.close()


def test_a_dropped_player_is_not_counted_by_the_more_than_half_rule(campaign):
    campaign("player", "drop", "cat", now=NOW)
    campaign("player", "drop", "ben", now=NOW)
    campaign("ingest", str(campaign.order("ann", "NUMBER 6\n", date="Sat, 02 Jan 2027 11:00:00 +0000")), now=NOW)
    # one of one player still in the game has ordered: nothing to force
    assert "turn 1 resolved" in campaign("resolve", now="2027-01-03T19:00:00Z")


# -- gm player email / password ---------------------------------------------------------------


def test_email_change_tells_both_addresses_and_moves_the_orders_to_the_new_one(campaign):
    out = campaign("player", "email", "ann", "ann@new.example.org", now=NOW)
    assert "ann's address is now ann@new.example.org (was ann@example.org)" in out
    assert len(outbox(campaign, kind="notice", to="ann@example.org")) == 1
    assert len(outbox(campaign, kind="notice", to="ann@new.example.org")) == 1
    date = "Sat, 02 Jan 2027 11:00:00 +0000"
    campaign("ingest", str(campaign.order("ann", "NUMBER 2\n", date=date)),
             str(order_mail(campaign, "ann@new.example.org", "ann", PASSWORDS["ann"], "NUMBER 2\n", date)), now=NOW)
    assert outcomes(campaign) == [("refused", None), ("applied", "ann")]
    # campaign.yaml still naming the old address is no difference from what was fixed
    assert "turn 1" in campaign("status", now=NOW)
    assert campaign("player", "email", "ann", "ben@example.org", now=NOW, code=1).count("ben's address") == 1


def test_new_password_is_mailed_and_the_old_one_stops_working(campaign):
    campaign("player", "password", "ann", now=NOW)
    mail = outbox(campaign, kind="reset", to="ann@example.org")[-1]
    password = password_in(mail)
    assert password != PASSWORDS["ann"]
    date = "Sat, 02 Jan 2027 11:00:00 +0000"
    campaign("ingest", str(campaign.order("ann", "NUMBER 2\n", date=date)),
             str(order_mail(campaign, "ann@example.org", "ann", password, "NUMBER 3\n", date)), now=NOW)
    assert outcomes(campaign) == [("refused", None), ("applied", "ann")]


# -- gm pause / resume --------------------------------------------------------------------------


def observe(campaign):
    edit_yaml(campaign, lambda d: d.update(observers=[{"name": "Lewis", "email": "lewis@example.org"}]))


def test_a_paused_campaign_resolves_nothing_even_forced_and_refuses_orders(campaign):
    observe(campaign)
    campaign("player", "drop", "cat", now=NOW)
    campaign("pause", now=NOW)
    told = {m["To"] for m in outbox(campaign, kind="notice") if "is paused" in str(m["Subject"])}
    assert told == {"ann@example.org", "ben@example.org", "lewis@example.org"}  # not cat, who left
    assert "paused" in campaign("resolve", "--force", now="2027-01-04T00:00:00Z", code=1)
    # gm turn runs from cron: it resolves nothing, --force or not, says why and exits 0
    assert "resolve: the campaign is paused" in campaign("turn", "--force", now="2027-01-04T00:00:00Z")
    assert campaign.state()["turn"] == 1 and campaign.state()["paused"] is True
    # before the deadline, and a good order: refused only because the game is paused
    campaign("ingest", str(campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 11:00:00 +0000")),
             now="2027-01-02T12:00:00Z")
    assert outcomes(campaign) == [("refused", "ann")]
    assert "paused" in text(outbox(campaign, kind="refusal")[-1])
    assert "already paused" in campaign("pause", now=NOW, code=1)


def test_resume_sets_the_deadline_turn_days_from_now_or_when_given_and_tells_everyone(campaign):
    observe(campaign)
    assert "not paused" in campaign("resume", now=NOW, code=1)
    campaign("pause", now=NOW)
    campaign("resume", now="2027-01-10T12:00:00Z")
    assert campaign.state()["deadline"] == "2027-01-17T12:00:00Z"
    assert campaign.state()["paused"] is False
    told = [m for m in outbox(campaign, kind="notice") if "goes on" in str(m["Subject"])]
    assert {m["To"] for m in told} == {"ann@example.org", "ben@example.org", "cat@example.org", "lewis@example.org"}
    assert "Sunday 17 January 2027, 12:00 UTC" in text(told[0])
    campaign("pause", now="2027-01-10T13:00:00Z")
    assert "passed already" in campaign("resume", "2027-01-09 12:00", now="2027-01-10T13:00:00Z", code=1)
    campaign("resume", "2027-01-20 18:00", now="2027-01-10T13:00:00Z")
    assert campaign.state()["deadline"] == "2027-01-20T18:00:00Z"


# -- gm deadline ----------------------------------------------------------------------------------


def test_deadline_plus_3d_counts_from_the_current_deadline_not_from_now(campaign):
    # the evidence: "extending" from now shortened a deadline (7 Dec became 26 Nov)
    campaign("deadline", "+3d", now="2027-01-01T00:00:00Z")
    assert campaign.state()["deadline"] == "2027-01-06T18:00:00Z"


def test_deadline_earlier_than_the_current_one_needs_earlier_and_everyone_is_told(campaign):
    observe(campaign)
    out = campaign("deadline", "2027-01-02 18:00", now="2027-01-01T00:00:00Z", code=1)
    assert "earlier than the current deadline" in out and "--earlier" in out
    assert campaign.state()["deadline"] == "2027-01-03T18:00:00Z"
    campaign("deadline", "2027-01-02 18:00", "--earlier", now="2027-01-01T00:00:00Z")
    assert campaign.state()["deadline"] == "2027-01-02T18:00:00Z"
    told = [m for m in outbox(campaign, kind="notice") if "New deadline" in str(m["Subject"])]
    assert {m["To"] for m in told} == {"ann@example.org", "ben@example.org", "cat@example.org", "lewis@example.org"}
    assert all("Saturday 02 January 2027, 18:00 UTC" in text(m) for m in told)
    assert "moved the deadline of turn 1 earlier" in " ".join(text(told[0]).split())


def test_deadline_refuses_a_time_past_or_while_paused(campaign):
    assert "passed already" in campaign("deadline", "2026-12-31 18:00", "--earlier",
                                        now="2027-01-01T00:00:00Z", code=1)
    campaign("pause", now=NOW)
    assert "gm resume WHEN sets the deadline" in campaign("deadline", "+1d", now=NOW, code=1)
    assert "paused" in campaign("deadline", now=NOW)


# -- observers ------------------------------------------------------------------------------------


def test_observers_get_every_public_report_and_nothing_private(campaign):
    observe(campaign)
    campaign("ingest", str(campaign.order("ann", "NUMBER 5\n", date="Sat, 02 Jan 2027 09:00:00 +0000")), now=NOW)
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    reports = [m for m in outbox(campaign, kind="report") if m["To"] == "lewis@example.org"]
    assert len(reports) == 1
    body = text(reports[0])
    assert "Hello Lewis" in body and "Turn 2 is due" in body
    # what only players see: their numbers left, the order lines with a password
    assert "PASSWORD" not in body and "numbers" not in body.lower().replace("numbers each", "")
    assert json.dumps(body)  # a real text part


# -- gm status ------------------------------------------------------------------------------------


def test_status_shows_what_became_of_each_players_mail_this_turn(campaign):
    date = "Sat, 02 Jan 2027 11:00:00 +0000"
    wrong = order_mail(campaign, "ben@example.org", "ben", "not-my-password", "NUMBER 2\n", date)
    held = order_mail(campaign, "ann@example.org", "ann", PASSWORDS["ann"], "NUMBER 9\n", date)
    good = campaign.order("ann", "NUMBER 2\n", date=date)
    campaign("ingest", str(wrong), str(held), str(good), now=NOW)
    campaign("player", "drop", "cat", now=NOW)
    out = campaign("status", now=NOW)
    lines = out.splitlines()
    ann = lines.index(next(line for line in lines if line.strip().startswith("ann ")))
    assert "ok, order #1" in lines[ann]
    assert "refused:" in lines[ann + 1] and "9" in lines[ann + 1]  # the NUMBER 9 it refused, and why
    ben = lines.index(next(line for line in lines if line.strip().startswith("ben ")))
    assert "MISSING" in lines[ben]
    assert "refused:" in lines[ben + 1]  # the wrong password, matched by sender
    assert any(line.strip().startswith("cat ") and "left the game" in line for line in lines)
    assert "PAUSED" not in out
    campaign("pause", now=NOW)
    assert "turn 1: PAUSED" in campaign("status", now=NOW)


def test_status_shows_where_everyone_stands_during_play(campaign):
    campaign("ingest", str(campaign.order("ann", "NUMBER 5\n", date="Sat, 02 Jan 2027 09:00:00 +0000")), now=NOW)
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    standings = campaign("status", now="2027-01-03T19:00:00Z").split("standings:")[1]
    assert "-" not in standings.replace("Start", "")
    assert "on " in standings  # squares, not dashes, while nobody has finished


def test_start_says_the_deadline_in_the_gm_zone_with_plurals(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from gm.cli import cli

    folder = tmp_path / "solo"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "solo", "seed": 2**70, "timezone": "Europe/Berlin", "first_deadline": "2027-01-08 18:00",
        "boards": {"A": str((campaign_boards() / "small.yaml").resolve())},
        "players": [{"id": "ann", "name": "Ann", "email": "ann@example.org"}],
    }))
    monkeypatch.setenv("GM_NOW", "2027-01-01T00:00:00Z")
    out = CliRunner().invoke(cli, ["-C", str(folder), "start"]).output
    assert "1 player, 1 board," in out
    assert "Friday 08 January 2027, 18:00 Europe/Berlin" in out
    assert "T17:00:00Z" not in out  # no bare UTC ISO form


def campaign_boards():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "boards"


def test_a_turn_resolved_late_keeps_the_weekly_schedule(campaign):
    # the first deadline is Sunday 3 January 18:00; the GM's cron runs the next morning
    campaign("resolve", now="2027-01-04T09:00:00Z", code=1)  # more than half missing: refused
    campaign("resolve", "--force", now="2027-01-04T09:00:00Z")
    assert campaign.state()["deadline"] == "2027-01-10T18:00:00Z"  # not Monday 09:00
    # so late that less than half a turn would be left: a whole turn from now
    campaign("resolve", "--force", now="2027-01-15T09:00:00Z")
    assert campaign.state()["deadline"] == "2027-01-22T09:00:00Z"


def test_a_mail_carrying_a_password_keeps_no_body_once_sent(campaign):
    campaign("player", "password", "ann", now=NOW)
    mail = outbox(campaign, kind="reset", to="ann@example.org")[-1]
    password = password_in(mail)
    campaign("send", now=NOW)
    opened = Campaign.open(campaign.folder)
    try:
        rows = opened.store.rows("select kind, raw, status from outbox")
    finally:
        opened.close()
    assert all(r["status"] == "sent" for r in rows)
    assert all(r["raw"] == b"" for r in rows if r["kind"] in ("welcome", "reset"))
    assert all(r["raw"] for r in rows if r["kind"] not in ("welcome", "reset"))
    delivered = b"".join(p.read_bytes() for p in (campaign.folder / "mail" / "outbox" / "new").iterdir())
    assert password.encode() in delivered  # it went out, and only the Maildir holds it
