"""Long bodies are encoded once and spliced into the serialised mail (gm.mail.mailout,
_Spliced) instead of being written line by line by the email package: the bytes queued
must be exactly those the email package writes for the whole message, whatever the text
(ASCII or not, any line ends, lines too long for 7bit), with any attachments."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gm.mail import mailout

NOW = datetime(2027, 3, 21, 18, 0, tzinfo=UTC)
ICS = (b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", "text", "calendar", "deadline.ics")


def composed(monkeypatch: pytest.MonkeyPatch, text: str, html: str, attachments=(), *, splice: bool) -> bytes:
    monkeypatch.setattr(mailout, "render", lambda template, context: ("Turn 7 report", text, html))
    monkeypatch.setattr(mailout, "make_msgid", lambda domain: "<fixed@example.org>")
    monkeypatch.setattr(mailout, "SPLICE_FROM", 1 if splice else 10**12)
    message = mailout.compose(sender="GM <gm@example.org>", to="Ann <ann@example.org>", template="report",
                              context={"ruleset": "postal"}, now=NOW, attachments=attachments)
    return mailout.serialise(message)


def same_boundaries(raw: bytes) -> bytes:
    """Boundaries are random: number them in order of appearance."""
    found: dict[bytes, bytes] = {}
    for boundary in re.findall(rb'boundary="([^"]+)"', raw):
        found.setdefault(boundary, b"BOUNDARY%d" % len(found))
    for boundary, name in found.items():
        raw = raw.replace(boundary, name)
    return raw


def lf(text: str) -> str:
    return text.replace("\r\n", "\n")


line_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=150, deadline=None)
@given(text=line_text, html=line_text, table=st.one_of(st.none(), line_text))
@example(text="a\r\nb\rc\nd\x0b\x0ce\x85f\u2028", html="<p>é</p>" * 200, table="x" * 1200)
@example(text="", html="", table="")
@example(text="ok\n" * 2000, html="\n\n", table="é\n" * 3000)
def test_spliced_mail_is_byte_for_byte_the_email_packages(text, html, table):
    with pytest.MonkeyPatch.context() as monkeypatch:
        attachments = [ICS] if table is None else [(table, "text", "plain", "table.txt"), ICS]
        fast = composed(monkeypatch, text, html, attachments, splice=True)
        slow = composed(monkeypatch, text, html, attachments, splice=False)
    assert same_boundaries(fast) == same_boundaries(slow)


def test_spliced_mail_reads_back_with_its_bodies_and_attachment(monkeypatch):
    text, html, table = "Hello Ann\n" * 400, "<p>Hello Ann</p>\n" * 400, "Ann  3 -> 9\n" * 500 + "Zoë 4 -> 5\n"
    raw = composed(monkeypatch, text, html, [(table, "text", "plain", "table.txt")], splice=True)
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert lf(message.get_body(("plain",)).get_content()) == text
    assert lf(message.get_body(("html",)).get_content()) == html
    attachment = next(message.iter_attachments())
    assert attachment.get_filename() == "table.txt" and lf(attachment.get_content()) == table
    assert b"gm-body-" not in raw


def test_a_boundary_never_stands_in_a_spliced_body(monkeypatch):
    """The generator checks its boundary against what it writes, the placeholders; the
    boundary is drawn against the real bodies instead."""
    drawn = iter(["===============1111111111111111111==", "===============2222222222222222222==",
                  "===============3333333333333333333=="])
    monkeypatch.setattr(mailout.Generator, "_make_boundary", classmethod(lambda cls, text=None: next(drawn)))
    text = "--===============1111111111111111111==\n" * 100
    raw = composed(monkeypatch, text, "<p>x</p>" * 400, splice=True)
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message.get_boundary() == "===============2222222222222222222=="
    assert lf(message.get_body(("plain",)).get_content()) == text
