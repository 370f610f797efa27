"""Parsing a raw mail within bounds (docs/rules/, Size limits and hostile mail): the limits
a message must keep, the `email` parser that measures each header section and refuses a part nested too
deep before it recurses, and the raw header block of a refused message read by hand."""

from __future__ import annotations

import email
import email.feedparser
import email.message
import email.utils
import re
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import EmailPolicy
from typing import Any

from .charsets import one_line, unsurrogate

# docs/rules/, Size limits and hostile mail: a message beyond any of these is refused unread.
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
SUBJECT_SCAN = 1000
SUBJECT_KEPT = 200


class Refused(Exception):
    """A message is hostile (docs/rules/, Size limits and hostile mail): one of HOSTILE_REASONS, and what was found."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


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
    """The email package's own parser, stopped with `Refused` before it does more than
    docs/rules/ (Size limits and hostile mail) and the bounds above allow: each header section is measured before a field
    of it is parsed, and a part is refused before the parser recurses into it."""

    def __init__(self) -> None:
        super().__init__(policy=_CachingPolicy(parsed={}))
        self.parts = self.fields = self.words = self.mime = 0

    def _new_message(self) -> None:
        # _msgstack holds the parts this new one is nested in
        if len(self._msgstack) > MAX_DEPTH:
            raise Refused("too-deep", f"MIME parts nested deeper than {MAX_DEPTH} levels")
        self.parts += 1
        if self.parts > MAX_PARTS + 1:  # the message itself is no part
            raise Refused("unparseable", f"more than {MAX_PARTS} MIME parts")
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
            raise Refused("unparseable", f"more than {MAX_ENCODED_WORDS} encoded words in its headers")
        super()._parse_headers(lines)

    def _field(self, name: str, size: int) -> None:
        if not size:
            return
        if size > MAX_HEADER_BYTES:
            shown = one_line(unsurrogate(name))[:40] or "nameless"
            raise Refused("long-header", f"a {shown} header of {size} bytes (at most {MAX_HEADER_BYTES})")
        self.fields += 1
        if self.fields > MAX_FIELDS:
            raise Refused("unparseable", f"more than {MAX_FIELDS} header fields")
        if name in _MIME_FIELDS:
            self.mime += size
            if size > MAX_MIME_FIELD or self.mime > MAX_MIME_BYTES:
                raise Refused("unparseable", f"MIME header fields longer than gm reads ({name} of {size} bytes)")


_FEED = 8192  # as email.parser feeds its parser: the lines in hand stay few


def parse_bounded(raw: bytes, *, headersonly: bool = False) -> EmailMessage:
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


def head_fields(raw: bytes) -> list[tuple[str, str]]:
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


class RawHead:
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
