"""Mail out over SMTP: a batch of queued messages through a small pool of reused
connections, each message reported sent, refused for good or to try again (SendResult).

Why a pool of long-lived connections: a new connection per message pays TCP, STARTTLS and
AUTH every time (measured: ~7x slower than one reused connection), while a few
connections in parallel hide a remote server's latency.

Why the standard library's smtplib, one thread per connection, rather than an asyncio
client (aiosmtplib, which gm used before): measured on `gm send` of 150-290 KB reports,
aiosmtplib spent 4-5x the CPU of a plain smtplib loop, most of it rewriting every message
three times with regular expressions (line ends twice, dot-stuffing once) and in asyncio's
Python-level TLS layer; and the SQLite commit of each "sent" mark, made on the event loop,
stopped every connection while it ran. Here each worker thread sends over a blocking TLS
socket (OpenSSL and SQLite both release the GIL), a message is dot-stuffed with one
bytes.replace, and the caller's `on_outcome` runs in the calling thread while the other
connections carry on.

Exactly once, as far as SMTP allows: `on_outcome(SendResult(status="sent"))` is called
right after the server answered 250 to a message's DATA, and never otherwise, so the
caller can commit its "sent" mark there. A worker waits for its message's result to be
handled before it sends the next one, so no more than one accepted message per connection
is ever waiting for its mark. A message in flight when a connection drops or times out is
retried, never reported sent. (The one window SMTP itself leaves open, RFC 1047: a server
that accepted the DATA but whose "250" was lost may get the message twice. Nothing a
client can do closes it.)

Messages are read from the caller's iterable as the connections need them, in the
calling thread, at most `window` of them waiting beside the one each connection holds: a
turn's mail is never held whole (`gm send` reads it from the outbox as it goes, a
message's bytes when its turn comes), so memory is the window, not the turn. The order
rules hold over the stream as over a list: a player's mail goes out in the order it was
queued, and a message to be retried goes back to the front.

Every message gets exactly one result, unless send_batch raises MailError (wrong
password, certificate refused, the server unreachable at the start, the sender refused
with a 5xx or "530 authentication required") or `on_outcome` raises: then the messages
without a result were not sent and stay queued. Whatever stops the run (an exception
from `on_outcome`, Ctrl-C), the workers first finish the message each holds and its
result is reported, so nothing is sent but left unreported.

Reaching the server and logging in is gm.mail.smtpconnect's; one transaction on one
connection gm.mail.smtpwire's; this module is the batch: the pool, the queue, retries and
results.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import queue
import smtplib
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from .credentials import TokenSource
from .settings import MailError, SmtpSettings
from .smtpconnect import Dialer, Fatal
from .smtpwire import Closed, Connection, Outgoing

__all__ = ["SendResult", "SendSummary", "default_backoff", "send_batch"]

Status = Literal["sent", "temporary", "permanent"]


@dataclass(frozen=True)
class SendResult:
    """What became of one message: sent, refused for good (permanent), or not sent now."""

    key: str
    status: Status
    code: int | None  # the SMTP reply code that decided it, None for a network failure
    detail: str  # one line: the server's text, or what went wrong


@dataclass(frozen=True)
class SendSummary:
    sent: int
    temporary: int
    permanent: int


def default_backoff(attempt: int) -> float:
    """Seconds to wait before retry `attempt` (1, 2, 3...): 1, 2, 4... capped at 30."""
    return min(30.0, 2.0 ** (attempt - 1))


# Messages read ahead of the connections: enough that a few in a row to one recipient (who
# gets them one at a time) leave no connection idle, few enough that memory stays small
# (8 reports of a 2,000-player campaign, 160 KB each, are 1.3 MB).
WINDOW = 8


def send_batch(
    settings: SmtpSettings,
    password: str | TokenSource | None,
    messages: Iterable[Outgoing],
    *,
    on_outcome: Callable[[SendResult], None],
    connections: int | None = None,
    retries: int = 3,
    backoff: Callable[[int], float] = default_backoff,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    progress: Callable[[int], None] | None = None,
    window: int = WINDOW,
) -> SendSummary:
    """Send `messages`, calling `on_outcome` once per message as soon as its fate is known.

    `connections` (default settings.connections) clients each send many messages in turn,
    each in a thread of its own; `on_outcome` and `progress` are called in the calling
    thread only (so it may write to a database connection that belongs to it). A
    temporary failure (4xx, dropped connection, timeout) is retried up to `retries`
    times, waiting `backoff(attempt)` seconds via `sleep` (a coroutine function, run in
    the worker's thread), then reported "temporary"; a permanent one (5xx) is reported
    at once and never retried. `progress(1)` is called after each outcome (a step, as for
    a progress bar's advance). `settings.timeout` bounds each wait on the server.
    `messages` is read lazily, in the calling thread, `window` messages ahead of the
    connections (a generator may read each message's bytes from its database).
    `password` is the password, or a TokenSource for OAuth 2.0 (AUTH XOAUTH2).
    """
    run = _Run(settings=settings, password=password, messages=messages,
               on_outcome=on_outcome, connections=connections or settings.connections,
               retries=retries, backoff=backoff, sleep=sleep, progress=progress, window=window)
    return run.main()


class _Run:
    """One send_batch call: the queue, the pool of worker threads and the tallies."""

    def __init__(self, *, settings: SmtpSettings, password: str | TokenSource | None,
                 messages: Iterable[Outgoing], on_outcome: Callable[[SendResult], None],
                 connections: int, retries: int, backoff: Callable[[int], float],
                 sleep: Callable[[float], Awaitable[None]],
                 progress: Callable[[int], None] | None, window: int):
        if connections < 1 or retries < 0 or window < 1:
            raise ValueError("connections and window must be at least 1, retries at least 0")
        self.dialer = Dialer(settings, password)
        self.source = iter(messages)
        self.window, self.connections = window, connections
        self.exhausted = False  # the caller's iterable has no more
        self.on_outcome, self.progress = on_outcome, progress
        self.retries, self.backoff, self.sleep = retries, backoff, sleep
        self.where = self.dialer.where
        self.tally = {"sent": 0, "temporary": 0, "permanent": 0}
        self.stopping = False
        self.last_connect_failure = ""
        # the messages read and waiting: (message, attempts so far)
        self.work: collections.deque[tuple[Outgoing, int]] = collections.deque()
        # recipients with a message on some connection now: their next one waits for it
        self.in_flight: collections.Counter[str] = collections.Counter()
        self.turn_over = threading.Condition()  # guards work, in_flight and exhausted
        # From the workers to the calling thread: ("outcome", message, status, code, detail,
        # handled), ("error", exception) or ("done",).
        self.results: queue.SimpleQueue[tuple] = queue.SimpleQueue()

    # --- outcomes -------------------------------------------------------------------

    def report(self, message: Outgoing, status: Status, code: int | None, detail: str) -> None:
        """From a worker: hand the outcome to the calling thread and wait until it has
        been handled (its "sent" mark committed) before sending anything else."""
        handled = threading.Event()
        self.results.put(("outcome", message, status, code, detail, handled))
        handled.wait()

    def deliver(self, message: Outgoing, status: Status, code: int | None, detail: str) -> None:
        """In the calling thread: count the outcome and pass it on."""
        self.tally[status] += 1
        self.on_outcome(SendResult(key=message.key, status=status, code=code, detail=detail))
        if self.progress is not None:
            self.progress(1)

    # --- connections ----------------------------------------------------------------

    def clean(self, text: str | bytes | BaseException) -> str:
        return self.dialer.clean(text)

    def reconnect(self) -> Connection | None:
        """Connect again after a drop, retrying with backoff; None when the server stays
        away (this worker then stops; the others, if any, carry on)."""
        for attempt in range(self.retries + 1):
            if attempt:
                self.wait(self.backoff(attempt))
            if self.stopping:
                return None
            try:
                return self.dialer.connect()
            except Fatal as fatal:
                raise MailError(str(fatal), cause=fatal.cause) from None
            except (smtplib.SMTPException, OSError) as error:
                self.last_connect_failure = self.clean(str(error))
        return None

    def wait(self, seconds: float) -> None:
        """The injected (async) sleep, run in this worker's thread."""
        asyncio.run(self.sleep(seconds))

    # --- the work -------------------------------------------------------------------

    def refill(self) -> None:
        """In the calling thread: read the caller's messages until `window` wait in the
        queue, or there are no more. Here, not in a worker, so that the iterable may read
        a database connection that belongs to the calling thread."""
        with self.turn_over:
            room = 0 if self.exhausted else self.window - len(self.work)
        fresh = list(itertools.islice(self.source, max(0, room)))
        with self.turn_over:
            if len(fresh) < room:
                self.exhausted = True
            self.work.extend((message, 0) for message in fresh)
            self.turn_over.notify_all()

    def more(self) -> bool:
        """Whether a message waits in the queue, or more may still be read."""
        return bool(self.work) or not self.exhausted

    def main(self) -> SendSummary:
        self.refill()
        if not self.work:
            return SendSummary(0, 0, 0)
        first = self.dialer.first()
        # as many connections as there are messages, when fewer than `connections` came
        pool_size = max(1, min(self.connections, len(self.work)))
        threads = [threading.Thread(target=self.worker, args=(first if n == 0 else None,),
                                    name=f"smtp-{n + 1}", daemon=True)
                   for n in range(pool_size)]
        for thread in threads:
            thread.start()
        failures = self.collect(len(threads))
        for thread in threads:
            thread.join()
        if failures:
            raise next((f for f in failures if isinstance(f, MailError)), failures[0])
        # Every worker gave up on the server: what is left is queued for the next run.
        while self.more():
            while self.work:
                message, _ = self.work.popleft()
                self.deliver(message, "temporary", None,
                             f"not sent, server unreachable: {self.last_connect_failure}")
            self.refill()
        return SendSummary(**self.tally)

    def collect(self, running: int) -> list[BaseException]:
        """In the calling thread: hand each outcome on, and read the next message in its
        place, until every worker has stopped. Whatever goes wrong here (on_outcome or the
        caller's iterable raising, Ctrl-C) stops the workers taking new messages, but the
        outcomes of those in flight are still handed on."""
        failures: list[BaseException] = []
        while running:
            try:
                item = self.results.get()
            except BaseException as error:  # Ctrl-C while waiting
                self.stop()
                failures.append(error)
                continue
            if item[0] == "done":
                running -= 1
            elif item[0] == "error":
                self.stop()
                failures.append(item[1])
            else:
                _, message, status, code, detail, handled = item
                try:
                    self.deliver(message, status, code, detail)
                except BaseException as error:
                    self.stop()
                    failures.append(error)
                finally:
                    handled.set()
                # the worker carries on meanwhile: a message decided makes room for the next
                try:
                    if not self.stopping:
                        self.refill()
                except BaseException as error:
                    self.stop()
                    failures.append(error)
        return failures

    def take(self) -> tuple[Outgoing, int] | None:
        """The first queued message none of whose recipients has one on a connection now,
        marked in flight; None when there are no more. So a player's mail arrives in the
        order it was queued (ack #1 before ack #2), whichever connections carry it: the
        caller's messages are read in order, so none to them is read before it."""
        with self.turn_over:
            while self.more() and not self.stopping:
                for position, (message, attempts) in enumerate(self.work):
                    if not any(self.in_flight[r] for r in message.recipients):
                        del self.work[position]
                        self.in_flight.update(message.recipients)
                        return message, attempts
                # every queued message waits for one in flight, or the next are still to
                # be read: woken when one is done or more are read
                self.turn_over.wait()
            return None

    def stop(self) -> None:
        """Take no new message (those in flight finish and are reported)."""
        with self.turn_over:
            self.stopping = True
            self.turn_over.notify_all()

    def done_with(self, message: Outgoing) -> None:
        with self.turn_over:
            self.in_flight.subtract(message.recipients)
            self.turn_over.notify_all()

    def worker(self, connection: Connection | None) -> None:
        try:
            while not self.stopping and self.more():
                if connection is None or not connection.is_open:
                    if connection is not None:
                        connection.close()
                    connection = self.reconnect()
                    if connection is None:
                        return
                    if not self.more():  # others finished the work while we connected
                        break
                taken = self.take()
                if taken is None:
                    break
                message, attempts = taken
                try:
                    connection = self.attempt(connection, message, attempts)
                finally:
                    self.done_with(message)
        except BaseException as error:
            # Let the other workers finish the message they hold (so none is sent but
            # left unreported), then stop taking new ones.
            self.stop()
            self.results.put(("error", error))
        finally:
            if connection is not None:
                connection.quit()
            self.results.put(("done",))

    def attempt(self, connection: Connection, message: Outgoing,
                attempts: int) -> Connection | None:
        """Try `message` once; report it, or put it back for a retry. Returns the
        connection, or None when it is no longer usable."""
        try:
            result = connection.send(message)
        except smtplib.SMTPRecipientsRefused as error:
            refusals = error.recipients
            temporary = [code for code, _ in refusals.values() if code < 500]
            code = temporary[0] if temporary else next(iter(refusals.values()))[0]
            failure = (code, "; ".join(f"{rcpt}: {c} {self.clean(text)}"
                                       for rcpt, (c, text) in refusals.items()))
        except smtplib.SMTPSenderRefused as error:
            text = self.clean(error.smtp_error)
            if error.smtp_code == 530 or error.smtp_code >= 500:
                # Not this message's fault but the run's (no AUTH, a From the server will
                # not relay for): marking every message "permanent" would be wrong.
                raise MailError(f"{self.where}: MAIL FROM {message.sender} refused: "
                                f"{error.smtp_code} {text}") from None
            failure = (error.smtp_code, f"{error.smtp_code} {text}")
        except Closed as closed:
            failure = (421, self.clean(str(closed)))
            connection = None
        except (smtplib.SMTPException, OSError) as error:
            # The message may have been cut off anywhere: it is not sent until a 250.
            connection.close()
            failure = (None, f"connection lost: {self.clean(str(error))}")
            connection = None
        else:
            if isinstance(result, str):  # cannot be put on the wire: retrying cannot help
                self.report(message, "permanent", None, self.clean(result))
                return connection
            code, text, refused = result
            if code == 250:
                detail = self.clean(text)
                if refused:  # accepted for some recipients: it *was* sent; note who refused
                    detail += " (refused: " + "; ".join(
                        f"{rcpt} {c} {self.clean(t)}" for rcpt, (c, t) in refused.items()) + ")"
                self.report(message, "sent", 250, detail)
                return connection
            failure = (code, f"{code} {self.clean(text)}")

        code, detail = failure
        if code is not None and code >= 500:
            self.report(message, "permanent", code, detail)
        elif attempts >= self.retries:
            self.report(message, "temporary", code, f"gave up after {attempts + 1} tries: {detail}")
        else:
            self.wait(self.backoff(attempts + 1))
            with self.turn_over:
                # first in the queue again: the recipient's later mail still waits for it
                self.work.appendleft((message, attempts + 1))
        return connection
