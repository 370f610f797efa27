"""`gm mail check` against the real test servers: it logs in to IMAP and SMTP as `gm turn`
would (password or OAuth 2.0), looks at the folders, sends nothing, and says per server
what works and what to do about what does not; exit 0 when all is well, 1 otherwise."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner
from servers import free_port

from gm.cli import cli

pytestmark = pytest.mark.servers


def write_campaign(folder, imap: dict, smtp: dict, **mail) -> None:
    folder.mkdir(exist_ok=True)
    board = folder / "a.yaml"
    board.write_text(yaml.safe_dump({"squares": 30, "ladders": [[3, 12]]}))
    config = {"id": "checked", "seed": 3, "boards": {"A": "a.yaml"},
              "players": [{"id": "ann", "name": "Ann", "email": "ann@example.org"},
                          {"id": "ben", "name": "Ben", "email": "ben@example.org"}],
              "mail": {"transport": "imap+smtp", "from": "GM <gm@example.org>",
                       "imap": imap, "smtp": smtp, **mail}}
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))


def yaml_of(settings) -> dict:
    keys = ("host", "port", "user", "ssl", "starttls", "cafile")
    return {key: getattr(settings, key) for key in keys} | {"timeout": 5}


def check(folder, code: int) -> str:
    result = CliRunner().invoke(cli, ["-C", str(folder), "mail", "check"])
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def passwords(tmp_path, monkeypatch, imap_account, smtp_server):
    """A campaign on the password servers; `passwords.write(imap=..., smtp=...)` changes
    any of its settings."""
    monkeypatch.setenv("GM_IMAP_PASSWORD", imap_account.password)
    monkeypatch.setenv("GM_SMTP_PASSWORD", smtp_server.password)
    folder = tmp_path / "game"

    def write(imap: dict | None = None, smtp: dict | None = None):
        write_campaign(folder, yaml_of(imap_account.settings()) | (imap or {}),
                       yaml_of(smtp_server.settings()) | (smtp or {}))
        return folder

    write.folder, write.imap, write.smtp, write.write = folder, imap_account, smtp_server, write
    write()
    return write


def test_all_good_with_passwords_says_so_and_sends_nothing(passwords):
    passwords.imap.append([b"Subject: waiting\r\n\r\nhello\r\n"])
    out = check(passwords.folder, 0)
    assert f"IMAP: 127.0.0.1:{passwords.imap.server.port}, STARTTLS, as {passwords.imap.user}, by password" in out
    assert "  ok: logged in" in out
    assert "  ok: folder INBOX exists (1 message waiting)" in out
    assert "  ok: folder gm-processed does not exist yet: gm creates it at the first ingest" in out
    assert "  ok: logged in (nothing was sent)" in out
    assert out.rstrip().endswith("All good: gm can read and send the campaign's mail.")
    assert passwords.smtp.received == []
    assert passwords.imap.count("INBOX") == 1 and not passwords.imap.folder_exists("gm-processed")


def test_a_wrong_password_is_named_with_the_variable_to_fix(passwords, monkeypatch):
    monkeypatch.setenv("GM_IMAP_PASSWORD", "wrong")
    monkeypatch.setenv("GM_SMTP_PASSWORD", "wrong")
    out = check(passwords.folder, 1)
    assert f"  PROBLEM: IMAP 127.0.0.1:{passwords.imap.server.port}: login as {passwords.imap.user} refused" in out
    assert "check GM_IMAP_PASSWORD and mail.imap.user" in out
    assert "login as gm refused: 535" in out and "check GM_SMTP_PASSWORD and mail.smtp.user" in out
    assert "Error: 2 problems with the mail settings (above)" in out
    assert "wrong" not in out.replace("wrong password", "")


def test_a_missing_folder_is_a_problem_named_by_its_key(passwords):
    out = check(passwords.write(imap={"folder": "Orders"}), 1)
    assert "  PROBLEM: folder Orders does not exist: check mail.imap.folder" in out
    assert "Error: 1 problem with the mail settings" in out


def test_a_certificate_not_trusted_is_a_tls_problem(passwords):
    out = check(passwords.write(imap={"cafile": None}, smtp={"cafile": None}), 1)
    assert "certificate refused" in out
    assert "check mail.imap.ssl, starttls and port" in out and "cafile" in out
    assert "check mail.smtp.ssl, starttls and port" in out


def test_tls_on_a_plain_port_is_a_tls_problem(passwords):
    out = check(passwords.write(imap={"ssl": True, "starttls": False}), 1)
    assert "IMAP" in out and "check mail.imap.ssl, starttls and port (993 is TLS from the first byte" in out


def test_a_server_not_there_is_unreachable(passwords):
    closed = free_port()
    out = check(passwords.write(imap={"port": closed}, smtp={"port": closed}), 1)
    assert f"IMAP 127.0.0.1:{closed}: cannot connect" in out
    assert f"SMTP 127.0.0.1:{closed}: cannot connect" in out
    assert "check mail.imap.host and port, and that the server is up" in out
    assert "check mail.smtp.host and port, and that the server is up" in out


def test_an_unset_password_says_which_variable(passwords, monkeypatch):
    monkeypatch.delenv("GM_SMTP_PASSWORD")
    out = check(passwords.folder, 1)
    assert "GM_SMTP_PASSWORD is not set" in out


def test_maildir_has_nothing_to_check(tmp_path):
    folder = tmp_path / "game"
    write_campaign(folder, {}, {})
    config = yaml.safe_load((folder / "campaign.yaml").read_text())
    config["mail"] = {"transport": "maildir"}
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    assert "mail transport is maildir: no server to log in to" in check(folder, 0)


# --- OAuth 2.0 ------------------------------------------------------------------------


@pytest.fixture
def oauth(tmp_path, monkeypatch, oauth_account, smtp_oauth_server):
    monkeypatch.delenv("GM_IMAP_PASSWORD", raising=False)
    monkeypatch.delenv("GM_SMTP_PASSWORD", raising=False)
    monkeypatch.setenv("GM_NOW", "2027-01-01T09:00:00Z")
    folder = tmp_path / "game"
    user = oauth_account.user
    write_campaign(folder, yaml_of(oauth_account.settings()) | {"user": user},
                   yaml_of(smtp_oauth_server.settings()) | {"user": user},
                   auth="oauth2", oauth2=oauth_account.tokens.yaml())
    oauth_account.append([b"Subject: waiting\r\n\r\nhello\r\n"], folder="gm-processed")

    def login() -> None:
        import gm.mail.oauth

        monkeypatch.setattr(gm.mail.oauth, "poll_sleep",
                            lambda seconds: oauth_account.tokens.approve(user))
        result = CliRunner().invoke(cli, ["-C", str(folder), "mail", "login"])
        assert result.exit_code == 0, result.output

    login.folder, login.tokens, login.smtp = folder, oauth_account.tokens, smtp_oauth_server
    return login


def test_all_good_by_oauth_after_gm_mail_login(oauth):
    oauth()
    out = check(oauth.folder, 0)
    assert "OAuth 2.0: provider custom, client gm-test-client" in out
    assert "  ok: token file oauth2-token.json (mode 0600), refresh token stored; access token valid" in out
    assert "by OAuth 2.0" in out and out.count("  ok: logged in") == 2
    assert "  ok: folder gm-processed exists" in out
    assert oauth.smtp.received == []
    for token in oauth.tokens.issued_tokens():
        assert token not in out


def test_no_login_yet_says_to_run_gm_mail_login(oauth):
    out = check(oauth.folder, 1)
    assert f"  PROBLEM: no mail login yet for OAuth 2.0: run gm -C {oauth.folder} mail login" in out
    assert "Error: 3 problems" in out  # the token, then IMAP and SMTP that need it


def test_a_revoked_login_is_a_token_problem_that_says_to_log_in_again(oauth):
    oauth()
    oauth.tokens.revoke()
    oauth.tokens.expire_access_tokens()
    out = check(oauth.folder, 1)
    assert "refused to renew the mail login (invalid_grant" in out
    assert out.count(f"run gm -C {oauth.folder} mail login") == 2  # IMAP and SMTP
