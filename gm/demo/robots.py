"""Robot players for `gm demo`, the part every ruleset shares. A robot plays as a person
would: it reads the mail gm delivered to its address (its password from the welcome mail,
its reports, whether its order was accepted) and writes a real order mail into the
campaign's inbox: plain text, HTML-only as from webmail, multipart/alternative as from a
phone, or a reply quoting the last report.

What it orders is its ruleset's: each ruleset's package has a `robot` module (found by
`robots_of`) with a Robot subclass that writes its commands, and a `DEMO` (a DemoSetup)
giving the demo campaign's boards, options and cast. What is private to a robot it learns
only from its own mail, so the demo also checks that mail tells a player enough to play
on. The reading is deliberately loose (one regular expression per fact) and fails loudly
(RobotConfused) rather than ordering nonsense.
"""

from __future__ import annotations

import email
import email.policy
import html
import mailbox
import os
import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, parseaddr
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..counts import ordinal

if TYPE_CHECKING:
    from ..campaign.folder import Campaign

STYLES = ("plain", "html", "phone", "reply")
# what a sign-up notice's subject says of where a request stands (templates/mail/signup_status.txt)
SIGNUP_SUBJECTS = {"you are in": "in", "on the waiting list": "waiting", "waits for the gm": "awaiting",
                   "was not taken": "rejected", "you have left": "left", "started without you": "pool"}


class RobotConfused(RuntimeError):
    """A robot could not read what it needs from its mail (a template changed shape)."""


@dataclass
class Robot:
    """One robot player: who it is, how it writes, and what it has learnt from its mail.
    A ruleset's robot adds how it plays (`commands`) and what it reads in its reports."""

    id: str
    name: str
    email: str
    style: str = "plain"
    misses: int | None = None  # the turn it forgets to write
    blunders: int | None = None  # the turn its first letter holds a mistake gm refuses
    rng: random.Random = field(default_factory=random.Random, repr=False)
    # learnt from mail
    password: str | None = None
    last_from_gm: Letter | None = field(default=None, repr=False)  # what a reply quotes
    refused: bool = False  # its last order was not accepted
    code: str | None = None  # its sign-up's confirmation code (gm demo --signup), from gm's mail
    standing: str | None = None  # where its sign-up stands, as gm's last notice says
    written: int = 0
    read: Counter[str] = field(default_factory=Counter, repr=False)  # letters read, by kind
    # what `gm state --json --player <id>` gives it before it writes each turn (its own
    # entry under "players", its "private" facts when the ruleset keeps any): a player's
    # own state, which its mail tells it, read without parsing that mail (DemoSetup.seen_by)
    state: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"robot {self.id}: style one of {STYLES}")

    # -- reading mail ----------------------------------------------------------------

    def receive(self, letter: Letter) -> None:
        """Read one mail from the GM, as its subject says it is."""
        subject, text = letter.subject.casefold(), letter.text
        if "your code to join" in subject:
            kind = "signup-code"
            found = re.search(r"^\W*CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})", text, re.MULTILINE)
            if not found:
                raise RobotConfused(f"{self.id}: no code in the mail answering its JOIN")
            self.code = found.group(1)
            self.last_from_gm = letter
        elif letter.subject.startswith(f"[{letter.campaign}] ") and any(
                words in subject for words in SIGNUP_SUBJECTS):
            kind = "signup"
            self.standing = next(state for words, state in SIGNUP_SUBJECTS.items() if words in subject)
        elif "welcome" in subject:
            kind = "welcome"
            found = re.search(r"^\W*your password: (\S+)", text, re.MULTILINE | re.IGNORECASE)
            if not found:
                raise RobotConfused(f"{self.id}: no password in the welcome mail")
            self.password = found.group(1)
            self.last_from_gm = letter
        elif re.search(r"\breport\b", subject):
            kind = "report"
            self.read_report(text)
            self.last_from_gm = letter
        elif "not accepted" in subject:
            kind = "refusal"
            self.refused = True  # it reads the reasons and writes its order again
            self.read_refusal(text)
        elif "accepted" in subject:
            kind = "ack"
            self.refused = False
            self.read_ack(text)
        elif "how to write orders" in subject:
            kind = "help"
            self.read_help(text)
        else:
            kind = "other"
        self.read[kind] += 1

    def read_report(self, text: str) -> None:
        """What the robot learns from its turn report (its ruleset's robot reads it)."""

    def read_refusal(self, text: str) -> None:
        """What the robot learns from a refusal, beside that it was refused."""

    def read_ack(self, text: str) -> None:
        """What the robot learns from an acknowledgement: its standing order."""

    def read_help(self, text: str) -> None:
        """What the robot learns from a help reply."""

    # -- deciding -------------------------------------------------------------------
    # `public` is what every player may know (DemoSetup.public: keys of `gm state --json`
    # that every report shows); what is private a robot learns only from its mail.

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        """This turn's commands, without the envelope; [] for nothing to say."""
        return []

    def order_lines(self, turn: int, *, campaign: str, public: Mapping[str, Any]) -> list[str]:
        """This turn's order, or [] when it has nothing to say (or forgets to write)."""
        if turn == self.misses:
            return []
        lines = self.commands(turn, public)
        if not lines:
            return []
        if turn == 1 and "HELP" not in lines:  # docs/audit.md, Players' entropy: a robot that writes adds words
            lines = [*lines, f"ENTROPY {self.name} wishes everyone luck"]
        return self.envelope(turn, campaign) + self.blunder(turn) + lines

    def blunder(self, turn: int) -> list[str]:
        """The mistake gm refuses that its first letter of turn `blunders` holds (never,
        when `blunders` is None): by default a TURN line naming the turn after the open
        one. A robot that words its own slip (overrides `slip`) makes its own mistake in
        `commands`, as a player of that ruleset would, and adds none here: house robots written
        before the base robot had blunders did exactly that, and must not get a second mistake."""
        if turn != self.blunders or self.refused or type(self).slip is not Robot.slip:
            return []
        return [f"TURN {turn + 1}"]

    def join_lines(self, campaign: str, keys: Mapping[str, Any]) -> list[str]:
        """Its JOIN (gm demo --signup): the id it plays as asked for, and the ruleset's keys."""
        return [f"JOIN {campaign}", f"NAME {self.name}", f"ID {self.id}",
                *(f"{key.upper()} {value}" for key, value in keys.items())]

    def confirm_lines(self) -> list[str]:
        if self.code is None:
            raise RobotConfused(f"{self.id}: never received the code to confirm its JOIN")
        return [f"CONFIRM {self.code}"]

    def envelope(self, turn: int, campaign: str) -> list[str]:
        if self.password is None:
            raise RobotConfused(f"{self.id}: never received its welcome mail")
        head = [f"GAME {campaign}", f"PLAYER {self.id}", f"PASSWORD {self.password}"]
        if self.style == "reply":
            head.append(f"TURN {turn}")  # the careful one guards against a stale order
        return head

    def slip(self, turn: int) -> str | None:
        """The human slip it makes this turn, said for the demo's log."""
        if turn == self.blunders:
            return "writes the wrong turn number"
        return "forgets to write" if turn == self.misses else None

    def mid_week(self, turn: int) -> bool:
        """Whether it needs the GM's answer before the deadline (its letter had a slip)."""
        return turn == self.blunders

    def second_letter(self, turn: int, *, campaign: str, public: Mapping[str, Any]) -> tuple[list[str], str]:
        """What it writes after reading the GM's mid-week answers, and what it does, for
        the demo's log: by default a corrected order when its order was refused."""
        if not self.refused:
            return [], ""
        return (self.order_lines(turn, campaign=campaign, public=public),
                "reads the refusal and mails a corrected order")

    # -- writing mail ---------------------------------------------------------------

    def compose(self, lines: list[str], *, turn: int, campaign: str, to: str, when: datetime,
                subject: str | None = None) -> EmailMessage:
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
        message["Subject"] = subject or f"[{campaign}] orders for turn {turn}"
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


class DemoSetup:
    """What a ruleset gives `gm demo`: the `DEMO` of its package's `robot` module. The
    demo writes campaign.yaml from it (the ruleset's name, `title`, `boards` copied from
    gm's boards/, the cast's ids, names and `player_keys`, the `options` block) and plays
    the cast's robots to the end."""

    robot: ClassVar[type[Robot]] = Robot
    # Robot keyword arguments, one per robot: id, name, style and the ruleset robot's own
    cast: ClassVar[tuple[Mapping[str, Any], ...]] = ()
    boards: ClassVar[Mapping[str, str]] = {}  # board id -> a file of gm's boards/
    # campaign.yaml's options block: two-space indented lines, each ending in a newline
    options: ClassVar[str] = ""
    player_keys: ClassVar[tuple[str, ...]] = ()  # cast keys written into campaign.yaml's players
    title: ClassVar[str] = "The Robot Derby"
    heading: ClassVar[str] = "Final standings:"  # above the standings gm demo prints

    def campaign_seed(self, seed: int) -> int:
        """The campaign's seed for `gm demo --seed` (a ruleset may need a longer one)."""
        return seed

    def robots(self, seed: int) -> list[Robot]:
        return [
            self.robot(email=f"{spec['id']}@robots.example", rng=random.Random(f"{seed}/{spec['id']}"), **spec)
            for spec in self.cast
        ]

    def public(self, campaign: Campaign) -> dict[str, Any]:
        """What every player may know now, as a player's helper would read it from
        `gm state --json`: by default its boards (squares, finished pieces, closed
        boards), which every report shows."""
        return campaign.state_json()["boards"]

    def seen_by(self, campaign: Campaign, players: list[str]) -> dict[str, dict[str, Any]]:
        """What each of `players` may see now (`Robot.state`): `gm state --json --player
        ID`, or, for a ruleset that keeps nothing private, the one `gm state --json`."""
        ruleset, setup, state = campaign.ruleset, campaign.setup, campaign.state()
        whole = campaign.state_json()
        return {p: whole if ruleset.private_json(setup, state, p) is None else campaign.player_state_json(p)
                for p in players}

    def standings(self, campaign: Campaign) -> list[str]:
        """The final standings, one printable line per player, best first."""
        state, names = campaign.state(), campaign.names()
        standings = campaign.ruleset.standings(campaign.setup, state)
        lines = []
        for line in campaign.ruleset.archive_standings(campaign.setup, state, names):
            pieces = [board.pieces[line.player] for board in standings.boards.values()]
            where = ", ".join("finished" if p.finished else f"square {p.square}" for p in pieces)
            lines.append(f"{ordinal(line.place):>4}  {line.name:<16} {where}")
        return lines


def robots_of(ruleset: object) -> DemoSetup | None:
    """The demo of a ruleset: the `DEMO` of a `robot` module in the package of its class
    or of a class it derives from (classic and doubles share gm.rules.dice.robot), or
    None when it has none."""
    for cls in type(ruleset).__mro__:
        name = f"{cls.__module__}.robot"
        try:
            module = import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            continue
        demo = getattr(module, "DEMO", None)
        if isinstance(demo, DemoSetup):
            return demo
    return None


@dataclass(frozen=True)
class Letter:
    """What a robot reads of one mail from the GM."""

    to: str
    subject: str
    message_id: str
    date: str
    sender: str
    text: str  # the text/plain part

    @property
    def campaign(self) -> str:
        """The campaign its subject names ([demo] ...)."""
        found = re.search(r"\[([^\]]+)\]", self.subject)
        return found.group(1) if found else ""

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
                text = text.replace("\r\n", "\n")  # as a mail program shows it
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


def post(inbox: Path, message: EmailMessage, received: datetime | None = None) -> None:
    """Drop one mail into the campaign's Maildir inbox, as a mail server would; with
    `received`, delivered at that moment (the file's time, which gm takes for the time of
    receipt in the campaign's own inbox)."""
    box = mailbox.Maildir(str(inbox), factory=None, create=False)
    key = box.add(message.as_bytes())
    if received is not None:
        os.utime(Path(inbox) / "new" / key, (received.timestamp(), received.timestamp()))
