"""The `mail.imap`, `mail.smtp`, `mail.auth` and `mail.oauth2` settings of campaign.yaml,
checked; the mail errors (MailError, one line); the TLS every server connection uses.

Everything a GM can get wrong in these sections is reported at once, key by key with its
line (ConfigError), before any connection is tried. Secrets never live in the file:
passwords come from GM_IMAP_PASSWORD and GM_SMTP_PASSWORD, an OAuth client secret from
GM_OAUTH_CLIENT_SECRET (gm.mail.credentials), and OAuth tokens from the campaign's token
file (gm.mail.oauth).
"""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from gm.errors import ConfigError, GmError
from gm.yamlfile import LineDict, is_int, key_problems

__all__ = [
    "AUTH_KINDS",
    "PROVIDERS",
    "ImapSettings",
    "MailError",
    "OAuth2Settings",
    "SmtpSettings",
    "imap_settings",
    "is_loopback",
    "mail_auth",
    "oauth2_settings",
    "one_line",
    "plaintext_problem",
    "smtp_settings",
    "tls_context",
]

# Why a mail step failed, so that `gm mail check` can say what to do about it.
Cause = Literal["unreachable", "tls", "login", "token", "folder", "config", "other"]


class MailError(GmError):
    """A mail server could not be reached or refused us; the message is one line, no secrets."""

    def __init__(self, message: str, *, cause: Cause = "other"):
        super().__init__(message)
        self.cause = cause


@dataclass(frozen=True, kw_only=True)
class ImapSettings:
    host: str
    user: str
    port: int | None = None  # None: 993 with ssl, else 143
    ssl: bool = True
    starttls: bool = False
    folder: str = "INBOX"
    processed_folder: str = "gm-processed"
    cafile: str | None = None  # extra CA certificates, trusted beside the system store
    timeout: float = 30.0
    allow_plaintext: bool = False  # neither ssl nor starttls to a host not this machine

    @property
    def effective_port(self) -> int:
        return self.port if self.port is not None else (993 if self.ssl else 143)


@dataclass(frozen=True, kw_only=True)
class SmtpSettings:
    host: str
    user: str
    port: int | None = None  # None: 465 with ssl, 587 with starttls, else 25
    ssl: bool = False
    starttls: bool = True
    cafile: str | None = None
    connections: int = 4  # size of the connection pool; each connection sends many messages
    timeout: float = 60.0
    allow_plaintext: bool = False  # neither ssl nor starttls to a host not this machine

    @property
    def effective_port(self) -> int:
        if self.port is not None:
            return self.port
        return 465 if self.ssl else 587 if self.starttls else 25


# Where each provider's defaults come from (docs/mail-oauth.md says the same for GMs):
# Google: "OAuth 2.0 for TV and Limited-Input Device Applications" (device and token
# endpoints) and "IMAP, POP, and SMTP" in Gmail's developer guide (the one scope that
# covers IMAP and SMTP); Microsoft: the identity platform's "device authorization grant"
# page (the v2.0 endpoints of the `common` tenant) and "Authenticate an IMAP, POP or SMTP
# connection using OAuth" (the two Exchange Online scopes; offline_access asks for the
# refresh token that Microsoft only gives when it is named).
PROVIDERS: dict[str, dict[str, str]] = {
    "google": {
        "device_url": "https://oauth2.googleapis.com/device/code",
        "token_url": "https://oauth2.googleapis.com/token",
        "scope": "https://mail.google.com/",
    },
    "microsoft": {
        "device_url": "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode",
        "token_url": "https://login.microsoftonline.com/common/oauth2/v2.0/token",
        "scope": "https://outlook.office.com/IMAP.AccessAsUser.All "
                 "https://outlook.office.com/SMTP.Send offline_access",
    },
    "custom": {},
}
AUTH_KINDS = ("password", "oauth2")


@dataclass(frozen=True, kw_only=True)
class OAuth2Settings:
    """`mail.oauth2`, every default filled in: one authorisation serves IMAP and SMTP."""

    provider: str
    client_id: str
    token_url: str
    device_url: str
    scope: str = ""

    @property
    def token_host(self) -> str:
        return urlsplit(self.token_url).netloc


_IMAP_KEYS = ("host", "port", "user", "ssl", "starttls", "folder", "processed_folder", "cafile",
              "timeout", "allow_plaintext")
_SMTP_KEYS = ("host", "port", "user", "ssl", "starttls", "cafile", "connections", "timeout",
              "allow_plaintext")

# What each key must hold, as (test, description for the problem line).
_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": (lambda v: isinstance(v, str) and v != "", "non-empty text"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "count": (lambda v: is_int(v) and v > 0, "positive integer"),
    "seconds": (lambda v: (is_int(v) or isinstance(v, float)) and v > 0, "positive number"),
}
_KIND_OF = {"host": "text", "user": "text", "folder": "text", "processed_folder": "text",
            "cafile": "text", "port": "count", "connections": "count", "ssl": "flag",
            "starttls": "flag", "timeout": "seconds", "allow_plaintext": "flag"}


def _at(raw: Mapping[str, Any], key: str | None = None) -> str:
    """"line N: " for `key` (or for the mapping itself), when the mapping knows its lines."""
    if isinstance(raw, LineDict):
        return f"line {raw.line_of(key) if key in raw else raw.line}: "
    return ""


def _problems(raw: Any, where: str, known: tuple[str, ...],
              required: tuple[str, ...]) -> list[str]:
    """Every problem of the section, each one naming its line and `where` (e.g. mail.imap),
    so they still make sense when a caller merges them with the rest of campaign.yaml's."""
    if not isinstance(raw, Mapping):
        return [f"{where}: expected a mapping of settings, e.g. {{host: mail.example.org, "
                "user: gm}"]
    if isinstance(raw, LineDict):
        problems = key_problems(raw, known, where)
    else:
        problems = [f"{where}: unknown key '{key}'" for key in raw if key not in known]
    for key in required:
        if raw.get(key) is None:
            problems.append(f"{_at(raw, key)}{where}: '{key}' is required")
    for key in known:
        if raw.get(key) is None:
            continue
        test, description = _KINDS[_KIND_OF[key]]
        if not test(raw[key]):
            problems.append(f"{_at(raw, key)}{where}: '{key}' must be {description}, "
                            f"not {raw[key]!r}")
    if raw.get("ssl") is True and raw.get("starttls") is True:
        problems.append(f"{_at(raw, 'starttls')}{where}: 'ssl' and 'starttls' cannot both "
                        "be true")
    return problems


def imap_settings(raw: Any) -> ImapSettings:
    """The `mail.imap` mapping as ImapSettings; ConfigError("mail.imap", problems) if wrong."""
    problems = _problems(raw, "mail.imap", _IMAP_KEYS, ("host", "user"))
    if not problems and raw.get("folder", "INBOX") == raw.get("processed_folder", "gm-processed"):
        problems.append(f"{_at(raw, 'processed_folder')}mail.imap: 'processed_folder' must "
                        "differ from 'folder'")
    if problems:
        raise ConfigError("mail.imap", problems)
    given = {key: value for key, value in raw.items() if value is not None}
    # Implicit TLS (port 993) unless the GM asked for STARTTLS on the plain port.
    given.setdefault("ssl", not given.get("starttls", False))
    if "timeout" in given:
        given["timeout"] = float(given["timeout"])
    settings = ImapSettings(**given)
    _refuse_plaintext(raw, "mail.imap", settings)
    return settings


def smtp_settings(raw: Any) -> SmtpSettings:
    """The `mail.smtp` mapping as SmtpSettings; ConfigError("mail.smtp", problems) if wrong."""
    problems = _problems(raw, "mail.smtp", _SMTP_KEYS, ("host", "user"))
    if problems:
        raise ConfigError("mail.smtp", problems)
    given = {key: value for key, value in raw.items() if value is not None}
    # Submission with STARTTLS (port 587) unless the GM asked for implicit TLS (port 465).
    given.setdefault("starttls", not given.get("ssl", False))
    if "timeout" in given:
        given["timeout"] = float(given["timeout"])
    settings = SmtpSettings(**given)
    _refuse_plaintext(raw, "mail.smtp", settings)
    return settings


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine: localhost, 127.0.0.0/8 or ::1."""
    host = host.strip().strip("[]").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plaintext_problem(settings: ImapSettings | SmtpSettings) -> str | None:
    """Why gm will not log in to this server, or None: with neither ssl nor starttls the
    password or token crosses the network in clear, which gm does only to this machine
    or where the GM said allow_plaintext."""
    if settings.ssl or settings.starttls or settings.allow_plaintext or is_loopback(settings.host):
        return None
    return (f"with neither ssl nor starttls the login would cross the network to "
            f"{settings.host} in clear: set ssl: true or starttls: true, or allow_plaintext: "
            "true if that network is trusted")


def _refuse_plaintext(raw: Mapping[str, Any], where: str, settings: ImapSettings | SmtpSettings):
    problem = plaintext_problem(settings)
    if problem:
        key = "starttls" if "starttls" in raw else "ssl" if "ssl" in raw else None
        raise ConfigError(where, [f"{_at(raw, key)}{where}: {problem}"])


_OAUTH2_KEYS = ("provider", "client_id", "token_url", "device_url", "scope")


def _url_problem(value: Any) -> str | None:
    """Why `value` cannot be a token or device endpoint, or None when it can.

    Plain http would carry the refresh token (and the client secret) in clear, so it is
    allowed only to this machine's own loopback addresses, as a local test server is.
    """
    if not isinstance(value, str) or not value:
        return "must be an https:// address"
    parts = urlsplit(value)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname:
        host = parts.hostname
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if loopback:
            return None
        return f"must be an https:// address (plain http only to 127.0.0.1 or localhost), not {value!r}"
    return f"must be an https:// address, not {value!r}"


def oauth2_settings(raw: Any) -> OAuth2Settings:
    """The `mail.oauth2` mapping as OAuth2Settings, each default of its provider filled in;
    ConfigError("mail.oauth2", problems) if wrong."""
    where = "mail.oauth2"
    if not isinstance(raw, Mapping):
        raise ConfigError(where, [f"{where}: expected a mapping, e.g. {{provider: microsoft, "
                                  "client_id: ...}"])
    problems = (key_problems(raw, _OAUTH2_KEYS, where) if isinstance(raw, LineDict)
                else [f"{where}: unknown key '{key}'" for key in raw if key not in _OAUTH2_KEYS])
    provider = raw.get("provider")
    if provider not in PROVIDERS:
        problems.append(f"{_at(raw, 'provider')}{where}: 'provider' must be one of "
                        f"{', '.join(PROVIDERS)}, not {provider!r}")
        provider = "custom"
    defaults = PROVIDERS[provider]
    values = {key: raw.get(key, defaults.get(key)) for key in _OAUTH2_KEYS if key != "provider"}
    if not isinstance(values["client_id"], str) or not values["client_id"].strip():
        problems.append(f"{_at(raw, 'client_id')}{where}: 'client_id' is required: the "
                        "application (client) id you registered with the provider")
    for key in ("token_url", "device_url"):
        if values[key] is None:
            problems.append(f"{_at(raw, key)}{where}: '{key}' is required with provider "
                            f"{provider}")
            continue
        problem = _url_problem(values[key])
        if problem:
            problems.append(f"{_at(raw, key)}{where}: '{key}' {problem}")
    scope = values["scope"] if values["scope"] is not None else ""
    if not isinstance(scope, str) or any(c in scope for c in "\r\n\"\\"):
        problems.append(f"{_at(raw, 'scope')}{where}: 'scope' must be the scopes on one line, "
                        "separated by spaces")
    if problems:
        raise ConfigError(where, problems)
    return OAuth2Settings(provider=provider, client_id=values["client_id"].strip(),
                          token_url=values["token_url"], device_url=values["device_url"],
                          scope=" ".join(scope.split()))


def mail_auth(raw: Mapping[str, Any]) -> tuple[str, OAuth2Settings | None]:
    """`mail.auth` and `mail.oauth2` of the `mail` mapping: ("password", None) or
    ("oauth2", settings); ConfigError listing every problem of the two."""
    auth = raw.get("auth", "password")
    problems: list[str] = []
    if auth not in AUTH_KINDS:
        problems.append(f"{_at(raw, 'auth')}mail: 'auth' must be password or oauth2, "
                        f"not {auth!r}")
    oauth2 = None
    if auth == "oauth2":
        if raw.get("oauth2") is None:
            problems.append(f"{_at(raw, 'auth')}mail: auth oauth2 needs a mail.oauth2 mapping "
                            "(provider and client_id at least)")
        else:
            try:
                oauth2 = oauth2_settings(raw["oauth2"])
            except ConfigError as error:
                problems.extend(error.problems)
    elif raw.get("oauth2") is not None and auth in AUTH_KINDS:
        problems.append(f"{_at(raw, 'oauth2')}mail: 'oauth2' is only read with "
                        "'auth: oauth2' (the passwords come from the environment otherwise)")
    if problems:
        raise ConfigError("mail", problems)
    return auth, oauth2


def tls_context(cafile: str | None) -> ssl.SSLContext:
    """Certificate and hostname checks against the system store, plus `cafile` if given.

    ssl.create_default_context(cafile=...) would trust *only* the cafile; a GM with a
    private CA for one server still wants public CAs for the other, so load both.
    """
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    if cafile:
        try:
            context.load_verify_locations(cafile=cafile)
        except (OSError, ssl.SSLError) as error:
            raise MailError(f"cannot read cafile {cafile}: {one_line(error)}",
                            cause="config") from None
    return context


def one_line(error: BaseException | str) -> str:
    """One line describing `error`, for MailError messages: whitespace runs made one space,
    and anything else a terminal would act on (escape sequences, other control characters,
    bidirectional overrides) shown as "?"."""
    text = " ".join(str(error).split()) or type(error).__name__
    return "".join(c if c.isprintable() else "?" for c in text)[:300]
