"""Reading one raw order mail (RULES.md 3): who sent it, when it arrived, whether it may
be answered at all, and the text a player typed.

This module owns turning bytes into an `InboundMail`; what the text says is
`gm.mail.orderlang`'s, and what to do with the mail is the caller's. Players write from any
program (phones, webmail, HTML-only mail, Outlook, replies quoting the last report), and
bounces and broken mail arrive too, so `read_mail` never raises: it extracts what it can
and says what it could not read in `broken`. MIME is parsed by the standard `email`
package only; this module adds the decisions around it (which part is the text, how HTML
becomes lines, what a mail loop looks like).

Hostile mail (RULES.md 3) is refused before `email` can spend more on it than its size
allows: too large a message is never parsed, and the parser is the `email` package's own,
measuring each header section before a field of it is parsed and refusing a part nested
too deep before it recurses. A refused message still yields, from its raw header block
read by hand, who sent it, its ids and loop markers, so it can be recorded and answered.
"""

from __future__ import annotations

import codecs
import contextlib
import email
import email.feedparser
import email.message
import email.utils
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.policy import EmailPolicy
from typing import Any

from .htmltext import html_to_text

__all__ = [
    "HEAD_SCAN",
    "HOSTILE_REASONS",
    "InboundMail",
    "MAX_MESSAGE_BYTES",
    "RAW_ALLOWANCE",
    "address_of",
    "header_times",
    "raw_cap",
    "read_mail",
]

# The raw message may be much larger than its text: HTML markup, a quoted report in two
# alternatives, a phone photo attached by mistake. Beyond this cap the body is not even
# parsed (only the headers, to record it and to spot loops); 25 MiB is the largest mail
# the big providers let a player send.
RAW_ALLOWANCE = 25 * 1024 * 1024

# References grow with every reply of a thread; RFC 5322 3.6.4 allows trimming, and a
# short header keeps our reply's header lines within what servers accept.
MAX_REFERENCES = 20

# RULES.md 3 "Hostile mail": a message beyond any of these is refused unread.
MAX_MESSAGE_BYTES = 1024 * 1024  # raw mail; the default of the option max_message_bytes
MAX_HEADER_BYTES = 16 * 1024  # one header field, its name and folded value, raw
MAX_DEPTH = 20  # MIME nesting: a part inside 20 multipart or message/* parts is the deepest
# What reading one message may cost beyond those, so that time and memory stay bounded by
# its size whatever it holds (the bombs in tests/test_hostile_mail.py found each figure).
# Past one of them a message is "unparseable": gm will not parse that much.
MAX_PARTS = 100  # the parser and get_body() spend about 0.5 ms on each part
MAX_FIELDS = 1000  # header fields in all sections; an order mail has a few dozen
# RFC 2047 encoded words in all header fields: decoding the words of one field takes time
# and memory quadratic in their number (100,000 in a Subject took 24 GB); a subject in any
# script needs a dozen.
MAX_ENCODED_WORDS = 256
# Content-Type, -Disposition and -Transfer-Encoding are parsed by `email`'s structured
# parser at 10-20 us a byte and a thousand times their size in memory (worse with quotes,
# RFC 2231 parameters by the thousand ran for minutes): no field of them above 2 KiB, and
# 8 KiB of them in the whole message. Real ones are under 200 bytes.
MAX_MIME_FIELD = 2 * 1024
MAX_MIME_BYTES = 8 * 1024
_MIME_FIELDS = ("content-type", "content-disposition", "content-transfer-encoding")
# How much of a refused message's raw header block is read by hand, and of its Subject.
HEAD_SCAN = 64 * 1024
_SUBJECT_SCAN = 1000
_SUBJECT_KEPT = 200


@dataclass(frozen=True)
class InboundMail:
    """One order mail as read. Every string is free of control characters that could
    break a reply header, and of lone surrogates that would break storage."""

    message_id: str | None
    sender: str
    subject: str
    received_at: datetime | None
    references: tuple[str, ...]
    text: str
    loop: str | None
    bounced_recipients: tuple[str, ...]
    oversize: bool
    ignored_parts: tuple[str, ...]
    broken: str | None
    # RULES.md 3 "Hostile mail": why the message is refused whole before its text is read
    # (one of HOSTILE_REASONS), or None. Such a message is recorded and never applied.
    hostile: str | None = None


# The reasons a message is refused unread (RULES.md 3): the desk words each for the sender.
HOSTILE_REASONS = ("too-large", "long-header", "too-deep", "unparseable")


def raw_cap(max_text: int) -> int:
    """The raw size beyond which a message is oversize without being read."""
    return 10 * max_text + RAW_ALLOWANCE


def read_mail(
    raw: bytes,
    *,
    own_addresses: Iterable[str] = (),
    max_text: int = 65536,
    max_bytes: int = MAX_MESSAGE_BYTES,
) -> InboundMail:
    """Read one raw message. Never raises, whatever the bytes.

    A message larger than `max_bytes`, with a header field longer than MAX_HEADER_BYTES,
    MIME nested deeper than MAX_DEPTH, or that cannot be parsed within the bounds above
    comes back `hostile` (RULES.md 3), with no text and what its raw headers tell."""
    raw = bytes(raw)
    own = {address_of(a) for a in own_addresses} - {""}
    try:
        return _read(raw, own, max_text, max_bytes)
    except _Refused as refused:
        return _refused(raw, own, refused.reason, refused.detail)
    except RecursionError:
        # Comments nested by the thousand in a MIME field: the header parser recurses.
        return _refused(raw, own, "unparseable", "nested too deeply to be parsed")
    except Exception as error:  # the promise is "never raises"
        # Reached only by a bug here or in the email package; the mail is still recorded.
        return _refused(raw, own, "unparseable", f"could not be read ({type(error).__name__})")


class _Refused(Exception):
    """A message is hostile (RULES.md 3): one of HOSTILE_REASONS, and what was found."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _refused(raw: bytes, own: set[str], reason: str, detail: str) -> InboundMail:
    """A hostile message as its raw header block tells it: enough to record it, answer it
    once and spot a loop, for a cost bounded by HEAD_SCAN whatever the message holds."""
    try:
        head = _RawHead(_head_fields(raw))
        sender = address_of(next(iter(_headers(head, "From")), ""))
        loop = _loop(head, sender, own)
        message_id = _message_id(head)
        return InboundMail(
            message_id=message_id,
            sender=sender,
            subject=_short_subject(head),
            received_at=_received_at(head),
            references=_references(head, message_id),
            text="",
            loop=loop,
            bounced_recipients=_bounced(head, []) if loop == "bounce" else (),
            oversize=reason == "too-large",
            ignored_parts=(),
            broken=detail,
            hostile=reason,
        )
    except Exception as error:  # a bug here: still no raise, and still refused
        return _unreadable(f"could not be read ({type(error).__name__})", reason)


def _unreadable(why: str, hostile: str | None = None) -> InboundMail:
    return InboundMail(
        message_id=None,
        sender="",
        subject="",
        received_at=None,
        references=(),
        text="",
        loop=None,
        bounced_recipients=(),
        oversize=False,
        ignored_parts=(),
        broken=why,
        hostile=hostile,
    )


def _read(raw: bytes, own: set[str], max_text: int, max_bytes: int) -> InboundMail:
    if len(raw) > max_bytes:
        raise _Refused("too-large", f"more than {max_bytes} bytes of raw mail")
    if not _head_fields(raw):
        # Garbage, or a body alone: the email package would read it all as a body.
        raise _Refused("unparseable", "no header: this is no mail")
    too_big = len(raw) > raw_cap(max_text)
    msg = _parse(raw, headersonly=too_big)
    problems: list[str] = []
    if too_big:
        text, ignored, leaves = "", (), _leaves(msg)
    else:
        msg = _repair_boundary(msg, problems)
        leaves = _leaves(msg)
        text, ignored, too_big = _body_text(msg, leaves, max_text, problems)
    problems.extend(_defects(msg))
    # The address needs no RFC 2047 decoding: only a display name is ever encoded.
    sender = address_of(next(iter(_headers(msg, "From")), ""))
    loop = _loop(msg, sender, own)
    message_id = _message_id(msg)
    return InboundMail(
        message_id=message_id,
        sender=sender,
        subject=_one_line(_header(msg, "Subject") or ""),
        received_at=_received_at(msg),
        references=_references(msg, message_id),
        text=text,
        loop=loop,
        bounced_recipients=_bounced(msg, leaves) if loop == "bounce" else (),
        oversize=too_big,
        ignored_parts=ignored,
        broken="; ".join(dict.fromkeys(problems)) or None,
    )


# --- bounded parsing ---------------------------------------------------------------------


class _CachingPolicy(EmailPolicy):
    """policy.default, but a structured field is parsed once per message, not at every
    read: the parser and get_body() read a part's Content-Type a dozen times, and a
    multipart's own once for every part in it."""

    parsed: dict[tuple[str, str], Any] | None = None

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if self.parsed is None or not isinstance(value, str) or hasattr(value, "name"):
            return super().header_fetch_parse(name, value)
        key = (name, value)
        if key not in self.parsed:
            self.parsed[key] = super().header_fetch_parse(name, value)
        return self.parsed[key]


class _BoundedParser(email.feedparser.BytesFeedParser):
    """The email package's own parser, stopped with `_Refused` before it does more than
    RULES.md 3 and the bounds above allow: each header section is measured before a field
    of it is parsed, and a part is refused before the parser recurses into it."""

    def __init__(self) -> None:
        super().__init__(policy=_CachingPolicy(parsed={}))
        self.parts = self.fields = self.words = self.mime = 0

    def _new_message(self) -> None:
        # _msgstack holds the parts this new one is nested in
        if len(self._msgstack) > MAX_DEPTH:
            raise _Refused("too-deep", f"MIME parts nested deeper than {MAX_DEPTH} levels")
        self.parts += 1
        if self.parts > MAX_PARTS + 1:  # the message itself is no part
            raise _Refused("unparseable", f"more than {MAX_PARTS} MIME parts")
        super()._new_message()

    def _parse_headers(self, lines: list[str]) -> None:
        # The lines are the raw bytes decoded one to one (surrogateescape): len() is bytes.
        name, size = "", 0
        for line in lines:
            if line[:1] in (" ", "\t"):
                size += len(line)
            else:
                self._field(name, size)
                name, size = line.split(":", 1)[0].strip().lower(), len(line)
            self.words += line.count("=?")
        self._field(name, size)
        if self.words > MAX_ENCODED_WORDS:
            raise _Refused("unparseable", f"more than {MAX_ENCODED_WORDS} encoded words in its headers")
        super()._parse_headers(lines)

    def _field(self, name: str, size: int) -> None:
        if not size:
            return
        if size > MAX_HEADER_BYTES:
            shown = _one_line(_unsurrogate(name))[:40] or "nameless"
            raise _Refused("long-header", f"a {shown} header of {size} bytes (at most {MAX_HEADER_BYTES})")
        self.fields += 1
        if self.fields > MAX_FIELDS:
            raise _Refused("unparseable", f"more than {MAX_FIELDS} header fields")
        if name in _MIME_FIELDS:
            self.mime += size
            if size > MAX_MIME_FIELD or self.mime > MAX_MIME_BYTES:
                raise _Refused("unparseable", f"MIME header fields longer than gm reads ({name} of {size} bytes)")


_FEED = 8192  # as email.parser feeds its parser: the lines in hand stay few


def _parse(raw: bytes, *, headersonly: bool = False) -> EmailMessage:
    parser = _BoundedParser()
    if headersonly:
        parser._set_headersonly()
    for start in range(0, len(raw), _FEED):
        parser.feed(raw[start : start + _FEED])
    msg = parser.close()
    assert isinstance(msg, EmailMessage)
    return msg


# The email package's own test for a header line (feedparser.headerRE).
_HEADER_LINE = re.compile(rb"From |[\x21-\x39\x3b-\x7e]*:|[\t ]")


def _head_fields(raw: bytes) -> list[tuple[str, str]]:
    """The message's own header fields (name, value), read by hand from at most HEAD_SCAN
    raw bytes as the email package would read them; each cut at MAX_HEADER_BYTES."""
    fields: list[tuple[str, list[str]]] = []
    size = 0
    for line in raw[:HEAD_SCAN].splitlines():
        if not _HEADER_LINE.match(line):
            break  # the blank line, or the body without one
        text = line.decode("ascii", "surrogateescape")
        if line[:1] in (b" ", b"\t"):
            if fields and size + len(text) <= MAX_HEADER_BYTES:
                fields[-1][1].append(text)
                size += len(text)
        elif not line.startswith(b"From "):  # an mbox envelope line is no field
            if len(fields) == MAX_FIELDS:
                break
            name, _, value = text.partition(":")
            fields.append((name.strip(), [value.strip()[:MAX_HEADER_BYTES]]))
            size = len(text)
    return [(name, "".join(parts)) for name, parts in fields]


class _RawHead:
    """Header fields read by hand, standing in for a parsed message wherever only raw
    header values are read (a hostile message is never handed to the email package)."""

    def __init__(self, fields: list[tuple[str, str]]):
        self.fields = fields

    def raw_items(self) -> Iterator[tuple[str, str]]:
        return iter(self.fields)

    def get_content_type(self) -> str:
        for name, value in self.fields:
            if name.lower() == "content-type":
                kind = value.split(";", 1)[0].strip().lower()
                return kind if "/" in kind else "text/plain"
        return "text/plain"


def _short_subject(head: _RawHead) -> str:
    """The Subject decoded from its first _SUBJECT_SCAN characters only."""
    value = next(iter(_raw_header(head, "Subject")), "")
    if len(value) > _SUBJECT_SCAN:
        value = value[:_SUBJECT_SCAN].rsplit(" ", 1)[0]  # no half encoded word
    with contextlib.suppress(Exception):  # undecodable words stay as they were written
        value = str(policy.default.header_factory("Subject", value))
    return _one_line(_unsurrogate(value))[:_SUBJECT_KEPT]


def header_times(raw: bytes) -> tuple[datetime | None, datetime | None]:
    """(the topmost Received: header's date, the Date: header's) read by hand from the raw
    header block: the time of receipt of mail files the GM names (RULES.md 3)."""
    try:
        head = _RawHead(_head_fields(raw))
        return _topmost_received(head), _date(head)
    except Exception:  # a date that cannot be read is no date
        return None, None


# --- headers -----------------------------------------------------------------------------

# What the header readers below read: a parsed message, or a hostile one's raw header block.
_Headed = email.message.Message | _RawHead

_SURROGATES = re.compile(r"[\udc80-\udcff]+")
_ANY_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")


def _unsurrogate(value: str) -> str:
    """Raw 8-bit bytes the parser kept as surrogates, read as UTF-8 (RFC 6532), else as
    windows-1252, the two that real 8-bit headers and bodies turn out to be."""

    def decode(run: re.Match[str]) -> str:
        return _decode_unknown(run.group().encode("utf-8", "surrogateescape"))

    return _ANY_SURROGATE.sub("\ufffd", _SURROGATES.sub(decode, value))


def _one_line(value: str) -> str:
    # Subjects and ids go back out in reply headers: a decoded CR LF there is injection.
    return " ".join(_CONTROLS.sub(" ", value).split())


def _raw_header(msg: _Headed, name: str) -> list[str]:
    lowered = name.lower()
    return [str(v) for k, v in msg.raw_items() if k.lower() == lowered]


def _header(msg: email.message.Message, name: str) -> str | None:
    """The first `name` header, RFC 2047 decoded; the raw text when it will not parse."""
    try:
        value = msg.get(name)
        if value is None:
            return None
        return _unsurrogate(str(value))
    except Exception:  # a header the registry chokes on is still text
        raw = _raw_header(msg, name)
        return _unsurrogate(raw[0]) if raw else None


def _headers(msg: _Headed, name: str) -> list[str]:
    """Every `name` header, undecoded and unfolded (dates, ids, loop markers)."""
    return [_one_line(_unsurrogate(v)) for v in _raw_header(msg, name)]


def address_of(header_value: str) -> str:
    """The bare lowercase address of a From/To header value ('' when there is none).

    `Alice <Alice@Example.org>` gives `alice@example.org`; a value with no address but a
    word (`MAILER-DAEMON`) gives that word, lowercased.
    """
    try:
        value = _one_line(_unsurrogate(str(header_value)))
        pairs = email.utils.getaddresses([value])
    except Exception:  # a mangled header has no address
        return ""
    addresses = [addr.strip().lower() for _, addr in pairs if addr and addr.strip()]
    for addr in addresses:
        if "@" in addr:
            return addr
    return addresses[0] if addresses else ""


_MSG_ID = re.compile(r"<[^<>\s]+>")


def _message_id(msg: _Headed) -> str | None:
    values = _headers(msg, "Message-ID")
    if not values or not values[0]:
        return None
    found = _MSG_ID.search(values[0])
    return found.group() if found else values[0]


def _references(msg: _Headed, message_id: str | None) -> tuple[str, ...]:
    """Ids for our reply's References: theirs and In-Reply-To's, then the message's own.
    Both headers count, as the loop check reads these (RULES.md 3: an auto-responder may
    set only In-Reply-To to the refusal it answers)."""
    ids = _MSG_ID.findall(" ".join(_headers(msg, "References")))
    ids += _MSG_ID.findall(" ".join(_headers(msg, "In-Reply-To")))
    if message_id and _MSG_ID.fullmatch(message_id):
        ids.append(message_id)
    ids = list(dict.fromkeys(ids))
    if len(ids) > MAX_REFERENCES:
        # The thread's first message and the latest ones say most about where we are.
        ids = ids[:1] + ids[-(MAX_REFERENCES - 1) :]
    return tuple(ids)


def _parse_date(value: str) -> datetime | None:
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except Exception:  # TypeError, ValueError, OverflowError all mean "no date"
        return None
    if when is None:
        return None
    # "-0000" means "UTC, local zone unknown" (RFC 5322 3.3); the result must be aware.
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _received_at(msg: _Headed) -> datetime | None:
    """CONTRACT.md: the date of the topmost Received: header, else the Date: header."""
    return _topmost_received(msg) or _date(msg)


def _topmost_received(msg: _Headed) -> datetime | None:
    # Only the topmost Received: is our own server's; a later one could be written by the
    # sender, so no other Received: is consulted.
    received = _headers(msg, "Received")
    if received and ";" in received[0]:
        return _parse_date(received[0].rsplit(";", 1)[1])
    return None


def _date(msg: _Headed) -> datetime | None:
    dates = _headers(msg, "Date")
    return _parse_date(dates[0]) if dates else None


# --- loops -------------------------------------------------------------------------------

_DAEMONS = {"mailer-daemon", "postmaster"}


def _first_word(value: str) -> str:
    # "auto-replied; owner-email=...", "no (a comment)": the keyword comes first.
    return re.split(r"[\s;(]", value.strip(), maxsplit=1)[0].lower()


def _loop(msg: _Headed, sender: str, own: set[str]) -> str | None:
    """Why this mail must never be answered (RULES.md 3), or None.

    A bounce is named first, since only that reason makes the caller mark an address as
    failing; then mail from ourselves; then the markers auto-responders set.
    """
    local = sender.split("@", 1)[0]
    if msg.get_content_type() == "multipart/report" or not sender or local in _DAEMONS:
        return "bounce"
    if sender in own:
        return "own"
    auto = _headers(msg, "Auto-Submitted")
    if any(_first_word(v) != "no" for v in auto):
        return "auto-submitted"
    # Vacation programs that predate RFC 3834 mark their replies these ways instead.
    if _headers(msg, "X-Autoreply") or _headers(msg, "X-Autorespond"):
        return "auto-submitted"
    precedence = {_first_word(v) for v in _headers(msg, "Precedence")}
    if "auto_reply" in precedence:
        return "auto-submitted"
    if precedence & {"bulk", "junk", "list"}:
        return "bulk"
    # An empty envelope sender is how servers send bounces and how RFC 3834 asks
    # responders to send: never ours to answer.
    if any(v.replace(" ", "") == "<>" for v in _headers(msg, "Return-Path")):
        return "bounce"
    return None


_RECIPIENT = re.compile(
    r"^(?:final|original)-recipient\s*:\s*(?:[^;\n]*;)?\s*<?([^\s<>;]+@[^\s<>;]+)>?",
    re.IGNORECASE | re.MULTILINE,
)
_ACTION = re.compile(r"^action\s*:\s*([a-z]+)", re.IGNORECASE | re.MULTILINE)


def _bounced(msg: _Headed, leaves: list[_Leaf]) -> tuple[str, ...]:
    """Failed recipients named by the report's message/delivery-status part(s)."""
    found: list[str] = []
    for leaf in leaves:
        if leaf.content_type != "message/delivery-status":
            continue
        part = leaf.part
        # Each blank-line separated block is one recipient (the first one is about the
        # message); a 'delayed' or 'delivered' block is no failure.
        for block in re.split(r"\n\s*\n", _status_text(part)):
            action = _ACTION.search(block)
            if action and action.group(1).lower() != "failed":
                continue
            found.extend(m.group(1).lower() for m in _RECIPIENT.finditer(block))
    # Exim names the failures in a header too, also on bounces that are no report.
    for value in _headers(msg, "X-Failed-Recipients"):
        found.extend(a.lower() for _, a in email.utils.getaddresses([value]) if "@" in a)
    return tuple(dict.fromkeys(found))


def _status_text(part: email.message.Message) -> str:
    """The delivery-status fields as text, however the parser stored them."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return "\n\n".join(
            "\n".join(f"{k}: {_one_line(_unsurrogate(str(v)))}" for k, v in block.raw_items())
            for block in payload
            if isinstance(block, email.message.Message)
        )
    data = part.get_payload(decode=True)
    return _decode_unknown(data) if isinstance(data, bytes) else str(payload)


# --- body --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Leaf:
    """A part that is no multipart container (message/* parts are taken whole)."""

    part: email.message.Message
    content_type: str
    alternative: email.message.Message | None  # the nearest multipart/alternative above


def _leaves(msg: email.message.Message) -> list[_Leaf]:
    # Content types are parsed once here: get_content_type() re-parses the header on
    # every call and was most of the time spent reading a mail.
    leaves: list[_Leaf] = []

    def visit(part: email.message.Message, ctype: str, alt: email.message.Message | None):
        if ctype.startswith("multipart/") and part.is_multipart():
            here = part if ctype == "multipart/alternative" else alt
            for child in part.get_payload():
                if isinstance(child, email.message.Message):
                    visit(child, child.get_content_type(), here)
        else:
            leaves.append(_Leaf(part, ctype, alt))

    visit(msg, msg.get_content_type(), None)
    return leaves


def _body_text(
    msg: EmailMessage, leaves: list[_Leaf], max_text: int, problems: list[str]
) -> tuple[str, tuple[str, ...], bool]:
    """(order text, ignored part types, oversize): the first text/plain body, else the
    first text/html (attachments never count). An empty plain alternative beside real
    HTML, which some clients send, yields the HTML."""
    body = msg.get_body(("plain", "html"))
    if body is None and not msg.is_multipart() and msg.get_content_maintype() == "multipart":
        # A multipart whose parts could not be found: its body is the best text there is.
        body = msg
    html = body is not None and body.get_content_type() == "text/html"
    text = _decoded(body, problems) if body is not None else ""
    if body is not None and not html and not text.strip():
        other = msg.get_body(("html",))
        if other is not None:
            body, html, text = other, True, _decoded(other, problems)
    ignored = tuple(leaf.content_type for leaf in leaves if not _is_read(leaf, leaves, body))
    if body is None:
        return "", ignored, False
    if html:
        # Markup is cheap to send and dear to convert: far too much HTML is refused as is.
        if len(text) > 10 * max_text:
            return "", ignored, True
        text = html_to_text(text)
    text = _plain(text)
    if not html and _param(body, "format") == "flowed":
        text = _unflow(text, delsp=_param(body, "delsp") == "yes")
    if len(text) > max_text:
        # The caller refuses an oversize message; it needs no megabytes of text for that.
        return text[:max_text], ignored, True
    return text, ignored, False


def _is_read(leaf: _Leaf, leaves: list[_Leaf], body: email.message.Message | None) -> bool:
    """The body, or another rendering of it (its HTML twin in the same alternative)."""
    if leaf.part is body:
        return True
    twin = next((x.alternative for x in leaves if x.part is body), None)
    return twin is not None and leaf.alternative is twin and leaf.content_type.startswith("text/")


def _param(part: email.message.Message, name: str) -> str:
    try:
        return str(part.get_param(name) or "").strip().lower()
    except Exception:  # an unparseable parameter is an absent one
        return ""


def _unflow(text: str, *, delsp: bool) -> str:
    """RFC 3676 format=flowed: rejoin the lines the sender's program broke softly (a
    trailing space), so a wrapped sentence cannot put a command word at a line start."""
    out: list[str] = []
    pending: tuple[int, str] | None = None  # a soft-broken line waiting for the rest
    for line in text.split("\n"):
        content = line.lstrip(">")
        depth = len(line) - len(content)
        content = content[1:] if content.startswith(" ") else content  # space-stuffing
        if pending is not None:
            if pending[0] == depth:
                content = pending[1] + content
            else:
                out.append(_requote(*pending))
            pending = None
        if content.endswith(" ") and content != "-- ":
            pending = (depth, content[:-1] if delsp else content)
        else:
            out.append(_requote(depth, content))
    if pending is not None:
        out.append(_requote(*pending))
    return "\n".join(out)


def _requote(depth: int, content: str) -> str:
    return ">" * depth + (" " if depth and content else "") + content


_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2007": " "})
_BAD_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _plain(text: str) -> str:
    """Line ends as \\n, no-break spaces as spaces, no stray control characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    return _BAD_CONTROLS.sub("", text.translate(_SPACES))


def _decoded(part: email.message.Message, problems: list[str]) -> str:
    """The part's content as text: transfer encoding undone, charset applied."""
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        payload = part.get_payload()
        return _unsurrogate(payload) if isinstance(payload, str) else ""
    try:
        charset = part.get_content_charset()
    except Exception:  # an unreadable charset parameter is no charset
        charset = None
    return _decode(data, charset, problems)


# Labels mail programs use that Python does not know, and labels whose real-world use is a
# superset (WHATWG Encoding Standard): "iso-8859-1" text is windows-1252 in practice.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "iso_8859-1": "cp1252",
    "windows-874": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "iso-8859-8-i": "iso8859_8",
    "x-mac-roman": "mac_roman",
    "macintosh": "mac_roman",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
    "shift_jis": "cp932",
    "x-sjis": "cp932",
}
# Labels that say nothing about the bytes: read them as undeclared text.
_NO_CHARSET = {
    "us-ascii",
    "ascii",
    "ansi_x3.4-1968",
    "646",
    "us",
    "unknown-8bit",
    "x-unknown",
    "unknown",
    "x-user-defined",
    "default",
}
# Text codecs that are no charset: a mail declaring them is hostile or confused.
_NOT_CHARSETS = {
    "idna",
    "punycode",
    "unicode_escape",
    "raw_unicode_escape",
    "undefined",
    "mbcs",
    "oem",
}


def _codec(charset: str) -> codecs.CodecInfo | None:
    try:
        info = codecs.lookup(_CHARSET_ALIASES.get(charset, charset))
    except (LookupError, ValueError, TypeError):
        return None
    if not info._is_text_encoding or info.name.replace("-", "_") in _NOT_CHARSETS:
        return None
    return info


def _decode_unknown(data: bytes) -> str:
    """Bytes of no (or a useless) declared charset: UTF-8 when valid, else windows-1252."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _decode(data: bytes, charset: str | None, problems: list[str]) -> str:
    if charset is None or charset in _NO_CHARSET:
        # Undeclared 8-bit text is usually UTF-8 from a program that forgot to say so.
        return _decode_unknown(data)
    info = _codec(charset)
    if info is None:
        problems.append(f"unknown charset {charset!r}")
        return _decode_unknown(data)
    try:
        return data.decode(info.name)
    except UnicodeDecodeError:
        pass
    except Exception:  # a codec that fails otherwise is as good as unknown
        problems.append(f"unknown charset {charset!r}")
        return _decode_unknown(data)
    if info.name == "utf-8":
        # Declared UTF-8 but not valid: most often windows-1252 labelled wrongly.
        problems.append("body is not valid UTF-8")
        return data.decode("cp1252", errors="replace")
    problems.append(f"body is not valid {charset}")
    return data.decode(info.name, errors="replace")


# --- broken MIME -------------------------------------------------------------------------

_DEFECT_WORDS = {
    "NoBoundaryInMultipartDefect": "multipart without a boundary",
    "StartBoundaryNotFoundDefect": "multipart boundary never found",
    "CloseBoundaryNotFoundDefect": "multipart not closed (truncated?)",
    "MultipartInvariantViolationDefect": "multipart with no parts",
    "FirstHeaderLineIsContinuationDefect": "first header line is a continuation",
    "MisplacedEnvelopeHeaderDefect": "misplaced 'From ' line",
    "MissingHeaderBodySeparatorDefect": "no blank line between header and body",
    "InvalidBase64PaddingDefect": "bad base64 padding",
    "InvalidBase64CharactersDefect": "bad base64 characters",
    "InvalidBase64LengthDefect": "bad base64 length",
    "InvalidMultipartContentTransferEncodingDefect": "multipart with a transfer encoding",
}


def _defects(msg: email.message.Message) -> list[str]:
    found = []
    for part in msg.walk():
        for defect in getattr(part, "defects", ()):
            name = type(defect).__name__
            found.append(_DEFECT_WORDS.get(name, name))
    return found


_BOUNDARY_LINE = re.compile(r"^--([^\s]{1,70}?)(?:--)?[ \t]*$", re.MULTILINE)


def _repair_boundary(msg: EmailMessage, problems: list[str]) -> EmailMessage:
    """A multipart that declared no boundary: guess it from the first `--x` line and parse
    again, so the parts become readable; else read the body as it stands."""
    if not any(type(d).__name__ == "NoBoundaryInMultipartDefect" for d in msg.defects):
        return msg
    payload = msg.get_payload()
    if not isinstance(payload, str):
        return msg
    line = _BOUNDARY_LINE.search(payload)
    if line is None:
        return msg
    try:
        msg.set_param("boundary", line.group(1))
        # Headers go out as they came in: refolding them would parse every long one.
        again = _parse(msg.as_bytes(policy=msg.policy.clone(refold_source="none")))
    except _Refused:  # the parts found are hostile: so is the message
        raise
    except Exception:  # the guess failed; the body is read as it stands
        return msg
    if not again.is_multipart():
        return msg
    problems.append("multipart without a boundary (guessed)")
    return again
