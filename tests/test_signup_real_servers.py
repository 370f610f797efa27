"""The "done when": a campaign is announced and 2,000 people join and confirm by mail
on the real servers of tests/servers.py (their mail APPENDed to a private Dovecot, gm's
replies received by aiosmtpd over STARTTLS and AUTH), every step `gm turn` as cron runs it;
a forged JOIN, a replay and an auto-reply change nothing; `gm start` welcomes exactly
those in, and tells those waiting. Nothing lost or doubled on either side."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli

pytestmark = pytest.mark.servers

PEOPLE = 2000
PLACES = 1900
START = datetime(2027, 3, 1, 9, tzinfo=UTC)
GM_ADDRESS = "gm@example.org"
CODE = re.compile(rb"^\s*CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})\r?$", re.MULTILINE)
STRANGER = "stranger@elsewhere.example"
BOARDS = Path(__file__).resolve().parent.parent / "boards"


def address(i: int) -> str:
    return f"p{i:04d}@example.org"


def letter(sender: str, body: str, number: int, **headers: str) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = GM_ADDRESS
    message["Date"] = format_datetime(START)
    message["Subject"] = "Join"
    message["Message-ID"] = f"<{number}.{sender}>"
    for key, value in headers.items():
        message[key.replace("_", "-")] = value
    message.set_content(body)
    return bytes(message)


@pytest.fixture
def announced(tmp_path, monkeypatch, imap_account, smtp_server):
    folder = tmp_path / "mass"
    folder.mkdir()
    imap, smtp = imap_account.settings(), smtp_server.settings()
    config = {
        "id": "mass", "title": "The Mass Race", "seed": 2**128 + 28,
        "boards": {"A": str(BOARDS / "milton-bradley.yaml")},
        "players": [],
        "signup": {"max_players": PLACES},
        "mail": {
            "transport": "imap+smtp", "from": f"Snakes GM <{GM_ADDRESS}>",
            "imap": {"host": imap.host, "port": imap.port, "user": imap.user, "ssl": False, "starttls": True,
                     "cafile": imap.cafile, "timeout": 30},
            "smtp": {"host": smtp.host, "port": smtp.port, "user": smtp.user, "ssl": False, "starttls": True,
                     "cafile": smtp.cafile, "timeout": 30, "connections": 2},
        },
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("GM_IMAP_PASSWORD", imap_account.password)
    monkeypatch.setenv("GM_SMTP_PASSWORD", smtp_server.password)
    monkeypatch.setattr("gm.campaign.delivery.smtp_backoff", lambda attempt: 0.0)
    runner = CliRunner()

    def gm(*args: str, now: datetime) -> str:
        monkeypatch.setenv("GM_NOW", now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    return folder, gm


def test_3_1_two_thousand_join_and_confirm_on_the_real_servers(announced, imap_account, smtp_server):
    folder, gm = announced
    joins = [letter(address(i), f"JOIN mass\nNAME Player {i}\n", i) for i in range(PEOPLE)]
    forged = letter(STRANGER, "JOIN mass\nNAME Not Me\n", 99999)
    imap_account.append([*joins, forged, joins[7]])  # joins[7] delivered twice: a replay
    out = gm("turn", now=START)
    assert f"ingest: {PEOPLE + 2} new messages (1 duplicate, {PEOPLE + 1} join)" in out, out
    assert f"send: {PEOPLE + 1} delivered" in out

    codes: dict[str, bytes] = {}
    for item in smtp_server.received:
        found = CODE.search(item.data)
        assert found, item.data[:300]
        assert item.recipients[0] not in codes  # one code mail per address
        codes[item.recipients[0]] = found.group(1)
    assert set(codes) == {address(i) for i in range(PEOPLE)} | {STRANGER}
    received = len(smtp_server.received)

    confirms = [letter(address(i), f"CONFIRM {codes[address(i)].decode()}\n", PEOPLE + i) for i in range(PEOPLE)]
    auto_reply = letter(address(3), "I am away.\n", 88888, Auto_Submitted="auto-replied")
    imap_account.append([*confirms, auto_reply])
    out = gm("turn", now=START + timedelta(hours=1))
    assert f"ingest: {PEOPLE + 1} new messages ({PEOPLE} confirmed, 1 loop)" in out, out
    assert f"send: {PEOPLE} delivered" in out

    with sqlite3.connect(folder / "gm.sqlite") as db:
        standing = Counter(status for (status,) in db.execute("select status from signups"))
        order = [player for (player,) in db.execute("select player from signups order by id")]
    assert standing == {"in": PLACES, "waiting": PEOPLE - PLACES}
    assert order == [f"player-{i}" for i in range(PEOPLE)]  # made from the names, in the order confirmed
    told = Counter((item.recipients[0], b"You are in" in item.data) for item in smtp_server.received[received:])
    assert told == Counter({(address(i), i < PLACES): 1 for i in range(PEOPLE)})
    status = gm("status", now=START + timedelta(hours=2))
    assert f"sign-ups: {PLACES} in of {PLACES} places, {PEOPLE - PLACES} waiting, 0 awaiting the GM, 1 unconfirmed" in status

    received = len(smtp_server.received)
    out = gm("start", now=START + timedelta(days=1))
    assert f"started mass: {PLACES} players ({PLACES} joined by mail)" in out
    gm("send", now=START + timedelta(days=1))
    welcomed = Counter(item.recipients[0] for item in smtp_server.received[received:]
                       if b"Your password:" in item.data)
    pool = Counter(item.recipients[0] for item in smtp_server.received[received:]
                   if b"started without you" in item.data)
    assert welcomed == Counter({address(i): 1 for i in range(PLACES)})  # exactly those in
    assert pool == Counter({address(i): 1 for i in range(PLACES, PEOPLE)})

    # nothing lost or doubled: every mail read once and moved, every queued mail sent once
    assert imap_account.count("INBOX") == 0
    assert imap_account.count("gm-processed") == 2 * PEOPLE + 3
    with sqlite3.connect(folder / "gm.sqlite") as db:
        assert db.execute("select count(*) from messages").fetchone()[0] == 2 * PEOPLE + 3
        statuses = Counter(s for (s,) in db.execute("select status from outbox"))
        queued = db.execute("select count(*) from outbox").fetchone()[0]
    assert statuses == {"sent": queued}
    assert len(smtp_server.received) == queued
