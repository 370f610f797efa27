"""A three-player campaign of any built-in ruleset driven through the CLI with a set clock,
for the tests of what a seat's new holder, an observer and a player with or without a
deadline are mailed (test_seat_handover_mail, test_observer_welcome, test_calendar_who).

alice, bob and carol have fixed passwords; the first deadline is 2027-01-08 00:00 UTC and
each turn lasts a week. Orders are real mail, ingested as files dated when they are sent.
"""

from __future__ import annotations

import email
import email.policy
import json
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from gm.cli import cli
from gm.clock import parse_time
from gm.rules.registry import BUILT_IN

RULESETS = sorted(BUILT_IN)
START = "2027-01-01T00:00:00Z"
PASSWORDS = {"alice": "pw-alice", "bob": "pw-bob", "carol": "pw-carol"}
# A plain board: no snakes or ladders, so a piece's square and a build's reach depend on
# the throws alone
PLAIN = {"name": "Plain Hundred", "squares": 100}


class Game:
    def __init__(self, folder: Path, monkeypatch: Any):
        self.folder = folder
        self.monkeypatch = monkeypatch
        self.runner = CliRunner()
        self.count = 0

    def gm(self, *args: str, now: str, code: int = 0) -> str:
        self.monkeypatch.setenv("GM_NOW", now)
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    def state(self, now: str = START) -> dict[str, Any]:
        return json.loads(self.gm("state", "--json", now=now))

    def order(self, player: str, lines: str, *, now: str, password: str | None = None,
              address: str | None = None) -> str:
        """`player` mails `lines` at `now` (the mail's Date, which is its time of receipt
        for a file named on the command line) and gm ingests it."""
        self.count += 1
        message = EmailMessage()
        message["From"] = address or f"{player}@example.org"
        message["To"] = "gm@example.org"
        message["Subject"] = "orders"
        message["Date"] = format_datetime(parse_time(now))
        message["Message-ID"] = f"<{self.count}.{player}@example.org>"
        message.set_content(f"PLAYER {player}\nPASSWORD {password or PASSWORDS[player]}\n{lines}\n")
        path = self.folder.parent / f"order-{self.count}.eml"
        path.write_bytes(bytes(message))
        return self.gm("ingest", str(path), now=now)

    def outbox(self, *, kind: str | None = None, to: str | None = None) -> list[EmailMessage]:
        return outbox_of(self.folder, kind=kind, to=to)

    def edit(self, change) -> None:
        path = self.folder / "campaign.yaml"
        data = yaml.safe_load(path.read_text())
        change(data)
        path.write_text(yaml.safe_dump(data))


def new_game(tmp_path: Path, monkeypatch: Any, ruleset: str, *, observers: list[dict[str, str]] | None = None,
             options: dict[str, Any] | None = None, board: dict[str, Any] | None = None) -> Game:
    """The campaign, started at START (not yet resolved)."""
    folder = tmp_path / ruleset
    folder.mkdir()
    config: dict[str, Any] = {
        "id": f"h-{ruleset}",
        "title": f"Handover {ruleset.title()}",
        "ruleset": ruleset,
        "seed": 2**130 + 11,
        "turn_days": 7,
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in PASSWORDS.items()],
        "archive_url": "https://example.org/handover/",
        "mail": {"from": "GM <gm@example.org>"},
    }
    if ruleset != "unleashed":  # unleashed deals its default board from the seed
        (tmp_path / "board.yaml").write_text(yaml.safe_dump(board or PLAIN))
        config["boards"] = {"A": "../board.yaml"}
    if options:
        config["options"] = options
    if observers:
        config["observers"] = observers
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    game = Game(folder, monkeypatch)
    game.gm("start", now=START)
    return game


def outbox_of(folder: Path, *, kind: str | None = None, to: str | None = None) -> list[EmailMessage]:
    """Every queued or sent mail of the campaign in `folder`, parsed, oldest first, each
    with its outbox `kind` and `recipient`."""
    from gm.campaign.folder import Campaign

    opened = Campaign.open(folder)
    try:
        rows = opened.store.rows("select * from outbox order by id")
    finally:
        opened.close()
    mails = []
    for row in rows:
        if (kind and row["kind"] != kind) or (to and row["recipient"] != to):
            continue
        message = email.message_from_bytes(row["raw"], policy=email.policy.default)
        message.kind, message.recipient = row["kind"], row["recipient"]
        mails.append(message)
    return mails


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message: EmailMessage) -> str:
    return message.get_body(("html",)).get_content().replace("\r\n", "\n")


def attachment_names(message: EmailMessage) -> list[str]:
    return [part.get_filename() for part in message.iter_attachments()]


def calendar_of(message: EmailMessage) -> str | None:
    """The attached calendar file's text, or None."""
    for part in message.iter_attachments():
        if part.get_content_type() == "text/calendar":
            content = part.get_content()
            return content.decode() if isinstance(content, bytes) else content
    return None


def flat(text: str) -> str:
    """The text with every run of white space one space: wrapping is the template's business."""
    return " ".join(text.split())
