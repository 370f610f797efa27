"""Benchmark: send a turn's queued reports over SMTP (STARTTLS + AUTH) to a local server.

2,000 reports of ~3 KB go to an aiosmtpd server (tests/servers.py, STARTTLS and AUTH
required) running in ANOTHER PROCESS, by three senders measured in the same run:

* floor: stdlib smtplib, one connection reused for every message (STARTTLS + AUTH once);
* naive: stdlib smtplib, a new connection (STARTTLS + AUTH) per message;
* gm:    gm.mail.smtp.send_batch (a pool of smtplib connections, a thread each).

    python benchmarks/send.py [--messages 2000] [--runs 3] [--connections 4]
                              [--target gm.mail.smtp:send_batch]

Each sender runs `--runs` times (interleaved, so a noisy neighbour hurts all alike); the
best run of each is compared. `--target` swaps the measured function for any callable
with send_batch's signature (e.g. the campaign layer's wrapper). The server counts what
it accepted; the script checks nothing was lost or doubled.
"""

from __future__ import annotations

import argparse
import email.policy
import importlib
import multiprocessing
import smtplib
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import servers  # noqa: E402 - tests/servers.py, the same server the tests use

from gm.mail.settings import SmtpSettings, tls_context  # noqa: E402
from gm.mail.smtp import SendResult  # noqa: E402
from gm.mail.smtpwire import Outgoing  # noqa: E402

USER, PASSWORD = "gm", "bench-secret"


def reports(count: int) -> list[Outgoing]:
    """Turn reports of about 3 KB each, built the way the campaign layer will build them."""
    out = []
    for i in range(count):
        msg = EmailMessage()
        msg["From"] = "Snakes GM <gm@example.org>"
        msg["To"] = f"Player {i} <player{i}@example.org>"
        msg["Subject"] = f"[spring-2027] Turn 7 report for player{i}"
        msg["Message-ID"] = f"<turn7.player{i}@example.org>"
        lines = [f"Board {b}: you moved from {i % 97} to {i % 97 + k}, climbing a ladder."
                 for k, b in enumerate("ABC", start=1)]
        body = "\n".join(lines * 16) + "\n\nYour numbers left: 1 3 5\nTrapdoor next turn: 37\n"
        msg.set_content(body)
        data = msg.as_bytes(policy=email.policy.SMTP)
        out.append(Outgoing(key=f"q{i}", sender="gm@example.org",
                            recipients=(f"player{i}@example.org",), data=data))
    return out


def connect(settings: SmtpSettings) -> smtplib.SMTP:
    """An smtplib connection with Nagle's algorithm off, as gm.mail.smtp sets it. Without it, a message of more than a few KB ends in a small segment that
    waits for the server's delayed ACK: 40 ms a message on a reused connection."""
    smtp = smtplib.SMTP(settings.host, settings.port, local_hostname="localhost")
    smtp.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return smtp


def smtplib_reused(settings: SmtpSettings, messages: Sequence[Outgoing]) -> None:
    # The same trust set-up as gm (system store + cafile), so both pay for loading it.
    context = tls_context(settings.cafile)
    with connect(settings) as smtp:
        smtp.starttls(context=context)
        smtp.login(USER, PASSWORD)
        for m in messages:
            smtp.sendmail(m.sender, list(m.recipients), m.data)


def smtplib_naive(settings: SmtpSettings, messages: Sequence[Outgoing]) -> None:
    context = tls_context(settings.cafile)
    for m in messages:
        with connect(settings) as smtp:
            smtp.starttls(context=context)
            smtp.login(USER, PASSWORD)
            smtp.sendmail(m.sender, list(m.recipients), m.data)


def gm_sender(target: Callable, connections: int) -> Callable:
    def run(settings: SmtpSettings, messages: Sequence[Outgoing]) -> None:
        sent: list[str] = []

        def on_outcome(outcome: SendResult) -> None:
            if outcome.status != "sent":
                raise SystemExit(f"not sent: {outcome}")
            sent.append(outcome.key)

        target(settings, PASSWORD, messages, on_outcome=on_outcome, connections=connections)
        assert len(sent) == len(set(sent)) == len(messages)

    return run


def wait_for(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the SMTP server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--target", default="gm.mail.smtp:send_batch",
                        help="module:function with send_batch's signature")
    args = parser.parse_args()
    module, _, name = args.target.partition(":")
    target = getattr(importlib.import_module(module), name)

    tls_dir = Path(tempfile.mkdtemp(prefix="gm-bench-tls-"))
    servers.TlsFiles.create(tls_dir)
    port = servers.free_port()
    server = multiprocessing.get_context("spawn").Process(
        target=servers.serve_smtp_forever, args=(str(tls_dir), port, USER, PASSWORD))
    server.start()
    try:
        wait_for(port)
        settings = SmtpSettings(host="127.0.0.1", port=port, user=USER, starttls=True,
                                cafile=str(tls_dir / "ca.pem"))
        messages = reports(args.messages)
        size = sum(len(m.data) for m in messages) / len(messages)
        print(f"{len(messages)} messages of {size:.0f} bytes, STARTTLS + AUTH, aiosmtpd in "
              f"another process; best of {args.runs} runs")
        senders = {
            "floor: smtplib, one reused connection": smtplib_reused,
            f"gm: {args.target}, connections={args.connections}":
                gm_sender(target, args.connections),
            "naive: smtplib, a connection per message": smtplib_naive,
        }
        best = {label: float("inf") for label in senders}
        cpu = {label: float("inf") for label in senders}  # this (client) process's CPU
        for _ in range(args.runs):
            for label, send in senders.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                send(settings, messages)
                best[label] = min(best[label], time.perf_counter() - start)
                cpu[label] = min(cpu[label], time.process_time() - start_cpu)
    finally:
        server.terminate()  # SIGTERM: the server writes how many messages it accepted
        server.join(10)
    accepted = int((tls_dir / "accepted").read_text())
    expected = args.runs * len(senders) * len(messages)
    print(f"  {'sender':<58} {'wall':>9}  {'rate':>11}  {'client CPU':>10}")
    for label, seconds in best.items():
        print(f"  {label:<58} {seconds:7.2f} s  {len(messages) / seconds:5.0f} msg/s  "
              f"{1e6 * cpu[label] / len(messages):5.0f} us/msg")
    floor, gm, naive = best.values()
    print(f"gm / floor = {gm / floor:.2f}x the time (aim: <= 1.25x)")
    print(f"naive / gm = {naive / gm:.1f}x faster than the naive loop (aim: >= 4x)")
    print(f"server accepted {accepted} of {expected} sent: "
          f"{'nothing lost or doubled' if accepted == expected else 'MISMATCH'}")


if __name__ == "__main__":
    main()
