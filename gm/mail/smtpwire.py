"""One SMTP transaction on one authenticated connection: the envelope checked, the message
put on the wire as DATA wants it (CRLF, dot-stuffing with one bytes.replace), the server's
replies read, a 421 closing the connection. The batch that runs many of them over a pool of
connections is gm.mail.smtp's."""

from __future__ import annotations

import re
import smtplib
import ssl
from dataclasses import dataclass


@dataclass(frozen=True)
class Outgoing:
    key: str  # the caller's id for the message (its queue row), echoed in its SendResult
    sender: str  # envelope MAIL FROM
    recipients: tuple[str, ...]  # envelope RCPT TO
    data: bytes  # the whole message, CRLF line ends (as_bytes(policy=email.policy.SMTP))


class Closed(Exception):
    """The server answered 421: it is closing this connection."""


def cert_error(error: BaseException) -> ssl.SSLCertVerificationError | None:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def reply_text(reply: bytes | str) -> str:
    """The server's reply on one line, whole: gm.mail.smtp scrubs secrets from it before
    it is shortened (cut first, a secret could be cut in two and half of it kept)."""
    return " ".join((reply.decode("utf-8", "replace") if isinstance(reply, bytes)
                     else reply).split())


_BARE_LINE_END = re.compile(rb"\r\n|\r|\n")


def wire_data(data: bytes) -> bytes:
    """`data` as DATA puts it on the wire: CRLF line ends, every line that starts with a
    dot given a second one (RFC 5321 4.5.2), and the final "." line.

    The messages come with CRLF line ends already, so the check for a bare CR or LF costs
    three counts, and the stuffing one bytes.replace: a regular expression over every
    line (what aiosmtplib and smtplib do) costs three times as much on a 150 KB report.
    """
    crlf = data.count(b"\r\n")
    if data.count(b"\n") != crlf or data.count(b"\r") != crlf:
        data = _BARE_LINE_END.sub(b"\r\n", data)
    data = data.replace(b"\r\n.", b"\r\n..")
    if data.startswith(b"."):
        data = b"." + data
    if not data.endswith(b"\r\n"):
        data += b"\r\n"
    return data + b".\r\n"


def address_problem(address: str) -> str | None:
    """Why `address` cannot go in a MAIL FROM or RCPT TO, or None when it can."""
    if not address.isascii():
        return f"address {address!r} is not ASCII (SMTPUTF8 is not used)"
    if any(c in address for c in "<> \t\r\n\x00") or not address.isprintable():
        return f"address {address!r} cannot be put in an SMTP command"
    return None


def xoauth2(smtp: smtplib.SMTP, user: str, token: str) -> None:
    """AUTH XOAUTH2 (Google's and Microsoft's SASL mechanism): the user and bearer token as
    the initial response; a server that refuses answers 334 with a JSON error first, to
    which the client must send an empty line before the final 535."""
    answer = f"user={user}\x01auth=Bearer {token}\x01\x01"
    smtp.auth("XOAUTH2", lambda challenge=None: answer if challenge is None else "")


class Connection:
    """One authenticated smtplib connection and the one transaction it does at a time."""

    def __init__(self, smtp: smtplib.SMTP):
        self.smtp = smtp

    @property
    def is_open(self) -> bool:
        return self.smtp.sock is not None

    def close(self) -> None:
        self.smtp.close()

    def quit(self) -> None:
        if not self.is_open:
            return
        try:
            self.smtp.quit()
        except (smtplib.SMTPException, OSError):
            self.smtp.close()

    def command(self, line: str) -> tuple[int, bytes]:
        self.smtp.putcmd(line)
        code, reply = self.smtp.getreply()
        if code == 421:  # the server is closing this connection
            self.smtp.close()
            raise Closed(f"{code} {reply_text(reply)}")
        return code, reply

    def reset(self) -> None:
        """RSET after a refused step, so the next transaction starts clean; a failure of
        RSET itself only closes the connection (the next message reconnects)."""
        try:
            self.command("RSET")
        except (Closed, smtplib.SMTPException, OSError):
            self.smtp.close()

    def send(self, message: Outgoing) -> tuple[int, str, dict[str, tuple[int, str]]] | str:
        """One mail transaction: (code, server's text, refused recipients), the code 250
        when the message was accepted; or, for a message that cannot be put on the wire
        at all, why not (a str). Raises Closed, smtplib.SMTPException or OSError when
        the connection fails or is closed."""
        for address in (message.sender, *message.recipients):
            problem = address_problem(address)
            if problem:
                return problem
        wire = wire_data(message.data)
        smtp = self.smtp
        size = f" SIZE={len(wire) - 3}" if smtp.has_extn("size") else ""
        code, reply = self.command(f"MAIL FROM:<{message.sender}>{size}")
        if code != 250:
            self.reset()
            raise smtplib.SMTPSenderRefused(code, reply, message.sender)
        refused: dict[str, tuple[int, str]] = {}
        for recipient in message.recipients:
            code, reply = self.command(f"RCPT TO:<{recipient}>")
            if code not in (250, 251):
                refused[recipient] = (code, reply_text(reply))
        if len(refused) == len(message.recipients):
            self.reset()
            raise smtplib.SMTPRecipientsRefused(refused)
        code, reply = self.command("DATA")
        if code != 354:
            self.reset()
            return code, reply_text(reply), refused
        smtp.send(wire)
        code, reply = smtp.getreply()
        if code == 421:
            smtp.close()
            raise Closed(f"{code} {reply_text(reply)}")
        return code, reply_text(reply), refused
