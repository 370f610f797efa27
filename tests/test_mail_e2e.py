"""A campaign on real mail servers: orders APPENDed to a private Dovecot, `gm turn` run,
the replies and reports received by an aiosmtpd server over STARTTLS and AUTH. Faults on
either side, then a rerun: nothing lost, nothing doubled, and the GM told about a 550."""

from __future__ import annotations

import email
import email.policy
from collections import Counter
from email.message import EmailMessage

import pytest
import yaml
from click.testing import CliRunner

import gm.mail.imap
from gm.cli import cli

pytestmark = pytest.mark.servers

PLAYERS = {"ann": "ann-pass-1", "ben": "ben-pass-2", "cat": "cat-pass-3"}



@pytest.fixture
def mailgame(tmp_path, monkeypatch, imap_account, smtp_server):
    """A started campaign whose mail goes through the test Dovecot and SMTP servers."""
    boards = tmp_path / "boards"
    boards.mkdir()
    (boards / "a.yaml").write_text(yaml.safe_dump({"name": "Secret A", "squares": 30, "ladders": [[3, 12]]}))
    folder = tmp_path / "game"
    folder.mkdir()
    imap, smtp = imap_account.settings(), smtp_server.settings()
    config = {
        "id": "mailgame",
        "seed": 11,
        "first_deadline": "2027-01-03T18:00:00Z",
        "boards": {"A": "../boards/a.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in PLAYERS.items()],
        "mail": {
            "transport": "imap+smtp",
            "from": "Snakes GM <gm@example.org>",
            "imap": {"host": imap.host, "port": imap.port, "user": imap.user, "ssl": False,
                     "starttls": True, "cafile": imap.cafile, "timeout": 10},
            "smtp": {"host": smtp.host, "port": smtp.port, "user": smtp.user, "ssl": False,
                     "starttls": True, "cafile": smtp.cafile, "timeout": 10, "connections": 2},
        },
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("GM_IMAP_PASSWORD", imap_account.password)
    monkeypatch.setenv("GM_SMTP_PASSWORD", smtp_server.password)
    # retries within a run wait on the backoff: none of that in tests
    monkeypatch.setattr("gm.campaign.delivery.smtp_backoff", lambda attempt: 0.0)
    runner = CliRunner()

    def run(*args: str, now: str = "2027-01-02T12:00:00Z", code: int = 0) -> str:
        monkeypatch.setenv("GM_NOW", now)
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    run("start", now="2027-01-01T00:00:00Z")
    run.folder = folder
    run.imap = imap_account
    run.smtp = smtp_server
    return run


def order(player: str, lines: str, n: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"{player.title()} <{player}@example.org>"
    message["To"] = "gm@example.org"
    message["Subject"] = "orders"
    message["Date"] = "Sat, 02 Jan 2027 10:00:00 +0000"
    message["Message-ID"] = f"<{n}.{player}@example.org>"
    message.set_content(f"PLAYER {player}\nPASSWORD {PLAYERS[player]}\n{lines}")
    return bytes(message)


def received_by_kind(smtp_server) -> Counter:
    """What the SMTP server got, by recipient and kind of mail (from the subject)."""
    kinds = Counter()
    for item in smtp_server.received:
        message = email.message_from_bytes(item.data, policy=email.policy.default)
        subject = str(message["Subject"])
        kind = ("welcome" if "Welcome" in subject else "ack" if "accepted" in subject
                else "report" if "Turn 1 report" in subject or "final" in subject.lower() else
                "gm-report" if "GM report" in subject else subject)
        kinds[(item.recipients[0], kind)] += 1
    return kinds


def test_a_turn_on_real_servers_answers_each_order_once_and_reports_to_each_player(mailgame):
    mailgame.imap.append([order(p, f"NUMBER {n}\n", i) for i, (p, n) in enumerate(
        (("ann", 2), ("ben", 5), ("cat", 1)))])
    out = mailgame("turn", now="2027-01-03T18:00:00Z")
    assert "3 new messages (3 applied)" in out and "turn 1 resolved" in out
    kinds = received_by_kind(mailgame.smtp)
    for player in PLAYERS:
        assert kinds[(f"{player}@example.org", "welcome")] == 1
        assert kinds[(f"{player}@example.org", "ack")] == 1
        assert kinds[(f"{player}@example.org", "report")] == 1
    assert kinds[("gm@example.org", "gm-report")] == 1
    assert sum(kinds.values()) == 3 * 3 + 2  # + the GM's start summary and report
    assert mailgame.imap.count("INBOX") == 0
    assert mailgame.imap.count("gm-processed") == 3
    # a second run finds nothing new and sends nothing twice
    out = mailgame("turn", now="2027-01-03T18:05:00Z")
    assert "no new mail" in out and "0 delivered" in out
    assert sum(received_by_kind(mailgame.smtp).values()) == 11


def test_smtp_drop_and_tempfail_then_rerun_delivers_everything_exactly_once(mailgame):
    mailgame.smtp.faults.drop_after = 1
    mailgame.smtp.faults.drops_left = 2
    mailgame.smtp.faults.tempfail_once = {"ben@example.org"}
    mailgame("send")
    mailgame("send")
    data = [item.data for item in mailgame.smtp.received]
    assert len(data) == len(set(data)) == 4  # three welcomes and the GM's summary
    assert "send: 0 delivered" in mailgame("send")


def test_smtp_550_is_recorded_shown_to_the_gm_and_never_retried(mailgame):
    mailgame.smtp.faults.reject = {"cat@example.org"}
    out = mailgame("send")
    assert "1 refused for good" in out and "cat@example.org" in out
    status = mailgame("status")
    assert "FAILING address cat@example.org (cat)" in status and "550" in status
    before = len(mailgame.smtp.received)
    mailgame("send")
    assert len(mailgame.smtp.received) == before
    assert all(item.recipients != ("cat@example.org",) for item in mailgame.smtp.received)


def test_imap_server_stopped_mid_ingest_then_rerun_loses_and_doubles_nothing(mailgame, monkeypatch):
    mailgame.imap.append([order(p, "NUMBER 3\n", i) for i, p in enumerate(["ann", "ben", "cat"] * 2)])
    server = mailgame.imap.server
    real = gm.mail.imap.ImapInbox

    class Fragile(real):
        """Fetches two at a time and loses the server after the first batch."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "batch": 2})

        def fetch(self, uids):
            for number, batch in enumerate(super().fetch(uids)):
                yield batch
                if number == 0:
                    server.stop()

    monkeypatch.setattr(gm.mail.imap, "ImapInbox", Fragile)
    out = mailgame("ingest", code=1)
    assert "Error" in out
    monkeypatch.setattr(gm.mail.imap, "ImapInbox", real)
    server.start()
    out = mailgame("ingest")
    assert "4 new messages" in out
    import sqlite3

    db = sqlite3.connect(mailgame.folder / "gm.sqlite")
    assert db.execute("select count(*) from messages").fetchone()[0] == 6
    assert db.execute("select count(*) from outbox where kind in ('ack', 'refusal')").fetchone()[0] == 6
    assert mailgame.imap.count("INBOX") == 0 and mailgame.imap.count("gm-processed") == 6
