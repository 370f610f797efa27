"""Robot players for `gm demo`. Each one plays as a person would: it reads the mail gm
delivered to its address (its password from the welcome mail, its numbers and the board
positions from its last turn report), picks a number by a simple strategy and writes a
real order mail into the campaign's inbox: plain text, HTML-only as from webmail,
multipart/alternative as from a phone, or a reply quoting the last report.

Robots learn only from mail text, never from the database, so the demo also checks that
what players receive is enough to play on. The parsing is deliberately loose (a regular
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

STRATEGIES = ("random", "greedy", "cautious")
STYLES = ("plain", "html", "phone", "reply")
FULL_SET = (1, 2, 3, 4, 5, 6)
TRAP_AHEAD = 3  # plotters nominate this many squares ahead of the leader: a likely landing


class RobotConfused(RuntimeError):
    """A robot could not read what it needs from its mail (a template changed shape)."""


@dataclass
class PieceSeen:
    end: int  # 0 is Start
    finished: bool


@dataclass
class BoardSeen:
    squares: int
    closed: bool
    pieces: dict[str, PieceSeen]  # by the name shown in the report


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
    boards: dict[str, BoardSeen] = field(default_factory=dict)
    last_from_gm: Letter | None = field(default=None, repr=False)  # what a reply quotes
    refused: list[str] = field(default_factory=list)  # problems of its last refused order
    written: int = 0

    # -- reading mail ----------------------------------------------------------------

    def receive(self, letter: Letter) -> None:
        """Read one mail from the GM, as its subject says it is."""
        subject, text = letter.subject, letter.text
        if "Welcome" in subject:
            found = re.search(r"^Your password: (\S+)", text, re.MULTILINE)
            if not found:
                raise RobotConfused(f"{self.id}: no password in the welcome mail")
            self.password = found.group(1)
            self.last_from_gm = letter
        elif re.search(r"\breport\b", subject):
            self._read_report(text)
            self.last_from_gm = letter
        elif "not accepted" in subject:
            self.refused = re.findall(r"^  - (.+)$", text, re.MULTILINE)
        elif "accepted" in subject:
            self.refused = []

    def _read_report(self, text: str) -> None:
        # Only the numbers still held are read from the report (not `gm state --json`), so
        # the demo fails if a report ever stops telling a player what they hold.
        held = re.search(r"you now hold ([\d, ]+)", text)
        if not held:
            raise RobotConfused(f"{self.id}: the report does not say which numbers are left")
        self.held = tuple(int(n) for n in held.group(1).replace(",", " ").split())
        self.boards = parse_boards(text)
        if not self.boards:
            raise RobotConfused(f"{self.id}: no board positions in the report")

    # -- deciding -------------------------------------------------------------------

    def moving(self) -> bool:
        """Whether a number is still needed: some open board where it has not finished."""
        if not self.boards:
            return True
        return any(
            not board.closed and not board.pieces.get(self.name, PieceSeen(0, False)).finished
            for board in self.boards.values()
        )

    def pick(self) -> int:
        if self.strategy == "greedy":
            return max(self.held)
        if self.strategy == "cautious":
            return min(self.held)
        return self.rng.choice(self.held)

    def targets(self) -> dict[str, int]:
        """Per open board, the square just ahead of the leading piece still racing. Every
        plotter reads the same report, so they agree without talking to each other."""
        targets = {}
        for board_id, board in self.boards.items():
            racing = [p.end for p in board.pieces.values() if not p.finished]
            if board.closed or not racing:
                continue
            targets[board_id] = min(board.squares, max(racing) + TRAP_AHEAD)
        return targets

    def order_lines(self, turn: int, *, campaign: str) -> list[str]:
        """This turn's order, or [] when it has nothing to say (or forgets to write)."""
        if turn == self.misses:
            return []
        lines = []
        if self.moving():
            number = self.pick()
            if turn == self.blunders and not self.refused:
                # the classic slip: the number played last turn, which is no longer held
                number = next((n for n in FULL_SET if n not in self.held), 7)
            lines.append(f"NUMBER {number}")
        if self.plotter and turn % 2 == 0:
            lines += [f"TRAPDOOR {b} {square}" for b, square in sorted(self.targets().items())]
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


def parse_boards(text: str) -> dict[str, BoardSeen]:
    """The board blocks of a turn report: header `Board A (30 squares)[, closed...]`, then
    one line per piece, `Name   12 -> 15`, `finished, 2nd`, `9 -> 9 (placed 4th)`."""
    boards: dict[str, BoardSeen] = {}
    current: BoardSeen | None = None
    for line in text.splitlines():
        header = re.match(r"^Board (\S+) \((\d+) squares\)(.*)$", line)
        if header:
            current = BoardSeen(int(header.group(2)), "closed" in header.group(3), {})
            boards[header.group(1)] = current
            continue
        if not line.strip():
            continue
        if not line.startswith("  "):
            current = None  # the standings, or whatever follows the boards
        if current is None:
            continue
        piece = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
        if not piece or piece.group(1).startswith("Trapdoor"):
            continue
        rest = piece.group(2)
        finished = "finished" in rest
        moved = re.search(r"-> (Start|\d+)", rest)
        end = 0 if not moved or moved.group(1) == "Start" else int(moved.group(1))
        current.pieces[piece.group(1)] = PieceSeen(end, finished)
    return boards


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
