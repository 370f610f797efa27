"""Press blocks in order mail (docs/rules/, Order mail: Press): syntax only.

A block opens with a line `PRESS TO <recipients> [ANONYMOUS]` and holds the lines after
it up to a line `ENDPRESS` or the end of the message. Only the player's own lines count
(quoted lines and the signature are cut as for orders, gm.mail.ownlines); no command
inside a block is read. `split_press` hands the rest of the message, the block lines
blanked so every other line keeps its number, to the order language. Who the recipients
are, the mode, the limits: gm.campaign.press's, with the game at hand.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..rules.problem import Problem
from .ownlines import readable_lines

__all__ = ["MAX_BLOCKS", "PressBlock", "clean_text", "split_press"]

MAX_BLOCKS = 5
# the longest line mail may carry (RFC 5322: 998 octets before the CRLF)
MAX_LINE_OCTETS = 998

_OPEN = re.compile(r"\s*PRESS\s+TO\b(?P<rest>.*)", re.IGNORECASE)
_CLOSE = re.compile(r"\s*ENDPRESS\s*", re.IGNORECASE)
# bidirectional embeddings, overrides, isolates and marks: text that reads otherwise than it is
_BIDI = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C], None)


@dataclass(frozen=True)
class PressBlock:
    """One block as written: `recipients` are the words after TO (upper-cased keywords,
    ids as written), `text` its cleaned lines."""

    line: int
    recipients: tuple[str, ...]
    anonymous: bool
    text: tuple[str, ...]


@dataclass(frozen=True)
class PressText:
    rest: str
    blocks: tuple[PressBlock, ...] = ()
    problems: tuple[tuple[int, str, Problem], ...] = ()


def _wrapped(line: str) -> list[str]:
    """`line` in pieces of at most MAX_LINE_OCTETS octets of UTF-8, never inside a character."""
    pieces, piece, size = [], [], 0
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > MAX_LINE_OCTETS:
            pieces.append("".join(piece))
            piece, size = [], 0
        piece.append(char)
        size += width
    pieces.append("".join(piece))
    return pieces


def clean_text(lines: list[str]) -> tuple[str, ...]:
    """Plain text a recipient can trust: no control characters (a tab becomes a space), no
    bidirectional overrides, no line longer than mail carries; blank lines at either end
    dropped."""
    out: list[str] = []
    for line in lines:
        line = line.replace("\t", " ").translate(_BIDI)
        line = "".join(c for c in line if unicodedata.category(c) not in ("Cc", "Cf") or c == "\u200d")
        out.extend(_wrapped(line.rstrip()))
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return tuple(out)


def _recipients(rest: str) -> tuple[tuple[str, ...], bool]:
    words = [w for w in re.split(r"[\s,]+", rest.strip()) if w]
    anonymous = any(w.upper() == "ANONYMOUS" for w in words)
    named = []
    for word in words:
        if word.upper() == "ANONYMOUS":
            continue
        upper = word.upper()
        named.append(upper if upper in ("ALL", "GM", "TEAM") else word)
    return tuple(dict.fromkeys(named)), anonymous


def split_press(text: str, strict_signature: bool = False) -> PressText:
    """The press blocks of one mail's text, and the rest of it for the order language."""
    lines = str(text).splitlines()
    own = list(readable_lines(lines, strict_signature))
    if not any(_OPEN.match(line) for _, line in own):
        return PressText(rest=str(text))
    blocks: list[PressBlock] = []
    problems: list[tuple[int, str, Problem]] = []
    blank: set[int] = set()
    current: tuple[int, str, list[str]] | None = None
    previous = 0

    def close() -> None:
        lineno, rest, body = current
        recipients, anonymous = _recipients(rest)
        written = f"PRESS TO {rest.strip()}"[:200]
        block = PressBlock(lineno, recipients, anonymous, clean_text(body))
        if not recipients:
            problems.append((lineno, written, Problem("press_no_recipient", {}, lineno)))
        elif not block.text:
            problems.append((lineno, written, Problem("press_empty", {}, lineno)))
        blocks.append(block)

    for lineno, line in own:
        opened = _OPEN.match(line)
        if current is None and opened is None:
            previous = lineno
            continue
        blank.add(lineno)
        if current is None:
            current = (lineno, opened["rest"], [])
        elif _CLOSE.fullmatch(line):
            close()
            current = None
        else:
            # the blank lines between paragraphs, which ownlines skips, are the writer's too
            gap = range(previous + 1, lineno)
            current[2].extend("" for n in gap if not lines[n - 1].strip())
            current[2].append(line)
        previous = lineno
    if current is not None:
        close()
    if len(blocks) > MAX_BLOCKS:
        extra = blocks[MAX_BLOCKS]
        problems.append((extra.line, "PRESS TO ...", Problem("press_too_many", {"most": MAX_BLOCKS}, extra.line)))
    rest = "\n".join("" if n in blank else line for n, line in enumerate(lines, 1))
    return PressText(rest=rest, blocks=tuple(blocks), problems=tuple(problems))
