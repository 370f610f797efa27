"""Which lines of an order mail are the player's own (docs/rules/, What is read): blank and
quoted lines skipped, reading stopped at a signature, a quoted original without '>' markers (Outlook,
forwarded mail) or an inline PGP signature, a bottom-posted reply read on below its quote.
gm.mail.orderlang reads commands from the lines `readable_lines` gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["readable_lines"]

# Characters phones and webmail slip into text that no one can see; they would make
# "TURN\u200b7" look right to the player and fail here.
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)

# Where the player's own text ends and a quoted original without '>' markers begins.
_ORIGINAL = re.compile(
    r"-{2,}\s*(?:original message|forwarded message|ursprüngliche nachricht|"
    r"weitergeleitete nachricht|message d'origine|mensaje original|messaggio originale|"
    r"oorspronkelijk bericht)\s*-{2,}"
    r"|(?:begin forwarded message|anfang der weitergeleiteten nachricht)\s*:"
    # An inline PGP signature: armour, not orders.
    r"|-----BEGIN PGP SIGNATURE-----",
    re.IGNORECASE,
)
_ATTRIBUTION_VERB = re.compile(
    r"\b(?:wrote|writes|schrieb|a écrit|escribió|ha scritto|schreef|skrev|kirjoitti|"
    r"napisał|escreveu)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"(?:on|am|le|el|il|op|den|em|w|dne)\b", re.IGNORECASE)
_HEADER_FROM = re.compile(r"\*?(?:from|von|de|da|van)\s*:\*?\s*\S", re.IGNORECASE)
_HEADER_NEXT = re.compile(
    r"\*?(?:sent|date|to|subject|gesendet|datum|an|betreff|envoyé|enviado|inviato|verzonden)"
    r"\s*:",
    re.IGNORECASE,
)
_RULE = re.compile(r"_{10,}")


def _clean(line: str) -> str:
    """The line as the player sees it: invisible characters gone, outer spaces trimmed."""
    line = line.translate(_INVISIBLE).strip()
    # Gmail's plain alternative writes bold text as *TURN 7*.
    if len(line) > 2 and line[0] == "*" and line[-1] == "*":
        line = line.strip("*").strip()
    return line


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _is_signature(line: str, strict: bool = False) -> bool:
    # RFC 3676 says "-- "; many clients strip the trailing space, and iOS turns a typed
    # "--" into an em dash. A strict grammar (docs/rules/unleashed.md, Commands: `-k` is a
    # card code) takes only a line that is exactly "--", trailing spaces allowed.
    if strict:
        return line.rstrip() == "--"
    return line.strip() in ("--", "\u2014")


def _next_nonblank(lines: list[str], start: int) -> int | None:
    for i in range(start, min(len(lines), start + 6)):
        if lines[i].strip():
            return i
    return None


def _looks_like_attribution(line: str) -> bool:
    # "As I wrote:" is the player's own text; a real attribution starts like one
    # ("On <date>", "Am <date> schrieb <name>:") or names an address.
    return (
        line.endswith(":")
        and bool(_ATTRIBUTION_VERB.search(line))
        and (bool(_ATTRIBUTION_START.match(line)) or "@" in line)
    )


def _attribution_length(lines: list[str], i: int) -> int:
    """How many lines (0, 1 or 2) an `On <date>, <name> wrote:` line takes at i."""
    first = lines[i].strip()
    if _looks_like_attribution(first):
        return 1
    # Gmail wraps a long attribution after the name: "On ..., Snakes GM <\ngm@x> wrote:".
    if i + 1 < len(lines) and _ATTRIBUTION_START.match(first):
        return 2 if _looks_like_attribution(first + " " + lines[i + 1].strip()) else 0
    return 0


def _is_header_block(lines: list[str], i: int) -> bool:
    """An Outlook-style quoted header: `From: ...` followed by `Sent:` or `To:` lines."""
    if not _HEADER_FROM.match(lines[i].strip()):
        return False
    following = _next_nonblank(lines, i + 1)
    return following is not None and bool(_HEADER_NEXT.match(lines[following].strip()))


def _quoted_original_starts(lines: list[str], i: int) -> bool:
    """True when line i starts a quoted original that carries no '>' markers."""
    line = lines[i].strip()
    if _ORIGINAL.fullmatch(line) or _is_header_block(lines, i):
        return True
    if _RULE.fullmatch(line):
        following = _next_nonblank(lines, i + 1)
        return following is not None and _is_header_block(lines, following)
    return False


def readable_lines(lines: list[str], strict_signature: bool = False) -> Iterator[tuple[int, str]]:
    """(line number, cleaned line) of every line that may hold a command: blank and
    quoted lines skipped, stopping at a signature or a quoted original."""
    i = 0
    while i < len(lines):
        raw, lineno = lines[i], i + 1
        i += 1
        line = _clean(raw)
        if not line or _is_quoted(line):
            continue
        if _is_signature(raw, strict_signature) or _quoted_original_starts(lines, i - 1):
            return
        attribution = _attribution_length(lines, i - 1)
        if attribution:
            following = _next_nonblank(lines, i - 1 + attribution)
            if following is None or not _is_quoted(lines[following]):
                return  # the quoted original has no '>' markers: nothing below is ours
            i += attribution - 1  # a bottom-posted reply: read on below the quote
            continue
        yield lineno, line
