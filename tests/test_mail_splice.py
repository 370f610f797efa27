"""gm writes its mail's bytes itself (gm.mail.mime.Mail.as_bytes): the MIME structure
once per shape, each header folded once, each body encoded with C-speed calls and
spliced in. The email package built a header object per header and part, wrote each
body line by line and scanned it for every boundary, half of a large turn's resolve.
The bytes must be exactly those the email package writes for the same mail, whatever the
names, subjects, threading, texts (ASCII or not, any line ends, lines too long for 7bit)
and attachments."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gm.mail import mailout, mime

NOW = datetime(2027, 3, 21, 18, 0, tzinfo=UTC)
ICS = (b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", "text", "calendar", "deadline.ics")


def compose(monkeypatch: pytest.MonkeyPatch, text: str, html: str, attachments=(), *, subject="Turn 7 report",
            to="Ann <ann@example.org>", template="report", **threading) -> mime.Mail:
    monkeypatch.setattr(mailout, "render", lambda template, context: (subject, text, html))
    return mailout.compose(sender="Snakes GM <gm@example.org>", to=to, template=template,
                           context={"ruleset": "postal"}, now=NOW, attachments=attachments, **threading)


def numbered_boundaries(raw: bytes) -> bytes:
    """Boundaries are random: number them in order of appearance."""
    found: dict[bytes, bytes] = {}
    for boundary in re.findall(rb'boundary="([^"]+)"', raw):
        found.setdefault(boundary, b"BOUNDARY%d" % len(found))
    for boundary, name in found.items():
        raw = raw.replace(boundary, name)
    return raw


def lf(text: str) -> str:
    return text.replace("\r\n", "\n")


any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
# names as people have them: letters and digits of any script, spaces, dots, hyphens
names = st.text(st.characters(whitelist_categories=("L", "Nd")) | st.sampled_from(list(" .-'")), max_size=40)


@settings(max_examples=200, deadline=None)
@given(text=any_text, html=any_text, table=st.one_of(st.none(), any_text), name=names,
       subject=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=140),
       reply=st.booleans(), template=st.sampled_from(["report", "help"]),
       parent=st.from_regex(r"<[!-~]{1,60}>|[ -~]{0,90}", fullmatch=True))
@example(text="a\r\nb\rc\nd\x0b\x0ce\x85f\u2028", html="<p>é</p>" * 200, table="x" * 1200, name="Zoë, \"Z\"",
         subject="Re: [kit] Turn 7 report; turn 8 due Sun 28 Mar 18:00 UTC, a subject long enough to fold",
         reply=True, template="help", parent="<order.1@example.org>")
@example(text="", html="", table="", name="", subject="x", reply=False, template="report", parent="")
@example(text="ok\n" * 2000, html="\n\n", table="é\n" * 3000, name="Ann", subject="é" * 60, reply=False,
         template="report", parent="x")
def test_mail_bytes_are_the_email_packages(text, html, table, name, subject, reply, template, parent):
    attachments = [ICS] if table is None else [(table, "text", "plain", "table.txt"), ICS]
    threading = {"in_reply_to": parent or "<p@x>", "references": ["<a@x>", parent or "<b@x>"],
                 "auto_reply": True} if reply else {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        mail = compose(monkeypatch, text, html, attachments, subject=subject, template=template,
                       to=f"{name} <ann@example.org>" if name else "ann@example.org", **threading)
    fast = mail.as_bytes()
    slow = mail.email_message().as_bytes(policy=mime.MAIL_POLICY)
    assert numbered_boundaries(fast) == numbered_boundaries(slow)


def test_mail_reads_back_with_its_bodies_and_attachments(monkeypatch):
    text, html, table = "Hello Ann\n" * 400, "<p>Hello Ann</p>\n" * 400, "Ann  3 -> 9\n" * 500 + "Zoë 4 -> 5\n"
    raw = compose(monkeypatch, text, html, [(table, "text", "plain", "table.txt"), ICS], template="help").as_bytes()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert lf(message.get_body(("plain",)).get_content()) == text
    assert lf(message.get_body(("html",)).get_content()) == html
    attached = {a.get_filename(): a.get_content() for a in message.iter_attachments()}
    assert lf(attached["table.txt"]) == table and attached["deadline.ics"] == ICS[0].decode()
    assert "rules-postal.md" in attached and b"gm-part-" not in raw


def test_a_boundary_never_stands_in_a_body(monkeypatch):
    """The structure is written once with placeholders; each mail's boundaries are drawn
    against its real bodies, so one a body holds is drawn again."""
    text = "--===============1111111111111111111==\n" * 100
    mail = compose(monkeypatch, text, "<p>x</p>" * 400)
    mail.as_bytes()  # the skeleton for this shape is made with boundaries of its own
    drawn = iter(["===============1111111111111111111==", "===============2222222222222222222==",
                  "===============3333333333333333333=="])
    monkeypatch.setattr(mime.Generator, "_make_boundary", classmethod(lambda cls, text=None: next(drawn)))
    message = email.message_from_bytes(mail.as_bytes(), policy=email.policy.default)
    assert message.get_boundary() == "===============2222222222222222222=="
    assert lf(message.get_body(("plain",)).get_content()) == text
