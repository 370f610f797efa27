"""campaign.yaml's `mail.auth` and `mail.oauth2` (CONTRACT: mail), and the token file that
`gm mail login` writes: every problem named with its line, each provider's defaults filled
in, plain http only to this machine, and a token file that is its owner's alone."""

from __future__ import annotations

import json
import os
import stat

import pytest
from test_config import GOOD, write

from gm.campaign.config.reading import load_config
from gm.errors import ConfigError
from gm.mail.settings import PROVIDERS, MailError
from gm.mail.tokenfile import TOKEN_FILE, TokenFile

IMAP_SMTP = """\
mail:
  transport: imap+smtp
  from: "Snakes GM <gm@example.org>"
  imap: {host: imap.example.org, user: gm@example.org}
  smtp: {host: smtp.example.org, user: gm@example.org}
"""


def campaign(tmp_path, mail_extra: str):
    text = GOOD[:GOOD.index("\nmail:") + 1] + IMAP_SMTP + mail_extra
    return load_config(write(tmp_path / "c", text))


def problems_of(tmp_path, mail_extra: str) -> list[str]:
    with pytest.raises(ConfigError) as error:
        campaign(tmp_path, mail_extra)
    return error.value.problems


def test_password_is_the_default_auth(tmp_path):
    mail = campaign(tmp_path, "").mail
    assert mail.auth == "password" and mail.oauth2 is None


@pytest.mark.parametrize("provider", ["google", "microsoft"])
def test_each_provider_fills_in_its_own_endpoints_and_mail_scopes(tmp_path, provider):
    mail = campaign(tmp_path, f"  auth: oauth2\n  oauth2: {{provider: {provider}, "
                              "client_id: abc-123}\n").mail
    assert mail.auth == "oauth2"
    assert mail.oauth2.client_id == "abc-123"
    for key in ("token_url", "device_url", "scope"):
        assert getattr(mail.oauth2, key) == PROVIDERS[provider][key]
    assert mail.oauth2.token_url.startswith("https://")


def test_google_and_microsoft_defaults_are_their_imap_and_smtp_scopes():
    assert PROVIDERS["google"]["scope"] == "https://mail.google.com/"
    assert set(PROVIDERS["microsoft"]["scope"].split()) == {
        "https://outlook.office.com/IMAP.AccessAsUser.All",
        "https://outlook.office.com/SMTP.Send", "offline_access"}


def test_a_provider_default_can_be_overridden(tmp_path):
    mail = campaign(tmp_path, "  auth: oauth2\n  oauth2:\n    provider: microsoft\n"
                              "    client_id: abc\n"
                              "    token_url: https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token\n").mail
    assert "contoso" in mail.oauth2.token_url
    assert mail.oauth2.device_url == PROVIDERS["microsoft"]["device_url"]


def test_unknown_oauth2_keys_and_a_missing_client_id_are_refused_with_their_lines(tmp_path):
    problems = problems_of(tmp_path, "  auth: oauth2\n  oauth2:\n    provider: microsoft\n"
                                     "    clientid: abc\n    scopes: x\n")
    assert "line 20: mail.oauth2: unknown key 'clientid' (did you mean 'client_id'?)" in problems
    assert "line 21: mail.oauth2: unknown key 'scopes' (did you mean 'scope'?)" in problems
    assert any(p.startswith("line 19: mail.oauth2: 'client_id' is required") for p in problems)


def test_an_unknown_provider_or_auth_is_refused(tmp_path):
    problems = problems_of(tmp_path, "  auth: oauth2\n  oauth2: {provider: yahoo, client_id: x}\n")
    assert any("line 18: mail.oauth2: 'provider' must be one of google, microsoft, custom, "
               "not 'yahoo'" in p for p in problems)
    problems = problems_of(tmp_path, "  auth: xoauth\n")
    assert "line 17: mail: 'auth' must be password or oauth2, not 'xoauth'" in problems


def test_auth_oauth2_needs_the_oauth2_mapping_and_oauth2_needs_auth_oauth2(tmp_path):
    assert any("auth oauth2 needs a mail.oauth2 mapping" in p
               for p in problems_of(tmp_path, "  auth: oauth2\n"))
    assert any("'oauth2' is only read with 'auth: oauth2'" in p
               for p in problems_of(tmp_path, "  oauth2: {provider: google, client_id: x}\n"))


def test_custom_needs_both_endpoints(tmp_path):
    problems = problems_of(tmp_path, "  auth: oauth2\n  oauth2: {provider: custom, client_id: x}\n")
    assert any("'token_url' is required with provider custom" in p for p in problems)
    assert any("'device_url' is required with provider custom" in p for p in problems)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/token", "http://localhost/token",
                                 "http://[::1]:9000/token", "http://127.9.9.9/t",
                                 "https://auth.example.org/token"])
def test_custom_endpoints_are_https_or_plain_http_on_loopback(tmp_path, url):
    mail = campaign(tmp_path, f"  auth: oauth2\n  oauth2: {{provider: custom, client_id: x, "
                              f"token_url: '{url}', device_url: '{url}'}}\n").mail
    assert mail.oauth2.token_url == url


@pytest.mark.parametrize("url", ["http://auth.example.org/token", "http://10.0.0.1/token",
                                 "http://192.168.1.2/token", "ftp://127.0.0.1/token",
                                 "auth.example.org/token"])
def test_plain_http_anywhere_but_loopback_is_refused(tmp_path, url):
    problems = problems_of(tmp_path, f"  auth: oauth2\n  oauth2: {{provider: custom, client_id: x, "
                                     f"token_url: '{url}', device_url: https://a.example/d}}\n")
    assert any(p.startswith("line 18: mail.oauth2: 'token_url' must be an https:// address")
               for p in problems), problems


# --- the token file -----------------------------------------------------------------------

RECORD = {"client_id": "c", "token_url": "https://t.example/token", "refresh_token": "r-1",
          "access_token": "a-1", "expires_at": "2027-01-01T00:00:00Z"}


def test_the_token_file_is_created_0600_without_a_chmod_even_under_umask_0(tmp_path, monkeypatch):
    def no_chmod(*args, **kwargs):
        raise AssertionError("the token file must be created 0600, not changed after")

    monkeypatch.setattr(os, "chmod", no_chmod)
    monkeypatch.setattr(os, "fchmod", no_chmod)
    old = os.umask(0)
    try:
        TokenFile(tmp_path).save(RECORD)
    finally:
        os.umask(old)
    path = tmp_path / TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == RECORD
    assert [p.name for p in tmp_path.iterdir()] == [TOKEN_FILE]  # no temporary file left


def test_the_token_file_is_replaced_whole_and_stays_0600(tmp_path):
    store = TokenFile(tmp_path)
    store.save(RECORD)
    store.save({**RECORD, "access_token": "a-2"})
    assert store.load()["access_token"] == "a-2"
    assert stat.S_IMODE((tmp_path / TOKEN_FILE).stat().st_mode) == 0o600


def test_a_token_file_others_may_read_is_refused(tmp_path):
    store = TokenFile(tmp_path)
    store.save(RECORD)
    os.chmod(tmp_path / TOKEN_FILE, 0o644)
    with pytest.raises(MailError) as error:
        store.load()
    assert "may be read by others (mode 0644)" in str(error.value)
    assert "r-1" not in str(error.value)


def test_a_token_file_gm_did_not_write_is_refused_in_one_line(tmp_path):
    fd = os.open(tmp_path / TOKEN_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"not json")
    os.close(fd)
    with pytest.raises(MailError) as error:
        TokenFile(tmp_path).load()
    assert "is not a token file gm wrote" in str(error.value) and "mail login" in str(error.value)
