"""A mail login's credentials: the passwords and the OAuth client secret, which come from
the environment and never from campaign.yaml; an OAuth 2.0 access token's source
(TokenSource, gm.mail.oauth's) and a token the server refuses renewed once; and every
secret scrubbed from what a server, a provider or an exception says before the GM sees it."""

from __future__ import annotations

import base64
import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol
from urllib.parse import quote, quote_plus

from .settings import MailError, one_line


class TokenSource(Protocol):
    """What an IMAP or SMTP login asks for an OAuth 2.0 access token (gm.mail.oauth).

    `access_token()` is a token believed good; `access_token(refused=token)` is called
    when the server refused `token`, and returns a renewed one (refreshed once, however
    many connections were refused the same token). Either raises MailError(cause="token")
    when no token can be had: the GM must run `gm mail login`.
    """

    def access_token(self, *, refused: str | None = None) -> str: ...

    def secrets(self) -> tuple[str, ...]:
        """Every token handed out and the client secret: what scrub() hides."""
        ...


Secrets = str | TokenSource | Iterable[str | None] | None


def _secrets(login: Secrets) -> tuple[str, ...]:
    if login is None:
        return ()
    if isinstance(login, str):
        return (login,)
    if hasattr(login, "secrets"):
        return tuple(login.secrets())
    return tuple(secret for secret in login if secret)


@functools.lru_cache(maxsize=64)  # an SMTP run scrubs each message's detail with the same few
def secret_forms(secret: str) -> frozenset[str]:
    """Every way `secret` may come back in a server's words: as it is, URL-encoded (a token
    endpoint echoing its form body), and base64-encoded inside anything longer, as it is
    or URL-encoded (an IMAP or SMTP server echoing the SASL XOAUTH2 or PLAIN string it was
    sent, a provider its request body).

    Base64 turns 3 bytes into 4 characters, so the secret's characters in the encoding of
    a longer string depend on where it starts, modulo 3: for each of the three offsets,
    the run of characters made of the secret's bits alone is a form. Forms shorter than
    six characters are left out (they would blot out unrelated words)."""
    texts = {secret}
    if len(secret) < 5:
        return frozenset(texts)
    for quoted in (quote(secret, safe=""), quote_plus(secret, safe="")):
        texts |= {quoted, re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quoted)}
    forms = set(texts)
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            for shift in range(3):
                coded = encode(b"\0" * shift + data).decode("ascii")
                core = coded[-(-8 * shift // 6):(8 * (shift + len(data))) // 6]
                if len(core) >= 6:
                    forms.add(core)
    return frozenset(forms)


def scrub(text: str, login: Secrets) -> str:
    """`text` with every secret as ***: the password, or every token and the client secret
    the TokenSource knows (or the strings given), each in every form secret_forms() names.
    No text a server or provider words (it may echo what it was sent) carries one to the
    GM's screen, a log or a stored detail."""
    forms = set().union(*(secret_forms(secret) for secret in _secrets(login) if secret))
    if not forms:
        return text
    pattern = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.sub(pattern, "***", text)


def clean(text: BaseException | str, login: Secrets) -> str:
    """What a server, a provider or an exception said, fit to show: every secret scrubbed
    (before one_line shortens it, so no secret is cut in two and half of it kept), on one
    line, no control or escape characters."""
    words = str(text)
    if not words.strip():
        return type(text).__name__ if isinstance(text, BaseException) else ""
    return one_line(scrub(words, login))


def token_login(source: TokenSource, login: Callable[[str], None],
                refused: type[BaseException] | tuple[type[BaseException], ...]) -> None:
    """`login(token)` with an access token; a token the server refuses (`refused` raised)
    is renewed and tried once more (it may have been revoked or expired early), and a
    second refusal is the server's last word."""
    token = source.access_token()
    try:
        login(token)
    except refused:
        login(source.access_token(refused=token))


def refused_advice(login: str | TokenSource | None, server: str) -> str:
    """What to add to a login refused on `server` ("imap", "smtp"): with OAuth the token
    was renewed and refused again, so the account or scope is wrong, not the token."""
    if isinstance(login, str):
        return ""
    return (f" (a fresh OAuth token was refused too: check that mail.{server}.user is the "
            "account you logged in as, and mail.oauth2.scope)")


def client_secret(*, environ: Mapping[str, str] | None = None) -> str | None:
    """GM_OAUTH_CLIENT_SECRET, for providers that give the registered client a secret
    (Google's do; a Microsoft public client has none): None when unset."""
    return (os.environ if environ is None else environ).get("GM_OAUTH_CLIENT_SECRET") or None


def password_from_env(name: str, *, environ: Mapping[str, str] | None = None) -> str:
    """The password in environment variable `name`; a one-line MailError when it is unset."""
    value = (os.environ if environ is None else environ).get(name)
    if not value:
        raise MailError(f"{name} is not set: put the mail password in the environment",
                        cause="login")
    return value


def imap_password(*, environ: Mapping[str, str] | None = None) -> str:
    return password_from_env("GM_IMAP_PASSWORD", environ=environ)


def smtp_password(*, environ: Mapping[str, str] | None = None) -> str:
    return password_from_env("GM_SMTP_PASSWORD", environ=environ)
