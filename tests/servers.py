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

The servers are also usable outside pytest (benchmarks/): `start_dovecot(root, ca)`,
`SmtpServer(...)`, `serve_smtp_forever(...)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, Session
from imapclient import IMAPClient

from gm.mail.settings import ImapSettings, SmtpSettings

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
    if shutil.which("dovecot") is None:
        message = ("dovecot is not installed: apt-get install -y dovecot-imapd "
                   "(IMAP tests need a real server)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    # Not under pytest's tmp_path: its parents are mode 0700 and Dovecot's auth process
    # (user dovecot) must reach the passwd file.
    root = Path(tempfile.mkdtemp(prefix="gm-dovecot-"))
    server = start_dovecot(root, tls_ca)
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
    """

    drop_after: int | None = None
    drops_left: int | None = None
    tempfail_once: set[str] = field(default_factory=set)
    reject: set[str] = field(default_factory=set)
    reject_sender: bool = False
    stall_once: set[str] = field(default_factory=set)
    stall_seconds: float = 5.0


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
        return "250 OK queued"


class SmtpServer:
    """aiosmtpd on 127.0.0.1 with STARTTLS and AUTH required, in a thread of this process."""

    def __init__(self, tls: TlsFiles, *, user: str = "gm", password: str = "smtp-secret",
                 port: int = 0, record: bool = True, implicit_tls: bool = False):
        self.tls = tls
        self.user, self.password = user, password
        self.implicit_tls = implicit_tls
        self.handler = RecordingHandler(user=user, password=password, record=record)
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
