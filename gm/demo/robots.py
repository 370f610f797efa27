"""Robot players for `gm demo`. Each one plays as a person would: it reads the mail gm
delivered to its address (its password from the welcome mail, the numbers it still holds
from its last turn report, whether its order was accepted), picks a number by a simple
strategy and writes a real order mail into the campaign's inbox: plain text, HTML-only as
from webmail, multipart/alternative as from a phone, or a reply quoting the last report.

What is private to a robot it learns only from its own mail, so the demo also checks that
mail tells a player enough to play on. The reading is deliberately loose (one regular
expression per fact) and fails loudly (RobotConfused) rather than ordering nonsense.
"""

from __future__ import annotations

import email
import email.policy
import html
import mailbox
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, parseaddr
from pathlib import Path
from typing import Any

STRATEGIES = ("random", "greedy", "cautious")
STYLES = ("plain", "html", "phone", "reply")
FULL_SET = (1, 2, 3, 4, 5, 6)
TRAP_AHEAD = 3  # plotters nominate this many squares ahead of the leader: a likely landing


class RobotConfused(RuntimeError):
    """A robot could not read what it needs from its mail (a template changed shape)."""


@dataclass
class Robot:
    """One robot player: who it is, how it plays, and what it has learnt from its mail."""

    id: str
    name: str
    email: str
    strategy: str = "random"
    style: str = "plain"
    plotter: bool = False  # nominates a trapdoor ahead of the leader with the other plotters
    misses: int | None = None  # the turn it forgets to write (an NMR)
    blunders: int | None = None  # the turn its first order names a number it does not hold
    rng: random.Random = field(default_factory=random.Random, repr=False)
    # learnt from mail
    password: str | None = None
    held: tuple[int, ...] = FULL_SET  # the welcome mail says everyone starts with 1 to 6
    last_from_gm: Letter | None = field(default=None, repr=False)  # what a reply quotes
    refused: bool = False  # its last order was not accepted
    written: int = 0

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES or self.style not in STYLES:
            raise ValueError(f"robot {self.id}: strategy one of {STRATEGIES}, style one of {STYLES}")

    # -- reading mail ----------------------------------------------------------------

    def receive(self, letter: Letter) -> None:
        """Read one mail from the GM, as its subject says it is."""
        subject, text = letter.subject.casefold(), letter.text
        if "welcome" in subject:
            found = re.search(r"^\W*your password: (\S+)", text, re.MULTILINE | re.IGNORECASE)
            if not found:
                raise RobotConfused(f"{self.id}: no password in the welcome mail")
            self.password = found.group(1)
            self.last_from_gm = letter
        elif re.search(r"\breport\b", subject):
            self._read_report(text)
            self.last_from_gm = letter
        elif "not accepted" in subject:
            self.refused = True  # it reads the reasons and writes its order again
        elif "accepted" in subject:
            self.refused = False

    def _read_report(self, text: str) -> None:
        # the numbers still held come from the player's own report, never from the GM's
        # `gm state --json` (which shows everyone's): if reports stop saying them, this fails
        held = re.search(r"\byou (?:now )?hold (\d(?:, \d)*)", text)
        if not held:
            raise RobotConfused(f"{self.id}: the report does not say which numbers are left")
        self.held = tuple(int(n) for n in held.group(1).split(", "))

    # -- deciding -------------------------------------------------------------------
    # `public` is the "boards" part of `gm state --json` (CONTRACT.md): squares, finished
    # pieces, closed boards, all of which every report shows. Robots take these public facts
    # from the JSON a player's helper would read, because the report's wording is written for
    # people and changes; their own numbers and password they still learn from their mail.

    def moving(self, public: dict[str, Any]) -> bool:
        """Whether a number is still needed: some open board where it has not finished."""
        return any(
            not board["closed"] and not board["players"][self.id]["finished"]
            for board in public.values()
        )

    def pick(self) -> int:
        if self.strategy == "greedy":
            return max(self.held)
        if self.strategy == "cautious":
            return min(self.held)
        return self.rng.choice(self.held)

    def targets(self, public: dict[str, Any]) -> dict[str, int]:
        """Per open board, the square just ahead of the leading piece still racing. Every
        plotter reads the same public state, so they agree without talking to each other."""
        targets = {}
        for board_id, board in public.items():
            racing = [p["square"] for p in board["players"].values() if not p["finished"]]
            if board["closed"] or not racing:
                continue
            targets[board_id] = min(board["squares"], max(racing) + TRAP_AHEAD)
        return targets

    def order_lines(self, turn: int, *, campaign: str, public: dict[str, Any]) -> list[str]:
        """This turn's order, or [] when it has nothing to say (or forgets to write)."""
        if turn == self.misses:
            return []
        lines = []
        if self.moving(public):
            number = self.pick()
            if turn == self.blunders and not self.refused:
                # the classic slip: a number already played this cycle, so no longer held
                number = next((n for n in FULL_SET if n not in self.held), 7)
            lines.append(f"NUMBER {number}")
        if self.plotter and turn % 2 == 0:
            lines += [f"TRAPDOOR {b} {square}" for b, square in sorted(self.targets(public).items())]
        if not lines:
            return []
        if self.password is None:
            raise RobotConfused(f"{self.id}: never received its welcome mail")
        head = [f"GAME {campaign}", f"PLAYER {self.id}", f"PASSWORD {self.password}"]
        if self.style == "reply":
            head.append(f"TURN {turn}")  # the careful one guards against a stale order
        return head + lines

    # -- writing mail ---------------------------------------------------------------

    def compose(self, lines: list[str], *, turn: int, campaign: str, to: str, when: datetime) -> EmailMessage:
        """An order mail in this robot's style, sent at `when` and received a minute later."""
        self.written += 1
        domain = self.email.rpartition("@")[2]
        message = EmailMessage()
        # the receiving server's stamp comes first: gm takes the time of receipt from it
        received = format_datetime(when + timedelta(minutes=1))
        message["Received"] = f"from {self.style}.{domain} by mx.demo.example with ESMTPS; {received}"
        message["From"] = formataddr((self.name, self.email))
        message["To"] = to
        message["Date"] = format_datetime(when)
        message["Message-ID"] = f"<{campaign}.{turn}.{self.written}.{self.id}@{domain}>"
        message["Subject"] = f"[{campaign}] orders for turn {turn}"
        text = "\n".join(lines) + "\n"
        if self.style == "html":
            message.set_content(_as_html(lines), subtype="html")
        elif self.style == "phone":
            message.set_content(text + "\n-- \nSent from my phone\n")
            message.add_alternative(_as_html(lines), subtype="html")
        elif self.style == "reply" and self.last_from_gm is not None:
            quoted = self.last_from_gm
            message.replace_header("Subject", "Re: " + quoted.subject)
            message["In-Reply-To"] = quoted.message_id
            message["References"] = quoted.message_id
            quote = "\n".join(f"> {line}".rstrip() for line in quoted.text.splitlines())
            message.set_content(f"{text}\nOn {quoted.date}, {quoted.sender} wrote:\n{quote}\n")
        else:
            message.set_content(text)
        return message


@dataclass(frozen=True)
class Letter:
    """What a robot reads of one mail from the GM."""

    to: str
    subject: str
    message_id: str
    date: str
    sender: str
    text: str  # the text/plain part

    @classmethod
    def from_bytes(cls, raw: bytes) -> Letter:
        # compat32 and a walk for the text part: several times faster than the modern
        # policy's header objects, which would be most of the demo's own time
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
        text = ""
        for part in message.walk():
            if part.get_content_type() == "text/plain":
                data = part.get_payload(decode=True) or b""
                text = data.decode(part.get_content_charset() or "utf-8", errors="replace")
                break

        def header(name: str) -> str:
            return str(make_header(decode_header(message.get(name, ""))))

        return cls(parseaddr(header("To"))[1].lower(), header("Subject"), header("Message-ID"),
                   header("Date"), header("From"), text)


def _as_html(lines: list[str]) -> str:
    """What a webmail composer sends: one <div> per line, entities escaped."""
    body = "".join(f"<div>{html.escape(line)}</div>" for line in lines)
    return f'<html><body><div dir="ltr">{body}<div><br></div></div></body></html>\n'


class Postman:
    """Hands each robot the mail gm delivered into the outbox since its last round, like a
    mail program fetching new mail: each file is read once, in the order gm sent it."""

    def __init__(self, outbox: Path, robots: list[Robot]):
        self.outbox = outbox
        self.by_address = {robot.email.lower(): robot for robot in robots}
        self.seen: set[str] = set()

    def deliver(self) -> int:
        box = mailbox.Maildir(str(self.outbox), factory=None, create=False)
        fresh = sorted(key for key in box.iterkeys() if key not in self.seen)  # names carry gm's order
        for key in fresh:
            self.seen.add(key)
            letter = Letter.from_bytes(box.get_bytes(key))
            robot = self.by_address.get(letter.to)
            if robot is not None:
                robot.receive(letter)
        return len(fresh)


def post(inbox: Path, message: EmailMessage) -> None:
    """Drop one mail into the campaign's Maildir inbox, as a mail server would."""
    mailbox.Maildir(str(inbox), factory=None, create=False).add(message.as_bytes())
