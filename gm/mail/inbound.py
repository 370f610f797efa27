"""Reading one raw order mail (docs/rules/, Order mail): who sent it, when it arrived,
whether it may be answered at all, and the text a player typed.

This module owns turning bytes into an `InboundMail`; what the text says is
`gm.mail.orderlang`'s, and what to do with the mail is the caller's. Players write from any
program (phones, webmail, HTML-only mail, Outlook, replies quoting the last report), and
bounces and broken mail arrive too, so `read_mail` never raises: it extracts what it can
and says what it could not read in `broken`. MIME is parsed by the standard `email`
package only; this module adds the decisions around it (which part is the text, how HTML
becomes lines, what a mail loop looks like).

Hostile mail (docs/rules/, Size limits and hostile mail) is refused before `email` can spend more on it than its size
allows: too large a message is never parsed, and the parser is the `email` package's own,
measuring each header section before a field of it is parsed and refusing a part nested
too deep before it recurses. A refused message still yields, from its raw header block
read by hand, who sent it, its ids and loop markers, so it can be recorded and answered.

The parts, each its own concern: gm.mail.parsing (the bounded parser and its limits),
gm.mail.charsets (bytes to text), gm.mail.headers (sender, ids, dates, loops) and
gm.mail.body (the text part, bounces, broken MIME).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from .body import body_text_of, bounced_of, defects_of, leaves_of, repair_boundary
from .charsets import one_line
from .headers import (
    address_of,
    first_header,
    loop_of,
    message_id_of,
    received_at_of,
    references_of,
    sender_of,
    short_subject,
)
from .parsing import MAX_MESSAGE_BYTES, RawHead, Refused, head_fields, parse_bounded

__all__ = [
    "HOSTILE_REASONS",
    "InboundMail",
    "RAW_ALLOWANCE",
    "raw_cap",
    "read_mail",
]

# The raw message may be much larger than its text: HTML markup, a quoted report in two
# alternatives, a phone photo attached by mistake. Beyond this cap the body is not even
# parsed (only the headers, to record it and to spot loops); 25 MiB is the largest mail
# the big providers let a player send.
RAW_ALLOWANCE = 25 * 1024 * 1024


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
    # docs/rules/, Size limits and hostile mail: why the message is refused whole before its text is read
    # (one of HOSTILE_REASONS), or None. Such a message is recorded and never applied.
    hostile: str | None = None
    # why the From header names no one sender (two addresses, none, an encoded name that
    # decodes into address syntax), `sender` then being "": kept, recorded, never answered
    unreadable_sender: str | None = None


# The reasons a message is refused unread (docs/rules/, Size limits and hostile mail): the desk words each for the sender.
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
    comes back `hostile` (docs/rules/, Size limits and hostile mail), with no text and what its raw headers tell."""
    raw = bytes(raw)
    own = {address_of(a) for a in own_addresses} - {""}
    try:
        return _read(raw, own, max_text, max_bytes)
    except Refused as refused:
        return _refused(raw, own, refused.reason, refused.detail)
    except RecursionError:
        # Comments nested by the thousand in a MIME field: the header parser recurses.
        return _refused(raw, own, "unparseable", "nested too deeply to be parsed")
    except Exception as error:  # the promise is "never raises"
        # Reached only by a bug here or in the email package; the mail is still recorded.
        return _refused(raw, own, "unparseable", f"could not be read ({type(error).__name__})")


def _refused(raw: bytes, own: set[str], reason: str, detail: str) -> InboundMail:
    """A hostile message as its raw header block tells it: enough to record it, answer it
    once and spot a loop, for a cost bounded by HEAD_SCAN whatever the message holds."""
    try:
        head = RawHead(head_fields(raw))
        sender, unreadable_sender = sender_of(head)
        loop = loop_of(head, sender, own, from_readable=unreadable_sender is None)
        message_id = message_id_of(head)
        return InboundMail(
            message_id=message_id,
            sender=sender,
            subject=short_subject(head),
            received_at=received_at_of(head),
            references=references_of(head, message_id),
            text="",
            loop=loop,
            bounced_recipients=bounced_of(head, []) if loop == "bounce" else (),
            oversize=reason == "too-large",
            ignored_parts=(),
            broken=detail,
            hostile=reason,
            unreadable_sender=unreadable_sender,
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
        raise Refused("too-large", f"more than {max_bytes} bytes of raw mail")
    if not head_fields(raw):
        # Garbage, or a body alone: the email package would read it all as a body.
        raise Refused("unparseable", "no header: this is no mail")
    too_big = len(raw) > raw_cap(max_text)
    msg = parse_bounded(raw, headersonly=too_big)
    problems: list[str] = []
    if too_big:
        text, ignored, leaves = "", (), leaves_of(msg)
    else:
        msg = repair_boundary(msg, problems)
        leaves = leaves_of(msg)
        text, ignored, too_big = body_text_of(msg, leaves, max_text, problems)
    problems.extend(defects_of(msg))
    sender, unreadable_sender = sender_of(msg)
    loop = loop_of(msg, sender, own, from_readable=unreadable_sender is None)
    message_id = message_id_of(msg)
    return InboundMail(
        message_id=message_id,
        sender=sender,
        subject=one_line(first_header(msg, "Subject") or ""),
        received_at=received_at_of(msg),
        references=references_of(msg, message_id),
        text=text,
        loop=loop,
        bounced_recipients=bounced_of(msg, leaves) if loop == "bounce" else (),
        oversize=too_big,
        ignored_parts=ignored,
        broken="; ".join(dict.fromkeys(problems)) or None,
        unreadable_sender=unreadable_sender,
    )


