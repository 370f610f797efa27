"""A composed mail as bytes (gm.mail.mailout composes it): its parts, their transfer
encodings, and its MIME structure written exactly as the email package writes it with
MAIL_POLICY, at a fraction of the cost (tests/test_mail_splice.py)."""

from __future__ import annotations

import binascii
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.generator import Generator
from email.message import EmailMessage
from email.policy import EmailPolicy
from functools import lru_cache
from typing import Any


def transfer_encoding(body: str) -> str:
    """7bit for ASCII with lines SMTP accepts (readable as it travels); else base64, whose
    encoder is C, where the email package's quoted-printable one is slow Python that made
    a 500-player turn's reports take most of a minute."""
    if body.isascii() and max(map(len, body.splitlines()), default=0) <= 998:
        return "7bit"
    return "base64"


class _MailPolicy(EmailPolicy):
    """SMTP's policy, but a plain-ASCII Subject folds between its words with at least one
    on the `Subject:` line. The email package moves a subject of 70 to 77 characters whole
    to the next line, leaving `Subject:` alone, which some mail apps show as no subject."""

    def _fold(self, name: str, value: Any, refold_binary: bool = False) -> str:
        text = str(value)
        if name.lower() != "subject" or not text.isascii() or not text.isprintable():
            return super()._fold(name, value, refold_binary)
        limit = self.max_line_length or 78
        lines = [f"{name}:"]
        for word in text.split():
            # a word too long for any line stays on the line it starts (never alone: a
            # line that is only `Subject:` or only white space is a broken header)
            if len(lines[-1]) + 1 + len(word) > limit and lines[-1] not in (f"{name}:", ""):
                lines.append("")
            lines[-1] += " " + word
        return self.linesep.join(lines) + self.linesep


MAIL_POLICY = _MailPolicy(linesep="\r\n")


@dataclass(frozen=True)
class Part:
    """One part of a mail: the text or HTML body, or an attachment. Text travels as 7bit
    or base64 (transfer_encoding), bytes as base64; a `literal` part (the rules, whose
    encoding the email package chooses: cte None) is the same in every mail carrying it."""

    content: str | bytes
    maintype: str
    subtype: str
    filename: str | None  # an attachment's; None: a body
    cte: str | None
    literal: bool = False

    @classmethod
    def of(cls, content: str | bytes, maintype: str, subtype: str, filename: str | None = None) -> Part:
        cte = transfer_encoding(content) if isinstance(content, str) else "base64"
        return cls(content, maintype, subtype, filename, cte)

    def shape(self) -> tuple[Any, ...]:
        """What the MIME skeleton depends on: all but the content, unless literal."""
        return (self.maintype, self.subtype, self.filename, self.cte, isinstance(self.content, bytes),
                self.content if self.literal else None)

    @property
    def shared(self) -> bool:
        """An attachment large enough to be the same in many mails (a large campaign's
        table of every player): encoded once, and stored once in the outbox (queue)."""
        return self.filename is not None and not self.literal and len(self.content) >= SHARED_FROM

    def encoded(self) -> bytes:
        """The content as the email package writes it with MAIL_POLICY: a text is split
        into lines (bytes.splitlines), each ended with CRLF; base64 comes 57 bytes a line,
        of a text's lines joined by LF."""
        return (_encoded_once if self.shared else _encode)(self.content, self.cte)


def _encode(content: str | bytes, cte: str | None) -> bytes:
    if isinstance(content, bytes):
        return _base64_lines(content)
    lines = content.encode("ascii" if cte == "7bit" else "utf-8").splitlines()
    if cte == "7bit":
        return b"\r\n".join(lines) + b"\r\n"
    return _base64_lines(b"\n".join(lines) + b"\n")


_encoded_once = lru_cache(maxsize=8)(_encode)

# An attachment this large is stored once, not in every outbox row that carries it (queue):
# a large campaign's table of every player (a calendar file is under 1 KB)
SHARED_FROM = 2048


# what `email.contentmanager` puts on a line of base64: max_line_length // 4 * 3 bytes
_BASE64_BYTES = 78 // 4 * 3


def _base64_lines(data: bytes) -> bytes:
    return b"".join(binascii.b2a_base64(data[i : i + _BASE64_BYTES])
                    for i in range(0, len(data), _BASE64_BYTES)).replace(b"\n", b"\r\n")


def _email_message(headers: Sequence[tuple[str, str]], parts: Sequence[Part]) -> EmailMessage:
    """The message as the email package builds it."""
    message = EmailMessage()
    for name, value in headers:
        message[name] = value
    for part in parts:
        content = part.content
        if part.filename is None and part.subtype == "plain":
            message.set_content(content, cte=part.cte)
        elif part.filename is None:
            message.add_alternative(content, subtype=part.subtype, cte=part.cte)
        elif isinstance(content, str):
            message.add_attachment(content, subtype=part.subtype, filename=part.filename,
                                   **({} if part.literal else {"cte": part.cte}))
        else:
            message.add_attachment(content, maintype=part.maintype, subtype=part.subtype, filename=part.filename)
    return message


@dataclass(frozen=True)
class Mail:
    """A composed mail: its headers and parts. `as_bytes` writes exactly what the email
    package writes for it (`email_message().as_bytes(policy=MAIL_POLICY)`, boundaries
    aside; tests/test_mail_splice.py), at a fraction of the cost: the package builds a
    header object per header and part, writes every body line by line in Python and scans
    every body for each boundary, which made half of a 500-player turn's resolve."""

    headers: tuple[tuple[str, str], ...]
    parts: tuple[Part, ...]

    def __getitem__(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)

    def email_message(self) -> EmailMessage:
        return _email_message(self.headers, self.parts)

    def as_bytes(self, shared: Callable[[bytes], bytes] | None = None) -> bytes:
        """The mail's bytes; with `shared`, each attachment of SHARED_FROM bytes or more is
        written as what `shared` makes of its encoded bytes (queue: a marker)."""
        skeleton, boundaries, placeholders = _skeleton(tuple(part.shape() for part in self.parts))
        bodies = [part.encoded() for part in self.parts if not part.literal]
        # the skeleton's boundaries were drawn against placeholders: draw each afresh
        # against the real bodies, as the email package would (same length, same folding)
        for old in boundaries:
            skeleton = skeleton.replace(old, _boundary([*bodies, skeleton]).encode("ascii"))
        if shared is not None:
            spliced = [part for part in self.parts if not part.literal]
            bodies = [shared(body) if part.shared else body for part, body in zip(spliced, bodies, strict=True)]
        pieces = [b"".join(_header_line(name, value) for name, value in self.headers)]
        for placeholder, body in zip(placeholders, bodies, strict=True):
            head, found, skeleton = skeleton.partition(placeholder)
            assert found, "a part's placeholder is missing from the skeleton"
            pieces += (head, body)
        return b"".join(pieces) + skeleton


@lru_cache(maxsize=64)
def _skeleton(shapes: tuple[tuple[Any, ...], ...]) -> tuple[bytes, tuple[bytes, ...], tuple[bytes, ...]]:
    """The MIME structure of mails whose parts have these shapes, written by the email
    package with a placeholder for each part not literal, in that part's transfer
    encoding: (its bytes, its boundaries, the placeholders as written, in order)."""
    parts = []
    for index, (maintype, subtype, filename, cte, binary, literal) in enumerate(shapes):
        if literal is not None:
            parts.append(Part(literal, maintype, subtype, filename, None, literal=True))
            continue
        token = f"gm-part-{index}-{uuid.uuid4().hex}"
        parts.append(Part(token.encode("ascii") if binary else token, maintype, subtype, filename, cte))
    message = _email_message((), parts)
    raw = message.as_bytes(policy=MAIL_POLICY)
    boundaries = tuple(part.get_boundary().encode("ascii") for part in message.walk() if part.is_multipart())
    return raw, boundaries, tuple(part.encoded() for part in parts if not part.literal)


# A header of printable ASCII words that fits on its line is written as it is given: the
# email package folds nothing there and keeps the text (tests/test_mail_splice.py). Any
# other header goes through the package, once per value.
_PLAIN_HEADER = re.compile(r"[!-~]+(?: [!-~]+)*")


def _header_line(name: str, value: str) -> bytes:
    if len(name) + 2 + len(value) <= 78 and "=?" not in value and _PLAIN_HEADER.fullmatch(value):
        return f"{name}: {value}\r\n".encode("ascii")
    return _folded_header(name, value)


@lru_cache(maxsize=4096)
def _folded_header(name: str, value: str) -> bytes:
    """One header as the email package folds it with MAIL_POLICY (headers fold each on
    its own, so a mail's header block is their lines in order)."""
    message = EmailMessage()
    message[name] = value
    return message.as_bytes(policy=MAIL_POLICY)[:-2]


def _boundary(bodies: Sequence[bytes]) -> str:
    """A boundary as the email package draws one, that stands in none of the bodies."""
    while True:
        boundary = Generator._make_boundary()
        if not any(boundary.encode("ascii") in body for body in bodies):
            return boundary
