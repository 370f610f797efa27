"""docs/rules/, Order mail "Hostile mail": one message cannot stop a campaign. Each bomb testers found
(and its cousins) is read by `read_mail` without raising, comes out `hostile` with the
reason, still names its sender, and costs time and memory bounded by its size: CPU time
by `time.process_time()`, peak memory by `tracemalloc`, never by sleeping.

Before the bounds, the first bomb grew `gm ingest` to 24 GB; each test runs under a
guard (5 s of CPU, 2 GiB more address space) so that such a regression fails the test
instead of the machine.
"""

from __future__ import annotations

import contextlib
import random
import resource
import signal
import sqlite3
import sys
import time
import tracemalloc
from datetime import UTC, datetime

import pytest
from mailfactory import FIXTURES

from gm.mail.inbound import HOSTILE_REASONS, InboundMail, read_mail

MiB = 1024 * 1024
HEAD = (
    b"From: Mallory <mallory@example.org>\r\n"
    b"To: gm@example.org\r\n"
    b"Message-ID: <bomb@example.org>\r\n"
    b"Date: Sun, 22 Nov 2026 10:00:00 +0000\r\n"
)
ORDER = b"PLAYER alice\r\nPASSWORD Tea-Party-6\r\nNUMBER 3\r\n"
CPU_SECONDS = 5.0


class Overrun(BaseException):
    """Raised by the CPU guard; a BaseException, so read_mail's catch-all lets it through."""


@contextlib.contextmanager
def guard():
    """Fail, rather than hang or swap, when reading one message runs away."""

    def overrun(*_):
        raise Overrun(f"more than {2 * CPU_SECONDS} s of CPU")

    old_handler = signal.signal(signal.SIGPROF, overrun)
    signal.setitimer(signal.ITIMER_PROF, 2 * CPU_SECONDS)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        in_use = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (in_use + 2048 * MiB, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old_handler)


def bounded(raw: bytes, **kwargs) -> InboundMail:
    """read_mail(raw), asserting it never raises and costs at most CPU_SECONDS of CPU and
    50 times the message's size in memory (plus 4 MiB for what any message costs)."""
    with guard():
        start = time.process_time()
        mail = read_mail(raw, **kwargs)
        cpu = time.process_time() - start
        tracemalloc.start()
        try:
            again = read_mail(raw, **kwargs)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert isinstance(mail, InboundMail) and again == mail
    print(f"{len(raw)} bytes: {cpu:.3f} s CPU, peak {peak / MiB:.2f} MiB, {mail.hostile}: {mail.broken}")
    assert cpu < CPU_SECONDS
    assert peak < 50 * len(raw) + 4 * MiB
    return mail


def refused(raw: bytes, reason: str, **kwargs) -> InboundMail:
    """A hostile message: the reason, no text, and what its headers tell still read."""
    mail = bounded(raw, **kwargs)
    assert reason in HOSTILE_REASONS
    assert (mail.hostile, mail.text) == (reason, "")
    assert mail.sender == "mallory@example.org"
    assert mail.message_id == "<bomb@example.org>"
    assert mail.received_at == datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
    assert mail.loop is None and mail.broken
    return mail


def encoded_words(n: int) -> bytes:
    return b"Subject:" + b"".join(b" =?utf-8?q?w%d?=\r\n" % (i % 10) for i in range(n))


def nested_multipart(depth: int) -> bytes:
    opening = b"".join(
        b"Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n" % (i, i) for i in range(depth)
    )
    closing = b"".join(b"\r\n--b%d--\r\n" % i for i in reversed(range(depth)))
    return HEAD + opening + b"Content-Type: text/plain\r\n\r\n" + ORDER + closing


def nested_messages(depth: int) -> bytes:
    return HEAD + b"Content-Type: message/rfc822\r\n\r\n" * depth + b"From: x@example.org\r\n\r\n" + ORDER


# --- the bombs testers found -------------------------------------------------------------


def test_3_hostile_mail_subject_of_100000_encoded_words_is_too_large_and_never_parsed():
    raw = HEAD + encoded_words(100_000) + b"\r\n" + ORDER
    assert len(raw) > 1_400_000
    mail = refused(raw, "too-large")
    assert mail.oversize
    # decoded from the Subject's first words only, and cut
    assert mail.subject.startswith("w0w1w2w3") and len(mail.subject) <= 200


def test_3_hostile_mail_subject_of_100000_encoded_words_under_max_message_bytes_is_bounded():
    raw = HEAD + encoded_words(100_000) + b"\r\n" + ORDER
    mail = refused(raw, "long-header", max_bytes=2 * MiB)
    assert "16384" in mail.broken and not mail.oversize
    smaller = HEAD + encoded_words(52_000) + b"\r\n" + ORDER  # 900 KB, under the default
    assert 850_000 < len(smaller) < MiB
    refused(smaller, "long-header")


def test_3_hostile_mail_encoded_words_under_16_kib_a_header_are_still_capped():
    # 900 words fit in 15 KiB; their decoding is quadratic, so gm decodes at most 256
    raw = HEAD + encoded_words(900) + b"\r\n" + ORDER
    assert len(encoded_words(900)) < 16 * 1024
    refused(raw, "unparseable")


def test_3_hostile_mail_50000_rfc2231_parameters_are_bounded():
    params = b"".join(b"; a*%d=x" % i for i in range(50_000))
    raw = HEAD + b"Content-Type: text/plain" + params + b"\r\n\r\n" + ORDER
    assert len(raw) < MiB
    refused(raw, "long-header")


def test_3_hostile_mail_rfc2231_parameters_under_16_kib_a_header_are_capped_in_all():
    # each part's Content-Type is 15 KiB; together they would take minutes to parse
    params = b"".join(b";\r\n a*%d=x" % i for i in range(1_100))
    part = b"--b\r\nContent-Type: text/plain" + params + b"\r\n\r\n" + ORDER
    raw = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + part * 40 + b"--b--\r\n"
    assert len(params) < 16 * 1024 and len(raw) < MiB
    refused(raw, "unparseable")


@pytest.mark.parametrize("depth", [21, 25, 1_000])
def test_3_hostile_mail_mime_nested_deeper_than_20_levels_is_too_deep(depth):
    refused(nested_multipart(depth), "too-deep")
    refused(nested_messages(depth), "too-deep")
    # and 20 levels are read as any mail
    mail = bounded(nested_multipart(20))
    assert mail.hostile is None and "NUMBER 3" in mail.text
    assert bounded(nested_messages(20)).hostile is None


def test_3_hostile_mail_deeper_than_pythons_recursion_limit_still_names_its_sender():
    # message/rfc822 parts nest with no boundary at all: 30 bytes a level
    mail = refused(nested_messages(sys.getrecursionlimit() + 500), "too-deep")
    assert mail.sender == "mallory@example.org"  # so the desk has someone to answer


def test_3_hostile_mail_header_of_20_kib_is_a_long_header():
    raw = HEAD + b"X-Padding: " + b"x" * 20 * 1024 + b"\r\nSubject: hello\r\n\r\n" + ORDER
    mail = refused(raw, "long-header")
    assert mail.subject == "hello"
    # folded, a header is as long as all its lines
    folded = HEAD + b"X-Padding: x" + b"\r\n x" * 6 * 1024 + b"\r\n\r\n" + ORDER
    refused(folded, "long-header")
    # and just under the limit it is an ordinary header
    assert bounded(HEAD + b"X-Padding: " + b"x" * 16_000 + b"\r\n\r\n" + ORDER).hostile is None


def test_3_hostile_mail_header_of_20_kib_inside_a_part_is_a_long_header():
    part = b"--b\r\nContent-Type: text/plain\r\nX-Padding: " + b"x" * 20 * 1024 + b"\r\n\r\n" + ORDER
    raw = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + part + b"--b--\r\n"
    refused(raw, "long-header")


def test_3_hostile_mail_random_garbage_is_unparseable_and_never_raises():
    garbage = random.Random(2027).randbytes(200_000)
    mail = bounded(garbage)
    assert (mail.hostile, mail.sender, mail.text) == ("unparseable", "", "")
    # no sender: a bounce by docs/rules/, Order mail, never answered
    assert mail.loop == "bounce"


def test_3_hostile_mail_of_100000_parts_is_bounded():
    raw = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + b"--b\r\n\r\nx\r\n" * 100_000 + b"--b--\r\n"
    refused(raw, "unparseable")


def test_3_hostile_mail_of_200000_header_fields_is_bounded():
    raw = HEAD + b"X-A: b\r\n" * 120_000 + b"\r\n" + ORDER
    refused(raw, "unparseable")


def test_3_hostile_mail_comments_nested_by_the_thousand_in_a_mime_header_are_bounded():
    raw = HEAD + b"Content-Type: text/plain; a=" + b"(" * 2000 + b"\r\n\r\n" + ORDER
    refused(raw, "unparseable")


def test_3_hostile_mail_header_of_a_million_short_lines_is_bounded():
    raw = HEAD + b"X-A: b\r\n" + b" \r\n" * 300_000 + b"\r\n" + ORDER
    refused(raw, "long-header")


def test_3_hostile_mail_keeps_its_loop_markers():
    raw = HEAD + b"Auto-Submitted: auto-replied\r\n" + encoded_words(100_000) + b"\r\n" + ORDER
    mail = bounded(raw)
    assert (mail.hostile, mail.loop) == ("too-large", "auto-submitted")
    bounce = (b"From: MAILER-DAEMON@example.org\r\nX-Failed-Recipients: alice@example.org\r\n"
              b"Content-Type: multipart/report; report-type=delivery-status; boundary=r\r\n\r\n")
    mail = bounded(bounce + b"x" * (MiB + 1))
    assert (mail.hostile, mail.loop, mail.bounced_recipients) == ("too-large", "bounce", ("alice@example.org",))


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_3_hostile_mail_limit_is_max_bytes_and_the_bounds_leave_real_mail_alone(name):
    raw = FIXTURES[name].build()  # every kind of real mail in tests/data/mail
    assert read_mail(raw).hostile is None  # 1 MiB by default
    assert read_mail(raw, max_bytes=len(raw)).hostile is None
    assert read_mail(raw, max_bytes=len(raw) - 1).hostile == "too-large"


# --- through gm ingest -------------------------------------------------------------------


def test_3_hostile_mail_is_recorded_and_the_batch_goes_on(campaign, tmp_path):
    bombs = {
        "large": HEAD + encoded_words(100_000) + b"\r\n" + ORDER,
        "deep": nested_messages(5_000),
        "garbage": random.Random(7).randbytes(50_000),
    }
    paths = []
    for name, raw in bombs.items():
        paths.append(tmp_path / f"{name}.eml")
        paths[-1].write_bytes(raw)
    good = campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
    with guard():
        out = campaign("ingest", *map(str, paths), str(good), now="2027-01-02T12:00:00Z")
    assert "4 new messages" in out
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    assert db.execute("select count(*) from orders").fetchone() == (1,)
    rows = db.execute("select sender, length(raw) from messages order by id").fetchall()
    # in order of receipt (the garbage has no time: last); the too-large one is kept as
    # far as gm read it, max_message_bytes and one byte
    assert rows == [("mallory@example.org", MiB + 1), ("mallory@example.org", len(bombs["deep"])),
                    ("ann@example.org", len(good.read_bytes())), ("", 50_000)]
    # nothing is left for the next run to choke on
    assert "already recorded" in campaign("ingest", *map(str, paths), now="2027-01-02T12:00:00Z")


@pytest.mark.servers
def test_3_hostile_mail_too_large_over_imap_is_fetched_only_in_part(imap_account):
    from gm.mail.imap import ImapInbox

    big = HEAD + b"Subject: big\r\n\r\n" + b"x" * (3 * MiB)
    small = HEAD + b"Subject: small\r\n\r\n" + ORDER
    imap_account.append([big, small])
    with ImapInbox(imap_account.settings(), imap_account.password, limit=MiB + 1) as inbox:
        fetched = [m for batch in inbox.fetch(inbox.uids()) for m in batch]
    assert [m.raw for m in fetched][1:] == [small]
    assert len(fetched[0].raw) == MiB + 1
    assert fetched[0].raw == big[: MiB + 1]
    assert all(m.internaldate.tzinfo for m in fetched)
    assert read_mail(fetched[0].raw).hostile == "too-large"
