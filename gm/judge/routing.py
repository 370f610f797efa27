"""Which of the judge's games a message is for (docs/deployment.md, A judge): the game its
`GAME <id>`, `JOIN <id>` or `LEAVE <id>` line names, else the `+<id>` detail of the
address it was sent to, else the game whose sign-up code its `CONFIRM <code>` is, else the
game one of whose mails its `In-Reply-To` or `References` names. What names no game is the
judge's own: `LIST`, `RECORD`, or an unknown game."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.utils import getaddresses
from pathlib import Path

from ..campaign.signup.codes import CODE_ALPHABET, CODE_LENGTH, matching_request
from ..campaign.store import DB_NAME
from ..mail.inbound import InboundMail
from ..mail.parsing import HEAD_SCAN

NAMING = ("GAME", "JOIN", "LEAVE")
ADDRESSED = ("To", "Delivered-To", "X-Original-To", "Envelope-To", "Cc")
LIST, RECORD, UNKNOWN = "list", "record", "unknown"


@dataclass(frozen=True)
class Route:
    game: str | None  # the game's folder name, or None: the judge answers (`asks`)
    asks: str | None = None  # LIST, RECORD or UNKNOWN


def command_lines(text: str) -> Iterable[list[str]]:
    """Each command line's words, as the desk reads them: quoted lines skipped, nothing
    read from a signature line or END on."""
    for line in text.splitlines():
        if line.startswith("-- "):
            return
        words = line.split()
        if not words or words[0].startswith(">"):
            continue
        if words[0].upper() == "END":
            return
        yield words


class Router:
    def __init__(self, games: Mapping[str, Path], judge_address: str):
        # ids are case-insensitive in mail (docs/rules/, Order mail)
        self.games = {name.lower(): name for name in games}
        self.folders = dict(games)
        local, _, domain = judge_address.partition("@")
        self.local, self.domain = local.lower(), domain.lower()

    def route(self, raw: bytes, mail: InboundMail) -> Route:
        words = list(command_lines(mail.text or ""))
        for line in words:
            if line[0].upper() in NAMING and len(line) > 1:
                game = self.games.get(line[1].lower())
                return Route(game) if game else Route(None, UNKNOWN)
        game = self._detail(raw) or self._confirmed(words, mail.sender) or self._replied(mail.references)
        if game:
            return Route(game)
        keywords = {line[0].upper() for line in words}
        if "RECORD" in keywords:
            return Route(None, RECORD)
        return Route(None, LIST if "LIST" in keywords else UNKNOWN)

    def _detail(self, raw: bytes) -> str | None:
        """The game of a `judge+<id>@domain` address the message was sent to."""
        head = BytesHeaderParser().parsebytes(raw[:HEAD_SCAN])
        values = [str(v) for name in ADDRESSED for v in (head.get_all(name) or [])]
        for _, address in getaddresses(values):
            local, _, domain = address.lower().rpartition("@")
            base, plus, detail = local.partition("+")
            if plus and base == self.local and domain == self.domain and detail in self.games:
                return self.games[detail]
        return None

    def _confirmed(self, words: list[list[str]], sender: str) -> str | None:
        """The game whose sign-up code a CONFIRM line holds (codes are the games' own, and
        40 bits: one code is one game's within the judge)."""
        codes = [_code(line[1]) for line in words if line[0].upper() == "CONFIRM" and len(line) > 1]
        codes = [c for c in codes if c]
        if not codes or not sender:
            return None
        for name, folder in self.folders.items():
            with _reading(folder) as store:
                if store is None or store.one("select 1 from sqlite_master where name = 'signup_key'") is None:
                    continue
                key_row = store.one("select key from signup_key")
                if key_row and any(matching_request(store, bytes.fromhex(key_row["key"]), sender, c) for c in codes):
                    return name
        return None

    def _replied(self, references: tuple[str, ...]) -> str | None:
        if not references:
            return None
        marks = ", ".join("?" * len(references))
        for name, folder in self.folders.items():
            with _reading(folder) as store:
                if store is not None and store.one(
                        f"select 1 from outbox where message_id in ({marks}) limit 1", references):
                    return name
        return None


def _code(text: str) -> str | None:
    code = text.replace("-", "").upper()
    return code if len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code) else None


class _reading:
    """A game's store opened to read only, or None when it has none yet."""

    def __init__(self, folder: Path):
        self.path = folder / DB_NAME
        self.conn: sqlite3.Connection | None = None

    def __enter__(self) -> _reading | None:
        if not self.path.exists():
            return None
        self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        self.conn.row_factory = sqlite3.Row
        return self

    def __exit__(self, *exc: object) -> None:
        if self.conn is not None:
            self.conn.close()

    def one(self, sql: str, params: object = ()) -> sqlite3.Row | None:
        assert self.conn is not None
        try:
            return self.conn.execute(sql, params).fetchone()
        except sqlite3.OperationalError:
            return None  # an older store without the table

    def rows(self, sql: str, params: object = ()) -> list[sqlite3.Row]:
        assert self.conn is not None
        return self.conn.execute(sql, params).fetchall()
