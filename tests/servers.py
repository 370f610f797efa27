"""Real mail servers for the tests: a private Dovecot (IMAP) and an aiosmtpd (SMTP) server.

Fixtures (registered by conftest.py):

* `tls_ca` (session): a trustme CA; `tls_ca.cafile` is its PEM, for `cafile:` settings.
* `dovecot` (session): a private Dovecot in the foreground, plain IMAP with STARTTLS on
  `dovecot.port`, implicit TLS on `dovecot.ssl_port`; `stop()` / `start()` for outage tests.
* `imap_account`: a fresh Dovecot user per test (its own empty Maildir), with helpers to
  APPEND raw mail, list and count a folder, and build ImapSettings for it.
* `smtp_server`: aiosmtpd with STARTTLS and AUTH required, recording each message it
  accepted; set `smtp_server.faults` fields to inject failures. `smtps_server`: the same
  with implicit TLS.
* `token_server` (session): a local OAuth 2.0 server on 127.0.0.1 (device authorization,
  tokens with refresh, expiry by gm's clock, revocation, introspection), written with
  http.server; tests drive it (`approve`, `deny`, `expire_access_tokens`, `revoke`,
  `slow_down`). `reset_token_server` empties it for a test.
* `dovecot_oauth` (session): a second private Dovecot whose only passdb is `oauth2`,
  checking each XOAUTH2 token at the token server's introspection endpoint.
  `oauth_account`: a fresh user of it per test. `smtp_oauth_server`: aiosmtpd that takes
  AUTH XOAUTH2 alone, checking tokens with the token server.
* Hostile servers, as an attacker would run them: `token_server.misbehave(path, answer)`
  makes an endpoint answer whatever the test says (`answer(form)` returns the status and
  a JSON value); `smtp_oauth_server.handler.echo = True` words every AUTH refusal with
  what the client sent; `echo_imap`: an IMAP server on 127.0.0.1 (no TLS) that refuses
  every login, echoing what it was sent (the XOAUTH2 string in base64, decoded and
  URL-encoded, or the password).

The servers are also usable outside pytest (benchmarks/): `start_dovecot(root, ca)`,
`SmtpServer(...)`, `serve_smtp_forever(...)`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import MISSING, AuthResult, Envelope, Session
from imapclient import IMAPClient

from gm import clock
from gm.mail.settings import ImapSettings, OAuth2Settings, SmtpSettings

# aiosmtpd logs a deprecation line on every AUTH; thousands of them drown test output.
logging.getLogger("mail.log").setLevel(logging.ERROR)

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, *, timeout: float = 10.0, process: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"server exited with status {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=0.5):
            return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listening on {HOST}:{port} after {timeout} s")


# --- TLS ------------------------------------------------------------------------------


@dataclass
class TlsFiles:
    """A private CA and a server certificate for 127.0.0.1 / localhost, as files."""

    ca: trustme.CA
    cafile: str
    cert_chain: str
    key: str

    @classmethod
    def create(cls, folder: Path) -> TlsFiles:
        folder.mkdir(parents=True, exist_ok=True)
        ca = trustme.CA()
        server = ca.issue_cert(HOST, "localhost")
        files = cls(ca, str(folder / "ca.pem"), str(folder / "cert.pem"), str(folder / "key.pem"))
        ca.cert_pem.write_to_path(files.cafile)
        server.private_key_pem.write_to_path(files.key)
        with open(files.cert_chain, "wb") as out:
            for blob in server.cert_chain_pems:
                out.write(blob.bytes())
        os.chmod(folder, 0o755)
        for path in (files.cafile, files.cert_chain, files.key):
            os.chmod(path, 0o644)  # Dovecot reads them as root, but keep the tree readable
        return files

    def server_context(self):
        import ssl

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert_chain, self.key)
        return context


@pytest.fixture(scope="session")
def tls_ca(tmp_path_factory) -> TlsFiles:
    return TlsFiles.create(tmp_path_factory.mktemp("tls"))


# --- Dovecot --------------------------------------------------------------------------

_DOVECOT_CONF = """\
instance_name = gm-test-{tag}
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/log/dovecot.log
info_log_path = {root}/log/info.log
protocols = imap
listen = 127.0.0.1
default_login_user = dovenull
default_internal_user = dovecot
default_internal_group = dovecot
first_valid_uid = 65534
first_valid_gid = 65534
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:~/Maildir
mail_max_userip_connections = 200
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
ssl_dh = </usr/share/dovecot/dh.pem
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/passwd
}}
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {ssl_port}
    ssl = yes
  }}
}}
"""


@dataclass
class Dovecot:
    """A private Dovecot run in the foreground; the process is ours, so SIGTERM stops it."""

    root: Path
    conf: Path
    port: int
    ssl_port: int
    tls: TlsFiles
    process: subprocess.Popen | None = None
    _spare: list[tuple[str, str]] = field(default_factory=list)

    def start(self) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        log = open(self.root / "log" / "foreground.log", "ab")  # noqa: SIM115 - kept by Popen
        self.process = subprocess.Popen(
            ["dovecot", "-F", "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so stop() can end its children
        )
        log.close()
        _wait_for_port(self.port, process=self.process)
        _wait_for_port(self.ssl_port, process=self.process)

    def stop(self) -> None:
        """Stop the server and wait: connections to it drop at once.

        SIGTERM to the master alone leaves running imap processes serving their clients
        for a while, so the whole process group we started gets SIGTERM too.
        """
        if self.process is None or self.process.poll() is not None:
            return
        group = os.getpgid(self.process.pid)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)

    def add_user(self) -> tuple[str, str]:
        """A user of its own with an empty Maildir, for one test.

        Users are written before the server starts: Dovecot re-reads a changed passwd-file
        at most once a second, so a user appended mid-session may be refused for a while.
        """
        if not self._spare:
            raise RuntimeError("no spare Dovecot users left; raise start_dovecot(users=...)")
        return self._spare.pop(0)

    def log(self) -> str:
        return (self.root / "log" / "dovecot.log").read_text(errors="replace")


def start_dovecot(root: Path, tls: TlsFiles, *, users: int = 200) -> Dovecot:
    """Configure and start a private Dovecot under `root` (created, mode 0755), with
    `users` users user1..userN (password "secret-N"), each with an empty Maildir."""
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)  # the auth process runs as user dovecot and must reach passwd
    for sub in ("run", "state", "log", "home"):
        (root / sub).mkdir(exist_ok=True)
    spare = []
    with open(root / "passwd", "w") as passwd:
        for n in range(1, users + 1):
            name, password = f"user{n}", f"secret-{n}"
            home = root / "home" / name
            home.mkdir()
            os.chown(home, 65534, 65534)
            passwd.write(f"{name}:{{PLAIN}}{password}:65534:65534::{home}::\n")
            spare.append((name, password))
    os.chmod(root / "passwd", 0o644)
    port, ssl_port = free_port(), free_port()
    conf = root / "dovecot.conf"
    conf.write_text(_DOVECOT_CONF.format(
        tag=f"{os.getpid()}-{port}", root=root, cert=tls.cert_chain, key=tls.key,
        port=port, ssl_port=ssl_port,
    ))
    server = Dovecot(root=root, conf=conf, port=port, ssl_port=ssl_port, tls=tls, _spare=spare)
    server.start()
    return server


@pytest.fixture(scope="session")
def dovecot(tmp_path_factory, tls_ca) -> Iterator[Dovecot]:
    yield from _private_dovecot("gm-dovecot-", lambda root: start_dovecot(root, tls_ca))


def _private_dovecot(prefix: str, start: Callable[[Path], Dovecot]) -> Iterator[Dovecot]:
    """A session's Dovecot in a folder of its own, stopped and removed at the end; a
    missing Dovecot skips the test, or fails it in CI."""
    if shutil.which("dovecot") is None:
        message = ("dovecot is not installed: apt-get install -y dovecot-imapd "
                   "(IMAP tests need a real server)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    # Not under pytest's tmp_path: its parents are mode 0700 and Dovecot's auth process
    # (user dovecot) must reach the passwd file.
    root = Path(tempfile.mkdtemp(prefix=prefix))
    server = start(root)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class ImapAccount:
    """One Dovecot user of a test, with helpers that use imapclient directly (not gm)."""

    server: Dovecot
    user: str
    password: str

    def settings(self, **overrides) -> ImapSettings:
        """STARTTLS on the plain port, trusting the test CA; override any field."""
        fields = dict(host=HOST, port=self.server.port, user=self.user, ssl=False,
                      starttls=True, cafile=self.server.tls.cafile, timeout=10.0)
        fields.update(overrides)
        return ImapSettings(**fields)

    def ssl_settings(self, **overrides) -> ImapSettings:
        fields = dict(port=self.server.ssl_port, ssl=True, starttls=False)
        fields.update(overrides)
        return self.settings(**fields)

    @contextlib.contextmanager
    def client(self) -> Iterator[IMAPClient]:
        client = IMAPClient(HOST, port=self.server.port, ssl=False, timeout=30)
        client.normalise_times = False
        client.login(self.user, self.password)
        try:
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.logout()

    def append(self, raws: Iterable[bytes], *, folder: str = "INBOX",
               msg_time: datetime | None = None) -> None:
        """APPEND each raw mail (one command each, as a mail server delivering would)."""
        with self.client() as client:
            if not client.folder_exists(folder):
                client.create_folder(folder)
            for raw in raws:
                client.append(folder, raw, msg_time=msg_time)

    def uids(self, folder: str = "INBOX") -> list[int]:
        with self.client() as client:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            return sorted(client.search("ALL"))

    def count(self, folder: str = "INBOX") -> int:
        return len(self.uids(folder))

    def bodies(self, folder: str = "INBOX") -> list[bytes]:
        with self.client() as client:
            client.select_folder(folder, readonly=True)
            found = client.fetch(client.search("ALL"), [b"BODY.PEEK[]"])
            return [found[uid][b"BODY[]"] for uid in sorted(found)]

    def folder_exists(self, folder: str) -> bool:
        with self.client() as client:
            return client.folder_exists(folder)


@pytest.fixture
def imap_account(dovecot) -> ImapAccount:
    dovecot.start()  # a test that stopped it and failed must not break the next ones
    user, password = dovecot.add_user()
    return ImapAccount(dovecot, user, password)


# --- aiosmtpd -------------------------------------------------------------------------


@dataclass
class Faults:
    """Failures the SMTP server injects; set fields inside a test.

    * drop_after: on every connection, accept this many messages, then close the
      connection at the next DATA without accepting (the client sees a disconnect).
    * drops_left: how many such drops in all (None: every connection, forever).
    * tempfail_once: addresses answered "451" at their first RCPT, "250" afterwards.
    * reject: addresses always answered "550 5.1.1" at RCPT.
    * reject_sender: MAIL FROM answered "553 5.7.1" (a sender the server will not relay).
    * stall_once: addresses whose first RCPT gets no answer for `stall_seconds` (then
      451), so a client with a shorter timeout gives up on that connection.
    * accepted_reply: what an accepted DATA is answered (default "250 OK queued"), for a
      server that words its 250 with whatever it likes.
    """

    drop_after: int | None = None
    drops_left: int | None = None
    tempfail_once: set[str] = field(default_factory=set)
    reject: set[str] = field(default_factory=set)
    reject_sender: bool = False
    stall_once: set[str] = field(default_factory=set)
    stall_seconds: float = 5.0
    accepted_reply: str = "250 OK queued"


@dataclass(frozen=True)
class Received:
    sender: str
    recipients: tuple[str, ...]
    data: bytes
    connection: int  # which connection (session) carried it, numbered from 1


class RecordingHandler:
    """Records each accepted message; every hook returns a status string, never None."""

    def __init__(self, *, user: str, password: str, record: bool = True):
        self.user, self.password = user.encode(), password.encode()
        self.record = record
        self.faults = Faults()
        self.received: list[Received] = []
        self.accepted = 0
        self.rcpt_attempts: dict[str, int] = {}
        self.auth_attempts = 0
        self._sessions: dict[int, int] = {}  # id(session) -> connection number
        self._per_connection: dict[int, int] = {}

    @property
    def connections(self) -> int:
        return len(self._sessions)

    def _connection(self, session: Session) -> int:
        return self._sessions.setdefault(id(session), len(self._sessions) + 1)

    def authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        self.auth_attempts += 1
        ok = (getattr(auth_data, "login", None) == self.user
              and getattr(auth_data, "password", None) == self.password)
        # handled=False: aiosmtpd itself then answers 235 or 535 (with the default
        # handled=True a refused client would wait for an answer that never comes).
        return AuthResult(success=ok, handled=False)

    async def handle_MAIL(self, server, session, envelope: Envelope, address: str, options):
        if self.faults.reject_sender:
            return "553 5.7.1 Sender address not allowed"
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope: Envelope, address: str, options):
        self._connection(session)
        self.rcpt_attempts[address] = self.rcpt_attempts.get(address, 0) + 1
        if address in self.faults.reject:
            return "550 5.1.1 No such user here"
        if address in self.faults.stall_once:
            self.faults.stall_once.discard(address)
            await asyncio.sleep(self.faults.stall_seconds)
            return "451 4.4.2 Stalled"
        if address in self.faults.tempfail_once:
            self.faults.tempfail_once.discard(address)
            return "451 4.7.1 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session: Session, envelope: Envelope):
        number = self._connection(session)
        done = self._per_connection.get(number, 0)
        faults = self.faults
        if (faults.drop_after is not None and done >= faults.drop_after
                and faults.drops_left != 0):
            if faults.drops_left is not None:
                faults.drops_left -= 1
            server.transport.close()  # before accepting: this message was not delivered
            return "421 4.3.0 Closing connection"
        self._per_connection[number] = done + 1
        self.accepted += 1
        if self.record:
            self.received.append(Received(envelope.mail_from, tuple(envelope.rcpt_tos),
                                          envelope.original_content or envelope.content,
                                          number))
        return faults.accepted_reply


class SmtpServer:
    """aiosmtpd on 127.0.0.1 with STARTTLS and AUTH required, in a thread of this process."""

    def __init__(self, tls: TlsFiles, *, user: str = "gm", password: str = "smtp-secret",
                 port: int = 0, record: bool = True, implicit_tls: bool = False,
                 oauth: TokenServer | None = None):
        self.tls = tls
        self.user, self.password = user, password
        self.implicit_tls = implicit_tls
        # oauth: AUTH XOAUTH2 alone, each token checked with the token server, as
        # Microsoft's and Google's submission servers take no password
        self.handler = (RecordingHandler(user=user, password=password, record=record)
                        if oauth is None else
                        XOAuth2Handler(oauth, user=user, password=password, record=record))
        oauth_only = {} if oauth is None else dict(auth_exclude_mechanism=["PLAIN", "LOGIN"])
        # implicit_tls: TLS from the first byte (port 465 style); else STARTTLS required.
        # aiosmtpd only counts STARTTLS as TLS for auth_require_tls, so with implicit TLS
        # (where every byte is encrypted anyway) that check is switched off.
        tls_options = (dict(ssl_context=tls.server_context(), auth_require_tls=False)
                       if implicit_tls else
                       dict(tls_context=tls.server_context(), require_starttls=True,
                            auth_require_tls=True))
        self.controller = Controller(
            self.handler, hostname=HOST, port=port or free_port(),
            authenticator=self.handler.authenticate, auth_required=True, **tls_options,
            **oauth_only,
        )

    @property
    def port(self) -> int:
        return self.controller.port

    @property
    def faults(self) -> Faults:
        return self.handler.faults

    @property
    def received(self) -> list[Received]:
        return self.handler.received

    @property
    def connections(self) -> int:
        return self.handler.connections

    def settings(self, **overrides) -> SmtpSettings:
        fields = dict(host=HOST, port=self.port, user=self.user, ssl=self.implicit_tls,
                      starttls=not self.implicit_tls, cafile=self.tls.cafile, timeout=10.0)
        fields.update(overrides)
        return SmtpSettings(**fields)

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()


@pytest.fixture
def smtp_server(tls_ca) -> Iterator[SmtpServer]:
    server = SmtpServer(tls_ca).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def smtps_server(tls_ca) -> Iterator[SmtpServer]:
    """Like smtp_server, but TLS from the first byte (`ssl: true`, port 465 style)."""
    server = SmtpServer(tls_ca, implicit_tls=True).start()
    try:
        yield server
    finally:
        server.stop()


def serve_smtp_forever(tls_dir: str, port: int, user: str, password: str) -> None:
    """Run an SmtpServer on `port` until SIGTERM (target for a benchmark's server process).

    It counts accepted messages but keeps no copies, so memory stays flat over long runs;
    the count is written to tls_dir/accepted on SIGTERM.
    """
    tls = TlsFiles(None, *(os.path.join(tls_dir, n) for n in ("ca.pem", "cert.pem", "key.pem")))
    handler = RecordingHandler(user=user, password=password, record=False)
    controller = Controller(
        handler, hostname=HOST, port=port, loop=asyncio.new_event_loop(),
        tls_context=tls.server_context(), require_starttls=True,
        authenticator=handler.authenticate, auth_required=True, auth_require_tls=True,
    )
    done = False

    def on_term(*_):
        nonlocal done
        done = True

    signal.signal(signal.SIGTERM, on_term)
    controller.start()
    while not done:
        time.sleep(0.05)
    controller.stop()
    Path(tls_dir, "accepted").write_text(str(handler.accepted))


# --- a local OAuth 2.0 server -------------------------------------------------------------


@dataclass
class Grant:
    """One device authorization request (RFC 8628 3.1) and what became of it."""

    device_code: str
    user_code: str
    client_id: str
    scope: str
    expires_at: float
    interval: int
    user: str | None = None  # set by approve()
    denied: bool = False
    polls: list[float] = field(default_factory=list)  # the token server's time of each poll
    too_fast: int = 0  # polls sooner than `interval` after the one before


@dataclass
class Issued:
    user: str
    client_id: str
    scope: str
    expires_at: float | None = None  # access tokens only
    revoked: bool = False


class TokenServer:
    """An OAuth 2.0 authorization server on 127.0.0.1, as far as gm meets one: device
    authorization (RFC 8628), the token endpoint (device code and refresh token grants,
    RFC 6749), token introspection (RFC 7662, what Dovecot asks) and revocation (RFC 7009).

    Its clock is gm's (`gm.clock.now()`, so GM_NOW moves both), and the test drives the
    rest: `approve`/`deny` stand for the GM at the provider's page, `expire_access_tokens`
    and `revoke` for the provider ending them early, `slow_down` for a provider asking to
    be polled less often. Every request is kept in `requests` (path and form).
    """

    def __init__(self, *, client_id: str = "gm-test-client", client_secret: str | None = None,
                 lifetime: int = 3600, device_lifetime: int = 600, interval: int = 5,
                 rotate_refresh: bool = False):
        self.client_id, self.client_secret = client_id, client_secret
        self.lifetime, self.device_lifetime, self.interval = lifetime, device_lifetime, interval
        self.rotate_refresh = rotate_refresh
        self.lock = threading.Lock()
        self.reset()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                status, answer = server.answer(self.path, form, self.headers)
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # quiet: pytest shows stderr of failing tests
                pass

        self.httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def reset(self) -> None:
        with self.lock:
            self.grants: dict[str, Grant] = {}
            self.refresh: dict[str, Issued] = {}
            self.access: dict[str, Issued] = {}
            self.requests: list[tuple[str, dict[str, str]]] = []
            self.slow_downs = 0  # the next this many polls are answered slow_down
            self.refuse_refresh = False
            # path -> answer(form) -> (status, JSON value): a provider gone hostile
            self.hostile: dict[str, Callable[[dict[str, str]], tuple[int, Any]]] = {}

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- addresses ----------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.httpd.server_address[1]}"

    # The page where the GM approves: only printed (approve() stands for the GM there), and
    # https:// as gm requires of any address it prints.
    verification_uri = "https://login.example.test/activate"

    def settings(self, **overrides) -> OAuth2Settings:
        fields = dict(provider="custom", client_id=self.client_id,
                      token_url=f"{self.url}/token", device_url=f"{self.url}/device",
                      scope="mail offline_access")
        fields.update(overrides)
        return OAuth2Settings(**fields)

    def yaml(self, **overrides) -> dict:
        """The `mail.oauth2` mapping of a campaign.yaml for this server."""
        s = self.settings(**overrides)
        return {"provider": "custom", "client_id": s.client_id, "token_url": s.token_url,
                "device_url": s.device_url, "scope": s.scope}

    # --- what the test does -------------------------------------------------------

    @staticmethod
    def now() -> float:
        return clock.now().timestamp()

    def pending(self) -> Grant:
        """The last device authorization asked for."""
        with self.lock:
            return list(self.grants.values())[-1]

    def approve(self, user: str, user_code: str | None = None) -> None:
        with self.lock:
            grant = self._grant_by_code(user_code)
            grant.user = user

    def deny(self, user_code: str | None = None) -> None:
        with self.lock:
            self._grant_by_code(user_code).denied = True

    def expire_access_tokens(self) -> None:
        """Every access token issued so far stops working now."""
        with self.lock:
            for issued in self.access.values():
                issued.expires_at = min(issued.expires_at or 0, self.now() - 1)

    def revoke(self, user: str | None = None) -> None:
        """The grant ends: every token (refresh and access) of `user` (or of everyone)."""
        with self.lock:
            for issued in (*self.refresh.values(), *self.access.values()):
                if user is None or issued.user == user:
                    issued.revoked = True

    def misbehave(self, path: str, answer: Callable[[dict[str, str]], tuple[int, Any]]) -> None:
        """From now on `path` answers `answer(form)` (status, JSON value), whatever it is
        asked: an endpoint that echoes secrets, or hands out malformed tokens."""
        with self.lock:
            self.hostile[path] = answer

    def slow_down(self, times: int = 1) -> None:
        with self.lock:
            self.slow_downs = times

    def issued_tokens(self) -> list[str]:
        """Every refresh and access token this server ever gave out (for leak checks)."""
        with self.lock:
            return [*self.refresh, *self.access]

    def counted(self, path: str, grant_type: str | None = None) -> int:
        with self.lock:
            return sum(1 for p, form in self.requests if p == path
                       and (grant_type is None or form.get("grant_type") == grant_type))

    def valid(self, token: str, user: str | None = None) -> bool:
        with self.lock:
            issued = self.access.get(token)
            return (issued is not None and not issued.revoked
                    and (issued.expires_at or 0) > self.now()
                    and (user is None or issued.user == user))

    def _grant_by_code(self, user_code: str | None) -> Grant:
        grants = list(self.grants.values())
        if user_code is None:
            return grants[-1]
        return next(g for g in grants if g.user_code == user_code)

    # --- the endpoints ------------------------------------------------------------

    def _client_ok(self, form: dict[str, str], headers) -> bool:
        if form.get("client_id") != self.client_id:
            basic = headers.get("Authorization", "")
            if not basic.startswith("Basic "):
                return False
            client, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
            return client == self.client_id and (self.client_secret in (None, secret))
        return self.client_secret is None or form.get("client_secret") == self.client_secret

    def answer(self, path: str, form: dict[str, str], headers) -> tuple[int, Any]:
        with self.lock:
            self.requests.append((path, dict(form)))
            if path in self.hostile:
                return self.hostile[path](form)
            if path == "/introspect":
                return 200, self._introspect(form.get("token", ""))
            if path == "/revoke":
                for table in (self.refresh, self.access):
                    if form.get("token") in table:
                        table[form["token"]].revoked = True
                return 200, {}
            if not self._client_ok(form, headers):
                return 401, {"error": "invalid_client", "error_description": "unknown client"}
            if path == "/device":
                return 200, self._device(form)
            if path == "/token":
                grant_type = form.get("grant_type")
                if grant_type == "urn:ietf:params:oauth:grant-type:device_code":
                    return self._poll(form.get("device_code", ""))
                if grant_type == "refresh_token":
                    return self._refreshed(form.get("refresh_token", ""))
                return 400, {"error": "unsupported_grant_type"}
            return 404, {"error": "not_found"}

    def _device(self, form: dict[str, str]) -> dict:
        grant = Grant(device_code=secrets.token_urlsafe(24),
                      user_code=f"{secrets.randbelow(10**4):04d}-{secrets.randbelow(10**4):04d}",
                      client_id=form.get("client_id", self.client_id),
                      scope=form.get("scope", ""), expires_at=self.now() + self.device_lifetime,
                      interval=self.interval)
        self.grants[grant.device_code] = grant
        return {"device_code": grant.device_code, "user_code": grant.user_code,
                "verification_uri": self.verification_uri,
                "verification_uri_complete": f"{self.verification_uri}?code={grant.user_code}",
                "expires_in": self.device_lifetime, "interval": self.interval}

    def _poll(self, device_code: str) -> tuple[int, dict]:
        grant = self.grants.get(device_code)
        if grant is None:
            return 400, {"error": "invalid_grant"}
        now = self.now()
        if grant.polls and now - grant.polls[-1] < grant.interval:
            grant.too_fast += 1
        grant.polls.append(now)
        if now >= grant.expires_at:
            return 400, {"error": "expired_token"}
        if grant.denied:
            return 400, {"error": "access_denied"}
        if self.slow_downs:
            self.slow_downs -= 1
            grant.interval += 5  # RFC 8628 3.5: and the client must wait 5 s more from now on
            return 400, {"error": "slow_down"}
        if grant.user is None:
            return 400, {"error": "authorization_pending"}
        del self.grants[device_code]  # a device code is good for one token
        self.grants[device_code + "-used"] = grant
        refresh = secrets.token_urlsafe(32)
        self.refresh[refresh] = Issued(grant.user, grant.client_id, grant.scope)
        return 200, self._access(grant.user, grant.client_id, grant.scope, refresh)

    def _refreshed(self, refresh: str) -> tuple[int, dict]:
        issued = self.refresh.get(refresh)
        if issued is None or issued.revoked or self.refuse_refresh:
            return 400, {"error": "invalid_grant",
                         "error_description": "Token has been expired or revoked."}
        if self.rotate_refresh:  # Microsoft's way: a new refresh token with each use
            issued.revoked = True
            refresh = secrets.token_urlsafe(32)
            self.refresh[refresh] = Issued(issued.user, issued.client_id, issued.scope)
        return 200, self._access(issued.user, issued.client_id, issued.scope,
                                 refresh if self.rotate_refresh else None)

    def _access(self, user: str, client_id: str, scope: str, refresh: str | None) -> dict:
        token = secrets.token_urlsafe(32)
        self.access[token] = Issued(user, client_id, scope, expires_at=self.now() + self.lifetime)
        answer = {"access_token": token, "token_type": "Bearer", "expires_in": self.lifetime,
                  "scope": scope}
        if refresh:
            answer["refresh_token"] = refresh
        return answer

    def _introspect(self, token: str) -> dict:
        issued = self.access.get(token)
        if (issued is None or issued.revoked or (issued.expires_at or 0) <= self.now()):
            return {"active": False}
        return {"active": True, "username": issued.user, "client_id": issued.client_id,
                "scope": issued.scope, "exp": int(issued.expires_at or 0)}


@pytest.fixture(scope="session")
def token_server() -> Iterator[TokenServer]:
    server = TokenServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def reset_token_server(token_server) -> TokenServer:
    token_server.reset()
    return token_server


class XOAuth2Handler(RecordingHandler):
    """RecordingHandler that takes AUTH XOAUTH2 (aiosmtpd finds `auth_XOAUTH2` on the
    handler), each bearer token checked with the token server as a provider's would."""

    def __init__(self, tokens: TokenServer, **kwargs):
        super().__init__(**kwargs)
        self.tokens = tokens
        self.tokens_refused = 0
        self.echo = False  # word each refusal with what the client sent, as a hostile server

    async def auth_XOAUTH2(self, server, args):  # noqa: N802 - aiosmtpd finds it by name
        self.auth_attempts += 1
        if len(args) == 1:
            blob = await server.challenge_auth("")
            if blob is MISSING:
                return AuthResult(success=False, handled=True)
        else:
            try:
                blob = base64.b64decode(args[1], validate=True)
            except ValueError:
                return AuthResult(success=False, handled=False,
                                  message="501 5.5.2 Cannot decode base64")
        fields = dict(part.split("=", 1) for part in blob.decode(errors="replace").split("\x01")
                      if "=" in part)
        user, bearer = fields.get("user", ""), fields.get("auth", "")
        token = bearer[len("Bearer "):] if bearer.startswith("Bearer ") else ""
        if self.tokens.valid(token, user) and not self.echo:
            return AuthResult(success=True, auth_data=user)
        self.tokens_refused += 1
        if self.echo:
            sent = base64.b64encode(blob).decode()
            return AuthResult(success=False, handled=False,
                              message=f"535 5.7.8 refused {sent} ({token}, "
                                      f"{urllib.parse.quote(blob.decode(errors='replace'))})")
        # as Gmail does: the error as a JSON challenge, answered by an empty line, then 535
        await server.challenge_auth(json.dumps({"status": "401", "schemes": "Bearer",
                                                "scope": "mail"}))
        # handled=False: aiosmtpd itself then sends the message (handled=True sends nothing)
        return AuthResult(success=False, handled=False,
                          message="535 5.7.8 Username and Password not accepted")


@pytest.fixture
def smtp_oauth_server(tls_ca, reset_token_server) -> Iterator[SmtpServer]:
    """aiosmtpd with STARTTLS that takes AUTH XOAUTH2 alone (no PLAIN, no LOGIN)."""
    server = SmtpServer(tls_ca, user="gm@example.org", oauth=reset_token_server).start()
    try:
        yield server
    finally:
        server.stop()


# --- Dovecot taking OAuth 2.0 tokens alone --------------------------------------------

_OAUTH_PASSDB = """\
passdb {{
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = {root}/dovecot-oauth2.conf.ext
}}
userdb {{
  driver = static
  args = uid=65534 gid=65534 home={root}/home/%u
}}
"""
# Dovecot 2.3's oauth2 passdb: each token POSTed to the introspection endpoint, the answer
# must say active: true and name the user who logged in.
_OAUTH_EXT = """\
introspection_mode = post
introspection_url = {url}/introspect
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
"""


def start_dovecot_oauth(root: Path, tls: TlsFiles, tokens: TokenServer, *,
                        users: int = 100) -> Dovecot:
    """Like start_dovecot, but the only way in is AUTHENTICATE XOAUTH2 (or OAUTHBEARER)
    with a token the token server calls active for that user (user1..userN)."""
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    for sub in ("run", "state", "log", "home"):
        (root / sub).mkdir(exist_ok=True)
    spare = []
    for n in range(1, users + 1):
        home = root / "home" / f"user{n}"
        home.mkdir()
        os.chown(home, 65534, 65534)
        spare.append((f"user{n}", ""))
    (root / "dovecot-oauth2.conf.ext").write_text(_OAUTH_EXT.format(url=tokens.url))
    os.chmod(root / "dovecot-oauth2.conf.ext", 0o644)
    port, ssl_port = free_port(), free_port()
    conf = _DOVECOT_CONF.format(
        tag=f"oauth-{os.getpid()}-{port}", root=root, cert=tls.cert_chain, key=tls.key,
        port=port, ssl_port=ssl_port)
    passwd_block = conf[conf.index("passdb {"):conf.index("namespace inbox")]
    conf = conf.replace(passwd_block, _OAUTH_PASSDB.format(root=root))
    conf = conf.replace("auth_mechanisms = plain login", "auth_mechanisms = xoauth2 oauthbearer"
)
    # No growing delay after a refused token (Dovecot's auth penalty, 2 s then more, per
    # IP): the tests refuse tokens on purpose, all from 127.0.0.1. The auth process cannot
    # reach the penalty socket, so it counts nothing.
    conf += "service anvil {\n  unix_listener anvil-auth-penalty {\n    mode = 0\n  }\n}\n"
    path = root / "dovecot.conf"
    path.write_text(conf)
    server = Dovecot(root=root, conf=path, port=port, ssl_port=ssl_port, tls=tls, _spare=spare)
    server.start()
    return server


@pytest.fixture(scope="session")
def dovecot_oauth(tls_ca, token_server) -> Iterator[Dovecot]:
    yield from _private_dovecot("gm-dovecot-oauth-", lambda root: start_dovecot_oauth(root, tls_ca, token_server))


@dataclass
class OAuthAccount:
    """One user of the OAuth Dovecot, with a token of its own for the helpers' logins."""

    server: Dovecot
    tokens: TokenServer
    user: str

    def settings(self, **overrides) -> ImapSettings:
        fields = dict(host=HOST, port=self.server.port, user=self.user, ssl=False,
                      starttls=True, cafile=self.server.tls.cafile, timeout=10.0)
        fields.update(overrides)
        return ImapSettings(**fields)

    @contextlib.contextmanager
    def client(self) -> Iterator[IMAPClient]:
        """A login of the test's own: a token issued straight by the token server, an hour
        past gm's clock, so the test's helpers never use (or spoil) the tokens gm holds."""
        with self.tokens.lock:
            answer = self.tokens._access(self.user, self.tokens.client_id, "mail", None)
        client = IMAPClient(HOST, port=self.server.port, ssl=False, timeout=30)
        client.normalise_times = False
        client.oauth2_login(self.user, answer["access_token"])
        try:
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.logout()

    append = ImapAccount.append
    uids = ImapAccount.uids
    count = ImapAccount.count
    bodies = ImapAccount.bodies
    folder_exists = ImapAccount.folder_exists


@pytest.fixture
def oauth_account(dovecot_oauth, reset_token_server) -> OAuthAccount:
    dovecot_oauth.start()
    user, _ = dovecot_oauth.add_user()
    return OAuthAccount(dovecot_oauth, reset_token_server, user)


# --- a hostile IMAP server ------------------------------------------------------------


class EchoImap:
    """An IMAP server on 127.0.0.1, plain (as a hostile or misconfigured server may be),
    that offers AUTH=XOAUTH2 and LOGIN and refuses every login, wording the refusal with
    what it was sent: the SASL string in base64, decoded and URL-encoded, or the password
    as it is and in base64. Speaks just enough IMAP4rev1 for imapclient to log in."""

    def __init__(self):
        self.sent: list[bytes] = []  # each login the client sent, decoded
        self.listener = socket.create_server((HOST, 0))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def stop(self) -> None:
        self.listener.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(connection,), daemon=True).start()

    def _session(self, connection: socket.socket) -> None:
        capability = b"IMAP4rev1 AUTH=XOAUTH2 AUTH=PLAIN"
        with connection, connection.makefile("rwb", buffering=0) as stream:
            stream.write(b"* OK [CAPABILITY " + capability + b"] hostile IMAP ready\r\n")
            while line := stream.readline():
                tag, _, rest = line.rstrip(b"\r\n").partition(b" ")
                command, _, args = rest.partition(b" ")
                command = command.upper()
                if command == b"CAPABILITY":
                    stream.write(b"* CAPABILITY " + capability + b"\r\n" + tag + b" OK done\r\n")
                elif command == b"AUTHENTICATE":
                    mechanism, _, given = args.partition(b" ")
                    if not given:
                        stream.write(b"+ \r\n")
                        given = stream.readline().strip()
                    blob = base64.b64decode(given)
                    self.sent.append(blob)
                    stream.write(tag + b" NO [AUTHENTICATIONFAILED] refused " + given + b" = "
                                 + blob.replace(b"\x01", b" ") + b" = "
                                 + urllib.parse.quote(blob).encode() + b"\r\n")
                elif command == b"LOGIN":
                    user, _, password = args.partition(b" ")
                    password = password.strip(b'"')
                    self.sent.append(password)
                    plain = base64.b64encode(b"\0" + user.strip(b'"') + b"\0" + password)
                    stream.write(tag + b" NO [AUTHENTICATIONFAILED] refused " + password
                                 + b" = " + plain + b"\r\n")
                elif command == b"LOGOUT":
                    stream.write(b"* BYE\r\n" + tag + b" OK bye\r\n")
                    return
                else:
                    stream.write(tag + b" BAD unknown command\r\n")


@pytest.fixture
def echo_imap() -> Iterator[EchoImap]:
    server = EchoImap()
    try:
        yield server
    finally:
        server.stop()
