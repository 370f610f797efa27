"""Benchmark: `gm send` of a resolved turn's 2,000 queued reports over STARTTLS + AUTH.

Unlike benchmarks/send.py (which times gm.mail.smtp.send_batch alone), this times the
whole `gm send` path on a real campaign: reading the outbox from SQLite, sending over the
connection pool, and committing each message's sent mark as the server accepts it. The
process start-up is excluded; the campaign is built once, untimed, and its reports are
re-queued (untimed) before every run. In the same run, on the same bytes, it times:

* floor: stdlib smtplib, one connection reused for every message;
* naive: stdlib smtplib, a new connection (STARTTLS + AUTH) per message.

Besides the wall time of each sender it reports the client's CPU (time.process_time of
this process: the server runs in a process of its own), best of the runs, and, from one
more untimed `gm send` under tracemalloc, the peak of what it allocated against the bytes
it sent: gm send streams the outbox, so the first stays a few messages however many go.

    python benchmarks/gm_send.py [--messages 2000] [--runs 3] [--players 20]
                                 [--pad-to KB] [--connections N] [--no-naive]

--players 500 queues the reports a 500-player campaign really writes (slow to build);
--pad-to pads every queued report (after its last MIME boundary, in 76-character lines)
to about that many KB, to measure large messages without building a large campaign.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import servers  # noqa: E402 - tests/servers.py, the server the tests use
from send import PASSWORD, USER, smtplib_naive, smtplib_reused, wait_for  # noqa: E402

import gm.campaign.campaign  # noqa: E402
import gm.campaign.delivery  # noqa: E402
import gm.campaign.passwords  # noqa: E402
import gm.mail.smtp  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.delivery import send  # noqa: E402
from gm.campaign.folder import Campaign  # noqa: E402
from gm.campaign.outbox import stored_mail  # noqa: E402
from gm.campaign.turns import resolve  # noqa: E402
from gm.mail.settings import SmtpSettings  # noqa: E402
from gm.mail.smtpwire import Outgoing  # noqa: E402


def build_campaign(folder: Path, players: int, port: int, cafile: str, messages: int,
                   pad_to: int = 0, connections: int | None = None) -> Campaign:
    """A started campaign whose first turn is resolved, its reports copied until
    `messages` are queued."""
    gm.campaign.passwords.SCRYPT["n"] = 2**4  # the set-up is not what is measured
    folder.mkdir(parents=True)
    config = {
        "id": "bench",
        "seed": 1,
        "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml"),
                   "B": str(ROOT / "boards" / "ziggurat.yaml")},
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": "pw-bench"} for i in range(players)],
        "mail": {
            "transport": "imap+smtp",
            "from": "Snakes GM <gm@example.org>",
            "imap": {"host": "127.0.0.1", "user": USER},
            "smtp": {"host": "127.0.0.1", "port": port, "user": USER, "starttls": True,
                     "cafile": cafile, **({"connections": connections} if connections else {})},
        },
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    with clock.frozen(clock.parse_time("2027-01-01T00:00:00Z")):
        campaign, _ = start(folder)
    with campaign.store.transaction() as db:
        db.execute("update outbox set status = 'sent'")  # the welcomes are not measured
    with clock.frozen(clock.parse_time("2027-01-09T00:00:00Z")):
        resolve(campaign, force=True)
    reports = campaign.store.rows("select * from outbox where kind like '%report'")
    if pad_to:
        reports = [dict(r, raw=pad(r["raw"], pad_to * 1024)) for r in reports]
    with campaign.store.transaction() as db:
        if pad_to:
            for r in reports:
                db.execute("update outbox set raw = ? where id = ?", (r["raw"], r["id"]))
        for copy in range(messages - len(reports)):
            row = dict(reports[copy % len(reports)], id=None)
            db["outbox"].insert(row)
    return campaign


def pad(raw: bytes, size: int) -> bytes:
    """`raw` grown to about `size` bytes by an epilogue of 76-character text lines (one in
    40 starting with a dot, to be stuffed) after its last line."""
    line = b"x" * 74 + b"\r\n"
    lines = []
    for i in range(max(0, size - len(raw)) // len(line)):
        lines.append(b"." + line[1:] if i % 40 == 39 else line)
    return raw + b"".join(lines)


def requeue(campaign: Campaign) -> list[Outgoing]:
    with campaign.store.transaction() as db:
        db.execute("update outbox set status = 'queued', sent_at = null where kind like '%report'")
    rows = campaign.store.rows("select id, recipient, raw from outbox where status = 'queued'")
    # the bytes gm sends: a stored report's shared parts put back, as gm send does
    parts: dict[bytes, bytes] = {}
    return [Outgoing(key=str(r["id"]), sender="gm@example.org", recipients=(r["recipient"],),
                     data=stored_mail(campaign.store.db.conn, r["raw"], parts)) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pad-to", type=int, default=0, metavar="KB",
                        help="pad each report to about this many KB")
    parser.add_argument("--connections", type=int, default=None,
                        help="smtp.connections in campaign.yaml (default: gm's default)")
    parser.add_argument("--target", default=None,
                        help="module:function with send_batch's signature to send with "
                             "instead of gm.mail.smtp.send_batch (e.g. an older copy)")
    parser.add_argument("--no-naive", action="store_true",
                        help="skip the connection-per-message sender")
    args = parser.parse_args()
    if args.target:
        module, _, name = args.target.partition(":")
        gm.campaign.delivery.send_batch = getattr(importlib.import_module(module), name)
    os.environ["GM_SMTP_PASSWORD"] = PASSWORD

    work = Path(tempfile.mkdtemp(prefix="gm-bench-send-"))
    servers.TlsFiles.create(work / "tls")
    port = servers.free_port()
    server = multiprocessing.get_context("spawn").Process(
        target=servers.serve_smtp_forever, args=(str(work / "tls"), port, USER, PASSWORD))
    server.start()
    try:
        wait_for(port)
        cafile = str(work / "tls" / "ca.pem")
        settings = SmtpSettings(host="127.0.0.1", port=port, user=USER, starttls=True, cafile=cafile)
        built = time.perf_counter()
        campaign = build_campaign(work / "campaign", args.players, port, cafile, args.messages,
                                  args.pad_to, args.connections)
        messages = requeue(campaign)
        size = sum(len(m.data) for m in messages) / len(messages)
        print(f"campaign of {args.players} players built in {time.perf_counter() - built:.1f} s "
              f"(untimed); {len(messages)} queued reports of {size / 1024:.1f} KB on average "
              f"({sum(len(m.data) for m in messages) / 1e6:.0f} MB); best of {args.runs}; "
              f"connections: {campaign.config.mail.smtp.connections}")

        def gm_send() -> None:
            report = send(campaign)
            assert report.sent == len(messages) and not report.permanent and not report.temporary

        senders = {
            "floor: smtplib, one reused connection": lambda: smtplib_reused(settings, messages),
            "gm send (SQLite outbox, a commit per accepted message)": gm_send,
        }
        if not args.no_naive:
            senders["naive: smtplib, a connection per message"] = (
                lambda: smtplib_naive(settings, messages))
        best = {label: float("inf") for label in senders}
        cpu = {label: float("inf") for label in senders}  # this (client) process's CPU
        for _ in range(args.runs):
            for label, run in senders.items():
                if run is gm_send:
                    requeue(campaign)  # untimed: it rewrites every row, raw and all
                began, began_cpu = time.perf_counter(), time.process_time()
                run()
                best[label] = min(best[label], time.perf_counter() - began)
                cpu[label] = min(cpu[label], time.process_time() - began_cpu)
        print(f"  {'sender':<56} {'wall':>9}  {'rate':>11}  {'client CPU':>10}")
        for label, seconds in best.items():
            print(f"  {label:<56} {seconds:7.2f} s  {len(messages) / seconds:5.0f} msg/s  "
                  f"{cpu[label]:7.2f} s")
        floor, gm_time = best[next(iter(senders))], best[list(senders)[1]]
        floor_cpu, gm_cpu = cpu[next(iter(senders))], cpu[list(senders)[1]]
        print(f"gm send / floor = {gm_time / floor:.2f}x the time (aim <= 1.25x), "
              f"{gm_cpu / floor_cpu:.2f}x the CPU (aim <= 2x)")
        if not args.no_naive:
            naive = best[list(senders)[2]]
            print(f"naive / gm send = {naive / gm_time:.1f}x faster (aim >= 4x)")
        requeue(campaign)
        tracemalloc.start()
        gm_send()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        total = sum(len(m.data) for m in messages)
        print(f"gm send's peak allocation (tracemalloc, one more run, untimed): {peak / 2**20:.1f} MB "
              f"while sending {total / 2**20:.0f} MB ({peak / total:.1%})")
        campaign.close()
    finally:
        server.terminate()
        server.join()
        shutil.rmtree(work, ignore_errors=True)  # the campaign: tens of MB of queued reports


if __name__ == "__main__":
    main()
