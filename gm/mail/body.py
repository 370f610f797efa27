"""The text a player typed, out of whatever their program sent (docs/rules/, What is
read): which part is the text, HTML made lines, format=flowed undone, broken MIME repaired
where it can be, and the recipients a bounce names."""

from __future__ import annotations

import email
import email.feedparser
import email.message
import email.utils
import re
from dataclasses import dataclass
from email.message import EmailMessage

from .charsets import decode_bytes, decode_unknown, one_line, unsurrogate
from .headers import Headed, header_values
from .htmltext import html_to_text
from .parsing import Refused, parse_bounded

_RECIPIENT = re.compile(
    r"^(?:final|original)-recipient\s*:\s*(?:[^;\n]*;)?\s*<?([^\s<>;]+@[^\s<>;]+)>?",
    re.IGNORECASE | re.MULTILINE,
)
_ACTION = re.compile(r"^action\s*:\s*([a-z]+)", re.IGNORECASE | re.MULTILINE)


def bounced_of(msg: Headed, leaves: list[_Leaf]) -> tuple[str, ...]:
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
    for value in header_values(msg, "X-Failed-Recipients"):
        found.extend(a.lower() for _, a in email.utils.getaddresses([value]) if "@" in a)
    return tuple(dict.fromkeys(found))


def _status_text(part: email.message.Message) -> str:
    """The delivery-status fields as text, however the parser stored them."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return "\n\n".join(
            "\n".join(f"{k}: {one_line(unsurrogate(str(v)))}" for k, v in block.raw_items())
            for block in payload
            if isinstance(block, email.message.Message)
        )
    data = part.get_payload(decode=True)
    return decode_unknown(data) if isinstance(data, bytes) else str(payload)


@dataclass(frozen=True)
class _Leaf:
    """A part that is no multipart container (message/* parts are taken whole)."""

    part: email.message.Message
    content_type: str
    alternative: email.message.Message | None  # the nearest multipart/alternative above


def leaves_of(msg: email.message.Message) -> list[_Leaf]:
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


def body_text_of(
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
        return unsurrogate(payload) if isinstance(payload, str) else ""
    try:
        charset = part.get_content_charset()
    except Exception:  # an unreadable charset parameter is no charset
        charset = None
    return decode_bytes(data, charset, problems)


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


def defects_of(msg: email.message.Message) -> list[str]:
    found = []
    for part in msg.walk():
        for defect in getattr(part, "defects", ()):
            name = type(defect).__name__
            found.append(_DEFECT_WORDS.get(name, name))
    return found


_BOUNDARY_LINE = re.compile(r"^--([^\s]{1,70}?)(?:--)?[ \t]*$", re.MULTILINE)


def repair_boundary(msg: EmailMessage, problems: list[str]) -> EmailMessage:
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
        again = parse_bounded(msg.as_bytes(policy=msg.policy.clone(refold_source="none")))
    except Refused:  # the parts found are hostile: so is the message
        raise
    except Exception:  # the guess failed; the body is read as it stands
        return msg
    if not again.is_multipart():
        return msg
    problems.append("multipart without a boundary (guessed)")
    return again
