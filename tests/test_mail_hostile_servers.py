"""IMAP and SMTP servers that echo what they were sent, measured as an attacker would: the
XOAUTH2 string (base64, decoded, URL-encoded) or the password comes back in their refusal,
and `gm mail check` shows the GM the refusal without a token or password in any form."""

from __future__ import annotations

import base64
import urllib.parse

import pytest
from click.testing import CliRunner
from servers import HOST
from test_mail_check import check, write_campaign, yaml_of

import gm.mail.oauth
from gm.cli import cli
from gm.mail.smtp import send_batch
from gm.mail.smtpwire import Outgoing

pytestmark = pytest.mark.servers


def xoauth2(user: str, token: str) -> bytes:
    return f"user={user}\x01auth=Bearer {token}\x01\x01".encode()


def token_runs(user: str, token: str) -> list[str]:
    """Every 12-character run of the base64 XOAUTH2 string made of the token's bits alone:
    what an echo of that string would give away of the token."""
    coded = base64.b64encode(xoauth2(user, token)).decode()
    start_byte = len(f"user={user}\x01auth=Bearer ")
    first, last = -(-8 * start_byte // 6), (8 * (start_byte + len(token))) // 6
    return [coded[i:i + 12] for i in range(first, last - 11)]


def test_imap_and_smtp_servers_echoing_the_xoauth2_string_show_no_token_in_gm_mail_check(
        tmp_path, monkeypatch, echo_imap, smtp_oauth_server):
    tokens = smtp_oauth_server.handler.tokens
    smtp_oauth_server.handler.echo = True
    user = "gm@example.org"
    folder = tmp_path / "game"
    write_campaign(folder, {"host": HOST, "port": echo_imap.port, "user": user, "ssl": False,
                            "starttls": False, "timeout": 5},
                   yaml_of(smtp_oauth_server.settings()) | {"user": user},
                   auth="oauth2", oauth2=tokens.yaml())
    monkeypatch.setenv("GM_NOW", "2027-01-01T09:00:00Z")
    monkeypatch.setattr(gm.mail.oauth, "poll_sleep", lambda seconds: tokens.approve(user))
    assert CliRunner().invoke(cli, ["-C", str(folder), "mail", "login"]).exit_code == 0

    out = check(folder, 1)
    assert "login as gm@example.org refused: [AUTHENTICATIONFAILED] refused" in out
    assert "login as gm@example.org refused: 535 5.7.8 refused" in out
    assert "***" in out and "a fresh OAuth token was refused too" in out
    # each server was sent a token, refused it, was sent a renewed one and refused that
    assert len(echo_imap.sent) == 2 and smtp_oauth_server.handler.tokens_refused == 2
    issued = tokens.issued_tokens()
    assert len(issued) >= 3  # the refresh token, the first access token, renewed ones
    for token in issued:
        assert token not in out and urllib.parse.quote(token, safe="") not in out
        assert base64.b64encode(xoauth2(user, token)).decode() not in out
        assert urllib.parse.quote(xoauth2(user, token)) not in out
        assert [run for run in token_runs(user, token) if run in out] == []


def test_an_imap_server_echoing_the_password_shows_it_in_no_form(
        tmp_path, monkeypatch, echo_imap, smtp_server):
    password = "correct-horse/battery+staple"
    monkeypatch.setenv("GM_IMAP_PASSWORD", password)
    monkeypatch.setenv("GM_SMTP_PASSWORD", smtp_server.password)
    folder = tmp_path / "game"
    write_campaign(folder, {"host": HOST, "port": echo_imap.port, "user": "gm", "ssl": False,
                            "starttls": False, "timeout": 5}, yaml_of(smtp_server.settings()))
    out = check(folder, 1)
    assert echo_imap.sent == [password.encode()]
    assert "login as gm refused: [AUTHENTICATIONFAILED] refused *** = " in out
    assert password not in out
    plain = base64.b64encode(f"\0gm\0{password}".encode()).decode()
    assert plain not in out and plain[6:18] not in out


def test_an_smtp_server_wording_its_250_with_the_password_leaves_it_out_of_the_stored_detail(
        smtp_server):
    password = smtp_server.password
    plain = base64.b64encode(f"\0{smtp_server.settings().user}\0{password}".encode()).decode()
    smtp_server.faults.accepted_reply = f"250 2.0.0 queued for {password} ({plain})"
    outcomes = []
    message = Outgoing(key="m1", sender="gm@example.org", recipients=("ann@example.org",),
                       data=b"Subject: hi\r\n\r\nhello\r\n")
    send_batch(smtp_server.settings(), password, [message], on_outcome=outcomes.append)
    [outcome] = outcomes
    assert outcome.status == "sent" and outcome.detail.startswith("2.0.0 queued for *** (")
    assert password not in outcome.detail and plain[6:18] not in outcome.detail
