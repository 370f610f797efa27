"""What a mail's headers say: who sent it, its ids and thread, when it was sent and received,
and whether it is part of a mail loop (docs/rules/, Mail that is never answered). Each
reader takes a parsed message or a refused one's raw header block."""

from __future__ import annotations

import contextlib
import email
import email.feedparser
import email.message
import email.utils
import re
from datetime import UTC, datetime
from email import policy

from .charsets import one_line, unsurrogate
from .parsing import SUBJECT_KEPT, SUBJECT_SCAN, RawHead, head_fields

# References grow with every reply of a thread; RFC 5322 3.6.4 allows trimming, and a
# short header keeps our reply's header lines within what servers accept.
MAX_REFERENCES = 20
# A From naming one sender, display name and all, fits in a header line (RFC 5322 2.1.1:
# 998 characters); a longer one is read no further than that, whoever wrote it.
MAX_FROM = 998


def short_subject(head: RawHead) -> str:
    """The Subject decoded from its first SUBJECT_SCAN characters only."""
    value = next(iter(_raw_header(head, "Subject")), "")
    if len(value) > SUBJECT_SCAN:
        value = value[:SUBJECT_SCAN].rsplit(" ", 1)[0]  # no half encoded word
    with contextlib.suppress(Exception):  # undecodable words stay as they were written
        value = str(policy.default.header_factory("Subject", value))
    return one_line(unsurrogate(value))[:SUBJECT_KEPT]


def header_times(raw: bytes) -> tuple[datetime | None, datetime | None]:
    """(the topmost Received: header's date, the Date: header's) read by hand from the raw
    header block: the time of receipt of mail files the GM names (docs/rules/, Time of receipt and late mail)."""
    try:
        head = RawHead(head_fields(raw))
        return _topmost_received(head), _date(head)
    except Exception:  # a date that cannot be read is no date
        return None, None


# What the header readers below read: a parsed message, or a hostile one's raw header block.
Headed = email.message.Message | RawHead


def _raw_header(msg: Headed, name: str) -> list[str]:
    lowered = name.lower()
    return [str(v) for k, v in msg.raw_items() if k.lower() == lowered]


def first_header(msg: email.message.Message, name: str) -> str | None:
    """The first `name` header, RFC 2047 decoded; the raw text when it will not parse."""
    try:
        value = msg.get(name)
        if value is None:
            return None
        return unsurrogate(str(value))
    except Exception:  # a header the registry chokes on is still text
        raw = _raw_header(msg, name)
        return unsurrogate(raw[0]) if raw else None


def header_values(msg: Headed, name: str) -> list[str]:
    """Every `name` header, undecoded and unfolded (dates, ids, loop markers)."""
    return [one_line(unsurrogate(v)) for v in _raw_header(msg, name)]


def address_of(header_value: str) -> str:
    """The bare lowercase address of a From/To header value ('' when there is none).

    `Alice <Alice@Example.org>` gives `alice@example.org`; a value with no address but a
    word (`MAILER-DAEMON`) gives that word, lowercased.
    """
    try:
        value = one_line(unsurrogate(str(header_value)))
        pairs = email.utils.getaddresses([value])
    except Exception:  # a mangled header has no address
        return ""
    addresses = [addr.strip().lower() for _, addr in pairs if addr and addr.strip()]
    for addr in addresses:
        if "@" in addr:
            return addr
    return addresses[0] if addresses else ""


def sender_of(msg: Headed) -> tuple[str, str | None]:
    """(the sender's bare lowercase address, None), or ("", why) when the From header
    does not name exactly one address beyond doubt (docs/rules/, Mail that is never answered: kept and
    recorded, never answered). A message without a From, or `From: <>`, gives ("",
    None): a bounce, as does a From of the bare word `MAILER-DAEMON` or `postmaster`,
    given as that word for the loop check.

    The From is read as RFC 5322 writes it, encoded words decoded inside the display name
    only; two parsers must find the same one address, and the decoded display name must
    not turn into address syntax for a reader that decodes before it parses: the
    encoded `foo\\r\\nBcc: evil@c.example` before `<v2@a.example>` makes that header name no
    sender at all."""
    values = _raw_header(msg, "From")
    if len(values) > 1:
        return "", f"{len(values)} From headers"
    value = one_line(unsurrogate(values[0])) if values else ""
    if value.strip() in ("", "<>"):
        return "", None
    if len(value) > MAX_FROM:
        return "", f"a From header of more than {MAX_FROM} characters"
    try:
        found = policy.default.header_factory("From", value).addresses
        plain = email.utils.getaddresses([value])
    except Exception:  # CR or LF decoded into an address part, or a header past repair
        return "", "a From header that cannot be read as addresses"
    mailboxes = [a for a in found if a.domain]
    words = [a.username for a in found if a.username and not a.domain]
    if not mailboxes:
        if len(found) == 1 and words and words[0].strip().lower() in _DAEMONS:
            return words[0].strip().lower(), None  # a bounce from a server that wrote no domain
        return "", "a From header with no address"
    at = {addr.strip().lower() for _, addr in plain if "@" in addr}
    if len(mailboxes) > 1 or len(at) > 1:
        return "", f"a From header with {max(len(mailboxes), len(at))} addresses"
    (mailbox,) = mailboxes
    address = mailbox.addr_spec.lower()
    if at != {address}:
        return "", "a From header read two ways"
    name = mailbox.display_name
    if "=?" in value and (_CONTROL.search(name) or _other_addresses(name, address)):
        return "", "a From header whose encoded name holds address syntax"
    return address, None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _other_addresses(name: str, address: str) -> bool:
    """Whether `name <address>`, parsed as written after decoding, names another address
    than `address` (a comma alone, as in `Müller, Hans`, adds a word but no address)."""
    parsed = email.utils.getaddresses([f"{name} <{address}>"])
    return {a.strip().lower() for _, a in parsed if "@" in a} != {address}


_MSG_ID = re.compile(r"<[^<>\s]+>")


def message_id_of(msg: Headed) -> str | None:
    values = header_values(msg, "Message-ID")
    if not values or not values[0]:
        return None
    found = _MSG_ID.search(values[0])
    return found.group() if found else values[0]


def references_of(msg: Headed, message_id: str | None) -> tuple[str, ...]:
    """Ids for our reply's References: theirs and In-Reply-To's, then the message's own.
    Both headers count, as the loop check reads these (docs/rules/, Mail that is never answered: an auto-responder may
    set only In-Reply-To to the refusal it answers)."""
    ids = _MSG_ID.findall(" ".join(header_values(msg, "References")))
    ids += _MSG_ID.findall(" ".join(header_values(msg, "In-Reply-To")))
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


def received_at_of(msg: Headed) -> datetime | None:
    """CONTRACT.md: the date of the topmost Received: header, else the Date: header."""
    return _topmost_received(msg) or _date(msg)


def _topmost_received(msg: Headed) -> datetime | None:
    # Only the topmost Received: is our own server's; a later one could be written by the
    # sender, so no other Received: is consulted.
    received = header_values(msg, "Received")
    if received and ";" in received[0]:
        return _parse_date(received[0].rsplit(";", 1)[1])
    return None


def _date(msg: Headed) -> datetime | None:
    dates = header_values(msg, "Date")
    return _parse_date(dates[0]) if dates else None


_DAEMONS = {"mailer-daemon", "postmaster"}


def _first_word(value: str) -> str:
    # "auto-replied; owner-email=...", "no (a comment)": the keyword comes first.
    return re.split(r"[\s;(]", value.strip(), maxsplit=1)[0].lower()


def loop_of(msg: Headed, sender: str, own: set[str], *, from_readable: bool = True) -> str | None:
    """Why this mail must never be answered (docs/rules/, Mail that is never answered), or None.

    A bounce is named first, since only that reason makes the caller mark an address as
    failing; then mail from ourselves; then the markers auto-responders set. A message
    with no sender is a bounce, unless its From was there and unreadable (`from_readable`
    False: sender_of's why), which is no bounce but mail nobody can be answered for.
    """
    local = sender.split("@", 1)[0]
    if msg.get_content_type() == "multipart/report" or (from_readable and (not sender or local in _DAEMONS)):
        return "bounce"
    if sender in own:
        return "own"
    auto = header_values(msg, "Auto-Submitted")
    if any(_first_word(v) != "no" for v in auto):
        return "auto-submitted"
    # Vacation programs that predate RFC 3834 mark their replies these ways instead.
    if header_values(msg, "X-Autoreply") or header_values(msg, "X-Autorespond"):
        return "auto-submitted"
    precedence = {_first_word(v) for v in header_values(msg, "Precedence")}
    if "auto_reply" in precedence:
        return "auto-submitted"
    if precedence & {"bulk", "junk", "list"}:
        return "bulk"
    # An empty envelope sender is how servers send bounces and how RFC 3834 asks
    # responders to send: never ours to answer.
    if any(v.replace(" ", "") == "<>" for v in header_values(msg, "Return-Path")):
        return "bounce"
    return None
