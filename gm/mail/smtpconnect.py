"""Reaching an SMTP server and logging in: the TLS context and host name every connection
of a send shares, a connection opened (SSL or STARTTLS, Nagle's algorithm off) and logged in
(a password, or AUTH XOAUTH2 with an OAuth 2.0 token), and a failure sorted into the one
retrying cannot cure (a login or certificate refused: Fatal) and the one it may."""

from __future__ import annotations

import smtplib
import socket
import ssl

from .credentials import TokenSource, clean, refused_advice, token_login
from .settings import MailError, SmtpSettings, one_line, plaintext_problem, tls_context
from .smtpwire import Connection, cert_error, xoauth2


class Fatal(Exception):
    """A connection failure that retrying cannot cure (AUTH refused, certificate refused)."""

    def __init__(self, message: str, cause: str = "other"):
        super().__init__(message)
        self.cause = cause


class Dialer:
    """How each connection of one send reaches `settings`' server and logs in with
    `password` (a TokenSource for OAuth 2.0); `prepare` first, once."""

    def __init__(self, settings: SmtpSettings, password: str | TokenSource | None):
        self.settings, self.password = settings, password
        self.where = f"SMTP {settings.host}:{settings.effective_port}"
        self.context: ssl.SSLContext | None = None
        self.local_hostname = ""

    def clean(self, text: str | bytes | BaseException) -> str:
        """One line of the server's or the library's words, the login's secrets scrubbed."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return clean(text, self.password)

    def prepare(self) -> None:
        """Set up what every connection shares (the TLS context, this host's name); a
        one-line MailError, before any byte goes out, for settings that would send the
        login in clear (settings made by code skip campaign.yaml's check)."""
        s = self.settings
        refusal = plaintext_problem(s)
        if refusal:
            raise MailError(f"{self.where}: {refusal}", cause="tls")
        self.context = tls_context(s.cafile) if (s.ssl or s.starttls) else None
        # getfqdn() can wait on DNS; smtplib would ask once per connection.
        self.local_hostname = socket.getfqdn() or "localhost"

    def first(self) -> Connection:
        """`prepare`, then connect: a one-line MailError at once on a wrong password, a
        refused certificate or no server."""
        self.prepare()
        try:
            return self.connect()
        except Fatal as fatal:
            raise MailError(str(fatal), cause=fatal.cause) from None
        except (smtplib.SMTPException, OSError) as error:
            raise MailError(f"{self.where}: cannot connect: {self.clean(str(error))}",
                            cause="unreachable") from None

    def login(self, smtp: smtplib.SMTP) -> None:
        """AUTH with the password, or AUTH XOAUTH2 with an access token; a token the
        server refuses is renewed and tried once more (revoked or expired early)."""
        user = self.settings.user
        if isinstance(self.password, str):
            smtp.login(user, self.password)
            return
        offered = smtp.esmtp_features.get("auth", "").upper().split()
        if "XOAUTH2" not in offered:
            raise smtplib.SMTPNotSupportedError(
                f"the server offers no AUTH XOAUTH2 (only {' '.join(offered) or 'no AUTH'}): "
                "it takes no OAuth 2.0 logins, or not before STARTTLS")
        token_login(self.password, lambda token: xoauth2(smtp, user, token),
                    smtplib.SMTPAuthenticationError)

    def open(self) -> smtplib.SMTP:
        s = self.settings
        if s.ssl:
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                s.host, s.effective_port, local_hostname=self.local_hostname,
                timeout=s.timeout, context=self.context)
        else:
            smtp = smtplib.SMTP(s.host, s.effective_port, local_hostname=self.local_hostname,
                                timeout=s.timeout)
        try:
            # Nagle's algorithm off (as asyncio has it): a message of more than a few KB
            # would otherwise end in a small segment held back for the server's delayed
            # ACK, 40 ms a message on a reused connection.
            smtp.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if s.starttls and not s.ssl:
                smtp.starttls(context=self.context)
            smtp.ehlo_or_helo_if_needed()
            if s.user is not None and self.password is not None:
                self.login(smtp)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def connect(self) -> Connection:
        """A connected, authenticated client; Fatal or OSError-like errors otherwise."""
        try:
            return Connection(self.open())
        except MailError:
            raise  # the OAuth token could not be had: already one line, cause and all
        except Exception as error:
            cert = cert_error(error)
            if cert is not None:
                raise Fatal(f"{self.where}: certificate refused: "
                            f"{cert.verify_message or one_line(cert)}", "tls") from None
            if isinstance(error, smtplib.SMTPAuthenticationError) and error.smtp_code >= 500:
                advice = refused_advice(self.password, "smtp")
                raise Fatal(f"{self.where}: login as {self.settings.user} refused: "
                            f"{error.smtp_code} "
                            f"{self.clean(error.smtp_error)}{advice}",
                            "login") from None
            if isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500:
                raise Fatal(f"{self.where}: {error.smtp_code} "
                            f"{self.clean(error.smtp_error)}") from None
            if isinstance(error, smtplib.SMTPNotSupportedError):
                raise Fatal(f"{self.where}: {self.clean(error)}", "login") from None
            if isinstance(error, ssl.SSLError):
                raise Fatal(f"{self.where}: TLS failed: {self.clean(error)}",
                            "tls") from None
            raise


def check_login(settings: SmtpSettings, password: str | TokenSource) -> None:
    """Connect, STARTTLS and log in exactly as a send does, then QUIT, sending nothing
    (`gm mail check`); a one-line MailError, with its cause, when any step fails."""
    Dialer(settings, password).first().quit()
