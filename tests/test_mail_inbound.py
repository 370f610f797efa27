"""docs/rules/, Order mail (order mail) and CONTRACT.md (time of receipt): reading one raw mail.

One test per fixture in tests/data/mail (written by tests/mailfactory.py, which says what
each one is), then the loop rules, then hypothesis: no bytes make read_mail raise.
"""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mailfactory import DATA, FIXTURES, load, message
from test_orderlang import numbers, parse_orders, trapdoors

from gm.mail.headers import address_of
from gm.mail.htmltext import html_to_text
from gm.mail.inbound import InboundMail, raw_cap, read_mail

CET = timezone(timedelta(hours=1))


def read(name: str, **kwargs) -> InboundMail:
    return read_mail(load(name), **kwargs)


def orders(name: str):
    return parse_orders(read(name).text)


def test_fixture_files_match_the_factory():
    """Every .eml is what its builder writes, and every builder has its file."""
    on_disk = {p.stem for p in DATA.glob("*.eml")}
    assert on_disk == set(FIXTURES)
    for name, fixture in FIXTURES.items():
        assert load(name) == fixture.build(), f"regenerate {name}.eml (tests/mailfactory.py)"


# --- one test per fixture ----------------------------------------------------------------


def test_3_plain_text_mail_is_read():
    mail = read("plain")
    assert mail == InboundMail(
        message_id="<4f1e2d3c-1111-4a5b-9c8d-000000000001@example.org>",
        sender="alice@example.org",
        subject="Re: spring-2027: turn 6 report",
        received_at=datetime(2026, 11, 22, 17, 2, 11, tzinfo=CET),
        references=(
            "<start.alice@gm.example.org>",
            "<turn-6.alice@gm.example.org>",
            "<4f1e2d3c-1111-4a5b-9c8d-000000000001@example.org>",
        ),
        text="Hello GM,\n\nGAME spring-2027\nPLAYER alice\nPASSWORD Tea-Party-6\nTURN 7\n"
        "NUMBER 3\nTRAPDOOR A 44\n\nAlice\n",
        loop=None,
        bounced_recipients=(),
        oversize=False,
        ignored_parts=(),
        broken=None,
    )
    parsed = parse_orders(mail.text)
    assert (parsed.game, parsed.player, parsed.password, parsed.turn) == (
        "spring-2027",
        "alice",
        "Tea-Party-6",
        7,
    )
    assert numbers(parsed) == {None: 3} and trapdoors(parsed) == {"A": 44}
    assert parsed.ignored == ((1, "Hello GM,"), (10, "Alice"))


def test_contract_received_at_is_the_topmost_received_header():
    mail = read("received")
    # Not the Date: (16:50 UTC) nor the lower Received: lines (16:59:58, 16:59:50 UTC).
    assert mail.received_at == datetime(2026, 11, 22, 17, 0, 5, tzinfo=UTC)
    assert mail.received_at.utcoffset() == timedelta(hours=1)
    assert mail.text == "PLAYER bob\nPASSWORD s3cret-horse\nNUMBER 6\n"


def test_contract_received_at_falls_back_to_the_date_header():
    mail = read("plain")
    assert mail.received_at == datetime(2026, 11, 22, 16, 2, 11, tzinfo=UTC)


def test_contract_received_at_with_an_undated_topmost_received_uses_date():
    raw = message(
        """
Received: from a by b
Received: from c by d; Sun, 22 Nov 2026 10:00:00 +0000
Date: Sun, 22 Nov 2026 09:00:00 +0000
From: x@example.org
""",
        "NUMBER 1\n",
    )
    assert read_mail(raw).received_at == datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def test_no_message_id_and_a_minus_zero_date_is_still_timezone_aware():
    mail = read("no_message_id")
    assert mail.message_id is None
    assert mail.references == ()
    assert mail.received_at == datetime(2026, 11, 22, 17, 30, tzinfo=UTC)
    assert mail.received_at.tzinfo is not None
    assert mail.sender == "carol@example.org"


def test_no_date_at_all_gives_no_received_at():
    assert read_mail(message("From: x@example.org", "NUMBER 1\n")).received_at is None


def test_3_html_only_mail_is_read():
    mail = read("html_only")
    # Block elements and <br> end lines, &nbsp; is a space, &amp; decoded, script and
    # style dropped.
    assert mail.text == (
        "Hi GM,\n\nPLAYER dinah\nPASSWORD Cat&Mouse\nNUMBER 5\nTRAPDOOR A 37\n\n"
        "Cheers & good luck,\nDinah\n"
    )
    assert mail.ignored_parts == ()
    parsed = parse_orders(mail.text)
    assert parsed.ok and parsed.password == "Cat&Mouse"
    assert numbers(parsed) == {None: 5} and trapdoors(parsed) == {"A": 37}


def test_3_multipart_alternative_from_a_phone_reads_the_plain_part():
    mail = read("iphone")
    assert mail.text.startswith(
        "Player edith\nPassword Lory\u2019s-Key\nNumber 2\nTrapdoor A 44\n\nSent from my iPhone\n"
    )
    assert "> NUMBER 4" in mail.text
    # The HTML twin of the text is no ignored attachment.
    assert mail.ignored_parts == ()
    assert mail.references == (
        "<turn-6.edith@gm.example.org>",
        "<5B1C9E2A-1D3F-4C6B-8E2A-9F0B1C2D3E4F@example.net>",
    )
    parsed = parse_orders(mail.text)
    assert parsed.ok
    assert (parsed.player, parsed.password) == ("edith", "Lory\u2019s-Key")
    assert numbers(parsed) == {None: 2} and trapdoors(parsed) == {"A": 44}
    assert parsed.ignored == ((6, "Sent from my iPhone"),)


def test_3_reply_quoting_the_last_report_takes_only_the_new_orders():
    mail = read("gmail_reply")
    assert "> NUMBER 4\n> TRAPDOOR A 12\n" in mail.text
    parsed = parse_orders(mail.text)
    assert parsed.ok
    assert numbers(parsed) == {None: 5}
    assert trapdoors(parsed) == {"A": 37}
    assert parsed.ignored == ((6, "Thanks!"),)


def test_3_html_reply_blockquote_becomes_quoted_lines():
    msg = email.message_from_bytes(load("gmail_reply"), policy=email.policy.default)
    text = html_to_text(msg.get_body(("html",)).get_content())
    assert text.startswith(
        "PLAYER frank\nPASSWORD Oz-1900\nNUMBER 5\nTRAPDOOR A 37\n\nThanks!\n\n"
        "On Sun, 22 Nov 2026 at 17:05, Snakes GM <gm@example.org> wrote:\n"
        "> Snakes by mail - spring-2027 - turn 6 report\n>\n"
    )
    assert "> NUMBER 4\n> TRAPDOOR A 12\n" in text
    parsed = parse_orders(text)
    assert numbers(parsed) == {None: 5} and trapdoors(parsed) == {"A": 37}


def test_3_quoted_printable_is_decoded():
    mail = read("quoted_printable")
    assert mail.subject == "Züge für Runde 7"
    # Soft line breaks joined, =C3=BC and =3D decoded.
    assert mail.text == (
        "Hallo Spielleiter, hier sind meine Züge für diese Runde, wie immer etwas spät.\n"
        "PLAYER gudrun\nPASSWORD Grün-Tee\nGlückszahl: 2+2=4\nNUMBER 4\n"
    )
    parsed = parse_orders(mail.text)
    assert parsed.ok and parsed.password == "Grün-Tee" and numbers(parsed) == {None: 4}
    assert parsed.ignored[-1] == (4, "Glückszahl: 2+2=4")


def test_3_base64_is_decoded():
    mail = read("base64")
    assert mail.text == (
        "PLAYER hanna\nPASSWORD b4se-sixty\nNUMBER 1\nTRAPDOOR NONE\n\nSent from my Android\n"
    )
    assert trapdoors(parse_orders(mail.text)) == {None: None}


def test_3_iso_8859_1_body_and_headers_are_decoded():
    mail = read("latin1")
    assert mail.subject == "Grüße"
    assert mail.sender == "juergen@example.de"
    assert mail.text == "Grüße aus Köln!\nPLAYER jürgen\nPASSWORD Süß\nNUMBER 6\n"


def test_3_windows_1252_body_is_decoded():
    mail = read("windows1252")
    assert mail.sender == "kate@example.ie"
    assert mail.text == (
        "\u201cFingers crossed\u201d \u2013 last time cost me \u20ac10 in biscuits\u2026\n"
        "PLAYER kate\nPASSWORD shamrock\nNUMBER 3\n"
    )


def test_3_utf8_body_nbsp_becomes_a_space():
    mail = read("utf8")
    assert mail.subject == "Tørn 7"
    assert mail.text == (
        "Hej! 🎲\nPLAYER lars\nPASSWORD Smørrebrød\nNUMBER 2\nTRAP\u200bDOOR A 50\nTRAPDOOR B 51\n"
    )
    parsed = parse_orders(mail.text)
    assert parsed.ok and numbers(parsed) == {None: 2}
    assert trapdoors(parsed) == {"A": 50, "B": 51}


def test_3_outlook_reply_stops_at_the_original_message():
    mail = read("outlook_reply")
    assert "-----Original Message-----\nFrom: Snakes GM <gm@example.org>\n" in mail.text
    assert "\nNUMBER 4\nTRAPDOOR A 12\n" in mail.text  # the report, quoted without '>'
    assert "\r" not in mail.text
    parsed = parse_orders(mail.text)
    assert parsed.ok
    assert numbers(parsed) == {None: 3} and trapdoors(parsed) == {}
    assert parsed.ignored == ((6, "Mary"),)


def test_3_outlook_html_reply_stops_at_the_from_sent_block():
    msg = email.message_from_bytes(load("outlook_reply"), policy=email.policy.default)
    text = html_to_text(msg.get_body(("html",)).get_content())
    assert text.startswith(
        "GAME spring-2027\nPLAYER mary\nPASSWORD Pop-Pins\nNUMBER 3\nMary\n"
        "From: Snakes GM <gm@example.org>\nSent: Sunday, November 22, 2026 5:05 PM\n"
    )
    parsed = parse_orders(text)
    assert numbers(parsed) == {None: 3} and trapdoors(parsed) == {}


def test_3_format_flowed_soft_breaks_are_rejoined():
    mail = read("thunderbird_flowed")
    assert mail.text == (
        "PLAYER xavier\nPASSWORD x-marks-the-spot\nNUMBER 6\n\n"
        "I kept the six for last, as everyone said I would, and unlike last turn's "
        "NUMBER 4 it should carry me past the snake on 62.\n"
        "From now on I will send orders earlier.\n\n"
        "On 22/11/2026 17:05, Snakes GM wrote:\n"
        "> Your standing order for turn 6: NUMBER 4, and a trapdoor on square 12 of board A.\n"
    )
    parsed = parse_orders(mail.text)
    assert parsed.ok and numbers(parsed) == {None: 6}
    assert [n for n, _ in parsed.ignored] == [5, 6]


def test_3_format_flowed_delsp_removes_the_soft_break_space():
    # RFC 3676: the empty line after "fixed " ends that paragraph, so it joins and goes.
    raw = message(
        "From: p@example.org\nContent-Type: text/plain; format=flowed; delsp=yes",
        "a long line that was bro\x20\nken here\n> quoted soft \n> and on\nfixed \n\n-- \nsig\n",
    )
    assert (
        read_mail(raw).text
        == "a long line that was broken here\n> quoted softand on\nfixed\n-- \nsig\n"
    )


def test_3_signature_lines_are_ignored_even_when_they_hold_commands():
    mail = read("signature")
    assert "-- \nNick Bottom" in mail.text
    parsed = parse_orders(mail.text)
    assert parsed.ok and numbers(parsed) == {None: 1}
    assert parsed.ignored == ()


def test_3_attachments_are_ignored_and_listed():
    mail = read("attachment")
    assert mail.text == (
        "PLAYER olive\nPASSWORD 0live-0il\nNUMBER 5\n"
        "See the attached sketch of where I think the snakes are."
    )
    # The attached notes.txt is a text/plain part too, but an attachment: not the text.
    assert mail.ignored_parts == ("application/pdf", "image/png", "text/plain")
    assert numbers(parse_orders(mail.text)) == {None: 5}


def test_broken_base64_still_gives_the_readable_text():
    mail = read("broken_base64")
    assert mail.broken == "bad base64 characters"
    assert mail.text.startswith("PLAYER pat\nPASSWORD pa55\nNUMBER 2\n")
    assert numbers(parse_orders(mail.text)) == {None: 2}


def test_broken_unknown_charset_is_read_as_utf8_and_reported():
    mail = read("broken_charset")
    assert mail.broken == "unknown charset 'x-klingon-1'"
    assert mail.text == "PLAYER quentin\nPASSWORD qapla\u2019\nNUMBER 4\n"


def test_broken_missing_boundary_is_guessed():
    mail = read("broken_boundary")
    assert mail.broken == "multipart without a boundary (guessed)"
    assert mail.text == "PLAYER rosa\nPASSWORD r0sa\nNUMBER 6"
    assert mail.ignored_parts == ()


def test_broken_multipart_with_no_boundary_anywhere_is_read_as_text():
    raw = message("From: p@example.org\nContent-Type: multipart/mixed", "PLAYER p\nNUMBER 4\n")
    mail = read_mail(raw)
    assert mail.text == "PLAYER p\nNUMBER 4\n"
    assert mail.broken == "multipart without a boundary; multipart with no parts"
    assert mail.ignored_parts == ()


def test_broken_8bit_headers_are_read_as_utf8_or_latin1():
    mail = read("broken_8bit_headers")
    assert mail.subject == "Drag 7 \u2013 tärning"
    assert mail.sender == "soren@example.se"
    assert mail.broken is None
    assert mail.text == "PLAYER sören\nPASSWORD björn\nNUMBER 5\n"


def test_broken_truncated_multipart_keeps_the_text():
    mail = read("broken_truncated")
    assert mail.broken == "multipart not closed (truncated?)"
    assert mail.text == "PLAYER tess\nPASSWORD t3ss\nNUMBER 3"
    assert mail.ignored_parts == ("application/octet-stream",)


def test_3_oversize_message_is_flagged_and_its_text_cut():
    mail = read("oversize")
    assert mail.oversize is True
    assert len(mail.text) == 65536
    assert mail.text.startswith("PLAYER uma\n")
    assert read("oversize", max_text=1_000_000).oversize is False


def test_3_oversize_raw_message_is_not_parsed_beyond_its_headers():
    assert raw_cap(65536) == 655360 + 25 * 1024 * 1024
    big = message("From: a@example.org\nSubject: big\nMessage-ID: <big@x>", "x" * (raw_cap(10) + 1))
    mail = read_mail(big, max_text=10)
    assert mail.oversize and mail.text == "" and mail.ignored_parts == ()
    assert (mail.sender, mail.subject, mail.message_id) == ("a@example.org", "big", "<big@x>")


def test_3_oversize_html_is_refused_before_conversion():
    html = "<div>" + "<b></b>" * 2000 + "NUMBER 4</div>"
    raw = message("From: a@example.org\nContent-Type: text/html", html)
    assert read_mail(raw, max_text=100).oversize
    assert not read_mail(raw).oversize


# --- loops (docs/rules/, Order mail: never answered) --------------------------------------------------


def test_3_auto_replied_mail_is_a_loop():
    mail = read("auto_replied")
    assert mail.loop == "auto-submitted"
    assert mail.bounced_recipients == ()


def test_3_vacation_reply_with_precedence_bulk_is_a_loop():
    assert read("vacation_bulk").loop == "bulk"


def test_3_bounce_names_the_failed_recipient_only():
    mail = read("bounce")
    assert mail.loop == "bounce"
    assert mail.sender == "mailer-daemon@mail.example.org"
    # The delayed recipient is no failure; Original-Recipient's case is folded.
    assert mail.bounced_recipients == ("bob@example.org",)
    assert mail.ignored_parts == ("message/delivery-status", "text/rfc822-headers")
    assert mail.text.startswith("This is the mail system at host mail.example.org.\n")


def test_3_mail_from_our_own_address_is_a_loop():
    assert read("plain", own_addresses=["Snakes GM <ALICE@example.org>"]).loop == "own"
    assert read("plain", own_addresses=["gm@example.org"]).loop is None


@pytest.mark.parametrize(
    ("headers", "loop"),
    [
        ("Auto-Submitted: auto-generated", "auto-submitted"),
        ("Auto-Submitted: auto-replied; owner-email=x@y", "auto-submitted"),
        ("Auto-Submitted: no", None),
        ("Auto-Submitted: No", None),
        ("Auto-Submitted: no (a person wrote this)", None),
        ("Auto-Submitted: auto-replied (vacation)", "auto-submitted"),
        ("Precedence: junk", "bulk"),
        ("Precedence: list", "bulk"),
        ("Precedence: first-class", None),
        ("X-Autoreply: yes", "auto-submitted"),
        ("Return-Path: <>", "bounce"),
        ("Return-Path: <p@example.org>", None),
    ],
)
def test_3_loop_markers(headers, loop):
    raw = message(f"From: p@example.org\n{headers}", "NUMBER 1\n")
    assert read_mail(raw).loop == loop


@pytest.mark.parametrize(
    "sender",
    ["", "From: <>", "From: MAILER-DAEMON", "From: Postmaster <postmaster@example.org>"],
)
def test_3_empty_or_daemon_sender_is_a_bounce(sender):
    assert read_mail(message(sender or "Subject: x", "hello\n")).loop == "bounce"


def test_3_bounced_recipients_only_for_bounces():
    raw = message("From: p@example.org\nX-Failed-Recipients: q@example.org", "x\n")
    assert read_mail(raw).bounced_recipients == ()
    raw = message("From: MAILER-DAEMON@example.org\nX-Failed-Recipients: Q@example.org", "x\n")
    assert read_mail(raw).bounced_recipients == ("q@example.org",)


# --- headers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("Alice <Alice@Example.org>", "alice@example.org"),
        ("alice@example.org (Alice)", "alice@example.org"),
        ('"Smith, John" <JOHN@example.org>', "john@example.org"),
        ("Smith, John <john@example.org>", "john@example.org"),
        ('"bob@evil.example" <alice@example.org>', "alice@example.org"),
        ("=?utf-8?q?J=C3=B6rg?= <jorg@example.de>", "jorg@example.de"),
        ("MAILER-DAEMON", "mailer-daemon"),
        ("<>", ""),
        ("", ""),
    ],
)
def test_address_of(value, address):
    assert address_of(value) == address


@pytest.mark.parametrize(
    ("from_lines", "why"),
    [
        (["=?utf-8?q?foo=0D=0ABcc:_evil@c.example?= <v2@a.example>"], "cannot be read as addresses"),
        (["=?utf-8?q?x_<evil@c.example>?= <v2@a.example>"], "2 addresses"),
        (["=?utf-8?q?evil=40c.example?= <v2@a.example>"], "encoded name holds address syntax"),
        (["v2@a.example, evil@c.example"], "2 addresses"),
        (["group: v2@a.example, evil@c.example;"], "2 addresses"),
        (["<v2@a.example> <evil@c.example>"], "2 addresses"),
        (["undisclosed-recipients:;"], "no address"),
        (["Two Words"], "no address"),
        (["v2@a.example", "evil@c.example"], "2 From headers"),
        (["x" * 990 + " <v2@a.example>"], "more than 998 characters"),
    ],
)
def test_3_a_from_of_more_or_less_than_one_address_names_no_sender(from_lines, why):
    head = "\n".join(f"From: {line}" for line in from_lines)
    mail = read_mail(message(head, "NUMBER 1\n"))
    assert mail.sender == "" and why in (mail.unreadable_sender or ""), mail.unreadable_sender
    assert mail.loop is None  # no bounce: nothing marks a player's address failing


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("=?utf-8?q?M=C3=BCller=2C_Hans?= <hans@example.de>", "hans@example.de"),
        ('"alice@example.org" <alice@example.org>', "alice@example.org"),
        ("Smith, John <john@example.org>", "john@example.org"),
        ("=?utf-8?b?QWxpY2U=?= <Alice@Example.org>", "alice@example.org"),
    ],
)
def test_3_a_from_of_one_address_names_its_sender(value, address):
    mail = read_mail(message(f"From: {value}", "NUMBER 1\n"))
    assert (mail.sender, mail.unreadable_sender) == (address, None)


def test_subject_never_carries_a_line_break_into_our_reply():
    raw = message("From: p@example.org\nSubject: =?utf-8?q?hi=0D=0ABcc:_x@evil?=", "x\n")
    assert read_mail(raw).subject == "hi Bcc: x@evil"


def test_references_fall_back_to_in_reply_to_and_are_trimmed():
    raw = message("From: p@example.org\nMessage-ID: <me@x>\nIn-Reply-To: <you@x>", "x\n")
    assert read_mail(raw).references == ("<you@x>", "<me@x>")
    many = " ".join(f"<r{i}@x>" for i in range(40))
    raw = message(f"From: p@example.org\nMessage-ID: <me@x>\nReferences: {many}", "x\n")
    refs = read_mail(raw).references
    assert len(refs) == 20 and refs[0] == "<r0@x>" and refs[-2:] == ("<r39@x>", "<me@x>")


# --- bodies ------------------------------------------------------------------------------


def test_3_empty_plain_alternative_falls_back_to_html():
    raw = message(
        'From: p@example.org\nContent-Type: multipart/alternative; boundary="b"',
        "--b\nContent-Type: text/plain\n\n\n--b\nContent-Type: text/html\n\n"
        "<p>NUMBER 2</p>\n--b--\n",
    )
    mail = read_mail(raw)
    assert mail.text == "NUMBER 2\n" and mail.ignored_parts == ()


def test_3_message_with_only_an_attachment_has_no_text():
    raw = message(
        'From: p@example.org\nContent-Type: multipart/mixed; boundary="b"',
        "--b\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n\nJVBERg==\n--b--\n",
    )
    mail = read_mail(raw)
    assert mail.text == "" and mail.ignored_parts == ("application/pdf",)


def test_undeclared_8bit_body_is_utf8_else_windows_1252():
    assert read_mail(message("From: p@x.org", "Grüße\n".encode())).text == "Grüße\n"
    assert read_mail(message("From: p@x.org", "Grüße €\n".encode("cp1252"))).text == "Grüße €\n"
    unknown = message(
        "From: p@x.org\nContent-Type: text/plain; charset=unknown-8bit", "Grüße\n".encode()
    )
    assert (read_mail(unknown).text, read_mail(unknown).broken) == ("Grüße\n", None)


def test_declared_utf8_that_is_not_is_read_as_windows_1252_and_reported():
    raw = message(
        "From: p@x.org\nContent-Type: text/plain; charset=utf-8", "Grüße\n".encode("cp1252")
    )
    assert (read_mail(raw).text, read_mail(raw).broken) == ("Grüße\n", "body is not valid UTF-8")


@pytest.mark.parametrize("charset", ["base64", "rot13", "idna", "unicode_escape", "x-klingon"])
def test_codecs_that_are_no_charset_are_refused(charset):
    # Python would "decode" base64 or unicode_escape bodies; a mail charset they are not.
    raw = message(f"From: p@x.org\nContent-Type: text/plain; charset={charset}", b"NUMBER 4\n")
    mail = read_mail(raw)
    assert mail.text == "NUMBER 4\n" and mail.broken == f"unknown charset '{charset}'"


def test_html_to_text_details():
    assert html_to_text("<p>a</p>\n<p>b&nbsp;c</p>") == "a\nb c\n"
    assert html_to_text("a<br>b<br/>c") == "a\nb\nc\n"
    assert html_to_text("<blockquote>q<blockquote>qq</blockquote></blockquote>x") == (
        "> q\n> > qq\nx\n"
    )
    assert html_to_text("<style>p{}</style><script>NUMBER 1</script><p>NUMBER   2</p>") == (
        "NUMBER 2\n"
    )
    assert html_to_text("<pre>NUMBER 3\nTRAPDOOR 4</pre>") == "NUMBER 3\nTRAPDOOR 4\n"
    assert html_to_text("<div>unclosed <b>tags &lt;ok&gt;") == "unclosed tags <ok>\n"
    assert html_to_text("") == ""
    assert html_to_text("<html><head><title>t</title><body><p>NUMBER 2</p>") == "NUMBER 2\n"


# --- never raises ------------------------------------------------------------------------

FRAGMENTS = [
    b"From: a@b.c\n",
    b"Content-Type: multipart/mixed; boundary=x\n",
    b"Content-Type: multipart/report; report-type=delivery-status; boundary=x\n",
    b"Content-Type: message/delivery-status\n",
    b"Content-Type: text/html; charset=x-unknown\n",
    b"Content-Type: text/plain; charset*=utf-8''%FF%FE\n",
    b"Content-Transfer-Encoding: base64\n",
    b"Content-Transfer-Encoding: quoted-printable\n",
    b"Content-Transfer-Encoding: x-uuencode\n",
    b"Received: x; Mon, 99 Foo 99999 99:99:99 +9999\n",
    b"Date: \xff\xfe\n",
    b"Subject: =?utf-8?b?////?= =?x?q?=FF?=\n",
    b"Message-ID: <\x00>\n",
    b"\n",
    b"--x\n",
    b"--x--\n",
    b"<blockquote><pre>&#0;&#xD800;&bogus;</blockquote>\n",
    b"Final-Recipient: rfc822; \xff@x\n",
    b"=\n",
    b"\r",
    b"\xef\xbb\xbf",
]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.one_of(st.binary(max_size=2000), st.lists(st.sampled_from(FRAGMENTS)).map(b"".join)))
@example(b"")
@example(b"\x00" * 10)
@example(b"Content-Type: multipart/mixed\n\n--\n")
@example(b"From: =?unknown-8bit?q?=FF?= <\xff@\xfe>\n\n")
def test_read_mail_never_raises(raw):
    mail = read_mail(raw)
    assert isinstance(mail, InboundMail)
    # The catch-all in read_mail is for bugs: fuzzing must not reach it.
    assert not (mail.broken or "").startswith("could not be read")
    assert mail.received_at is None or mail.received_at.tzinfo is not None
    # Every string can be stored and sent on: no lone surrogates.
    for value in (mail.sender, mail.subject, mail.text, mail.message_id or "", *mail.references):
        value.encode("utf-8")
    assert "\n" not in mail.subject and "\r" not in mail.subject


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(sorted(FIXTURES)),
    cut=st.integers(min_value=0, max_value=3000),
    flips=st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 255)), max_size=8),
)
def test_read_mail_never_raises_on_damaged_fixtures(name, cut, flips):
    raw = bytearray(FIXTURES[name].build()[: cut or None])
    for at, value in flips:
        if raw:
            raw[at % len(raw)] = value
    mail = read_mail(bytes(raw))
    mail.text.encode("utf-8")
    assert not (mail.broken or "").startswith("could not be read")


@settings(max_examples=300, deadline=None)
@given(st.text())
@example("<blockquote></blockquote></blockquote><pre></pre></pre><br/><script>")
@example("<!-- <p> --><![CDATA[x]]><?pi?><!doctype html>&#xFFFFFFFF;&#0;")
def test_html_to_text_never_raises(html):
    assert isinstance(html_to_text(html), str)
