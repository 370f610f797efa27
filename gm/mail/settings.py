"""The `mail.imap` and `mail.smtp` sections of campaign.yaml, checked, and the mail errors.

Everything a GM can get wrong in these sections is reported at once, key by key with its
line (ConfigError), before any connection is tried. Passwords never live in the file:
they come from GM_IMAP_PASSWORD and GM_SMTP_PASSWORD.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gm.errors import ConfigError, GmError
from gm.yamlfile import LineDict, is_int, key_problems

__all__ = [
    "ImapSettings",
    "MailError",
    "one_line",
    "SmtpSettings",
    "imap_password",
    "imap_settings",
    "password_from_env",
    "smtp_password",
    "smtp_settings",
    "tls_context",
]


class MailError(GmError):
    """A mail server could not be reached or refused us; the message is one line, no secrets."""


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

    @property
    def effective_port(self) -> int:
        if self.port is not None:
            return self.port
        return 465 if self.ssl else 587 if self.starttls else 25


_IMAP_KEYS = ("host", "port", "user", "ssl", "starttls", "folder", "processed_folder", "cafile",
              "timeout")
_SMTP_KEYS = ("host", "port", "user", "ssl", "starttls", "cafile", "connections", "timeout")

# What each key must hold, as (test, description for the problem line).
_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": (lambda v: isinstance(v, str) and v != "", "non-empty text"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "count": (lambda v: is_int(v) and v > 0, "positive integer"),
    "seconds": (lambda v: (is_int(v) or isinstance(v, float)) and v > 0, "positive number"),
}
_KIND_OF = {"host": "text", "user": "text", "folder": "text", "processed_folder": "text",
            "cafile": "text", "port": "count", "connections": "count", "ssl": "flag",
            "starttls": "flag", "timeout": "seconds"}


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
    return ImapSettings(**given)


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
    return SmtpSettings(**given)


def password_from_env(name: str, *, environ: Mapping[str, str] | None = None) -> str:
    """The password in environment variable `name`; a one-line MailError when it is unset."""
    value = (os.environ if environ is None else environ).get(name)
    if not value:
        raise MailError(f"{name} is not set: put the mail password in the environment")
    return value


def imap_password(*, environ: Mapping[str, str] | None = None) -> str:
    return password_from_env("GM_IMAP_PASSWORD", environ=environ)


def smtp_password(*, environ: Mapping[str, str] | None = None) -> str:
    return password_from_env("GM_SMTP_PASSWORD", environ=environ)


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
            raise MailError(f"cannot read cafile {cafile}: {one_line(error)}") from None
    return context


def one_line(error: BaseException | str) -> str:
    """One line describing `error`, for MailError messages."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:300]
