"""`gm ingest` and the files it reads: docs/rules/, Order mail "Time of receipt" (the campaign's own
Maildir inbox is timed by delivery, files the GM names by their headers) and "Hostile
mail" on the file side (what cannot be read is skipped with a line for the GM, nothing
blocks, a huge file costs bounded memory, one message is read at a time).

Real files, FIFOs and symlinks in tmp_path; the clock is GM_NOW and file times are set
with os.utime, never waited for. The campaign is tests/campaignfixtures.py's: its first
deadline is 2027-01-03 18:00 UTC.
"""

from __future__ import annotations

import mailbox
import os
import sqlite3
import tracemalloc
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

import gm.campaign.desk.inbound
from gm.campaign.folder import Campaign
from gm.campaign.ingest import ingest_maildir
from gm.mail.inbound import read_mail

BEFORE = datetime(2027, 1, 2, 10, 0, tzinfo=UTC)  # a day before the deadline
AFTER = datetime(2027, 1, 4, 9, 0, tzinfo=UTC)  # fifteen hours after it
NOW = "2027-01-04T10:00:00Z"  # the GM runs gm ingest after the deadline
PASSWORDS = {"ann": "ann-pass-1", "ben": "ben-pass-2", "cat": "cat-pass-3"}


def order(player: str, number: int, *, n: int = 1, date: str = "Sat, 02 Jan 2027 10:00:00 +0000",
          received: str | None = None) -> bytes:
    message = EmailMessage()
    if received:
        message["Received"] = f"from mx.example.org by gm.example.org; {received}"
    message["From"] = f"{player}@example.org"
    message["To"] = "gm@example.org"
    message["Subject"] = "orders"
    message["Date"] = date
    message["Message-ID"] = f"<{player}-{number}-{n}@example.org>"
    message.set_content(f"PLAYER {player}\nPASSWORD {PASSWORDS[player]}\nNUMBER {number}\n")
    return bytes(message)


def deliver(folder: Path, name: str, raw: bytes, at: datetime) -> Path:
    """A file in the campaign's inbox, delivered at `at` (its modification time)."""
    new = folder / "mail" / "inbox" / "new"
    new.mkdir(parents=True, exist_ok=True)
    path = new / name
    path.write_bytes(raw)
    os.utime(path, (at.timestamp(), at.timestamp()))
    return path


def rows(folder: Path, sql: str) -> list[tuple]:
    return sqlite3.connect(folder / "gm.sqlite").execute(sql).fetchall()


def numbers(folder: Path) -> dict[str, str]:
    return dict(rows(folder, "select player, json_extract(standing, '$.numbers') from orders order by message"))


def refusals(folder: Path) -> list[bytes]:
    return [raw for (raw,) in rows(folder, "select raw from outbox where kind = 'refusal' order by id")]


# A sender who writes an old Date: and forges a Received: of our own server's form.
FORGED = dict(date="Sat, 02 Jan 2027 10:00:00 +0000", received="Sat, 02 Jan 2027 10:00:00 +0000")


# --- time of receipt ---------------------------------------------------------------------


def test_3_time_of_receipt_own_maildir_uses_delivery_time(campaign):
    deliver(campaign.folder, "late.eml", order("ann", 2, **FORGED), AFTER)
    campaign("ingest", now=NOW)
    assert rows(campaign.folder, "select outcome, received_at from messages") == [
        ("refused", "2027-01-04T09:00:00Z")]
    assert b"arrived after it" in refusals(campaign.folder)[0]
    assert numbers(campaign.folder) == {}


def test_3_time_of_receipt_own_maildir_delivery_before_the_deadline_counts_even_when_read_after(campaign):
    deliver(campaign.folder, "early.eml", order("ann", 2, date="Mon, 04 Jan 2027 09:30:00 +0000"), BEFORE)
    campaign("ingest", now=NOW)
    assert rows(campaign.folder, "select outcome, received_at from messages") == [
        ("applied", "2027-01-02T10:00:00Z")]


def test_3_time_of_receipt_files_named_on_the_command_line_use_received_then_from_line_then_date(
        campaign, tmp_path):
    # the forged late order of the test above, named on the command line: the GM's choice,
    # timed by its Received: header
    late = deliver(tmp_path, "late.eml", order("ann", 2, **FORGED), AFTER)
    campaign("ingest", str(late), now=NOW)
    # and so is another Maildir
    other = tmp_path / "other"
    deliver(other, "late.eml", order("ann", 3, **FORGED), AFTER)
    campaign("ingest", "--maildir", str(other / "mail" / "inbox"), now=NOW)
    # an mbox: Received:, else the date of its `From ` line, else Date:
    box = mailbox.mbox(tmp_path / "orders.mbox")
    early = mailbox.mboxMessage(order("ben", 2, date="Mon, 04 Jan 2027 09:30:00 +0000"))
    early.set_from("ben@example.org", (2027, 1, 2, 10, 0, 0, 5, 2, 0))  # time.struct_time fields
    later = mailbox.mboxMessage(order("cat", 3, date="Sat, 02 Jan 2027 10:00:00 +0000"))
    later.set_from("cat@example.org", (2027, 1, 4, 9, 0, 0, 0, 4, 0))
    received = mailbox.mboxMessage(order("ben", 4, received="Sat, 02 Jan 2027 11:00:00 +0000"))
    received.set_from("ben@example.org", (2027, 1, 4, 9, 0, 0, 0, 4, 0))
    for message in (early, later, received):
        box.add(message)
    box.flush()
    campaign("ingest", "--mbox", str(tmp_path / "orders.mbox"), now=NOW)
    assert rows(campaign.folder, "select sender, outcome, received_at from messages order by id") == [
        ("ann@example.org", "applied", "2027-01-02T10:00:00Z"),  # .eml: Received:
        ("ann@example.org", "applied", "2027-01-02T10:00:00Z"),  # --maildir: Received:
        ("ben@example.org", "applied", "2027-01-02T10:00:00Z"),  # From line, not the late Date:
        ("ben@example.org", "applied", "2027-01-02T11:00:00Z"),  # Received: comes first
        ("cat@example.org", "refused", "2027-01-04T09:00:00Z"),  # From line, not the early Date:
    ]


def test_3_own_maildir_orders_are_handled_in_order_of_delivery(campaign):
    # written and dated the other way round; delivered 2 then 5: the 5 stands
    deliver(campaign.folder, "a.eml", order("ann", 5, n=1, date="Fri, 01 Jan 2027 09:00:00 +0000"),
            datetime(2027, 1, 2, 11, 0, tzinfo=UTC))
    deliver(campaign.folder, "b.eml", order("ann", 2, n=2, date="Sat, 02 Jan 2027 09:00:00 +0000"),
            datetime(2027, 1, 2, 10, 0, tzinfo=UTC))
    campaign("ingest", now="2027-01-02T12:00:00Z")
    assert numbers(campaign.folder) == {"ann": '{"*":5}'}


# --- files that cannot be read -----------------------------------------------------------


def test_3_unreadable_maildir_file_is_skipped_with_a_line_for_the_gm(campaign, tmp_path):
    new = campaign.folder / "mail" / "inbox" / "new"
    deliver(campaign.folder, "1.good", order("ann", 2), BEFORE)
    (new / "2.dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(new / "3.fifo")  # opened for reading, it would wait for a writer for ever
    (new / "4.memory").symlink_to("/proc/self/mem")
    outside = tmp_path / "outside.eml"
    outside.write_bytes(order("ben", 3))
    (new / "5.outside").symlink_to(outside)  # a link out of the Maildir is not followed
    (new / "6.directory").mkdir()
    out = campaign("ingest", now="2027-01-02T12:00:00Z")
    assert "1 new message (1 applied)" in out and "5 could not be handled" in out
    for name, why in [("2.dangling", "symbolic link"), ("3.fifo", "FIFO"), ("4.memory", "symbolic link"),
                      ("5.outside", "symbolic link"), ("6.directory", "directory")]:
        assert f"could not handle {new / name}: skipped, a {why}" in out
    assert numbers(campaign.folder) == {"ann": '{"*":2}'}
    # left where they are for the GM, and said again next time
    assert sorted(p.name for p in new.iterdir()) == ["2.dangling", "3.fifo", "4.memory", "5.outside", "6.directory"]
    assert "5 could not be handled" in campaign("ingest", now="2027-01-02T12:00:00Z")


def test_3_a_maildir_file_removed_between_listing_and_reading_is_skipped(campaign, monkeypatch):
    """Files are read one at a time when their turn comes: one that is gone by then is
    skipped with a line, and the others are handled."""
    first = deliver(campaign.folder, "1.eml", order("ann", 2), datetime(2027, 1, 2, 10, 0, tzinfo=UTC))
    second = deliver(campaign.folder, "2.eml", order("ben", 3), datetime(2027, 1, 2, 10, 5, tzinfo=UTC))
    third = deliver(campaign.folder, "3.eml", order("cat", 4), datetime(2027, 1, 2, 10, 10, tzinfo=UTC))
    real = gm.campaign.desk.inbound.Desk.handle

    def handle_and_lose_the_next(self, raw, **kwargs):
        if second.exists():
            second.unlink()  # another program takes it while the first is handled
        return real(self, raw, **kwargs)

    monkeypatch.setattr(gm.campaign.desk.inbound.Desk, "handle", handle_and_lose_the_next)
    out = campaign("ingest", now="2027-01-02T12:00:00Z")
    assert "2 new messages (2 applied)" in out
    assert f"could not handle {second}: skipped, cannot be read: No such file or directory" in out
    assert set(numbers(campaign.folder)) == {"ann", "cat"}
    assert not first.exists() and not third.exists()  # handled: moved to cur/


def test_3_fifo_named_on_the_command_line_is_refused_without_blocking(campaign, tmp_path):
    fifo = tmp_path / "orders.eml"
    os.mkfifo(fifo)
    out = campaign("ingest", str(fifo), now="2027-01-02T12:00:00Z", code=1)
    assert "a FIFO, not a mail file" in out
    assert rows(campaign.folder, "select count(*) from messages") == [(0,)]


def test_3_huge_maildir_file_costs_bounded_memory_and_is_kept_too_large(campaign, monkeypatch):
    limit = 1024 * 1024
    huge = order("ann", 2).replace(b"\n\n", b"\nX-Fill: y\n\n", 1) + b"x" * (40 * limit)
    deliver(campaign.folder, "huge.eml", huge, BEFORE)
    seen = []
    real = gm.campaign.desk.inbound.read_mail

    def spy(raw, **kwargs):
        mail = real(raw, **kwargs)
        seen.append(mail)
        return mail

    monkeypatch.setattr(gm.campaign.desk.inbound, "read_mail", spy)
    monkeypatch.setenv("GM_NOW", "2027-01-02T12:00:00Z")
    opened = Campaign.open(campaign.folder)
    tracemalloc.start()
    try:
        report = ingest_maildir(opened, campaign.folder / "mail" / "inbox", delivered=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        opened.close()
    print(f"ingest of a {len(huge)} byte file: peak {peak / limit:.1f} MiB")
    assert report.total == 1 and not report.errors
    assert peak < 10 * limit  # the file is 40 MiB
    assert [(m.hostile, m.sender) for m in seen] == [("too-large", "ann@example.org")]
    # what is kept of it: the first max_message_bytes and one byte, headers included
    (raw,) = [r for (r,) in rows(campaign.folder, "select raw from messages")]
    assert raw == huge[: limit + 1]
    assert read_mail(raw).hostile == "too-large"


@pytest.mark.parametrize("sub", ["new", "cur"])
def test_3_maildir_subfolder_that_is_a_symlink_is_not_followed(campaign, tmp_path, sub):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "1.eml").write_bytes(order("ann", 2))
    inbox = campaign.folder / "mail" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    if (inbox / sub).exists():
        os.rmdir(inbox / sub)
    (inbox / sub).symlink_to(elsewhere)
    out = campaign("ingest", now="2027-01-02T12:00:00Z")
    assert f"could not handle {inbox / sub}: skipped, a symbolic link" in out
    assert rows(campaign.folder, "select count(*) from messages") == [(0,)]
