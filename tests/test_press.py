"""Press (docs/rules/postal.md, Order mail: Press): players write to each other through the
GM, by blocks `PRESS TO ...` in order mail; delivered from the GM's address, never with a
player's; the GM sees every true sender; limits per UTC day; no part of the game record."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer

FIVE = (*PLAIN_PLAYERS, KitPlayer("erin", "Erin Brockovich", "erin@example.org", "pw-erin"))


def press_kit(tmp_path: Path, setenv, press: dict | None, players=FIVE, observers=True) -> CampaignKit:
    kit = CampaignKit.create(tmp_path / "c", setenv=setenv, players=players, start=False)
    data = yaml.safe_load((kit.folder / "campaign.yaml").read_text())
    if press is not None:
        data["press"] = press
    if observers:
        data["observers"] = [{"name": "Olive Watcher", "email": "olive@example.org"}]
    (kit.folder / "campaign.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    kit.start()
    return kit


def body(message) -> str:
    return message.get_body(("plain",)).get_content()


@pytest.fixture
def grey(tmp_path, monkeypatch):
    kit = press_kit(tmp_path, monkeypatch.setenv, {"mode": "grey"})
    yield kit
    kit.close()


def test_press_white_block_reaches_only_its_recipient_from_the_gm_naming_the_sender(grey):
    outcome = grey.order("alice", ["PRESS TO bob", "Shall we drop the leader?", "ENDPRESS"])
    assert outcome.outcome == "press"
    mails = grey.outbox(kind="press")
    to = sorted(str(m["To"]) for m in mails)
    assert to == ["bob@example.org", "gm@example.org"]
    bob = next(m for m in mails if m["To"] == "bob@example.org")
    assert "alice@example.org" not in bob.as_string()
    assert "Snakes GM" in str(bob["From"])
    assert bob["Subject"] == "[kit-2027] Press from Alice Liddell"
    assert "Shall we drop the leader?" in body(bob) and "PRESS TO alice" in body(bob)
    ack = grey.outbox(kind="press_ack")[0]
    assert "delivered to Bob Cratchit" in body(ack)


def test_press_anonymous_hides_the_sender_from_recipients_never_from_the_gm(grey):
    grey.order("alice", ["PRESS TO bob carol ANONYMOUS", "Someone is watching.", "ENDPRESS"])
    mails = grey.outbox(kind="press")
    for m in mails:
        if m["To"] != "gm@example.org":
            assert m["Subject"] == "[kit-2027] Press, anonymous"
            assert "Alice" not in m.as_string() and "alice" not in m.as_string()
            assert "PRESS TO ALL" in body(m)
    gm = next(m for m in mails if m["To"] == "gm@example.org")
    assert "Alice Liddell (alice)" in body(gm)
    assert sorted(str(m["To"]) for m in mails) == ["bob@example.org", "carol@example.org", "gm@example.org"]


def test_press_to_all_reaches_every_other_player_and_observers(grey):
    grey.order("bob", ["PRESS TO ALL", "Hello all", "ENDPRESS"])
    to = sorted(str(m["To"]) for m in grey.outbox(kind="press"))
    assert to == ["alice@example.org", "carol@example.org", "dave@example.org", "erin@example.org",
                  "gm@example.org", "olive@example.org"]


def test_press_with_orders_is_taken_with_them_and_listed_in_the_ack(grey):
    outcome = grey.order("alice", ["PRESS TO carol", "hi", "ENDPRESS", "NUMBER 1"])
    assert outcome.outcome == "applied"
    assert "delivered to Carol Danvers" in body(grey.outbox(kind="ack")[0])


def test_press_a_bad_block_refuses_the_whole_message_orders_included(grey):
    outcome = grey.order("alice", ["NUMBER 1", "PRESS TO zed", "hi", "ENDPRESS"])
    assert outcome.outcome == "refused"
    assert grey.outbox(kind="press") == []
    assert "no such player" in body(grey.outbox(kind="refusal")[0])


def test_press_commands_inside_a_block_are_not_read(grey):
    outcome = grey.order("alice", ["PRESS TO bob", "NUMBER 1", "RESET"])
    assert outcome.outcome == "press"
    with grey.campaign() as campaign:
        assert campaign.store.rows("select * from orders where player = 'alice'") == []


def test_press_hostile_text_is_cleaned_plain_text(grey):
    evil = "a\u202eevil\x07 <b>bold</b> " + "x" * 1200
    grey.order("alice", ["PRESS TO bob", evil, "ENDPRESS"])
    bob = next(m for m in grey.outbox(kind="press") if m["To"] == "bob@example.org")
    text = body(bob)
    assert "\u202e" not in text and "\x07" not in text
    assert all(len(line.encode()) <= 998 for line in text.splitlines())
    html = bob.get_body(("html",)).get_content()
    assert "<b>bold</b>" not in html and "&lt;b&gt;" in html


def test_press_limits_per_day_refuse_the_block_and_record_the_flood(tmp_path, monkeypatch):
    kit = press_kit(tmp_path, monkeypatch.setenv, {"mode": "white", "max_per_day": 2, "max_recipients_per_day": 5})
    assert kit.order("alice", ["PRESS TO bob", "1", "ENDPRESS", "PRESS TO bob", "2"]).outcome == "press"
    assert kit.order("alice", ["PRESS TO bob", "3"]).outcome == "refused"
    assert "past your 2 blocks" in body(kit.outbox(kind="refusal")[0])
    assert kit.order("bob", ["PRESS TO ALL", "1", "ENDPRESS", "PRESS TO ALL", "2"]).outcome == "refused"
    with kit.campaign() as campaign:
        assert [r["player"] for r in campaign.store.rows("select player from press_floods")] == ["alice", "bob"]
    kit.close()


def test_press_off_by_default_refuses_press(tmp_path, monkeypatch):
    kit = press_kit(tmp_path, monkeypatch.setenv, None)
    assert kit.order("alice", ["PRESS TO bob", "hi"]).outcome == "refused"
    assert "press is off" in body(kit.outbox(kind="refusal")[0])
    kit.close()


def test_press_a_game_without_press_says_so_in_its_welcome_and_help(tmp_path, monkeypatch):
    kit = press_kit(tmp_path, monkeypatch.setenv, None)
    assert "This game has no press" in body(kit.outbox(kind="welcome", player="alice")[0])
    kit.order("alice", ["HELP"])
    assert "This game has no press: PRESS TO blocks are refused." in body(kit.outbox(kind="help")[0])
    kit.close()


def test_press_anonymous_outside_grey_and_private_press_in_public_mode_are_refused(tmp_path, monkeypatch):
    kit = press_kit(tmp_path, monkeypatch.setenv, {"mode": "public"})
    assert kit.order("alice", ["PRESS TO bob", "hi"]).outcome == "refused"
    assert kit.order("alice", ["PRESS TO ALL ANONYMOUS", "hi"]).outcome == "refused"
    assert kit.order("alice", ["PRESS TO ALL", "hi"]).outcome == "press"
    kit.close()


def test_press_to_all_above_digest_above_waits_for_the_report(tmp_path, monkeypatch):
    many = tuple(KitPlayer(f"p{i}", f"Player {i}", f"p{i}@example.org", f"pw-{i}") for i in range(60))
    kit = press_kit(tmp_path, monkeypatch.setenv, {"mode": "grey"}, players=many)
    outcome = kit.order("p1", ["PRESS TO ALL", "Big news", "ENDPRESS"])
    assert outcome.outcome == "press"
    assert [str(m["To"]) for m in kit.outbox(kind="press")] == ["gm@example.org"]
    assert "held for the next turn report" in body(kit.outbox(kind="press_ack")[0])
    kit.close()


def test_press_to_all_in_a_large_game_is_printed_in_the_next_turn_report(tmp_path, monkeypatch):
    many = tuple(KitPlayer(f"p{i}", f"Player {i}", f"p{i}@example.org", f"pw-{i}") for i in range(60))
    kit = press_kit(tmp_path, monkeypatch.setenv, {"mode": "grey"}, players=many)
    kit.order("p1", ["PRESS TO ALL", "Big news", "ENDPRESS"])
    kit.order("p2", ["PRESS TO ALL ANONYMOUS", "Quiet news", "ENDPRESS"])
    kit.play_turn()
    report = body(kit.outbox(kind="report", player="p3")[0])
    assert "From Player 1:\r\nBig news" in report and "From anonymous:\r\nQuiet news" in report
    assert report.index("Big news") < report.index("Quiet news")
    kit.close()


def test_press_help_and_welcome_say_the_mode_in_force(grey):
    welcome = body(grey.outbox(kind="welcome", player="alice")[0])
    assert "This game has grey press" in welcome
    grey.order("alice", ["HELP"])
    assert "PRESS TO <player ids, ALL, GM or TEAM> [ANONYMOUS]" in body(grey.outbox(kind="help")[0])


def test_press_the_archive_shows_public_press_only(grey, tmp_path):
    from gm.publish.write import publish

    grey.order("alice", ["PRESS TO ALL", "Public words", "ENDPRESS", "PRESS TO bob", "Private words",
                         "ENDPRESS", "PRESS TO ALL ANONYMOUS", "Masked words"])
    grey.play_turn()
    with grey.campaign() as campaign:
        out, _ = publish(campaign, tmp_path / "site")
    pages = "".join(p.read_text(encoding="utf-8") for p in Path(out).rglob("*.html"))
    assert "Public words" in pages and "Masked words" in pages
    assert "Private words" not in pages
    turn = (Path(out) / "turn-1.html").read_text(encoding="utf-8") if (Path(out) / "turn-1.html").exists() else pages
    assert "From anonymous" in turn


def test_press_a_paused_campaign_relays_press_an_ended_one_refuses_it(grey):
    from gm.campaign.gm_end import end_campaign
    from gm.campaign.schedule import pause

    grey.play_turn()
    with grey.campaign() as campaign:
        pause(campaign)
    assert grey.order("alice", ["PRESS TO bob", "while paused"]).outcome == "press"
    assert grey.order("alice", ["NUMBER 1", "PRESS TO bob", "and an order"]).outcome == "refused"
    with grey.campaign() as campaign:
        end_campaign(campaign, "test")
    assert grey.order("alice", ["PRESS TO bob", "after the end"]).outcome == "refused"


def test_press_is_no_part_of_the_record_gm_audit_still_passes(grey, tmp_path):
    from click.testing import CliRunner

    from gm.cli import cli

    grey.order("alice", ["PRESS TO ALL", "hello", "ENDPRESS", "PRESS TO bob ANONYMOUS", "psst"])
    grey.play_to_end()
    grey.close()
    runner = CliRunner()
    site = tmp_path / "site"
    for args in (["-C", str(grey.folder), "reveal"], ["-C", str(grey.folder), "publish", "--out", str(site)],
                 ["audit", str(site)]):
        result = runner.invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output


def test_press_gm_status_shows_counts_per_player_today_and_refused_floods(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from gm.cli import cli

    kit = press_kit(tmp_path, monkeypatch.setenv, {"mode": "white", "max_per_day": 1})
    kit.order("alice", ["PRESS TO bob carol", "hi"])
    kit.order("alice", ["PRESS TO bob", "again"])
    kit.close()
    result = CliRunner().invoke(cli, ["-C", str(kit.folder), "status"], catch_exceptions=False)
    assert "press (white) today (UTC): alice 1 blocks to 2" in result.output
    assert "PRESS FLOODS refused today: alice 1 blocks" in result.output


def test_press_settings_are_fixed_at_start(tmp_path, monkeypatch):
    kit = press_kit(tmp_path, monkeypatch.setenv, None)
    data = yaml.safe_load((kit.folder / "campaign.yaml").read_text())
    data["press"] = {"mode": "white"}
    (kit.folder / "campaign.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    kit.close()
    assert kit.order("alice", ["PRESS TO bob", "hi"]).outcome == "refused"
    kit.close()


def test_press_gm_demo_press_archive_shows_public_press_only(tmp_path):
    from gm.demo.run import play

    play(tmp_path / "demo", press=True, echo=lambda _line: None)
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "demo" / "archive").glob("*.html"))
    assert "Good luck, everyone." in pages and "From anonymous" in pages
    assert "Between us only" not in pages


def test_press_grey_five_player_game_by_mail_on_the_maildir_transport(grey):
    """Done when: white, anonymous and broadcast press reach exactly whom they should, with
    no address and, for anonymous press, no name; the GM sees every true sender."""
    import email
    import email.policy
    import os

    from click.testing import CliRunner

    from gm.cli import cli

    new = grey.folder / "mail" / "inbox" / "new"
    new.mkdir(parents=True, exist_ok=True)
    letters = {
        "alice": "PRESS TO bob\nWhite words\nENDPRESS\n",
        "bob": "PRESS TO carol, dave ANONYMOUS\nGrey words\nENDPRESS\n",
        "carol": "NUMBER 1\nPRESS TO ALL\nBroadcast words\n",
    }
    for index, (who, text) in enumerate(letters.items()):
        player = grey.player(who)
        raw = grey.mail(who, f"PLAYER {who}\nPASSWORD {player.password}\n{text}")
        (new / f"{index}.eml").write_bytes(raw)
        os.utime(new / f"{index}.eml", (grey.now.timestamp(), grey.now.timestamp()))
    grey.close()
    runner = CliRunner()
    for command in ("ingest", "send"):
        result = runner.invoke(cli, ["-C", str(grey.folder), command], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    sent = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
            for p in (grey.folder / "mail" / "outbox").rglob("*") if p.is_file()]
    press = [m for m in sent if "Press" in str(m["Subject"]) and not str(m["Subject"]).startswith("Re:")]

    def readers(words: str) -> list[str]:
        return sorted(str(m["To"]) for m in press if words in m.get_body(("plain",)).get_content())

    assert readers("White words") == ["bob@example.org", "gm@example.org"]
    assert readers("Grey words") == ["carol@example.org", "dave@example.org", "gm@example.org"]
    assert readers("Broadcast words") == ["alice@example.org", "bob@example.org", "dave@example.org",
                                          "erin@example.org", "gm@example.org", "olive@example.org"]
    for message in press:
        whole = message.as_string()
        others = [p.email for p in FIVE if p.email != message["To"]]
        assert not any(address in whole for address in others)
        if "Grey words" in whole and message["To"] != "gm@example.org":
            assert "Bob" not in whole and "bob" not in whole
    gm_copies = [m.get_body(("plain",)).get_content() for m in press if m["To"] == "gm@example.org"]
    assert sorted(c.split(" (")[0].split(": ")[1] for c in gm_copies) == ["Alice Liddell", "Bob Cratchit",
                                                                          "Carol Danvers"]


def test_press_to_team_reaches_the_team_mates_and_is_refused_without_teams(tmp_path, monkeypatch, grey):
    from test_mail_headers import campaign_folder

    kit = campaign_folder(tmp_path / "teams", "advanced", monkeypatch.setenv)
    kit.start()
    assert kit.order("bob", ["PRESS TO TEAM", "Our plan", "ENDPRESS"]).outcome == "press"
    assert sorted(str(m["To"]) for m in kit.outbox(kind="press")) == ["carol@example.org", "gm@example.org"]
    kit.close()
    assert grey.order("alice", ["PRESS TO TEAM", "nobody"]).outcome == "refused"


def test_press_block_keeps_paragraphs_and_cuts_quotes_and_signature():
    from gm.mail.press import split_press

    text = ("PLAYER alice\nPRESS TO bob\nFirst paragraph.\n\nSecond paragraph.\n"
            "> quoted PRESS TO ALL\n\n-- \nAlice's phone\n")
    split = split_press(text)
    assert [b.text for b in split.blocks] == [("First paragraph.", "", "Second paragraph.")]
    assert split.rest.splitlines()[0] == "PLAYER alice" and "Second paragraph." not in split.rest


def test_press_more_than_five_blocks_a_mail_is_a_problem():
    from gm.mail.press import split_press

    split = split_press("\n".join(f"PRESS TO bob\n{n}\nENDPRESS" for n in range(6)))
    assert [p.code for _, _, p in split.problems] == ["press_too_many"]
