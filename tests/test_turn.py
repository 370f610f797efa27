"""`gm turn`: ingest, resolve when due, send, publish; a failure at any step and a rerun
pick up where it stopped and never resolve a turn twice."""

from __future__ import annotations

import sqlite3

import pytest

import gm.mail.delivery
import gm.publish.write


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
        monkeypatch.setattr(gm.mail.delivery.os, "fsync", crash_once(gm.mail.delivery.os.fsync))
    else:
        monkeypatch.setattr(gm.publish.write, "publish", crash_once(gm.publish.write.publish))
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
