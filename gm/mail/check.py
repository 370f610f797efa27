"""`gm mail check`: log in to the campaign's IMAP and SMTP servers as `gm turn` would, look
at the folders it reads and fills, send nothing, and say per server what works and what
to do about what does not.

Each failure's advice comes from its cause (MailError.cause), never from matching the
server's words, which differ from server to server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .imap import ImapInbox
from .oauth import OAuthLogin, login_for
from .settings import MailError
from .smtpconnect import check_login
from .tokenfile import login_command

__all__ = ["Finding", "check_mail"]


@dataclass(frozen=True)
class Finding:
    """One line of the report: under `server`, what was found, and whether it is fine."""

    server: str
    ok: bool
    text: str
    heading: bool = False  # the line that says which server, and how gm logs in to it


def _advice(cause: str, server: str, oauth: bool, folder: Path) -> str:
    key = server.lower()
    if cause == "unreachable":
        return f"check mail.{key}.host and port, and that the server is up"
    if cause == "tls":
        ports = "993 is TLS from the first byte, 143 takes STARTTLS" if key == "imap" else \
            "465 is TLS from the first byte, 587 takes STARTTLS"
        return (f"check mail.{key}.ssl, starttls and port ({ports}), and cafile for a "
                "private certificate authority")
    if cause == "login":
        if oauth:
            return (f"check mail.{key}.user is the account you approved, or run "
                    f"{login_command(folder)} as that account")
        return f"check GM_{key.upper()}_PASSWORD and mail.{key}.user"
    if cause == "folder":
        return f"check mail.{key}.folder"
    return ""


def _failure(server: str, error: MailError, oauth: bool, folder: Path) -> Finding:
    advice = "" if error.cause == "token" else _advice(error.cause, server, oauth, folder)
    return Finding(server, False, str(error) + (f": {advice}" if advice else ""))


def _describe(settings: Any, oauth: bool) -> str:
    tls = "TLS" if settings.ssl else "STARTTLS" if settings.starttls else "no TLS"
    how = "OAuth 2.0" if oauth else "password"
    return (f"{settings.host}:{settings.effective_port}, {tls}, as {settings.user}, "
            f"by {how}")


def check_mail(folder: Path, mail: Any) -> list[Finding]:
    """What works and what does not, IMAP then SMTP; changes nothing on either server
    (the token file alone may get a renewed access token, as any gm turn would)."""
    folder = Path(folder)
    oauth = mail.auth == "oauth2"
    found: list[Finding] = []
    # One OAuthLogin for both servers: the token file is read once, and a token renewed
    # for IMAP is the one SMTP uses.
    login: OAuthLogin | None = None
    if oauth:
        login = OAuthLogin(folder, mail.oauth2)
        found.append(Finding("OAuth 2.0", True, f"provider {mail.oauth2.provider}, client "
                             f"{mail.oauth2.client_id}, token endpoint {mail.oauth2.token_url}",
                             heading=True))
        try:
            found.append(Finding("OAuth 2.0", True, login.status()))
        except MailError as error:
            found.append(Finding("OAuth 2.0", False, str(error)))

    imap = mail.imap
    found.append(Finding("IMAP", True, _describe(imap, oauth), heading=True))
    try:
        with ImapInbox(imap, login or login_for(folder, mail, "imap"), select=False) as inbox:
            found.append(Finding("IMAP", True, "logged in"))
            count = inbox.folder_messages(imap.folder)
            if count is None:
                found.append(Finding("IMAP", False, f"folder {imap.folder} does not exist: "
                                     "check mail.imap.folder (order mail is read from it)"))
            else:
                found.append(Finding("IMAP", True, f"folder {imap.folder} exists "
                                     f"({count} message{'s' if count != 1 else ''} waiting)"))
            processed = inbox.folder_messages(imap.processed_folder)
            if processed is None:
                found.append(Finding("IMAP", True, f"folder {imap.processed_folder} does not "
                                     "exist yet: gm creates it at the first ingest"))
            else:
                found.append(Finding("IMAP", True, f"folder {imap.processed_folder} exists"))
    except MailError as error:
        found.append(_failure("IMAP", error, oauth, folder))

    smtp = mail.smtp
    found.append(Finding("SMTP", True, _describe(smtp, oauth), heading=True))
    try:
        check_login(smtp, login or login_for(folder, mail, "smtp"))
        found.append(Finding("SMTP", True, "logged in (nothing was sent)"))
    except MailError as error:
        found.append(_failure("SMTP", error, oauth, folder))
    return found
