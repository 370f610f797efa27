"""A campaign on OAuth-only mail servers, as on Microsoft 365 or Gmail: a Dovecot whose
only passdb is oauth2 (each token checked at the local OAuth server's introspection
endpoint) and an SMTP server that takes AUTH XOAUTH2 alone. `gm turn` runs week after week
from cron, the access token long expired at every run (GM_NOW moves the OAuth server's
clock too), refused early once, and the grant revoked once: nothing lost, nothing doubled,
and no token anywhere but the campaign's 0600 token file."""

from __future__ import annotations

import sqlite3
import stat
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import gm.mail.oauth
from gm import clock
from gm.cli import cli
from gm.mail.tokenfile import TOKEN_FILE

pytestmark = pytest.mark.servers

PLAYERS = {"ann": "ann-pass-1", "ben": "ben-pass-2", "cat": "cat-pass-3"}
DEADLINES = ["2027-01-03T18:00:00Z", "2027-01-10T18:00:00Z", "2027-01-17T18:00:00Z",
             "2027-01-24T18:00:00Z", "2027-01-31T18:00:00Z"]


@pytest.fixture
def oauthgame(tmp_path, monkeypatch, oauth_account, smtp_oauth_server):
    """A campaign whose mail account is oauth_account's, on the OAuth Dovecot and the
    XOAUTH2 SMTP server; `oauthgame(...)` runs gm there, keeping every output."""
    tokens = oauth_account.tokens
    boards = tmp_path / "boards"
    boards.mkdir()
    (boards / "a.yaml").write_text(yaml.safe_dump({"name": "Secret A", "squares": 30,
                                                   "ladders": [[3, 12]], "snakes": [[20, 4]]}))
    folder = tmp_path / "game"
    folder.mkdir()
    imap, smtp = oauth_account.settings(), smtp_oauth_server.settings()
    user = oauth_account.user  # one account, one authorisation: IMAP and SMTP alike
    config = {
        "id": "oauthgame", "seed": 11, "first_deadline": DEADLINES[0],
        "boards": {"A": "../boards/a.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in PLAYERS.items()],
        "mail": {
            "transport": "imap+smtp", "from": "Snakes GM <gm@example.org>",
            "imap": {"host": imap.host, "port": imap.port, "user": user, "ssl": False,
                     "starttls": True, "cafile": imap.cafile, "timeout": 10},
            "smtp": {"host": smtp.host, "port": smtp.port, "user": user, "ssl": False,
                     "starttls": True, "cafile": smtp.cafile, "timeout": 10, "connections": 2},
            "auth": "oauth2",
            "oauth2": tokens.yaml(),
        },
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    # no password anywhere: a login that fell back on one would fail
    monkeypatch.delenv("GM_IMAP_PASSWORD", raising=False)
    monkeypatch.delenv("GM_SMTP_PASSWORD", raising=False)
    monkeypatch.setattr("gm.campaign.delivery.smtp_backoff", lambda attempt: 0.0)
    outputs: list[str] = []

    def run(*args: str, now: str, code: int = 0) -> str:
        monkeypatch.setenv("GM_NOW", now)
        result = CliRunner().invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        outputs.append(result.output)
        assert result.exit_code == code, result.output
        return result.output

    def login(now: str) -> str:
        """`gm mail login`, the GM approving at the provider before the second poll."""
        moment = [clock.parse_time(now)]

        def wait(seconds: float) -> None:
            moment[0] += timedelta(seconds=seconds)
            monkeypatch.setenv("GM_NOW", clock.iso(moment[0]))
            tokens.approve(user)

        monkeypatch.setattr(gm.mail.oauth, "poll_sleep", wait)
        return run("mail", "login", now=now)

    run.folder, run.imap, run.smtp, run.tokens = folder, oauth_account, smtp_oauth_server, tokens
    run.login, run.outputs = login, outputs
    return run


def order(player: str, lines: str, n: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"{player.title()} <{player}@example.org>"
    message["To"] = "gm@example.org"
    message["Subject"] = "orders"
    message["Message-ID"] = f"<{n}.{player}@example.org>"
    message.set_content(f"PLAYER {player}\nPASSWORD {PLAYERS[player]}\n{lines}")
    return bytes(message)


def count(folder: Path, sql: str) -> int:
    with sqlite3.connect(folder / "gm.sqlite") as db:
        return db.execute(sql).fetchone()[0]


def every_file(folder: Path):
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != TOKEN_FILE:
            yield path


def test_a_campaign_from_cron_on_oauth_only_servers_through_token_expiries_and_a_revocation(oauthgame):
    game = oauthgame
    out = game.login(now="2026-12-31T12:00:00Z")
    assert "Logged in." in out
    game("start", now="2027-01-01T00:00:00Z")
    mails = 0

    def week(turn: int, *, code: int = 0, now: str | None = None) -> str:
        number = turn  # each player holds 1..6 once a cycle: turn n plays n
        game.imap.append([order(p, f"NUMBER {number}\n", 10 * turn + i)
                          for i, p in enumerate(PLAYERS)])
        return game("turn", now=now or DEADLINES[turn - 1], code=code)

    # Week 1: the access token from the login has long expired; it is renewed first.
    refreshes = game.tokens.counted("/token", "refresh_token")
    out = week(1)
    assert "3 new messages (3 applied)" in out and "turn 1 resolved" in out
    assert game.tokens.counted("/token", "refresh_token") == refreshes + 1  # once, not per server

    # Week 2: expired again, renewed again, by gm's clock.
    out = week(2)
    assert "turn 2 resolved" in out
    assert game.tokens.counted("/token", "refresh_token") == refreshes + 2

    # The provider ends the access token early: the stored one still looks good for the
    # hour, the servers refuse it, gm renews it once and carries on.
    game.tokens.expire_access_tokens()
    game.imap.append([order("ann", "NUMBER 3\n", 999)])  # early for turn 3
    out = game("turn", now="2027-01-10T18:20:00Z")
    assert "1 new message (1 applied)" in out
    assert game.tokens.counted("/token", "refresh_token") == refreshes + 3

    # The grant is revoked: `gm turn` stops at the IMAP login, in one line that says what
    # to do; nothing is recorded, nothing sent, the mail waits in the folder.
    game.tokens.revoke()
    messages = count(game.folder, "select count(*) from messages")
    queued = count(game.folder, "select count(*) from outbox where status = 'queued'")
    received = len(game.smtp.received)
    out = week(3, code=1)
    error = [line for line in out.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and error[0].endswith(f"run gm -C {game.folder} mail login")
    assert "refused to renew the mail login (invalid_grant" in error[0]
    assert count(game.folder, "select count(*) from messages") == messages
    assert count(game.folder, "select count(*) from outbox where status = 'queued'") == queued
    assert len(game.smtp.received) == received
    assert game.imap.count("INBOX") == 3

    # The GM logs in again; cron's next run picks up where it stopped.
    game.login(now="2027-01-17T18:30:00Z")
    out = game("turn", now="2027-01-17T18:35:00Z")
    assert "3 new messages (3 applied)" in out and "turn 3 resolved" in out
    out = week(4)
    assert "turn 4 resolved" in out

    # Every order answered once, every report sent once.
    bodies = [item.data for item in game.smtp.received]
    assert len(bodies) == len(set(bodies))
    assert count(game.folder, "select count(*) from messages") == 3 * 4 + 1
    assert count(game.folder, "select count(*) from outbox where status = 'queued'") == 0
    assert game.imap.count("INBOX") == 0 and game.imap.count("gm-processed") == 13
    mails = len(bodies)
    assert mails > 0

    # No token anywhere but its own file: not the database, the archive, the Maildirs,
    # any output, nor any mail sent or received.
    game("publish", now="2027-01-24T19:00:00Z")
    secrets = [t.encode() for t in game.tokens.issued_tokens()]
    assert len(secrets) > 6
    for path in every_file(game.folder):
        data = path.read_bytes()
        assert not any(secret in data for secret in secrets), path
    for text in game.outputs:
        assert not any(secret.decode() in text for secret in secrets)
    for data in [*bodies, *game.imap.bodies("gm-processed")]:
        assert not any(secret in data for secret in secrets)
    token_file = game.folder / TOKEN_FILE
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert any(secret in token_file.read_bytes() for secret in secrets)


def test_a_send_that_fails_at_its_login_sends_nothing_and_marks_nothing(oauthgame):
    game = oauthgame
    game.login(now="2026-12-31T12:00:00Z")
    game("start", now="2027-01-01T00:00:00Z")
    queued = count(game.folder, "select count(*) from outbox where status = 'queued'")
    assert queued >= 4  # three welcomes and the GM's summary
    game.tokens.revoke()
    out = game("send", now="2027-01-01T00:05:00Z", code=1)
    assert "mail login" in out
    assert game.smtp.received == [] and game.smtp.handler.accepted == 0
    assert count(game.folder, "select count(*) from outbox where status = 'queued'") == queued
    game.login(now="2027-01-01T00:10:00Z")
    assert f"{queued} delivered" in game("send", now="2027-01-01T00:11:00Z")
    assert len(game.smtp.received) == queued


def test_an_ingest_that_fails_at_its_login_records_nothing(oauthgame):
    game = oauthgame
    game.login(now="2026-12-31T12:00:00Z")
    game("start", now="2027-01-01T00:00:00Z")
    game.imap.append([order("ann", "NUMBER 2\n", 1)])
    game.tokens.revoke()
    out = game("ingest", now="2027-01-02T10:00:00Z", code=1)
    assert "mail login" in out
    assert count(game.folder, "select count(*) from messages") == 0
    assert game.imap.count("INBOX") == 1
    game.login(now="2027-01-02T10:05:00Z")
    assert "1 new message (1 applied)" in game("ingest", now="2027-01-02T10:06:00Z")


def test_a_fresh_token_for_another_account_is_refused_with_advice_not_looped(oauthgame):
    game = oauthgame
    game.login(now="2026-12-31T12:00:00Z")
    game("start", now="2027-01-01T00:00:00Z")
    config = yaml.safe_load((game.folder / "campaign.yaml").read_text())
    config["mail"]["imap"]["user"] = "someone-else"
    (game.folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    out = game("ingest", now="2027-01-01T00:10:00Z", code=1)
    assert "login as someone-else refused" in out
    assert "check that mail.imap.user is the account you logged in as" in out
    assert game.tokens.counted("/token", "refresh_token") == 2  # stored expired: 1, refused: 1


def test_smtp_renews_a_token_refused_early_once_for_all_its_connections(oauthgame):
    game = oauthgame
    game.login(now="2027-01-01T00:00:00Z")
    game("start", now="2027-01-01T00:01:00Z")
    queued = count(game.folder, "select count(*) from outbox where status = 'queued'")
    game.tokens.expire_access_tokens()  # the stored token still looks good for the hour
    refreshes = game.tokens.counted("/token", "refresh_token")
    assert f"{queued} delivered" in game("send", now="2027-01-01T00:02:00Z")
    assert game.smtp.handler.tokens_refused == 1
    assert game.tokens.counted("/token", "refresh_token") == refreshes + 1
    assert len(game.smtp.received) == queued
