"""OAuth 2.0 for the campaign's mail account: `gm mail login` (the device authorization
grant, RFC 8628) and the access tokens IMAP and SMTP log in with (SASL XOAUTH2), asked of
the provider and kept in the token file (gm.mail.tokenfile).

Why authlib (with requests as its HTTP client): one well-kept library that speaks to all
three kinds of provider alike (Google, Microsoft and any standard server), does the token
requests, client authentication, refresh and error responses of RFC 6749, and has no
provider-specific start-up of its own (msal, Microsoft's library, first asks Microsoft's
servers to discover the tenant, which a custom or local server cannot answer).

A provider is trusted with nothing but its tokens: every answer is checked for type and
range before it replaces anything (a malformed one leaves the token file as it was), every
address it gives to print must be https:// and printable, and every text it words (as
every IMAP or SMTP server's) has the tokens and the client secret scrubbed from it
(gm.mail.credentials.clean) before it reaches the GM's screen.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .. import clock
from .credentials import Secrets, clean, client_secret, imap_password, smtp_password
from .settings import MailError, OAuth2Settings
from .tokenfile import (
    LIFETIME_LIMIT,
    TOKEN_LIMIT,
    TokenFile,
    login_command,
    seconds,
    token_problem,
    visible,
)

__all__ = ["DeviceCode", "OAuthLogin", "device_login", "login_for", "poll_sleep", "printable_url_problem"]

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
LEEWAY = 60  # seconds: an access token this close to its expiry is renewed before use
TIMEOUT = 30.0  # seconds for each request to the provider

# How `gm mail login` waits between polls; the tests replace it (they never sleep).
poll_sleep: Callable[[float], None] = time.sleep


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
        problem = token_problem(answer)
        if problem:
            raise _Unusable(problem)
    return response


def _session(settings: OAuth2Settings, secret: str | None):
    """An authlib client for the provider; the client secret, where there is one, goes in
    the request body (client_secret_post), which Google and Microsoft both take."""
    # deferred: authlib and requests take 0.2 s to import, paid only when a provider is asked
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
    # deferred: authlib and requests take 0.2 s to import, paid only when a provider is asked
    from authlib.common.errors import AuthlibBaseError

    if isinstance(error, AuthlibBaseError):
        return clean(str(error.error or ""), secrets)[:80], clean(error.description or "",
                                                                  secrets)
    return None


def _http_failure(url: str, error: BaseException, secrets: Secrets) -> MailError:
    """A network failure or a server error of the provider: nothing to log in again for,
    only to try later (the next `gm turn` from cron will)."""
    import requests  # deferred, as authlib in _session

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
    lifetime = seconds(token.get("expires_in"), 1, LIFETIME_LIMIT) or 3600
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
    if not visible(value, 2000):
        return "it is not an address of visible ASCII characters"
    if not value.lower().startswith("https://") or len(value) == len("https://"):
        return "it is not an https:// address"
    return None


class DeviceCode:
    """The provider's answer to the device authorization request (RFC 8628 3.2), checked:
    ValueError(why) when any part of it is not what gm can use or show."""

    def __init__(self, answer: Mapping[str, Any]):
        self.device_code = answer.get("device_code")
        if not visible(self.device_code, TOKEN_LIMIT):
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
        expires_in = seconds(answer.get("expires_in") or 600, 1, 86400)
        interval = seconds(answer.get("interval") or 5, 1, 600)
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
    import requests  # deferred, as authlib in _session

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
    """The access token IMAP and SMTP log in with (a TokenSource, gm.mail.credentials).

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
