"""docs/audit.md "What an audit proves": `gm audit --mail` holds the record against
the mail a player received. For each player and turn the last acknowledgement (by its
Date, then by the count of the message it answers: one ingest's acknowledgements share
their Date) must be the receipt played; a seat's new holder plays the order her
predecessor had acknowledged; a campaign ended by `gm end` leaves an acknowledged order
of the open turn unplayed, which is said, not failed. The mail is read as .eml files,
mbox files and Maildir folders, headers only and within limits, and junk in it is
skipped without a traceback."""

from __future__ import annotations

import json
import mailbox
import shutil
import time
from datetime import timedelta
from pathlib import Path

import pytest
from auditforger import DELETED, forge, gm_audit, published
from campaignkit import PLAIN_PLAYERS, CampaignKit
from click.testing import CliRunner

from gm.audit import mail
from gm.audit.replay import load_record
from gm.cli import cli


def gm(kit: CampaignKit, *args: str) -> str:
    kit.close()  # the kit keeps its campaign open: each command opens it afresh
    result = CliRunner().invoke(cli, ["-C", str(kit.folder), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def finish(kit: CampaignKit) -> None:
    """Mail everything, reveal and publish: the archive and the players' mail."""
    gm(kit, "send")
    gm(kit, "reveal")
    gm(kit, "publish")


def order_json(kit: CampaignKit, turn: int, player: str, count: int) -> dict:
    with kit.campaign() as campaign:
        row = campaign.store.one("select standing from orders where turn = ? and player = ? and receipt = ?",
                                 (turn, player, count))
    return json.loads(row["standing"])


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    """A postal campaign where alice sends two orders for turn 1 that one ingest answers
    in the same second, then everyone plays to the end: (folder, alice's first order)."""
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(tmp_path_factory.mktemp("twice") / "c", setenv=patch.setenv, players=PLAIN_PLAYERS)
        with kit.campaign() as campaign:
            deadline = campaign.deadline()
        kit.at(deadline - timedelta(days=2))
        kit.order("alice", ["NUMBER 1"])
        kit.order("alice", ["NUMBER 2"])  # the same second: only the count orders the two acks
        kit.order("bob", ["NUMBER 3"])
        kit.play_to_end()
        first = order_json(kit, 1, "alice", 1)
        finish(kit)
        kit.close()
        return kit.folder, first


@pytest.fixture(scope="module")
def handed_over(tmp_path_factory):
    """bob orders for turn 2, then dora takes his seat and sends nothing: turn 2 plays the
    order bob had acknowledged, under dora."""
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(tmp_path_factory.mktemp("handover") / "c", setenv=patch.setenv,
                                 players=PLAIN_PLAYERS)
        kit.play_turn()
        with kit.campaign() as campaign:
            deadline = campaign.deadline()
        kit.at(deadline - timedelta(days=3))
        kit.order("bob", ["NUMBER 4"])
        gm(kit, "player", "replace", "bob", "dora", "--name", "Dora", "--email", "dora@example.org")
        kit.players = tuple(p for p in kit.players if p.id != "bob")
        kit.play_to_end()
        finish(kit)
        kit.close()
        return kit.folder


@pytest.fixture(scope="module")
def ended(tmp_path_factory):
    """Two turns played, alice orders for turn 3, then the GM ends the campaign (gm end)."""
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(tmp_path_factory.mktemp("ended") / "c", setenv=patch.setenv, players=PLAIN_PLAYERS)
        kit.play_turn()
        kit.play_turn()
        with kit.campaign() as campaign:
            deadline = campaign.deadline()
        kit.at(deadline - timedelta(days=3))
        kit.order("alice", ["NUMBER 5"])
        gm(kit, "end", "--reason", "the season is over")
        finish(kit)
        kit.close()
        return kit.folder


def outbox(folder: Path) -> Path:
    return folder / "mail" / "outbox"


# -- the last acknowledgement is the order played ---------------------------------------------


def test_5_acknowledgements_of_one_second_are_ordered_by_their_count(twice):
    folder, _ = twice
    result = gm_audit(folder / "archive", "--mail", outbox(folder))
    assert result.exit_code == 0, result.output
    assert "with the mail given: the orders played: the last acknowledgement of" in result.output


def test_5_an_earlier_order_played_than_the_last_acknowledged_fails(twice, tmp_path):
    """The GM plays alice's first order of turn 1, with its own receipt: consistent, and
    caught by her mail, whose last acknowledgement of turn 1 is her second order."""
    folder, first = twice
    record = load_record(str(folder / "archive"))
    # alice plays 1 at turn 1 instead of 2, so 2 where she played 1: the rules play both
    later = next(t for t in record["turns"] if t["orders"].get("alice", {}).get("numbers") == first["numbers"])
    swapped = {1: {"alice": first}, later["turn"]: {"alice": {**later["orders"]["alice"], "numbers": {"*": 2}}}}
    forged = forge(record, orders=swapped, writers={1: {"alice": ("alice", 1)}})
    archive = published(forged, folder, tmp_path)
    assert gm_audit(archive).exit_code == 0
    result = gm_audit(archive, "--mail", outbox(folder))
    assert result.exit_code == 1, result.output
    assert "turn 1, player alice: the last order acknowledged (order #2 of" in result.output
    assert "is not the one played" in result.output


def test_5_an_acknowledged_order_the_record_says_was_never_sent_fails(twice, tmp_path):
    folder, _ = twice
    record = load_record(str(folder / "archive"))
    # his last number: the rules choose one for him instead (nmr: random)
    turn = [t["turn"] for t in record["turns"] if t["orders"].get("bob", {}).get("numbers")][-1]
    forged = forge(record, orders={turn: {"bob": DELETED}})
    assert "bob" in forged["turns"][turn - 1]["nmr"]
    archive = published(forged, folder, tmp_path)
    assert gm_audit(archive).exit_code == 0
    result = gm_audit(archive, "--mail", outbox(folder))
    assert result.exit_code == 1
    assert f"turn {turn}, player bob: the last order acknowledged was not played" in result.output


def test_5_an_order_inherited_with_a_seat_is_bound_by_its_former_holder_s_receipt(handed_over, tmp_path):
    record = load_record(str(handed_over / "archive"))
    turn = record["turns"][1]
    assert "dora" in turn["players"] and turn["receipts"]["dora"]["player"] == "bob"
    result = gm_audit(handed_over / "archive", "--mail", outbox(handed_over))
    assert result.exit_code == 0, result.output
    forged = forge(record, orders={2: {"dora": {**turn["orders"]["dora"], "numbers": {"*": 6}}}})
    result = gm_audit(published(forged, handed_over, tmp_path), "--mail", outbox(handed_over))
    assert result.exit_code == 1 and "turn 2, player dora: the last order acknowledged" in result.output


def test_5_gm_end_leaves_the_open_turn_s_order_unplayed_and_says_so(ended, tmp_path):
    record = load_record(str(ended / "archive"))
    assert record["end"]["by"] == "gm" and record["end"]["reason"] == "the season is over"
    result = gm_audit(ended / "archive", "--mail", outbox(ended))
    assert result.exit_code == 0, result.output
    assert "by the GM after turn 2" in result.output
    assert "alice's order for turn 3" in result.output and "never played" in result.output
    record["end"]["state"]["players"]["alice"]["place"] = 99
    result = gm_audit(published(record, ended, tmp_path))
    assert result.exit_code == 1 and "end by the GM: state players.alice.place" in result.output


def test_5_a_gm_end_claimed_where_the_rules_ended_the_campaign_fails(twice, tmp_path):
    folder, _ = twice
    record = load_record(str(folder / "archive"))
    record["end"] = record["end"] | {"by": "gm"}
    result = gm_audit(published(record, folder, tmp_path))
    assert result.exit_code == 1 and "end: how the campaign ended" in result.output


# -- reading mail -----------------------------------------------------------------------------


def test_5_mail_as_an_mbox_file_and_as_eml_files(twice, tmp_path):
    folder, _ = twice
    files = sorted((outbox(folder) / "new").iterdir()) + sorted((outbox(folder) / "cur").iterdir())
    box = mailbox.mbox(tmp_path / "gm.mbox")
    for path in files:
        box.add(path.read_bytes())
    box.flush()
    assert gm_audit(folder / "archive", "--mail", tmp_path / "gm.mbox").exit_code == 0
    emls = tmp_path / "eml"
    emls.mkdir()
    for index, path in enumerate(files):
        shutil.copy(path, emls / f"{index:05}.eml")
    several = sorted(emls.iterdir())[:40]
    result = gm_audit(folder / "archive", "--mail", *several[:20], "--mail", *several[20:])
    assert result.exit_code == 0, result.output
    assert gm_audit(folder / "archive", "--mail", emls).exit_code == 0  # a folder of .eml files


def test_5_junk_in_the_mail_is_skipped_and_a_bad_header_said(twice, tmp_path):
    folder, _ = twice
    maildir = tmp_path / "Maildir"
    shutil.copytree(outbox(folder), maildir)
    new = maildir / "new"
    (new / "random").write_bytes(bytes(range(256)) * 4000)
    (new / "one-long-line").write_bytes(b"X" * 5_000_000)
    (new / "empty").write_bytes(b"")
    (new / "headers-only").write_bytes(b"Subject: hi\r\nX-GM-Game: not hex\r\n")
    (new / "folded").write_bytes(b"Date: Mon, 08 Mar 2027 18:00:00 +0000\r\nX-GM-Receipt: turn=1;\r\n player=al ice;"
                                 b"\r\n receipt=zz\r\n\r\nbody\r\n")
    (new / "mbox-junk").write_bytes(b"From nobody\n" + b"Y" * 300_000 + b"\n\nFrom \n\n\x00\xff")
    result = gm_audit(folder / "archive", "--mail", maildir)
    assert result.exit_code == 0, result.output
    assert "2 X-GM- headers in a form gm does not write were skipped" in result.output
    assert "Traceback" not in result.output


def test_5_a_maildir_of_thousands_of_messages(twice, tmp_path):
    folder, _ = twice
    maildir = tmp_path / "Maildir"
    shutil.copytree(outbox(folder), maildir)
    other = (maildir / "new" / sorted((maildir / "new").iterdir())[0].name).read_bytes()
    for index in range(4000):
        (maildir / "cur" / f"{index}.host:2,S").write_bytes(other.replace(b"X-GM-", b"X-Old-"))
    began = time.monotonic()
    result = gm_audit(folder / "archive", "--mail", maildir)
    assert result.exit_code == 0, result.output
    assert time.monotonic() - began < 30


def test_5_mail_over_the_message_limit_could_not_be_checked(twice, monkeypatch):
    folder, _ = twice
    monkeypatch.setattr(mail, "MAX_MESSAGES", 10)
    result = gm_audit(folder / "archive", "--mail", outbox(folder))
    assert result.exit_code == 3 and "more than 10 messages" in result.output


def test_5_mail_of_another_campaign_is_named(twice, tmp_path):
    folder, _ = twice
    stray = tmp_path / "stray.eml"
    stray.write_bytes(b"Date: Mon, 08 Mar 2027 18:00:00 +0000\nX-GM-Game: " + b"ab" * 32 + b"\n\nhello\n")
    result = gm_audit(folder / "archive", "--mail", stray)
    assert result.exit_code == 1 and "is it mail of another campaign?" in result.output


def test_5_acknowledgements_without_a_count_are_ordered_by_date():
    """gm before count= in X-GM-Receipt: the Date alone orders them."""
    head = b"Date: Mon, 08 Mar 2027 18:00:00 +0000\nX-GM-Receipt: turn=2; player=ann; receipt=" + b"a" * 64
    mailed = mail.Mailed()
    mail._read_head(head, "x", mailed)
    assert mailed.acks[0].count is None and mailed.acks[0].turn == 2 and mailed.acks[0].player == "ann"


@pytest.mark.parametrize("args, words", [
    (["extra"], "mail to check follows --mail"),
    (["--mail", "/nowhere/at/all"], "does not exist"),
    (["--game-commitment", "xyz"], "is not a commitment"),
])
def test_5_usage_errors_exit_2(twice, args, words):
    folder, _ = twice
    result = gm_audit(folder / "archive", *args)
    assert result.exit_code == 2 and words in result.output
