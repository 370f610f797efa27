"""`gm mail login` against a local OAuth 2.0 server (RFC 8628's device authorization
grant), and the access tokens gm renews from what it stored. The server runs on 127.0.0.1;
time passes only through GM_NOW (the polls' waits are the test's, never the wall clock's)."""

from __future__ import annotations

import os
import stat
from datetime import timedelta

import pytest
import yaml
from click.testing import CliRunner

import gm.mail.oauth
from gm import clock
from gm.cli import cli
from gm.mail.oauth import OAuthLogin
from gm.mail.settings import MailError
from gm.mail.tokenfile import TOKEN_FILE, TokenFile

START = "2027-01-01T09:00:00Z"


@pytest.fixture
def login(tmp_path, monkeypatch, reset_token_server):
    """A campaign folder set for OAuth with the token server, and `gm mail login` to run
    in it; `login.slept` lists each wait between polls, which moves GM_NOW on."""
    tokens = reset_token_server
    folder = tmp_path / "game"
    folder.mkdir()
    boards = tmp_path / "a.yaml"
    boards.write_text(yaml.safe_dump({"squares": 30, "ladders": [[3, 12]]}))
    config = {
        "id": "oauthgame", "seed": 5, "boards": {"A": str(boards)},
        "players": [{"id": "ann", "name": "Ann", "email": "ann@example.org"},
                    {"id": "ben", "name": "Ben", "email": "ben@example.org"}],
        "mail": {"transport": "imap+smtp", "from": "GM <gm@example.org>",
                 "imap": {"host": "127.0.0.1", "user": "user1"},
                 "smtp": {"host": "127.0.0.1", "user": "gm@example.org"},
                 "auth": "oauth2", "oauth2": tokens.yaml()},
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("GM_NOW", START)
    moment = [clock.parse_time(START)]
    slept: list[float] = []
    hooks = {}

    def wait(seconds: float) -> None:
        slept.append(seconds)
        moment[0] += timedelta(seconds=seconds)
        monkeypatch.setenv("GM_NOW", clock.iso(moment[0]))
        if len(slept) in hooks:
            hooks[len(slept)]()

    monkeypatch.setattr(gm.mail.oauth, "poll_sleep", wait)

    def run(*args: str, code: int = 0) -> str:
        result = CliRunner().invoke(cli, ["-C", str(folder), "mail", "login", *args])
        assert result.exit_code == code, result.output
        return result.output

    run.folder, run.tokens, run.slept, run.before_poll = folder, tokens, slept, hooks
    return run


def test_login_shows_where_to_go_and_the_code_polls_at_the_interval_and_keeps_the_token_0600(login):
    login.before_poll[3] = lambda: login.tokens.approve("user1")
    out = login()
    grant = login.tokens.pending()
    assert f"open {login.tokens.verification_uri}" in out
    assert f"enter the code {grant.user_code}" in out
    assert login.slept == [5, 5, 5]  # two authorization_pending, then the token
    assert grant.too_fast == 0
    path = login.folder / TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = TokenFile(login.folder).load()
    assert stored["refresh_token"] in login.tokens.refresh
    assert stored["expires_at"] == "2027-01-01T10:00:15Z"  # an hour from the token, by GM_NOW
    for token in login.tokens.issued_tokens():
        assert token not in out
    assert "mail check" in out


def test_8628_3_5_slow_down_adds_five_seconds_to_every_later_poll(login):
    login.tokens.slow_down(2)
    login.before_poll[4] = lambda: login.tokens.approve("user1")
    login()
    assert login.slept == [5, 10, 15, 15]
    assert login.tokens.pending().too_fast == 0


def test_8628_3_5_an_expired_code_ends_the_login_and_stores_nothing(login, monkeypatch):
    monkeypatch.setattr(login.tokens, "device_lifetime", 20)
    out = login(code=1)
    assert "the code expired before it was approved: run gm -C" in out
    assert "mail login again" in out
    assert not (login.folder / TOKEN_FILE).exists()
    assert len(out.strip().splitlines()[-1]) < 200 and "Traceback" not in out


def test_8628_3_5_access_denied_stores_nothing(login):
    login.before_poll[2] = lambda: login.tokens.deny()
    out = login(code=1)
    assert "Error: the login was declined at the provider: nothing was stored" in out
    assert not (login.folder / TOKEN_FILE).exists()


def test_an_unknown_client_is_refused_before_any_code_is_shown(login):
    text = (login.folder / "campaign.yaml").read_text().replace("gm-test-client", "someone-else")
    (login.folder / "campaign.yaml").write_text(text)
    out = login(code=1)
    assert "refused the login: invalid_client" in out and "check mail.oauth2.client_id" in out
    assert "enter the code" not in out


def test_login_is_refused_in_one_line_without_auth_oauth2(login):
    config = yaml.safe_load((login.folder / "campaign.yaml").read_text())
    del config["mail"]["auth"], config["mail"]["oauth2"]
    (login.folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    out = login(code=1)
    assert out.startswith("Error: campaign.yaml's mail has no 'auth: oauth2'")
    assert len(out.strip().splitlines()) == 1


def test_a_client_secret_comes_from_the_environment_alone(login, monkeypatch):
    monkeypatch.setattr(login.tokens, "client_secret", "s3cret-of-the-client")
    assert "invalid_client" in login(code=1)
    monkeypatch.setenv("GM_OAUTH_CLIENT_SECRET", "s3cret-of-the-client")
    login.before_poll[1] = lambda: login.tokens.approve("user1")
    login()
    assert "s3cret-of-the-client" not in (login.folder / TOKEN_FILE).read_text()


# --- access tokens from the stored refresh token ----------------------------------------


def logged_in(login) -> OAuthLogin:
    login.before_poll[1] = lambda: login.tokens.approve("user1")
    login()
    return OAuthLogin(login.folder, login.tokens.settings())


def test_the_stored_access_token_is_used_until_a_minute_before_it_expires(login, monkeypatch):
    source = logged_in(login)
    first = source.access_token()
    assert login.tokens.counted("/token", "refresh_token") == 0
    monkeypatch.setenv("GM_NOW", "2027-01-01T09:58:00Z")  # 2 minutes left: still good
    assert OAuthLogin(login.folder, login.tokens.settings()).access_token() == first
    monkeypatch.setenv("GM_NOW", "2027-01-01T09:59:30Z")  # 45 s left: renewed first
    renewed = OAuthLogin(login.folder, login.tokens.settings()).access_token()
    assert renewed != first and login.tokens.valid(renewed)
    assert login.tokens.counted("/token", "refresh_token") == 1
    assert TokenFile(login.folder).load()["access_token"] == renewed


def test_a_refused_token_is_renewed_once_however_many_connections_were_refused_it(login):
    source = logged_in(login)
    first = source.access_token()
    login.tokens.expire_access_tokens()
    renewed = source.access_token(refused=first)
    assert source.access_token(refused=first) == renewed  # a second connection's refusal
    assert login.tokens.counted("/token", "refresh_token") == 1


def test_a_rotated_refresh_token_is_kept(login, monkeypatch):
    monkeypatch.setattr(login.tokens, "rotate_refresh", True)
    source = logged_in(login)
    old = TokenFile(login.folder).load()["refresh_token"]
    source.access_token(refused=source.access_token())
    new = TokenFile(login.folder).load()["refresh_token"]
    assert new != old and not login.tokens.refresh[new].revoked
    assert stat.S_IMODE(os.stat(login.folder / TOKEN_FILE).st_mode) == 0o600


def test_a_refused_refresh_says_in_one_line_to_run_gm_mail_login(login):
    source = logged_in(login)
    login.tokens.revoke()
    with pytest.raises(MailError) as error:
        source.access_token(refused=source.access_token())
    text = str(error.value)
    assert "refused to renew the mail login (invalid_grant" in text
    assert text.endswith(f"run gm -C {login.folder} mail login") and "\n" not in text
    assert error.value.cause == "token"
    for token in login.tokens.issued_tokens():
        assert token not in text


def test_no_token_yet_says_to_run_gm_mail_login(login):
    with pytest.raises(MailError, match="no mail login yet for OAuth 2.0: run gm -C .* mail login"):
        OAuthLogin(login.folder, login.tokens.settings()).access_token()


def test_a_token_made_for_another_client_is_not_sent_to_this_one(login):
    logged_in(login)
    other = login.tokens.settings(client_id="another-client")
    with pytest.raises(MailError, match="made for another mail.oauth2.client_id"):
        OAuthLogin(login.folder, other).access_token()


def test_an_unreachable_token_endpoint_is_a_try_later_not_a_new_login(login):
    source = logged_in(login)
    first = source.access_token()
    source.settings = login.tokens.settings(token_url="http://127.0.0.1:9/token")  # nobody there
    with pytest.raises(MailError) as error:
        source.access_token(refused=first)
    assert error.value.cause == "unreachable" and "cannot reach http://127.0.0.1:9/token" in str(error.value)
