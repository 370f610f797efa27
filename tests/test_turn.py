"""`gm turn`: ingest, resolve when due, send, publish; a failure at any step and a rerun
pick up where it stopped and never resolve a turn twice."""

from __future__ import annotations

import sqlite3

import pytest

import gm.mail.maildir
import gm.weekly.turn


class Crash(BaseException):
    """The process dies here."""


def crash_once(real):
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise Crash("injected")
        return real(*args, **kwargs)

    return wrapper


def all_orders_in(run):
    mails = [run.order(p, f"NUMBER {n}\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
             for p, n in (("ann", 2), ("ben", 5), ("cat", 1))]
    run("ingest", *map(str, mails), now="2027-01-02T12:00:00Z")


def count(run, sql):
    return sqlite3.connect(run.folder / "gm.sqlite").execute(sql).fetchone()[0]


def test_turn_before_the_deadline_waits_and_names_who_is_missing(campaign):
    mail = campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
    (campaign.folder / "mail" / "inbox" / "new" / "ann.eml").write_bytes(mail.read_bytes())
    out = campaign("turn", now="2027-01-02T12:00:00Z")
    lines = out.splitlines()
    assert lines[0] == "ingest: 1 new message (1 applied)"
    assert lines[1].startswith("resolve: not yet: turn 1 waits for ben, cat; deadline")
    assert lines[2].startswith("send: ")
    assert lines[3].startswith("publish: ")
    assert campaign.state()["turn"] == 1


@pytest.mark.parametrize("step", ["send", "publish"])
def test_turn_failing_after_resolve_then_rerun_finishes_and_never_resolves_twice(campaign, monkeypatch, step):
    all_orders_in(campaign)
    if step == "send":
        monkeypatch.setattr(gm.mail.maildir.os, "fsync", crash_once(gm.mail.maildir.os.fsync))
    else:
        monkeypatch.setattr(gm.weekly.turn, "publish", crash_once(gm.weekly.turn.publish))
    with pytest.raises(Crash):
        campaign("turn", now="2027-01-02T12:00:00Z")
    assert campaign.state()["turn"] == 2
    out = campaign("turn", now="2027-01-02T12:05:00Z")
    assert "resolve: not yet: turn 2 waits for ann, ben, cat" in out
    assert count(campaign, "select count(*) from turns") == 1
    assert count(campaign, "select count(*) from outbox where kind = 'report'") == 3
    assert count(campaign, "select count(*) from outbox where status != 'sent'") == 0
    delivered = list((campaign.folder / "mail" / "outbox" / "new").iterdir())
    assert len(delivered) == count(campaign, "select count(*) from outbox")
    assert (campaign.folder / "archive" / "index.html").exists()


def test_turn_after_the_deadline_with_most_numbers_missing_refuses_but_still_sends(campaign):
    out = campaign("turn", now="2027-01-04T00:00:00Z", code=1)
    assert "resolve: refused: 3 of the 3 players" in out and "send: 4 delivered" in out
    assert campaign.state()["turn"] == 1
    assert "turn 1 resolved" in campaign("turn", "--force", now="2027-01-04T00:01:00Z")


# -- a paused campaign, from cron (CONTRACT.md gm pause) -------------------------------------


def test_turn_while_paused_ingests_answers_sends_and_publishes_resolves_nothing_and_exits_0(campaign):
    campaign("pause", now="2027-01-02T09:00:00Z")
    mail = campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
    (campaign.folder / "mail" / "inbox" / "new" / "ann.eml").write_bytes(mail.read_bytes())
    # after the deadline: cron runs gm turn as every week
    lines = campaign("turn", now="2027-01-04T00:00:00Z").splitlines()
    assert lines[0] == "ingest: 1 new message (1 refused)"
    assert lines[1] == "resolve: the campaign is paused: nothing is resolved until gm resume [WHEN]"
    assert lines[2].startswith("send: ") and lines[3].startswith("publish: ")
    assert campaign.state()["turn"] == 1
    assert count(campaign, "select count(*) from turns") == 0
    # the pause notices (3 players) and the refusal saying it is paused went out
    assert count(campaign, "select count(*) from outbox where status != 'sent'") == 0
    assert count(campaign, "select count(*) from outbox where kind = 'notice'") == 3
    assert count(campaign, "select count(*) from outbox where kind = 'refusal'") == 1
    assert (campaign.folder / "archive" / "index.html").exists()
    # --force resolves nothing while paused either, and says so
    assert "nothing is resolved until gm resume [WHEN] (--force too)" in campaign(
        "turn", "--force", now="2027-01-04T00:05:00Z")
    assert count(campaign, "select count(*) from turns") == 0


# -- resolve --preview ----------------------------------------------------------------------------


def test_resolve_preview_runs_before_the_deadline_with_every_order_in_and_saves_nothing(campaign):
    all_orders_in(campaign)
    out = campaign("resolve", "--preview", now="2027-01-02T12:30:00Z")
    assert "GM REPORT" in out
    assert "gm resolve would refuse now: turn 1 is open until" in out
    assert count(campaign, "select count(*) from turns") == 0
    assert count(campaign, "select count(*) from outbox where kind like '%report'") == 0
    assert campaign.state()["turn"] == 1


def test_resolve_preview_runs_paused_and_with_orders_missing(campaign):
    out = campaign("resolve", "--preview", now="2027-01-04T00:00:00Z")
    assert "3 of the 3 players who must send an order have none" in out and "nothing was saved" in out
    campaign("pause", now="2027-01-04T00:01:00Z")
    out = campaign("resolve", "--preview", now="2027-01-04T00:02:00Z")
    assert "gm resolve would refuse now: the campaign is paused" in out
    assert count(campaign, "select count(*) from turns") == 0
    assert "gm resolve --force would refuse now: the campaign is paused" in campaign(
        "resolve", "--preview", "--force", now="2027-01-04T00:03:00Z")


# -- classic and doubles: nobody has to write (docs/rules/classic.md, Order mail) ----------------------------------


def dice_campaign(tmp_path, monkeypatch, ruleset: str):
    """A three-player dice campaign run through the CLI; its first deadline 2027-01-08 18:00 UTC."""
    import yaml
    from click.testing import CliRunner

    from gm.cli import cli

    folder = tmp_path / ruleset
    folder.mkdir()
    (folder / "board.yaml").write_text("name: Short Lane\nsquares: 20\nsnakes: [[17, 4]]\nladders: [[3, 11]]\n")
    passwords = {"ann": "pw-ann-1", "bob": "pw-bob-2", "cat": "pw-cat-3"}
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": ruleset, "ruleset": ruleset, "seed": 2**70 + 4, "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {"A": "board.yaml"}, "options": {"max_turns": 30},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in passwords.items()],
    }))
    runner, sent = CliRunner(), []

    def gm(*args: str, now: str) -> str:
        monkeypatch.setenv("GM_NOW", now)
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    def mail(player: str, line: str) -> None:
        from email.message import EmailMessage

        sent.append(player)
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
        message["Message-ID"] = f"<{len(sent)}.{player}@example.org>"
        message.set_content(f"PLAYER {player}\nPASSWORD {passwords[player]}\n{line}\n")
        (folder / "mail" / "inbox" / "new" / f"{len(sent)}.eml").write_bytes(bytes(message))

    gm("start", now="2027-01-01T00:00:00Z")
    return gm, mail


@pytest.mark.parametrize("ruleset", ["classic", "doubles"])
def test_4_5_turn_and_status_agree_a_dice_turn_waits_for_its_deadline_and_say_who_wrote_what(
        tmp_path, monkeypatch, ruleset):
    gm, mail = dice_campaign(tmp_path, monkeypatch, ruleset)
    mail("ann", "RESIGN")
    turn = gm("turn", now="2027-01-02T12:00:00Z").splitlines()[1]
    # not "waits for ann, bob, cat": nobody has to write, so no message would make it ready
    assert turn == ("resolve: not yet: turn 1 waits for its deadline, Friday 08 January 2027, 18:00 UTC "
                    f"(nobody has to write in {ruleset}); written: ann (order #1: RESIGN); nothing from bob, cat")
    status = gm("status", now="2027-01-02T12:00:00Z")
    assert f"orders: nobody has to write in {ruleset}; 1 player has written" in status
    assert "gm turn: " + turn.removeprefix("resolve: ") in status.splitlines()
    assert f"turn 1: nobody has to write in {ruleset}; 1 player has written" in gm("orders", now="2027-01-02T12:00:00Z")
    # everyone in play has written: still the deadline alone resolves the turn
    mail("ann", "RESIGN NONE")
    mail("bob", "RESIGN NONE")
    mail("cat", "RESIGN NONE")
    out = gm("turn", now="2027-01-03T12:00:00Z")
    assert "turn 1 resolved" not in out
    assert "written: ann (order #2: -), bob (order #1: -), cat (order #1: -)" in out
    assert "turn 1 resolved" in gm("turn", now="2027-01-08T18:00:00Z")
