"""A whole campaign played on the real mail servers of tests/servers.py (a private Dovecot
and aiosmtpd), for the tests that run a ruleset by mail from start to end.

The `server_games` fixture makes started campaigns; a test gives only what is its own
(the ruleset, options, seed, board, players):

    game = server_games("pig", LANE, {"id": ..., "ruleset": "pig", ...}, players=PLAYERS)
    game.send_order("ann", "TURN 1", "ROLL 5", at=game.deadline() - timedelta(days=1))
    game.gm("turn", now=game.deadline() + timedelta(hours=1))
    game.to("ann", "Turn 1 report")     # what the SMTP server delivered to ann
    game.assert_nothing_lost_or_doubled()

Every `gm` runs with the clock set through GM_NOW, never the wall clock.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import json
import mailbox
import re
import smtplib
import sqlite3
import ssl
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli

START = datetime(2027, 1, 1, tzinfo=UTC)
FIRST_DEADLINE = datetime(2027, 1, 8, 18, tzinfo=UTC)
GM_ADDRESS = "gm@example.org"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class ServerGame:
    """A campaign in a folder whose mail goes through the test Dovecot and aiosmtpd."""

    def __init__(self, folder: Path, imap_account, smtp_server, monkeypatch,
                 players: Mapping[str, str], names: Mapping[str, str]):
        self.folder, self.imap, self.smtp = folder, imap_account, smtp_server
        self.monkeypatch = monkeypatch
        self.players, self.names = dict(players), dict(names)  # id -> password, id -> name
        self.runner = CliRunner()
        self.orders: list[str] = []  # Message-IDs of the players' order mails, in order
        self.delivered = 0  # how many of the SMTP server's mails were looked at for the GM's inbox

    def gm(self, *args: str, now: datetime, ok: bool = True):
        """`gm -C folder args` at `now`: its output, asserting exit 0; with ok=False the
        whole result, for a test that looks at the exit code itself."""
        self.monkeypatch.setenv("GM_NOW", iso(now))
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result.output if ok else result

    def order_mail(self, player: str, lines: tuple[str, ...], at: datetime) -> EmailMessage:
        """The player's order mail, numbered in the order the test writes them."""
        message = EmailMessage()
        message["From"] = f"{self.names[player]} <{player}@example.org>"
        message["To"] = GM_ADDRESS
        message["Subject"] = "orders"
        message["Date"] = email.utils.format_datetime(at)
        message["Message-ID"] = f"<{len(self.orders) + 1}.{player}@example.org>"
        body = (f"PLAYER {player}", f"PASSWORD {self.players[player]}", *lines)
        message.set_content("".join(f"{line}\n" for line in body))
        self.orders.append(message["Message-ID"])
        return message

    def append_order(self, player: str, *lines: str, at: datetime) -> None:
        """A player's order mail, delivered straight into the GM's IMAP inbox at `at` (its
        INTERNALDATE)."""
        self.imap.append([bytes(self.order_mail(player, lines, at))], msg_time=at)

    def send_order(self, player: str, *lines: str, at: datetime) -> None:
        """The player's mail client submits an order mail to the SMTP server (STARTTLS,
        AUTH); the server's mail for the GM is then delivered to Dovecot, dated `at`."""
        message = self.order_mail(player, lines, at)
        settings = self.smtp.settings()
        with smtplib.SMTP(settings.host, settings.port, timeout=10) as client:
            client.starttls(context=ssl.create_default_context(cafile=settings.cafile))
            client.login(self.smtp.user, self.smtp.password)
            client.send_message(message, from_addr=f"{player}@example.org", to_addrs=[GM_ADDRESS])
        self.deliver(at)

    def deliver(self, at: datetime) -> None:
        """What the SMTP server took from players for the GM, APPENDed to the GM's INBOX
        (aiosmtpd keeps mail, it does not deliver it)."""
        new = self.smtp.received[self.delivered:]
        self.delivered = len(self.smtp.received)
        raws = [item.data for item in new if item.sender != GM_ADDRESS and GM_ADDRESS in item.recipients]
        assert raws, "the SMTP server took no order mail"
        self.imap.append(raws, msg_time=at)

    def deadline(self) -> datetime:
        """The current turn's deadline: FIRST_DEADLINE, then `turn_days` after each resolution."""
        with sqlite3.connect(self.folder / "gm.sqlite") as db:
            (text,) = db.execute("select deadline from campaign").fetchone()
        return datetime.fromisoformat(text)

    def state(self) -> dict:
        return json.loads(self.gm("state", "--json", now=START))

    def sent_by_gm(self):
        """What the SMTP server took from gm (not the players' own order mails)."""
        return [item for item in self.smtp.received if item.sender == GM_ADDRESS]

    def received(self) -> list[tuple[str, str, str, str]]:
        """(recipient, Message-ID, subject, plain text folded) of every mail gm sent."""
        mails = []
        for item in self.sent_by_gm():
            message = email.message_from_bytes(item.data, policy=email.policy.default)
            plain = message.get_body(("plain",))
            text = " ".join(plain.get_content().split()) if plain else ""
            mails.append((item.recipients[0], str(message["Message-ID"]), str(message["Subject"]), text))
        return mails

    def to(self, player: str, subject_part: str) -> list[str]:
        """The plain texts (whitespace folded) the SMTP server delivered to `player` (or an
        address) whose subject holds `subject_part` as words ("turn 1" is not "turn 10")."""
        address = f"{player}@example.org" if player in self.players else player
        words = re.compile(rf"(?<!\w){re.escape(subject_part)}(?!\w)")
        return [text for to, _, subject, text in self.received() if to == address and words.search(subject)]

    def assert_nothing_lost_or_doubled(self) -> None:
        """Every order mail was ingested once and moved out of INBOX; every queued mail was
        sent, and the SMTP server took each from gm exactly once."""
        db = sqlite3.connect(self.folder / "gm.sqlite")
        ingested = Counter(m for (m,) in db.execute("select message_id from messages"))
        assert ingested == Counter(self.orders)
        assert self.imap.count("INBOX") == 0
        assert self.imap.count("gm-processed") == len(self.orders)
        queued = db.execute("select message_id, status, recipient from outbox").fetchall()
        db.close()
        assert {status for _, status, _ in queued} == {"sent"}, queued
        received = Counter((mid, to) for to, mid, _, _ in self.received())
        assert received == Counter((mid, to) for mid, _, to in queued)
        assert set(received.values()) == {1}

    def players_mail(self, folder: Path) -> Path:
        """Every mail gm sent to the players, as one Maildir (what they would hand to gm audit)."""
        box = mailbox.Maildir(folder, create=True)
        for item in self.sent_by_gm():
            if item.recipients[0] != GM_ADDRESS:
                box.add(item.data)
        return folder


@pytest.fixture
def server_games(tmp_path, monkeypatch, imap_account, smtp_server):
    """make(name, board, own, players, teams=None): a started campaign in tmp_path/name on
    the `imap+smtp` transport (the mail settings of test_mail_e2e.py's `mailgame`).

    `own` holds the campaign's own settings (id, title, ruleset, seed, options); the kit
    adds the deadlines, the board (as board.yaml), the players (id -> password, named by
    their title case, in `teams` where given) and the mail settings."""
    monkeypatch.setenv("GM_IMAP_PASSWORD", imap_account.password)
    monkeypatch.setenv("GM_SMTP_PASSWORD", smtp_server.password)
    # retries within a run wait on the backoff: none of that in tests
    monkeypatch.setattr("gm.campaign.delivery.smtp_backoff", lambda attempt: 0.0)

    def make(name: str, board: str, own: dict, players: Mapping[str, str],
             teams: Mapping[str, str] | None = None) -> ServerGame:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "board.yaml").write_text(board)
        names = {player: player.title() for player in players}
        entries = []
        for player, password in players.items():
            entry = {"id": player, "name": names[player], "email": f"{player}@example.org", "password": password}
            if teams and player in teams:
                entry["team"] = teams[player]
            entries.append(entry)
        imap, smtp = imap_account.settings(), smtp_server.settings()
        config = {
            **own,
            "first_deadline": iso(FIRST_DEADLINE),
            "turn_days": 7,
            "boards": {"A": "board.yaml"},
            "players": entries,
            "mail": {
                "transport": "imap+smtp",
                "from": f"Snakes GM <{GM_ADDRESS}>",
                "imap": {"host": imap.host, "port": imap.port, "user": imap.user, "ssl": False,
                         "starttls": True, "cafile": imap.cafile, "timeout": 10},
                "smtp": {"host": smtp.host, "port": smtp.port, "user": smtp.user, "ssl": False,
                         "starttls": True, "cafile": smtp.cafile, "timeout": 10, "connections": 2},
            },
        }
        (folder / "campaign.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        game = ServerGame(folder, imap_account, smtp_server, monkeypatch, players, names)
        game.gm("start", now=START)
        return game

    return make
