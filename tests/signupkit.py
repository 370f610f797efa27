"""A campaign taking its players by mail (docs/rules/, Joining by mail), driven through the `gm` command
line on the Maildir transport: people mail JOIN, CONFIRM and LEAVE into mail/inbox (the
time of receipt is the file's modification time, as docs/rules/, Order mail says of the campaign's
own inbox), the clock is GM_NOW, and what gm answered is read back from the outbox.

    game = SignupGame.create(tmp_path / "c", monkeypatch, signup={"max_players": 3})
    game.join("ann@example.org", "Ann Smith")
    game.gm("ingest")
    game.confirm("ann@example.org")   # sends back the code gm mailed to that address
    game.gm("ingest")
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from gm.cli import cli

BOARDS = Path(__file__).resolve().parent.parent / "boards"
START = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
GM = "gm@example.org"
CODE = re.compile(r"^\s*CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})\s*$", re.MULTILINE)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Sent:
    """One mail gm queued, as its reader sees it."""

    id: int
    kind: str
    to: str
    subject: str
    text: str
    html: str
    message_id: str
    headers: Mapping[str, str]


class SignupGame:
    def __init__(self, folder: Path, monkeypatch: Any):
        self.folder = folder
        self.monkeypatch = monkeypatch
        self.now = START
        self.runner = CliRunner()
        self.count = 0

    @classmethod
    def create(cls, folder: Path, monkeypatch: Any, *, signup: Mapping[str, Any] | None = None,
               players: Sequence[Mapping[str, Any]] = (), ruleset: str = "postal",
               board: str | None = "milton-bradley.yaml", extra: Mapping[str, Any] | None = None) -> SignupGame:
        folder.mkdir(parents=True)
        config: dict[str, Any] = {
            "id": "spring", "title": "Spring Snakes", "ruleset": ruleset, "seed": 2**128 + 5,
            "first_deadline": "2027-04-01T18:00:00Z",
            "players": list(players),
            "signup": dict(signup if signup is not None else {"max_players": 10}),
            "mail": {"from": f"Snakes GM <{GM}>"},
        }
        if board is not None:
            config["boards"] = {"A": str(BOARDS / board)}
        config.update(extra or {})
        (folder / "campaign.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        return cls(folder, monkeypatch)

    # -- the GM's side ----------------------------------------------------------------

    def gm(self, *args: str, code: int = 0) -> str:
        self.monkeypatch.setenv("GM_NOW", iso(self.now))
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    def later(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    def edit(self, change: Callable[[dict], None]) -> None:
        path = self.folder / "campaign.yaml"
        data = yaml.safe_load(path.read_text())
        change(data)
        path.write_text(yaml.safe_dump(data, sort_keys=False))

    def db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.folder / "gm.sqlite")
        db.row_factory = sqlite3.Row
        return db

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.db() as db:
            return [dict(row) for row in db.execute(sql, params)]

    def signups(self) -> list[dict[str, Any]]:
        return self.rows("select * from signups order by id")

    def standing(self) -> dict[str, str]:
        """id -> status of every confirmed request."""
        return {row["player"]: row["status"] for row in self.signups()}

    # -- the people's side ------------------------------------------------------------

    def mail(self, sender: str, *lines: str, name: str | None = None, headers: Mapping[str, str] | None = None,
             message_id: str | None = None, raw: bytes | None = None) -> Path:
        """A mail from `sender`, delivered to the inbox now (its time of receipt)."""
        self.count += 1
        if raw is None:
            message = EmailMessage()
            message["From"] = f"{name or sender.split('@')[0].title()} <{sender}>"
            message["To"] = GM
            message["Date"] = format_datetime(self.now)
            message["Subject"] = "sign-up"
            message["Message-ID"] = message_id or f"<{self.count}.{sender}>"
            for key, value in (headers or {}).items():
                message[key] = value
            message.set_content("\n".join(lines) + "\n")
            raw = bytes(message)
        box = self.folder / "mail" / "inbox" / "new"
        box.mkdir(parents=True, exist_ok=True)
        path = box / f"{self.count:06d}.{abs(hash(sender)) % 10**6}.eml"
        path.write_bytes(raw)
        when = self.now.timestamp()
        os.utime(path, (when, when))
        return path

    def join(self, sender: str, name: str, *more: str, campaign: str = "spring", **headers: str) -> Path:
        return self.mail(sender, f"JOIN {campaign}", f"NAME {name}", *more, headers=headers or None)

    def code(self, address: str) -> str:
        """The last confirmation code gm mailed to `address`."""
        codes = [CODE.search(m.text).group(1) for m in self.outbox(to=address, kind="signup-code")]
        assert codes, f"no code was mailed to {address}"
        return codes[-1]

    def password(self, player: str) -> str:
        """The password gm start mailed to `player` in its welcome."""
        [address] = [row["email"] for row in self.rows("select email from players where id = ?", (player,))]
        found = [re.search(r"^Your password: (\S+)\s*$", m.text, re.MULTILINE) for m in self.outbox(to=address)]
        passwords = [m.group(1) for m in found if m]
        assert passwords, f"no password was mailed to {player}"
        return passwords[-1]

    def confirm(self, address: str, **headers: str) -> Path:
        return self.mail(address, f"CONFIRM {self.code(address)}", headers=headers or None)

    def signed_up(self, *people: tuple[str, str]) -> None:
        """Each (address, name) joins and confirms, in that order, one minute apart."""
        for address, name in people:
            self.join(address, name)
        self.gm("ingest")
        for address, _ in people:
            self.later(minutes=1)
            self.confirm(address)
        self.gm("ingest")

    def outbox(self, *, to: str | None = None, kind: str | None = None, after: int = 0) -> list[Sent]:
        """Every mail gm queued (or sent), oldest first."""
        found = []
        for row in self.rows("select id, kind, recipient, raw from outbox where id > ? order by id", (after,)):
            if (to is not None and row["recipient"] != to) or (kind is not None and row["kind"] != kind):
                continue
            message = email.message_from_bytes(row["raw"], policy=email.policy.default)
            plain = message.get_body(("plain",))
            html = message.get_body(("html",))
            found.append(Sent(row["id"], row["kind"], row["recipient"], str(message["Subject"]),
                              plain.get_content() if plain else "", html.get_content() if html else "",
                              str(message["Message-ID"]), {k: str(v) for k, v in message.items()}))
        return found

    def last_id(self) -> int:
        rows = self.rows("select max(id) as n from outbox")
        return rows[0]["n"] or 0

    def outcomes(self) -> list[str]:
        return [row["outcome"] for row in self.rows("select outcome from messages order by id")]

    def state(self) -> dict:
        return json.loads(self.gm("state", "--json"))
