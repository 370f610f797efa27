"""A failure injected between any two steps of ingest, resolve and send, then a rerun:
nothing is lost and nothing is doubled (every state change is one transaction, and
Maildir delivery names each file after its outbox row)."""

from __future__ import annotations

import sqlite3

import pytest

import gm.campaign.desk.reply
import gm.campaign.ingest
import gm.campaign.outbox
import gm.mail.maildir


class Boom(BaseException):
    """A crash: the process dies here (a BaseException, like SIGINT, so nothing handles it)."""


def fail_on_call(n: int, real):
    """A wrapper that raises on its n-th call and passes every other call through."""
    calls = {"count": 0}

    def wrapper(*args, **kwargs):
        calls["count"] += 1
        if calls["count"] == n:
            raise Boom(f"injected failure on call {n}")
        return real(*args, **kwargs)

    return wrapper


def table(folder, sql):
    return sqlite3.connect(folder / "gm.sqlite").execute(sql).fetchall()


def orders_for_turn_one(run):
    return [
        run.order(p, f"NUMBER {n}\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
        for p, n in (("ann", 2), ("ben", 5), ("cat", 1))
    ]


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_crash_inside_ingest_then_rerun_answers_each_message_once(campaign, monkeypatch, fail_at):
    mails = [str(m) for m in orders_for_turn_one(campaign)]
    monkeypatch.setattr(gm.campaign.desk.reply, "queue", fail_on_call(fail_at, gm.campaign.desk.reply.queue))
    with pytest.raises(Boom):
        campaign("ingest", *mails, now="2027-01-02T12:00:00Z")
    monkeypatch.undo()
    campaign("ingest", *mails, now="2027-01-02T12:00:00Z")
    assert table(campaign.folder, "select count(*) from messages") == [(3,)]
    assert table(campaign.folder, "select kind, count(*) from outbox where kind = 'ack'") == [("ack", 3)]
    assert table(campaign.folder, "select count(*) from orders") == [(3,)]


def maildir_files(campaign, sub: str) -> list[str]:
    return sorted(p.name for p in (campaign.folder / "mail" / "inbox" / sub).iterdir())


@pytest.mark.parametrize("crash_at", [1, 2, 3])
def test_crash_between_recording_and_the_maildir_move_then_rerun_moves_it_and_answers_once(campaign, monkeypatch,
                                                                                            crash_at):
    """A SIGKILL after a message's transaction commits and before its file leaves new/:
    the next run moves the recorded file to cur/ (it stayed in new/ for ever) and neither
    applies nor answers it again; the messages not reached yet are handled then."""
    import mailbox

    inbox = mailbox.Maildir(campaign.folder / "mail" / "inbox")
    for path in orders_for_turn_one(campaign):
        inbox.add(path.read_bytes())
    monkeypatch.setattr(gm.campaign.ingest.os, "rename", fail_on_call(crash_at, gm.campaign.ingest.os.rename))
    with pytest.raises(Boom):
        campaign("ingest", now="2027-01-02T12:00:00Z")
    monkeypatch.undo()
    assert table(campaign.folder, "select count(*) from messages") == [(crash_at,)]
    assert len(maildir_files(campaign, "new")) == 3 - (crash_at - 1)  # the one recorded last is still there
    campaign("ingest", now="2027-01-02T12:00:00Z")
    assert maildir_files(campaign, "new") == []
    assert len(maildir_files(campaign, "cur")) == 3
    assert all(name.endswith(":2,S") for name in maildir_files(campaign, "cur"))
    assert table(campaign.folder, "select count(*) from messages") == [(3,)]
    assert table(campaign.folder, "select count(*) from outbox where kind = 'ack'") == [(3,)]
    assert table(campaign.folder, "select count(*) from orders") == [(3,)]
    assert "no new mail" in campaign("ingest", now="2027-01-02T12:05:00Z")


@pytest.mark.parametrize("fail_at", [1, 3, 4])
def test_crash_inside_resolve_then_rerun_resolves_once(campaign, monkeypatch, fail_at):
    campaign("ingest", *map(str, orders_for_turn_one(campaign)), now="2027-01-02T12:00:00Z")
    import gm.campaign.turns

    monkeypatch.setattr(gm.campaign.turns, "queue", fail_on_call(fail_at, gm.campaign.turns.queue))
    with pytest.raises(Boom):
        campaign("resolve", now="2027-01-04T00:00:00Z")
    assert campaign.state()["turn"] == 1
    assert table(campaign.folder, "select count(*) from turns") == [(0,)]
    assert table(campaign.folder, "select count(*) from outbox where kind like '%report'") == [(0,)]
    monkeypatch.undo()
    campaign("resolve", now="2027-01-04T00:00:00Z")
    assert campaign.state()["turn"] == 2
    assert table(campaign.folder, "select kind, count(*) from outbox where kind like '%report' group by kind") == [
        ("gm-report", 1), ("report", 3)]


@pytest.mark.parametrize("fail_at", [1, 2, 4])
def test_crash_while_writing_the_outbox_then_rerun_delivers_each_once(campaign, monkeypatch, fail_at):
    monkeypatch.setattr(gm.mail.maildir.os, "fsync", fail_on_call(fail_at, gm.mail.maildir.os.fsync))
    with pytest.raises(Boom):
        campaign("send", now="2027-01-01T00:01:00Z")
    monkeypatch.undo()
    campaign("send", now="2027-01-01T00:02:00Z")
    files = list((campaign.folder / "mail" / "outbox" / "new").iterdir())
    assert len(files) == 4 == len({f.read_bytes() for f in files})
    assert table(campaign.folder, "select status, count(*) from outbox group by status") == [("sent", 4)]


def test_crash_after_delivery_before_marking_sent_never_doubles(campaign, monkeypatch):
    def crash(*args):
        raise Boom("crash before the sent marks are committed")

    monkeypatch.setattr(gm.campaign.outbox.clock, "iso", crash)
    with pytest.raises(Boom):
        campaign("send", now="2027-01-01T00:01:00Z")
    assert len(list((campaign.folder / "mail" / "outbox" / "new").iterdir())) == 4
    assert table(campaign.folder, "select status from outbox group by status") == [("queued",)]
    monkeypatch.undo()
    campaign("send", now="2027-01-01T00:02:00Z")
    assert len(list((campaign.folder / "mail" / "outbox" / "new").iterdir())) == 4
    assert table(campaign.folder, "select status, count(*) from outbox group by status") == [("sent", 4)]


def test_a_message_that_breaks_the_desk_is_kept_and_the_batch_goes_on(campaign, monkeypatch):
    mails = [str(m) for m in orders_for_turn_one(campaign)]
    real_queue, calls = gm.campaign.desk.reply.queue, []

    def queue_with_a_bug(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("a bug in a template")
        return real_queue(*args, **kwargs)

    monkeypatch.setattr(gm.campaign.desk.reply, "queue", queue_with_a_bug)
    out = campaign("ingest", *mails, now="2027-01-02T12:00:00Z")
    assert "3 new messages" in out and "1 error" in out
    assert table(campaign.folder, "select outcome, count(*) from messages group by outcome") == [
        ("applied", 2), ("error", 1)]
    assert "UNANSWERED: 1 message gm could not handle is kept" in campaign("status", now="2027-01-02T12:00:00Z")
