"""A campaign of any ruleset (a toy, a plugin) played by mail through the CLI on the
Maildir transport, for the tests that play a ruleset by mail with nothing else in the way:

    game = MaildirGame.create(tmp_path / "sty", ruleset="pig", seed=SEED, board=LANE, players=PLAYERS)
    game.gm("start", now=START)
    game.mail("ann", "ROLL 5")          # an order mail dropped in mail/inbox/new
    out = game.turn(1)                  # gm turn an hour after turn 1's deadline
    game.texts()                        # the plain text of every mail gm delivered

Each command has its clock set through GM_NOW (first deadline 2027-01-08 18:00 UTC, a week
a turn); nothing waits on the wall clock.
"""

from __future__ import annotations

import email
import email.policy
import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import yaml
from click.testing import CliRunner

from gm.cli import cli

START = "2027-01-01T00:00:00Z"
FIRST_DEADLINE = datetime(2027, 1, 8, 18, tzinfo=UTC)
LATER = "2027-03-01T00:00:00Z"  # after the end of the short campaigns these tests play


class MaildirGame:
    def __init__(self, folder: Path, players: Mapping[str, str]):
        self.folder = folder
        self.players = dict(players)  # id -> password
        self.runner = CliRunner()
        self.sent = 0  # order mails dropped so far: each one's file name and Message-ID

    @classmethod
    def create(cls, folder: Path, *, ruleset: str, seed: int, board: str, players: Mapping[str, str],
               options: Mapping | None = None, campaign_id: str | None = None,
               board_file: str = "board.yaml") -> MaildirGame:
        """The campaign's folder with its board and campaign.yaml (players named by their
        title case), not yet started."""
        folder.mkdir()
        (folder / board_file).write_text(board)
        (folder / "campaign.yaml").write_text(yaml.safe_dump({
            "id": campaign_id or folder.name, "ruleset": ruleset, "seed": seed,
            "first_deadline": FIRST_DEADLINE.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "boards": {"A": board_file},
            "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                        for p, pw in players.items()],
            "options": dict(options or {}),
        }))
        return cls(folder, players)

    def gm(self, *args: str, now: str = LATER, ok: bool = True):
        """`gm -C folder args` at `now`: its output, asserting exit 0; with ok=False the
        whole result, for a test that looks at the exit code itself."""
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], env={"GM_NOW": now})
        if ok:
            assert result.exit_code == 0, result.output
        return result.output if ok else result

    def state(self, now: str = LATER) -> dict:
        return json.loads(self.gm("state", "--json", now=now))

    def mail(self, player: str, *lines: str) -> None:
        """The player's order mail (PLAYER and PASSWORD, then `lines`) in the Maildir inbox."""
        self.sent += 1
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
        message["Message-ID"] = f"<{self.sent}@example.org>"
        message.set_content("".join(f"{line}\n" for line in (f"PLAYER {player}", f"PASSWORD {self.players[player]}",
                                                             *lines)))
        (self.folder / "mail" / "inbox" / "new" / f"{self.sent}.eml").write_bytes(bytes(message))

    def turn(self, week: int) -> str:
        """`gm turn` an hour after turn `week`'s deadline: its output."""
        after = FIRST_DEADLINE + timedelta(hours=1, days=7 * (week - 1))
        return self.gm("turn", now=after.strftime("%Y-%m-%dT%H:%M:%SZ"))

    def outbox(self) -> list[EmailMessage]:
        """Every mail gm delivered, in the order of its files."""
        return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
                for p in sorted((self.folder / "mail" / "outbox" / "new").iterdir())]

    def texts(self) -> list[str]:
        return [m.get_body(("plain",)).get_content() for m in self.outbox()]

    def kinds(self) -> list[str]:
        """The kind of every mail gm queued (welcome, ack, report...), from its database."""
        with closing(sqlite3.connect(self.folder / "gm.sqlite")) as db:
            return [kind for (kind,) in db.execute("select kind from outbox")]
