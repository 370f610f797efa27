"""Issue 26: a whole pig race campaign (examples/pig-race, a ruleset from its own package)
by mail on the real servers of tests/servers.py, as tests/test_rulesets_real_servers.py
plays the built-ins. Each player submits ROLL/HOLD orders to the aiosmtpd server over SMTP
(STARTTLS and AUTH, as a mail client does); what it accepted for the GM's address is
delivered into the GM's Dovecot INBOX (an IMAP APPEND dated when it was sent: aiosmtpd
keeps mail, it does not deliver it). Every week's `gm turn` (clock through GM_NOW)
ingests over IMAP, resolves at the deadline, sends over SMTP and publishes, to the race's
end. Then `gm reveal`, and `gm audit` on the archive with every mail the players got."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import re
import smtplib
import sqlite3
import ssl
from collections import Counter
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_example_plugin import pig_installed  # noqa: F401 - the fixture: gm-pig-race installed

from gm.cli import cli

pytestmark = pytest.mark.servers

START = datetime(2027, 1, 1, tzinfo=UTC)
FIRST_DEADLINE = datetime(2027, 1, 8, 18, tzinfo=UTC)
PLAYERS = {"ann": "pw-ann-1", "ben": "pw-ben-2", "cat": "pw-cat-3"}
NAMES = {p: p.title() for p in PLAYERS}
GM_ADDRESS = "gm@example.org"
LANE = "name: The Short Sty\nsquares: 24\nladders: [[3, 12], [9, 16]]\nsnakes: [[14, 5], [22, 10]]\n"
# ann pushes her luck (five dice bust more often than not), ben plays safe-ish, cat holds
ORDERS = {"ann": "ROLL 5", "ben": "ROLL 2", "cat": "HOLD"}
MAX_TURNS = 12


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class PigServerGame:
    """A pig race campaign whose mail goes through the test Dovecot and aiosmtpd, players'
    orders included."""

    def __init__(self, folder: Path, imap_account, smtp_server, monkeypatch):
        self.folder, self.imap, self.smtp = folder, imap_account, smtp_server
        self.monkeypatch = monkeypatch
        self.runner = CliRunner()
        self.submitted: list[str] = []  # Message-IDs of the players' order mails, in order
        self.delivered = 0  # how many of the SMTP server's mails were looked at for the GM's inbox

    def gm(self, *args: str, now: datetime, ok: bool = True):
        self.monkeypatch.setenv("GM_NOW", iso(now))
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result.output if ok else result

    def send_order(self, player: str, *lines: str, at: datetime) -> None:
        """The player's mail client submits an order mail to the SMTP server (STARTTLS,
        AUTH); the server's mail for the GM is then delivered to Dovecot, dated `at`."""
        message = EmailMessage()
        message["From"] = f"{NAMES[player]} <{player}@example.org>"
        message["To"] = GM_ADDRESS
        message["Subject"] = "my go"
        message["Date"] = email.utils.format_datetime(at)
        message["Message-ID"] = f"<{len(self.submitted) + 1}.{player}@example.org>"
        message.set_content("".join(f"{line}\n" for line in (f"PLAYER {player}", f"PASSWORD {PLAYERS[player]}",
                                                             *lines)))
        self.submitted.append(message["Message-ID"])
        settings = self.smtp.settings()
        with smtplib.SMTP(settings.host, settings.port, timeout=10) as client:
            client.starttls(context=ssl.create_default_context(cafile=settings.cafile))
            client.login(self.smtp.user, self.smtp.password)
            client.send_message(message, from_addr=f"{player}@example.org", to_addrs=[GM_ADDRESS])
        self.deliver(at)

    def deliver(self, at: datetime) -> None:
        """What the SMTP server took from players for the GM, APPENDed to the GM's INBOX."""
        new = self.smtp.received[self.delivered:]
        self.delivered = len(self.smtp.received)
        raws = [item.data for item in new if item.sender != GM_ADDRESS and GM_ADDRESS in item.recipients]
        assert raws, "the SMTP server took no order mail"
        self.imap.append(raws, msg_time=at)

    def deadline(self) -> datetime:
        with sqlite3.connect(self.folder / "gm.sqlite") as db:
            (text,) = db.execute("select deadline from campaign").fetchone()
        return datetime.fromisoformat(text)

    def state(self) -> dict:
        return json.loads(self.gm("state", "--json", now=START))

    def sent_by_gm(self):
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
        address = f"{player}@example.org" if player in PLAYERS else player
        words = re.compile(rf"(?<!\w){re.escape(subject_part)}(?!\w)")
        return [text for to, _, subject, text in self.received() if to == address and words.search(subject)]

    def assert_nothing_lost_or_doubled(self) -> None:
        """Every order mail was ingested once and moved out of INBOX; every queued mail was
        sent, and the SMTP server took each from gm exactly once."""
        db = sqlite3.connect(self.folder / "gm.sqlite")
        ingested = Counter(m for (m,) in db.execute("select message_id from messages"))
        assert ingested == Counter(self.submitted)
        assert self.imap.count("INBOX") == 0
        assert self.imap.count("gm-processed") == len(self.submitted)
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
def pig_server_game(tmp_path, monkeypatch, imap_account, smtp_server, pig_installed):  # noqa: F811
    """A started pig race of ann, ben and cat on the `imap+smtp` transport (the mail
    settings of test_rulesets_real_servers.py's `server_game`)."""
    monkeypatch.setenv("GM_IMAP_PASSWORD", imap_account.password)
    monkeypatch.setenv("GM_SMTP_PASSWORD", smtp_server.password)
    monkeypatch.setattr("gm.mail.delivery.smtp_backoff", lambda attempt: 0.0)  # no waits on retries
    folder = tmp_path / "sty"
    folder.mkdir()
    (folder / "board.yaml").write_text(LANE)
    imap, smtp = imap_account.settings(), smtp_server.settings()
    config = {
        "id": "pig-servers",
        "title": "The pig race on real servers",
        "ruleset": "pig",
        "seed": 2**128 + 26,
        "first_deadline": iso(FIRST_DEADLINE),
        "turn_days": 7,
        "boards": {"A": "board.yaml"},
        "players": [{"id": p, "name": NAMES[p], "email": f"{p}@example.org", "password": pw}
                    for p, pw in PLAYERS.items()],
        "options": {"max_turns": MAX_TURNS},
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
    game = PigServerGame(folder, imap_account, smtp_server, monkeypatch)
    game.gm("start", now=START)
    return game


def test_a_whole_pig_race_by_mail_on_real_servers(pig_server_game, tmp_path):
    game = pig_server_game
    state = game.state()
    assert state["ruleset"] == "pig" and state["turn"] == 1 and not state["over"]

    turn, ordered = 1, Counter()
    while not state["over"]:
        assert turn <= MAX_TURNS, "the campaign did not end"
        deadline = game.deadline()
        at = deadline - timedelta(days=1)
        racing = [p for p in PLAYERS if not state["boards"]["A"]["players"][p]["finished"]]
        for player in racing:
            if player == "cat" and turn == 1:
                continue  # cat's only message of turn 1 names both: refused, she holds silently
            game.send_order(player, f"TURN {turn}", ORDERS[player], at=at)
            ordered[player] += 1
        if turn == 1:
            game.send_order("cat", "ROLL 3", "HOLD", at=at + timedelta(minutes=5))
            game.send_order("ann", "HELP", at=at + timedelta(minutes=10))
        out = game.gm("turn", now=deadline + timedelta(hours=1))
        assert f"turn {turn} resolved" in out, out
        state = game.state()
        turn += 1
    last = turn - 1
    assert last >= 3

    # the plugin's words reach the players: its commands, its refusal of ROLL with HOLD
    assert any("ROLL <1-5> or HOLD" in t for t in game.to("ann", "How to write orders"))
    refusal = game.to("cat", "not accepted")
    assert len(refusal) == 1 and "a turn's order is ROLL or HOLD, not both" in refusal[0]
    acks = game.to("ann", "accepted")
    assert len(acks) == ordered["ann"] and all("Your order for turn" in t and "ROLL 5" in t for t in acks)
    # reports: one a turn to each player (the last as final results) and to the GM, each
    # telling the goes in the plugin's words; ann's five dice went bust at least once
    reports = {}
    for week in range(1, last + 1):
        subject = f"Final results after turn {week}" if week == last else f"Turn {week} report"
        assert len(game.to(GM_ADDRESS, f"GM report, turn {week}")) == 1, week
        for player in PLAYERS:
            (reports[player, week],) = game.to(player, subject)
            assert "THE GOES, in order of play" in reports[player, week]
    assert "- Cat had no order, so held: Start -> " in reports["ann", 1]
    busts = [week for week in range(1, last + 1)
             if re.search(r"- Ann rolled [2-6, ]*1( of 5 dice)?: a 1, BUST: stays on ", reports["ben", week])]
    assert busts, [reports["ben", week] for week in range(1, last + 1)]
    for player in PLAYERS:
        final = reports[player, last]
        assert "FINAL STANDINGS" in final and not any(w in final for w in ("TRAPDOOR", "NUMBER <", "BUILD"))
    game.assert_nothing_lost_or_doubled()

    # the end, as `gm state --json` gives it
    pieces = state["boards"]["A"]["players"]
    assert state["over"] and state["turn"] == last + 1
    assert all(v["placing"] is not None for v in pieces.values())
    assert {p: v["place"] for p, v in state["players"].items()} == {p: v["placing"] for p, v in pieces.items()}

    # gm turn published the archive each week, the plugin's rules page with it
    archive = game.folder / "archive"
    rules_page = (archive / "rules.html").read_text()
    assert "Pig race" in rules_page and "push-your-luck" in rules_page
    assert (archive / f"turn-{last:03d}.html").is_file()
    assert '<h2 id="goes">The goes</h2>' in (archive / "turn-001.html").read_text()

    # once over: a rerun sends nothing; the reveal; the audit replays it against the mail
    before = len(game.smtp.received)
    out = game.gm("turn", now=datetime(2027, 12, 1, tzinfo=UTC))
    assert "the campaign is over" in out and "send: 0 delivered" in out
    assert len(game.smtp.received) == before
    game.gm("reveal", now=datetime(2027, 12, 2, tzinfo=UTC))
    mail = game.players_mail(tmp_path / "players-mail")
    audit = game.gm("audit", str(archive), "--mail", str(mail), now=datetime(2027, 12, 3, tzinfo=UTC), ok=False)
    assert audit.exit_code == 0, audit.output
    assert audit.output.startswith("ok: pig-servers (pig) replays exactly"), audit.output
    # the mail the players got was checked, not just the archive
    assert "with the mail given: the history mailed: the record hashes of" in audit.output
    assert "with the mail given: the orders played" in audit.output
