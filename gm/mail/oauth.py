"""OAuth 2.0 for the campaign's mail account: `gm mail login` (the device authorization
grant, RFC 8628), the token file, and the access tokens IMAP and SMTP log in with (SASL
XOAUTH2).

Why authlib (with requests as its HTTP client): one well-kept library that speaks to all
three kinds of provider alike (Google, Microsoft and any standard server), does the token
requests, client authentication, refresh and error responses of RFC 6749, and has no
provider-specific start-up of its own (msal, Microsoft's library, first asks Microsoft's
servers to discover the tenant, which a custom or local server cannot answer).

The token file, `oauth2-token.json` in the campaign folder, is the only place a token
lives: created with mode 0600 from its first byte (os.open with 0o600, never a chmod
after), replaced whole (a new file, then rename), and refused when others may read it.
It holds the refresh token and the last access token with its expiry, and says which
client and token endpoint they belong to, so that a campaign.yaml pointing elsewhere is
told to log in again rather than sending a token to the wrong server. It is read only when
it is a regular file of less than 64 KiB, opened without blocking (a FIFO put in its place
neither hangs gm nor gets read).

A provider is trusted with nothing but its tokens: every answer is checked for type and
range before it replaces anything (a malformed one leaves the token file as it was), every
address it gives to print must be https:// and printable, and every text it words (as
every IMAP or SMTP server's) has the tokens and the client secret scrubbed from it
(gm.mail.settings.clean) before it reaches the GM's screen.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .. import clock
from .settings import (
    MailError,
    OAuth2Settings,
    Secrets,
    clean,
    client_secret,
    imap_password,
    smtp_password,
)

__all__ = ["TOKEN_FILE", "DeviceCode", "OAuthLogin", "TokenFile", "device_login", "login_for",
           "printable_url_problem",
           "poll_sleep"]

TOKEN_FILE = "oauth2-token.json"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
LEEWAY = 60  # seconds: an access token this close to its expiry is renewed before use
TIMEOUT = 30.0  # seconds for each request to the provider
# Far above any token file gm writes (a few KB: two tokens of at most TOKEN_LIMIT each and
# a scope), so a bigger file is not one of gm's and is never read whole.
FILE_LIMIT = 64 * 1024
TOKEN_LIMIT = 16 * 1024  # characters of one token (Microsoft's JWTs run to a few thousand)
LIFETIME_LIMIT = 366 * 86400  # seconds: an access token said to last longer is not believed

# How `gm mail login` waits between polls; the tests replace it (they never sleep).
poll_sleep: Callable[[float], None] = time.sleep


def login_command(folder: Path) -> str:
    return f"gm -C {folder} mail login"


class TokenFile:
    """The campaign's `oauth2-token.json`: read, checked and replaced whole."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder / TOKEN_FILE

    def exists(self) -> bool:
        return self.path.exists()

    def load(self) -> dict[str, Any] | None:
        """The stored record, or None when there is none yet."""
        try:
            # O_NONBLOCK: opening a FIFO (or a device) put in the file's place must not
            # wait for a writer; what is not a regular file is refused just below.
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise MailError(f"cannot read {self.path}: {clean(error.strerror or error, ())}",
                            cause="token") from None
        with os.fdopen(fd, "rb") as handle:
            status = os.fstat(handle.fileno())
            mode = status.st_mode
            if not stat.S_ISREG(mode):
                raise MailError(f"{self.path} is not a regular file, so not a token file gm "
                                f"wrote: delete it and run {login_command(self.folder)}",
                                cause="token")
            if status.st_size > FILE_LIMIT:
                raise MailError(f"{self.path} is larger than {FILE_LIMIT // 1024} KiB, so not "
                                "a token file gm wrote: delete it and run "
                                f"{login_command(self.folder)}", cause="token")
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                # as ssh does with a private key: a token others can read is not ours alone
                raise MailError(f"{self.path} may be read by others (mode "
                                f"{stat.S_IMODE(mode):04o}): run chmod 600 on it, or delete it "
                                f"and run {login_command(self.folder)}", cause="token")
            text = handle.read(FILE_LIMIT + 1)  # it may have grown since the fstat
        try:
            record = json.loads(text) if len(text) <= FILE_LIMIT else None
        except (ValueError, RecursionError):
            record = None
        if (not isinstance(record, dict) or _token_problem(record, refresh_required=True)
                or not isinstance(record.get("expires_at", ""), str)):
            raise MailError(f"{self.path} is not a token file gm wrote: delete it and run "
                            f"{login_command(self.folder)}", cause="token")
        return record

    def save(self, record: Mapping[str, Any]) -> None:
        """Replace the file with `record`: written to a new file created 0600, then renamed
        over the old one, so a crash leaves the old token or the new, never half of one."""
        text = json.dumps(dict(record), indent=1, sort_keys=True) + "\n"
        if len(text.encode()) > FILE_LIMIT:  # never write what load() would refuse
            raise MailError(f"the token from {record.get('token_url')} is too large to keep",
                            cause="token")
        temporary = self.path.with_name(f".{TOKEN_FILE}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


# RFC 6750 2.1's b64token, the syntax of a Bearer token: what follows "auth=Bearer " in
# the XOAUTH2 string, so nothing else (a \x01 above all) can be slipped into it.
_BEARER = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def _visible(value: Any, limit: int) -> bool:
    """Whether `value` is text of 1 to `limit` visible ASCII characters (no space, no
    control character): what an opaque token or code can be, sent back as it came."""
    return (isinstance(value, str) and 0 < len(value) <= limit
            and all("!" <= c <= "~" for c in value))


def _seconds(value: Any, low: float, high: float) -> float | None:
    """`value` as a number of seconds when it is one (a JSON number, or digits as some
    providers send) between `low` and `high`; None otherwise (NaN, infinity, 1e300...)."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or not low <= value <= high:
        return None
    return float(value)


def _token_problem(answer: Mapping[str, Any], *, refresh_required: bool = False) -> str | None:
    """What is wrong with a token answer (RFC 6749 5.1) or the record gm keeps of one, in a
    few words that quote nothing of it; None when gm can use and keep it."""
    access = answer.get("access_token")
    if not isinstance(access, str) or not access:
        return "access_token is missing or not text"
    if len(access) > TOKEN_LIMIT or not _BEARER.fullmatch(access):
        return "access_token is not a bearer token (RFC 6750)"
    refresh = answer.get("refresh_token")
    if refresh is not None and not _visible(refresh, TOKEN_LIMIT):
        return "refresh_token is not a token (visible characters, at most 16 KiB)"
    if refresh is None and refresh_required:
        return "refresh_token is missing"
    if "expires_in" in answer and answer["expires_in"] is not None and \
            _seconds(answer["expires_in"], 1, LIFETIME_LIMIT) is None:
        return "expires_in is not a number of seconds between 1 and a year"
    expires_at = answer.get("expires_at")
    if expires_at is not None and not isinstance(expires_at, str) and \
            _seconds(expires_at, 0, 1e11) is None:
        return "expires_at is not a time"
    if answer.get("token_type") is not None and not isinstance(answer["token_type"], str):
        return "token_type is not text"
    scope = answer.get("scope")
    if scope is not None and not (isinstance(scope, str) and len(scope) <= 4096
                                  and scope.isprintable()):
        return "scope is not one line of text"
    return None


class _Unusable(Exception):
    """A token answer gm cannot use (why, in a few words): nothing of it is kept."""


def _check_answer(response):
    """authlib's compliance hook on every token answer: an answer that is not an error is
    checked before authlib reads it (it would turn expires_in into an int) and before gm
    keeps anything of it."""
    try:
        answer = response.json()
    except (ValueError, RecursionError):
        return response  # authlib refuses it in words of its own (HTTP status, not JSON)
    # authlib takes any JSON object without "error" for a token unless the status is 5xx
    if isinstance(answer, dict) and "error" not in answer and response.status_code < 500:
        problem = _token_problem(answer)
        if problem:
            raise _Unusable(problem)
    return response


def _session(settings: OAuth2Settings, secret: str | None):
    """An authlib client for the provider; the client secret, where there is one, goes in
    the request body (client_secret_post), which Google and Microsoft both take."""
    from authlib.integrations.requests_client import OAuth2Session

    session = OAuth2Session(
        client_id=settings.client_id, client_secret=secret, scope=settings.scope or None,
        token_endpoint_auth_method="client_secret_post" if secret else "none",
        default_timeout=TIMEOUT)
    session.register_compliance_hook("access_token_response", _check_answer)
    session.register_compliance_hook("refresh_token_response", _check_answer)
    return session


def _oauth_error(error: BaseException, secrets: Secrets) -> tuple[str, str] | None:
    """(error code, description) of an OAuth error response, scrubbed of `secrets` (a
    provider may echo the request), or None for anything else."""
    from authlib.common.errors import AuthlibBaseError

    if isinstance(error, AuthlibBaseError):
        return clean(str(error.error or ""), secrets)[:80], clean(error.description or "",
                                                                  secrets)
    return None


def _http_failure(url: str, error: BaseException, secrets: Secrets) -> MailError:
    """A network failure or a server error of the provider: nothing to log in again for,
    only to try later (the next `gm turn` from cron will)."""
    import requests

    if isinstance(error, requests.HTTPError) and error.response is not None:
        return MailError(f"{url} answered HTTP {error.response.status_code}: try again later",
                         cause="unreachable")
    if isinstance(error, requests.exceptions.SSLError):
        return MailError(f"{url}: TLS failed: {clean(error, secrets)}", cause="tls")
    if isinstance(error, requests.RequestException):
        return MailError(f"cannot reach {url}: {clean(error, secrets)}", cause="unreachable")
    return MailError(f"{url}: {clean(error, secrets)}", cause="other")


def _record(settings: OAuth2Settings, token: Mapping[str, Any], *, now: datetime,
            refresh_token: str | None = None) -> dict[str, Any]:
    """What the token file keeps of a token answer _check_answer passed (times by gm's
    clock, so GM_NOW moves them as it moves everything else)."""
    lifetime = _seconds(token.get("expires_in"), 1, LIFETIME_LIMIT) or 3600
    return {
        "provider": settings.provider,
        "client_id": settings.client_id,
        "token_url": settings.token_url,
        "scope": token.get("scope") or settings.scope,
        "refresh_token": token.get("refresh_token") or refresh_token,
        "access_token": token["access_token"],
        "expires_at": clock.iso(now + timedelta(seconds=int(lifetime))),
        "obtained_at": clock.iso(now),
    }


# --- gm mail login: the device authorization grant ------------------------------------

def printable_url_problem(value: Any) -> str | None:
    """Why gm will not print `value` as an address for the GM to open, or None: only
    https:// (a login page in clear would show the GM's password to the network), visible
    ASCII alone (no escape sequence for the terminal, no look-alike letters of another
    alphabet), at most 2,000 characters."""
    if not _visible(value, 2000):
        return "it is not an address of visible ASCII characters"
    if not value.lower().startswith("https://") or len(value) == len("https://"):
        return "it is not an https:// address"
    return None


class DeviceCode:
    """The provider's answer to the device authorization request (RFC 8628 3.2), checked:
    ValueError(why) when any part of it is not what gm can use or show."""

    def __init__(self, answer: Mapping[str, Any]):
        self.device_code = answer.get("device_code")
        if not _visible(self.device_code, TOKEN_LIMIT):
            raise ValueError("device_code is missing or not a code")
        self.user_code = answer.get("user_code")
        if not (isinstance(self.user_code, str) and 0 < len(self.user_code) <= 64
                and self.user_code.isprintable() and self.user_code.isascii()):
            raise ValueError("user_code is missing or not a short code of printable characters")
        # Google still names it verification_url, as the drafts of RFC 8628 did
        self.verification_uri = answer.get("verification_uri") or answer.get("verification_url")
        problem = printable_url_problem(self.verification_uri)
        if problem:
            raise ValueError(f"verification_uri is missing, or {problem}")
        self.verification_uri_complete = answer.get("verification_uri_complete") or None
        problem = (printable_url_problem(self.verification_uri_complete)
                   if self.verification_uri_complete is not None else None)
        if problem:
            raise ValueError(f"verification_uri_complete: {problem}")
        expires_in = _seconds(answer.get("expires_in") or 600, 1, 86400)
        interval = _seconds(answer.get("interval") or 5, 1, 600)
        if expires_in is None or interval is None:
            raise ValueError("expires_in or interval is not a number of seconds in range")
        self.expires_in, self.interval = int(expires_in), int(interval)


# What a refusal of the device authorization request means for the GM.
_DEVICE_HINTS = {
    "invalid_client": "check mail.oauth2.client_id, and GM_OAUTH_CLIENT_SECRET where the "
                      "provider gave the client a secret",
    "unauthorized_client": "the registered application may not use the device flow: allow "
                           "it at the provider (docs/mail-oauth.md)",
    "invalid_scope": "the provider will not grant mail.oauth2.scope to this client "
                     "(docs/mail-oauth.md)",
}


def _request_device_code(session, settings: OAuth2Settings, secrets: Secrets) -> DeviceCode:
    import requests

    url = settings.device_url
    try:
        response = session.post(url, data={"scope": settings.scope} if settings.scope else {},
                                auth=session.client_auth(session.token_endpoint_auth_method),
                                withhold_token=True, headers={"Accept": "application/json"})
    except requests.RequestException as error:
        raise _http_failure(url, error, secrets) from None
    try:
        answer = response.json()
    except (ValueError, RecursionError):
        answer = None
    if not isinstance(answer, dict):
        raise MailError(f"{url} answered HTTP {response.status_code} without a device code",
                        cause="unreachable" if response.status_code >= 500 else "config")
    if "error" in answer or response.status_code >= 400:
        code = clean(str(answer.get("error") or f"HTTP {response.status_code}"), secrets)[:80]
        description = clean(str(answer.get("error_description") or ""), secrets)
        hint = _DEVICE_HINTS.get(code, "")
        if code == "invalid_scope" and settings.provider == "google":
            # Google keeps its own short list of scopes for the device flow
            hint = ("Google grants no mail access through the device flow to this client: "
                    "docs/mail-google.md says what to do (an app password works instead)")
        raise MailError(f"{settings.token_host or url} refused the login: {code}"
                        + (f" ({description})" if description else "")
                        + (f"; {hint}" if hint else ""), cause="config")
    try:
        return DeviceCode(answer)
    except ValueError as error:
        raise MailError(f"{url} answered with a device code gm will not use ({error}): "
                        "nothing was shown or stored", cause="config") from None


def device_login(folder: Path, settings: OAuth2Settings, *, echo: Callable[[str], None],
                 secret: str | None = None) -> dict[str, Any]:
    """Run the device authorization grant and store the token: print where to go and the
    code to type, poll the token endpoint every `interval` seconds (five more after each
    slow_down) until the GM has approved, denied, or the code expired. Returns the record
    stored. Nothing is written unless a token came back with a refresh token."""
    secret = secret if secret is not None else client_secret()
    session = _session(settings, secret)
    device = _request_device_code(session, settings, (secret,))
    secrets = (secret, device.device_code)
    echo(f"To let gm use the mail account, open {device.verification_uri}")
    echo(f"and enter the code {device.user_code}")
    if device.verification_uri_complete:
        echo(f"(or open {device.verification_uri_complete}, which carries the code)")
    minutes = max(1, round(device.expires_in / 60))
    echo(f"Waiting for you to approve (the code expires in {minutes} "
         f"minute{'s' if minutes != 1 else ''}; Ctrl-C stops)...")
    interval, waited = device.interval, 0
    while True:
        if waited >= device.expires_in:
            raise MailError("the code expired before it was approved: run "
                            f"{login_command(folder)} again", cause="token")
        poll_sleep(interval)
        waited += interval
        try:
            # scope="": the device code already carries the scope asked for
            token = session.fetch_token(settings.token_url, grant_type=DEVICE_GRANT,
                                        device_code=device.device_code, scope="")
        except _Unusable as problem:
            raise MailError(f"{settings.token_url} answered with a token gm cannot use "
                            f"({problem}): nothing was stored", cause="token") from None
        except Exception as error:  # noqa: BLE001 - sorted just below
            refusal = _oauth_error(error, secrets)
            if refusal is None:
                raise _http_failure(settings.token_url, error, secrets) from None
            code, description = refusal
            if code == "authorization_pending":
                continue
            if code == "slow_down":  # RFC 8628 3.5: every later poll waits 5 s longer
                interval += 5
                continue
            if code == "expired_token":
                raise MailError("the code expired before it was approved: run "
                                f"{login_command(folder)} again", cause="token") from None
            if code == "access_denied":
                raise MailError("the login was declined at the provider: nothing was "
                                "stored", cause="token") from None
            raise MailError(f"{settings.token_host} refused the login: {code}"
                            + (f" ({description})" if description else ""),
                            cause="token") from None
        if not token.get("access_token"):
            raise MailError(f"{settings.token_url} answered without an access token",
                            cause="token")
        if not token.get("refresh_token"):
            raise MailError(f"{settings.token_host} gave no refresh token, so gm could not "
                            "log in once this access token expires: add offline_access to "
                            "mail.oauth2.scope (Microsoft), then log in again", cause="token")
        record = _record(settings, token, now=clock.now())
        TokenFile(folder).save(record)
        return record


# --- access tokens for IMAP and SMTP ------------------------------------------------

class OAuthLogin:
    """The access token IMAP and SMTP log in with (a TokenSource, gm/mail/settings.py).

    The token file's access token is used while it has more than a minute left; then, or
    when a server refused it, the refresh token gets a new one, which is saved at once.
    Thread-safe: the SMTP pool's connections share one instance, and a token refused on
    several connections is renewed once.
    """

    def __init__(self, folder: Path, settings: OAuth2Settings, *, secret: str | None = None):
        self.folder = Path(folder)
        self.settings = settings
        self.store = TokenFile(self.folder)
        self._secret = secret
        self._lock = threading.Lock()
        self._record: dict[str, Any] | None = None
        self._seen: set[str] = set()  # every token handed out, scrubbed from error text

    def secrets(self) -> tuple[str, ...]:
        record = self._record or {}
        secret = self._secret if self._secret is not None else client_secret()
        return tuple(self._seen | {v for k in ("refresh_token", "access_token")
                                   if isinstance(v := record.get(k), str) and v}
                     | ({secret} if secret else set()))

    def access_token(self, *, refused: str | None = None) -> str:
        with self._lock:
            record = self._record if self._record is not None else self._load()
            token = record.get("access_token")
            if isinstance(token, str) and token and token != refused and not self._expired(record):
                self._seen.add(token)
                return token
            if refused is not None and token != refused and isinstance(token, str):
                # another connection renewed it meanwhile, and this one has not been tried
                self._seen.add(token)
                return token
            record = self._refresh(record)
            self._seen.add(record["access_token"])
            return record["access_token"]

    def status(self) -> str:
        """One line on the stored token, for `gm mail check` (no token in it)."""
        record = self._record if self._record is not None else self._load()
        until = record.get("expires_at", "?")
        state = "expired" if self._expired(record) else "valid"
        return (f"token file {self.store.path.name} (mode 0600), refresh token stored; "
                f"access token {state} until {until}")

    def _load(self) -> dict[str, Any]:
        record = self.store.load()
        if record is None:
            raise MailError(f"no mail login yet for OAuth 2.0: run {login_command(self.folder)}",
                            cause="token")
        for key in ("client_id", "token_url"):
            if record.get(key) != getattr(self.settings, key):
                raise MailError(f"the stored mail login was made for another mail.oauth2."
                                f"{key}: run {login_command(self.folder)}", cause="token")
        self._record = record
        self._seen.add(record["refresh_token"])
        return record

    @staticmethod
    def _expired(record: Mapping[str, Any]) -> bool:
        try:
            expires = clock.parse_time(str(record["expires_at"]))
        except (KeyError, Exception):  # noqa: BLE001 - no readable expiry: renew to be safe
            return True
        return expires - timedelta(seconds=LEEWAY) <= clock.now()

    def _refresh(self, record: dict[str, Any]) -> dict[str, Any]:
        settings = self.settings
        secret = self._secret if self._secret is not None else client_secret()
        session = _session(settings, secret)
        try:
            token = session.refresh_token(settings.token_url,
                                          refresh_token=record["refresh_token"])
        except _Unusable as problem:
            raise MailError(f"{settings.token_url} answered the renewal of the mail login with "
                            f"a token gm cannot use ({problem}): the token file is unchanged",
                            cause="token") from None
        except Exception as error:  # noqa: BLE001 - sorted just below
            refusal = _oauth_error(error, self)
            if refusal is None:
                raise _http_failure(settings.token_url, error, self) from None
            code, description = refusal
            raise MailError(f"{settings.token_host} refused to renew the mail login "
                            f"({code}{': ' + description if description else ''}): run "
                            f"{login_command(self.folder)}", cause="token") from None
        if not token.get("access_token"):
            raise MailError(f"{settings.token_url} answered without an access token",
                            cause="token")
        fresh = _record(settings, token, now=clock.now(), refresh_token=record["refresh_token"])
        self.store.save(fresh)
        self._record = fresh
        self._seen.add(fresh["refresh_token"])
        return fresh


def login_for(folder: Path, mail: Any, server: str) -> str | OAuthLogin:
    """How the campaign logs in to `server` ("imap" or "smtp"): its password from the
    environment, or, with `mail.auth: oauth2`, the OAuth token of `gm mail login`."""
    if getattr(mail, "auth", "password") == "oauth2":
        return OAuthLogin(folder, mail.oauth2)
    return imap_password() if server == "imap" else smtp_password()
