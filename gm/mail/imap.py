"""Order mail in over IMAP: list, fetch in batches, and move what was handled aside.

The cost of IMAP is round trips, not bytes (one UID FETCH per message is ~12x slower than
500 per command), so every FETCH and MOVE here covers a whole batch of UIDs.

Exactly-once is the caller's half of the bargain: for each fetched message, record
(uidvalidity, uid) in the database and commit, *then* call move_processed. A connection
lost anywhere in between loses nothing (the mail is still in the folder) and doubles
nothing (the rerun skips the recorded uids and moves them again):

    with ImapInbox(settings, password) as inbox:
        seen = store.recorded_uids(inbox.uidvalidity)
        for batch in inbox.fetch(inbox.uids(skip=seen)):
            store.record(inbox.uidvalidity, batch)   # commit
            inbox.move_processed([m.uid for m in batch])
        inbox.move_processed(sorted(seen & set(inbox.uids())))  # left by an earlier crash

If the folder's UIDVALIDITY changes, every uid recorded under the old value means
nothing; the caller must then fall back on something else (e.g. Message-ID) to dedupe.
"""

from __future__ import annotations

import contextlib
import imaplib
import socket
import ssl
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from .credentials import TokenSource, clean, refused_advice, token_login
from .settings import ImapSettings, MailError, one_line, plaintext_problem, tls_context

__all__ = ["Fetched", "ImapInbox", "uid_set"]


@dataclass(frozen=True)
class Fetched:
    uid: int
    raw: bytes
    internaldate: datetime  # timezone-aware: the server's time of receipt (CONTRACT.md)


def uid_set(uids: Sequence[int]) -> str:
    """A compact IMAP sequence set for exactly these uids ("3:7,9"), runs written as ranges.

    A range a:b is only written when every uid in it was asked for, so it can never
    name a message the caller did not list.
    """
    ordered = sorted(set(uids))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}:{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def _batches(uids: Sequence[int], size: int) -> Iterator[list[int]]:
    ordered = sorted(set(uids))
    for start in range(0, len(ordered), size):
        yield ordered[start:start + size]


# Everything imapclient, imaplib, ssl and sockets raise when a server is gone or says no.
_FAILURES = (IMAPClientError, OSError, EOFError, imaplib.IMAP4.error)


class ImapInbox:
    """One logged-in IMAP connection with `settings.folder` selected; a context manager.

    `login` is the password, or a TokenSource for OAuth 2.0 (SASL XOAUTH2). Every failure
    (refused connection, TLS check, login, a connection lost mid-batch) surfaces as a
    one-line MailError that never contains the password or a token.
    """

    def __init__(self, settings: ImapSettings, login: str | TokenSource, *, batch: int = 500,
                 timeout: float | None = None, limit: int | None = None,
                 select: bool = True):
        if batch < 1:
            raise ValueError("batch must be at least 1")
        self.settings = settings
        self.batch = batch
        self.limit = limit  # the most bytes of one message fetch() reads; None: all
        self.timeout = settings.timeout if timeout is None else timeout
        self._login = login
        self.select = select  # False: log in only (gm mail check looks at the folders itself)
        self.client: IMAPClient | None = None
        self.uidvalidity: int = 0
        self._processed_ready = False

    # --- connection -----------------------------------------------------------------

    def __enter__(self) -> ImapInbox:
        self.connect()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def where(self) -> str:
        return f"{self.settings.host}:{self.settings.effective_port}"

    def connect(self) -> None:
        s = self.settings
        refusal = plaintext_problem(s)
        if refusal:  # before any byte goes out: settings made by code skip campaign.yaml's check
            raise MailError(f"IMAP {self.where}: {refusal}", cause="tls")
        context = tls_context(s.cafile) if (s.ssl or s.starttls) else None
        try:
            client = IMAPClient(s.host, port=s.effective_port, ssl=s.ssl, ssl_context=context,
                                timeout=self.timeout)
        except ssl.SSLCertVerificationError as error:
            raise MailError(f"IMAP {self.where}: certificate refused: "
                            f"{error.verify_message or one_line(error)}", cause="tls") from None
        except ssl.SSLError as error:
            raise MailError(f"IMAP {self.where}: TLS failed: {self._clean(error)}",
                            cause="tls") from None
        except (socket.gaierror, OSError, *_FAILURES) as error:
            raise MailError(f"IMAP {self.where}: cannot connect: {self._clean(error)}",
                            cause="unreachable") from None
        # INTERNALDATE as the server sent it, timezone included; never the machine's zone.
        client.normalise_times = False
        self.client = client
        try:
            if s.starttls and not s.ssl:  # already TLS from the first byte: ssl wins
                client.starttls(context)
        except ssl.SSLCertVerificationError as error:
            self._drop()
            raise MailError(f"IMAP {self.where}: certificate refused: "
                            f"{error.verify_message or one_line(error)}", cause="tls") from None
        except (ssl.SSLError, *_FAILURES) as error:
            self._drop()
            raise MailError(f"IMAP {self.where}: STARTTLS failed: {self._clean(error)}",
                            cause="tls") from None
        try:
            self._authenticate(client)
        except LoginError as error:
            self._drop()
            raise MailError(f"IMAP {self.where}: login as {s.user} refused: "
                            f"{self._clean(error)}{refused_advice(self._login, 'imap')}",
                            cause="login") from None
        except MailError:
            self._drop()
            raise
        except _FAILURES as error:
            self._drop()
            raise MailError(f"IMAP {self.where}: {self._clean(error)}") from None
        if not self.select:
            return
        try:
            selected = client.select_folder(s.folder)
        except _FAILURES as error:
            self._drop()
            cause = "folder" if "select" in str(error).lower() else "other"
            raise MailError(f"IMAP {self.where}: cannot open folder {s.folder}: "
                            f"{self._clean(error)}", cause=cause) from None
        self.uidvalidity = int(selected[b"UIDVALIDITY"])

    def _authenticate(self, client: IMAPClient) -> None:
        """LOGIN with the password, or AUTHENTICATE XOAUTH2 with an access token; a token
        the server refuses is renewed and tried once more (it may have been revoked or
        expired early), and a second refusal is the server's last word."""
        user = self.settings.user
        if isinstance(self._login, str):
            client.login(user, self._login)
            return
        if not client.has_capability("AUTH=XOAUTH2"):
            raise MailError(f"IMAP {self.where}: the server offers no AUTHENTICATE XOAUTH2, so "
                            "it takes no OAuth 2.0 logins (check mail.imap.host and port)",
                            cause="login")
        token_login(self._login, lambda token: client.oauth2_login(user, token), LoginError)

    def close(self) -> None:
        if self.client is None:
            return
        try:
            self.client.logout()
        except _FAILURES:
            pass  # already gone; nothing left to tidy on a dead connection
        finally:
            self._drop()

    def _drop(self) -> None:
        if self.client is not None:
            with contextlib.suppress(_FAILURES):
                self.client.shutdown()
            self.client = None

    def _clean(self, error: BaseException) -> str:
        text = str(error).strip() or type(error).__name__
        if text.startswith(("b'", 'b"')):  # imaplib hands over the server's bytes repr
            text = text[2:-1]
        return clean(text, self._login)

    def _client(self) -> IMAPClient:
        if self.client is None:
            raise MailError(f"IMAP {self.where}: not connected")
        return self.client

    def _failed(self, doing: str, error: BaseException) -> MailError:
        """A lost connection cannot be resumed mid-command: drop it and say what failed."""
        self._drop()
        return MailError(f"IMAP {self.where}: {doing} failed: {self._clean(error)}")

    def folder_messages(self, folder: str) -> int | None:
        """How many messages `folder` holds, or None when there is no such folder (for
        `gm mail check`, which opens nothing and changes nothing)."""
        client = self._client()
        try:
            if not client.folder_exists(folder):
                return None
            return int(client.folder_status(folder, [b"MESSAGES"])[b"MESSAGES"])
        except _FAILURES as error:
            raise self._failed(f"STATUS of {folder}", error) from None

    # --- the three operations -------------------------------------------------------

    def uids(self, *, skip: Collection[int] = ()) -> list[int]:
        """Every UID in the folder (one UID SEARCH ALL), ascending, less those in `skip`."""
        try:
            found = self._client().search("ALL")
        except _FAILURES as error:
            raise self._failed("UID SEARCH", error) from None
        return sorted(uid for uid in found if uid not in skip)

    def fetch(self, uids: Sequence[int]) -> Iterator[list[Fetched]]:
        """The messages, `batch` at a time: one UID FETCH per batch, in ascending UID order.

        A uid that is gone (moved or expunged by someone else meanwhile) is left out.
        BODY.PEEK keeps the \\Seen flag as it was, so a mail program still shows it new.
        With a `limit`, only a message's first `limit` bytes are fetched (a partial FETCH,
        RFC 3501 6.4.5), so a huge message costs no more memory than that.
        """
        item = b"BODY.PEEK[]" if self.limit is None else b"BODY.PEEK[]<0.%d>" % self.limit
        answer = b"BODY[]" if self.limit is None else b"BODY[]<0>"
        for chunk in _batches(uids, self.batch):
            try:
                # A list, not uid_set(): imapclient matches the answer against the ids given.
                found = self._client().fetch(chunk, [item, b"INTERNALDATE"])
            except _FAILURES as error:
                raise self._failed(f"UID FETCH of {len(chunk)} messages", error) from None
            wanted = set(chunk)
            yield [
                Fetched(uid=uid, raw=found[uid][answer],
                        internaldate=found[uid][b"INTERNALDATE"])
                for uid in sorted(found)
                if uid in wanted and answer in found[uid]
            ]

    def move_processed(self, uids: Sequence[int]) -> None:
        """Move the messages to settings.processed_folder (created if missing): one UID
        MOVE per batch. Nothing is ever deleted; a GM can move mail back to re-ingest it."""
        client = self._client()
        target = self.settings.processed_folder
        try:
            if not self._processed_ready:
                if not client.folder_exists(target):
                    client.create_folder(target)
                self._processed_ready = True
            can_move = client.has_capability("MOVE")
            if not can_move and not client.has_capability("UIDPLUS"):
                raise MailError(f"IMAP {self.where}: the server offers neither MOVE nor "
                                "UIDPLUS, so mail cannot be moved aside safely")
            for chunk in _batches(uids, self.batch):
                if can_move:
                    client.move(uid_set(chunk), target)
                else:
                    # COPY, then expunge exactly these uids (UIDPLUS), never other
                    # messages someone else marked \Deleted.
                    client.copy(uid_set(chunk), target)
                    client.add_flags(uid_set(chunk), [b"\\Deleted"], silent=True)
                    client.uid_expunge(uid_set(chunk))
        except _FAILURES as error:
            raise self._failed(f"UID MOVE to {target}", error) from None
