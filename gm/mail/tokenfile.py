"""The campaign's OAuth 2.0 token file, `oauth2-token.json`, and what a token may be.

It is the only place a token lives: created with mode 0600 from its first byte (os.open
with 0o600, never a chmod after), replaced whole (a new file, then rename), and refused
when others may read it. It holds the refresh token and the last access token with its
expiry, and says which client and token endpoint they belong to, so that a campaign.yaml
pointing elsewhere is told to log in again rather than sending a token to the wrong server.
It is read only when it is a regular file of less than 64 KiB, opened without blocking (a
FIFO put in its place neither hangs gm nor gets read). A token a provider sends is checked
here (token_problem) before anything of it is kept.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .credentials import clean
from .settings import MailError

TOKEN_FILE = "oauth2-token.json"
# Far above any token file gm writes (a few KB: two tokens of at most TOKEN_LIMIT each and
# a scope), so a bigger file is not one of gm's and is never read whole.
FILE_LIMIT = 64 * 1024
TOKEN_LIMIT = 16 * 1024  # characters of one token (Microsoft's JWTs run to a few thousand)
LIFETIME_LIMIT = 366 * 86400  # seconds: an access token said to last longer is not believed


def login_command(folder: Path) -> str:
    """The command that makes (or remakes) the campaign's token file."""
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
        if (not isinstance(record, dict) or token_problem(record, refresh_required=True)
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
BEARER = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def visible(value: Any, limit: int) -> bool:
    """Whether `value` is text of 1 to `limit` visible ASCII characters (no space, no
    control character): what an opaque token or code can be, sent back as it came."""
    return (isinstance(value, str) and 0 < len(value) <= limit
            and all("!" <= c <= "~" for c in value))


def seconds(value: Any, low: float, high: float) -> float | None:
    """`value` as a number of seconds when it is one (a JSON number, or digits as some
    providers send) between `low` and `high`; None otherwise (NaN, infinity, 1e300...)."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or not low <= value <= high:
        return None
    return float(value)


def token_problem(answer: Mapping[str, Any], *, refresh_required: bool = False) -> str | None:
    """What is wrong with a token answer (RFC 6749 5.1) or the record gm keeps of one, in a
    few words that quote nothing of it; None when gm can use and keep it."""
    access = answer.get("access_token")
    if not isinstance(access, str) or not access:
        return "access_token is missing or not text"
    if len(access) > TOKEN_LIMIT or not BEARER.fullmatch(access):
        return "access_token is not a bearer token (RFC 6750)"
    refresh = answer.get("refresh_token")
    if refresh is not None and not visible(refresh, TOKEN_LIMIT):
        return "refresh_token is not a token (visible characters, at most 16 KiB)"
    if refresh is None and refresh_required:
        return "refresh_token is missing"
    if "expires_in" in answer and answer["expires_in"] is not None and \
            seconds(answer["expires_in"], 1, LIFETIME_LIMIT) is None:
        return "expires_in is not a number of seconds between 1 and a year"
    expires_at = answer.get("expires_at")
    if expires_at is not None and not isinstance(expires_at, str) and \
            seconds(expires_at, 0, 1e11) is None:
        return "expires_at is not a time"
    if answer.get("token_type") is not None and not isinstance(answer["token_type"], str):
        return "token_type is not text"
    scope = answer.get("scope")
    if scope is not None and not (isinstance(scope, str) and len(scope) <= 4096
                                  and scope.isprintable()):
        return "scope is not one line of text"
    return None
