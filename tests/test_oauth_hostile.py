"""A provider gone hostile, measured as an attacker would: the local token server answers
what the test says (echoing the refresh token and the client secret, handing out tokens
of the wrong type or range, an address with terminal escapes to print), and the token
file is swapped for a FIFO or a huge file. gm keeps the good token file, prints nothing
the provider smuggled in, and answers in one line, never a traceback."""
# ruff: noqa: F811  (every test takes the shared fixture "login" imported below)

from __future__ import annotations

import base64
import json
import os
import threading
import urllib.parse
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_oauth_login import logged_in, login  # noqa: F401  (the fixture "login", shared)

from gm.cli import cli
from gm.mail.credentials import scrub
from gm.mail.oauth import OAuthLogin
from gm.mail.settings import MailError
from gm.mail.tokenfile import TOKEN_FILE, TokenFile

CLIENT_SECRET = "client-s3cret/of+the=gm"


def forms(secret: str) -> list[str]:
    """The ways an echoing server words a secret: as it is, URL-encoded, and inside a
    longer base64 text at each of the three offsets modulo 3 (a 12-character run of it,
    made of the secret's bits alone)."""
    found = [secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)]
    for shift in range(3):
        coded = base64.b64encode(b"x" * shift + secret.encode()).decode()
        start = -(-8 * shift // 6)
        found.append(coded[start:start + 12])
    return found


def leaks(text: str, *secrets: str) -> list[str]:
    return [form for secret in secrets for form in forms(secret) if form in text]


def echo_everything(form: dict[str, str]) -> tuple[int, dict]:
    """A token endpoint that words its refusal with all it was sent."""
    body = urllib.parse.urlencode(form)
    words = " ".join(f"{key}={value}" for key, value in form.items())
    return 400, {"error": "invalid_grant",
                 "error_description": f"cannot parse {body} ({words}); base64 "
                                      f"{base64.b64encode(body.encode()).decode()}"}


# --- scrub: one place for every server's words ---------------------------------------


@pytest.mark.parametrize("prefix", ["", "u", "us", "user=gm\x01auth=Bearer ", "\0gm\0"])
def test_scrub_hides_a_secret_raw_url_encoded_and_in_base64_at_any_offset(prefix):
    secret = "ya29.a0Af/H+tok=en_42"
    sasl = f"{prefix}{secret}\x01\x01".encode()
    text = (f"raw {secret}; quoted {urllib.parse.quote(secret, safe='')}; form "
            f"{urllib.parse.urlencode({'t': secret})}; b64 {base64.b64encode(sasl).decode()}; "
            f"urlsafe {base64.urlsafe_b64encode(sasl).decode()}")
    scrubbed = scrub(text, secret)
    assert leaks(scrubbed, secret) == [] and "***" in scrubbed
    assert base64.b64encode(sasl).decode() not in scrubbed


def test_scrub_leaves_words_alone_when_a_secret_is_short():
    assert scrub("refused: bad password", "pw") == "refused: bad password"


# --- the token endpoint's words --------------------------------------------------------


def test_a_token_endpoint_echoing_the_refresh_token_and_client_secret_shows_neither(
        login, monkeypatch):
    monkeypatch.setattr(login.tokens, "client_secret", CLIENT_SECRET)
    monkeypatch.setenv("GM_OAUTH_CLIENT_SECRET", CLIENT_SECRET)
    source = logged_in(login)
    first = source.access_token()
    refresh = TokenFile(login.folder).load()["refresh_token"]
    login.tokens.misbehave("/token", echo_everything)
    with pytest.raises(MailError) as error:
        source.access_token(refused=first)
    text = str(error.value)
    assert "refused to renew the mail login (invalid_grant: cannot parse" in text
    assert "***" in text and "\n" not in text
    assert leaks(text, refresh, CLIENT_SECRET, first) == []


def test_a_token_endpoint_echoing_secrets_in_its_error_code_shows_none(login, monkeypatch):
    source = logged_in(login)
    refresh = TokenFile(login.folder).load()["refresh_token"]
    login.tokens.misbehave("/token", lambda form: (400, {"error": form["refresh_token"]}))
    with pytest.raises(MailError) as error:
        source.access_token(refused=source.access_token())
    assert leaks(str(error.value), refresh) == [] and "(***" in str(error.value)


def test_a_device_login_refused_with_an_echo_of_the_client_secret_shows_it_nowhere(
        login, monkeypatch):
    monkeypatch.setattr(login.tokens, "client_secret", CLIENT_SECRET)
    monkeypatch.setenv("GM_OAUTH_CLIENT_SECRET", CLIENT_SECRET)
    login.tokens.misbehave("/device", echo_everything)
    out = login(code=1)
    assert "refused the login: invalid_grant" in out
    assert leaks(out, CLIENT_SECRET) == [] and "Traceback" not in out


def test_a_provider_error_with_terminal_escapes_reaches_the_screen_without_them(login):
    login.tokens.misbehave("/device", lambda form: (400, {
        "error": "invalid_client\x1b[2J", "error_description": "\x1b]0;owned\x07 \x9b31m red"}))
    out = login(code=1)
    assert "refused the login: invalid_client?[2J" in out
    assert not any(c in out for c in "\x1b\x07\x9b")


# --- token answers checked before they replace anything ---------------------------------


GOOD = {"access_token": "ya29.fresh-token", "token_type": "Bearer", "expires_in": 3600}
BAD_ANSWERS = {
    "refresh_token is a list": ({**GOOD, "refresh_token": ["x"]}, "refresh_token is not a token"),
    "access_token is a number": ({**GOOD, "access_token": 12345}, "access_token is missing or not text"),
    "access_token is empty": ({**GOOD, "access_token": ""}, "access_token is missing or not text"),
    "access_token smuggles a SASL field": ({**GOOD, "access_token": "tok\x01user=boss"},
                                           "access_token is not a bearer token"),
    "expires_in is 1e300": ({**GOOD, "expires_in": 1e300}, "expires_in is not a number of seconds"),
    "expires_in is infinite": ({**GOOD, "expires_in": float("inf")}, "expires_in is not a number"),
    "expires_in is not a number": ({**GOOD, "expires_in": "soon"}, "expires_in is not a number"),
    "expires_in is negative": ({**GOOD, "expires_in": -5}, "expires_in is not a number"),
    "expires_in is true": ({**GOOD, "expires_in": True}, "expires_in is not a number"),
    "expires_at is a list": ({**GOOD, "expires_at": [1]}, "expires_at is not a time"),
    "token_type is a number": ({**GOOD, "token_type": 7}, "token_type is not text"),
    "scope is a list": ({**GOOD, "scope": ["mail"]}, "scope is not one line of text"),
    "refresh_token is a megabyte": ({**GOOD, "refresh_token": "r" * 2**20}, "at most 16 KiB"),
}


@pytest.mark.parametrize("case", list(BAD_ANSWERS))
def test_a_malformed_refresh_answer_leaves_the_token_file_untouched_and_says_why_in_one_line(
        login, case):
    answer, why = BAD_ANSWERS[case]
    source = logged_in(login)
    first = source.access_token()
    before = (login.folder / TOKEN_FILE).read_bytes()
    login.tokens.misbehave("/token", lambda form: (200, answer))
    with pytest.raises(MailError) as error:
        source.access_token(refused=first)
    text = str(error.value)
    assert why in text and "the token file is unchanged" in text and "\n" not in text
    assert (login.folder / TOKEN_FILE).read_bytes() == before
    assert OAuthLogin(login.folder, login.tokens.settings()).access_token() == first


@pytest.mark.parametrize("case", ["refresh_token is a list", "expires_in is 1e300",
                                  "access_token is a number", "expires_in is infinite"])
def test_a_malformed_token_at_login_stores_nothing_and_says_why_in_one_line(login, case):
    answer, why = BAD_ANSWERS[case]
    login.tokens.misbehave("/token", lambda form: (200, {**answer, "refresh_token": "r-1"}
                                                   if case != "refresh_token is a list"
                                                   else answer))
    out = login(code=1)
    assert why in out and "nothing was stored" in out and "Traceback" not in out
    assert not (login.folder / TOKEN_FILE).exists()


def test_a_good_answer_with_expires_in_as_digits_is_kept(login):
    source = logged_in(login)
    login.tokens.misbehave("/token", lambda form: (200, {**GOOD, "expires_in": "1800"}))
    assert source.access_token(refused=source.access_token()) == "ya29.fresh-token"
    assert TokenFile(login.folder).load()["expires_at"] == "2027-01-01T09:30:05Z"


# --- what gm prints for the GM to open --------------------------------------------------


def device_answer(**changes):
    def answer(form):
        return 200, {"device_code": "dc-1", "user_code": "WDJB-MJHT",
                     "verification_uri": "https://login.example.test/activate",
                     "expires_in": 600, "interval": 5, **changes}
    return answer


@pytest.mark.parametrize("changes, why", [
    ({"verification_uri": "https://login.example.test/\x1b]8;;https://evil.test\x07a"},
     "verification_uri is missing, or it is not an address of visible ASCII characters"),
    ({"verification_uri": "http://login.example.test/activate"},
     "verification_uri is missing, or it is not an https:// address"),
    ({"verification_uri": "javascript:alert(1)"}, "it is not an https:// address"),
    ({"verification_uri": "https://gооgle.com/device"}, "not an address of visible ASCII"),
    ({"verification_uri_complete": "https://x.test/?c=1\x1b[2J"}, "verification_uri_complete"),
    ({"user_code": "AB\x1b[2JCD"}, "user_code is missing or not a short code"),
    ({"interval": float("inf")}, "expires_in or interval is not a number of seconds"),
    ({"expires_in": 1e300}, "expires_in or interval is not a number of seconds"),
])
def test_an_address_or_code_gm_would_print_is_refused_unless_https_and_printable(
        login, changes, why):
    login.tokens.misbehave("/device", device_answer(**changes))
    out = login(code=1)
    assert why in out and "nothing was shown or stored" in out
    assert not any(c in out for c in "\x1b\x07") and "enter the code" not in out
    assert len(out.strip().splitlines()) == 1


# --- the token file: a regular file under 64 KiB, or refused ----------------------------


def test_a_fifo_as_the_token_file_is_refused_at_once_without_waiting_for_a_writer(login):
    path = login.folder / TOKEN_FILE
    os.mkfifo(path, 0o600)
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: outcome.append(_refusal(login.folder)), daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():  # blocked on the FIFO: free it before failing
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO token file waited for a writer")
    assert "is not a regular file" in str(outcome[0])
    result = CliRunner().invoke(cli, ["-C", str(login.folder), "mail", "check"])
    assert result.exit_code == 1 and "oauth2-token.json is not a regular file" in result.output


def _refusal(folder: Path) -> BaseException:
    try:
        TokenFile(folder).load()
    except MailError as error:
        return error
    return AssertionError("a FIFO was read as a token file")


def test_a_token_file_over_64_kib_is_refused_unread(login):
    logged_in(login)
    path = login.folder / TOKEN_FILE
    record = json.loads(path.read_text())
    record["padding"] = "x" * (200 * 1024)
    path.write_text(json.dumps(record))
    with pytest.raises(MailError, match="is larger than 64 KiB, so not a token file gm wrote: "
                                        "delete it and run gm -C .* mail login"):
        TokenFile(login.folder).load()


def test_a_token_file_holding_a_malformed_token_is_refused(login):
    logged_in(login)
    path = login.folder / TOKEN_FILE
    record = json.loads(path.read_text())
    record["access_token"] = 12345
    path.write_text(json.dumps(record))
    with pytest.raises(MailError, match="is not a token file gm wrote"):
        OAuthLogin(login.folder, login.tokens.settings()).access_token()
