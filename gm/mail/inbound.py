"""Reading one raw order mail (RULES.md 3): who sent it, when it arrived, whether it may
be answered at all, and the text a player typed.

This module owns turning bytes into an `InboundMail`; what the text says is
`gm.orderlang`'s, and what to do with the mail is the caller's. Players write from any
program (phones, webmail, HTML-only mail, Outlook, replies quoting the last report), and
bounces and broken mail arrive too, so `read_mail` never raises: it extracts what it can
and says what it could not read in `broken`. MIME is parsed by the standard `email`
package only; this module adds the decisions around it (which part is the text, how HTML
becomes lines, what a mail loop looks like).
"""

from __future__ import annotations

import codecs
import email
import email.message
import email.parser
import email.utils
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from html.parser import HTMLParser

__all__ = [
    "HOSTILE_REASONS",
    "InboundMail",
    "RAW_ALLOWANCE",
    "address_of",
    "html_to_text",
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
    raw: bytes, *, own_addresses: Iterable[str] = (), max_text: int = 65536
) -> InboundMail:
    """Read one raw message. Never raises, whatever the bytes."""
    try:
        return _read(bytes(raw), own_addresses, max_text)
    except Exception as error:  # the promise is "never raises"
        # Reached only by a bug here or in the email package; the mail is still recorded.
        return _unreadable(f"could not be read ({type(error).__name__})")


def _unreadable(why: str) -> InboundMail:
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
    )


def _read(raw: bytes, own_addresses: Iterable[str], max_text: int) -> InboundMail:
    too_big = len(raw) > raw_cap(max_text)
    parser = email.parser.BytesParser(policy=policy.default)
    msg = parser.parsebytes(raw, headersonly=too_big)
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
    own = {address_of(a) for a in own_addresses} - {""}
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


# --- headers -----------------------------------------------------------------------------

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


def _raw_header(msg: email.message.Message, name: str) -> list[str]:
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


def _headers(msg: email.message.Message, name: str) -> list[str]:
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


def _message_id(msg: email.message.Message) -> str | None:
    values = _headers(msg, "Message-ID")
    if not values or not values[0]:
        return None
    found = _MSG_ID.search(values[0])
    return found.group() if found else values[0]


def _references(msg: email.message.Message, message_id: str | None) -> tuple[str, ...]:
    """Ids for our reply's References: theirs (or In-Reply-To), then the message's own."""
    ids = _MSG_ID.findall(" ".join(_headers(msg, "References")))
    if not ids:
        ids = _MSG_ID.findall(" ".join(_headers(msg, "In-Reply-To")))
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


def _received_at(msg: email.message.Message) -> datetime | None:
    """CONTRACT.md: the date of the topmost Received: header, else the Date: header.

    Only the topmost Received: is our own server's; a later one (or the Date:) could be
    written by the sender, so no other Received: is consulted.
    """
    received = _headers(msg, "Received")
    if received and ";" in received[0]:
        when = _parse_date(received[0].rsplit(";", 1)[1])
        if when is not None:
            return when
    dates = _headers(msg, "Date")
    return _parse_date(dates[0]) if dates else None


# --- loops -------------------------------------------------------------------------------

_DAEMONS = {"mailer-daemon", "postmaster"}


def _first_word(value: str) -> str:
    # "auto-replied; owner-email=...", "no (a comment)": the keyword comes first.
    return re.split(r"[\s;(]", value.strip(), maxsplit=1)[0].lower()


def _loop(msg: email.message.Message, sender: str, own: set[str]) -> str | None:
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


def _bounced(msg: email.message.Message, leaves: list[_Leaf]) -> tuple[str, ...]:
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
        again = email.message_from_bytes(msg.as_bytes(), policy=policy.default)
    except Exception:  # the guess failed; the body is read as it stands
        return msg
    if not again.is_multipart():
        return msg
    problems.append("multipart without a boundary (guessed)")
    return again


# --- HTML --------------------------------------------------------------------------------


def html_to_text(html: str) -> str:
    """Plain lines from an HTML body, as a reader would see them.

    Block elements and <br> end lines; entities are decoded; <blockquote> content comes
    out as '> ' quoted lines (nested ones as '> > '), so a quoted turn report is skipped
    like a '>' quote in plain text; script, style, head and title are dropped; spaces in
    text collapse as a browser does (<pre> keeps its line breaks).
    """
    converter = _HtmlText()
    try:
        converter.feed(html)
        converter.close()
    except Exception:  # the parser's failure leaves what it read so far
        pass
    return converter.text()


_BLOCKS = {
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
}
_HIDDEN = {"script", "style", "head", "title", "template", "noscript", "xml"}
_COLLAPSE = re.compile(r"[ \t\n\r\f]+")


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []
        self.current: list[str] = []
        self.depth = 0  # blockquote nesting
        self.line_depth = 0
        self.hidden = 0
        self.pre = 0

    def newline(self) -> None:
        self.lines.append((self.line_depth, "".join(self.current)))
        self.current = []
        self.line_depth = self.depth

    def block(self) -> None:
        # Whitespace between two blocks (the newline after </p>) shows as nothing.
        if "".join(self.current).strip():
            self.newline()
        self.current = []
        self.line_depth = self.depth

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.hidden = 0  # </head> may be left out: <body> ends it
        elif tag in _HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.newline()
        elif tag in _BLOCKS:
            self.block()
            if tag == "blockquote":
                self.depth += 1
                self.line_depth = self.depth
            elif tag == "pre":
                self.pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.newline()
        elif tag in _BLOCKS:
            self.block()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.block()
            if tag == "blockquote":
                self.depth = max(0, self.depth - 1)
                self.line_depth = self.depth
            elif tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre:
            first, *rest = data.replace("\r\n", "\n").split("\n")
            self.current.append(first)
            for line in rest:
                self.newline()
                self.current.append(line)
        else:
            self.current.append(_COLLAPSE.sub(" ", data))

    def text(self) -> str:
        if self.current:
            self.newline()
        out: list[str] = []
        for depth, line in self.lines:
            line = line.replace("\u00a0", " ").strip()
            if depth:
                line = ("> " * depth + line).rstrip()
            if line or (out and out[-1]):
                out.append(line)
        return "\n".join(out).strip("\n") + "\n" if out else ""
