"""Benchmark: `gm send` of a resolved turn's 2,000 queued reports over STARTTLS + AUTH.

Unlike benchmarks/send.py (which times gm.mail.smtp.send_batch alone), this times the
whole `gm send` path on a real campaign: reading the outbox from SQLite, sending over the
connection pool, and committing each message's sent mark as the server accepts it. The
process start-up is excluded; the campaign is built once, untimed, and its reports are
re-queued before every run. In the same run, on the same bytes, it times:

* floor: stdlib smtplib, one connection reused for every message;
* naive: stdlib smtplib, a new connection (STARTTLS + AUTH) per message.

    python benchmarks/gm_send.py [--messages 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import servers  # noqa: E402 - tests/servers.py, the server the tests use
from send import PASSWORD, USER, smtplib_naive, smtplib_reused, wait_for  # noqa: E402

import gm.campaign.campaign  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import Campaign, start  # noqa: E402
from gm.campaign.turns import resolve  # noqa: E402
from gm.mail.delivery import send  # noqa: E402
from gm.mail.settings import SmtpSettings  # noqa: E402
from gm.mail.smtp import Outgoing  # noqa: E402


def build_campaign(folder: Path, players: int, port: int, cafile: str, messages: int) -> Campaign:
    """A started campaign whose first turn is resolved, its reports copied until
    `messages` are queued."""
    gm.campaign.campaign.SCRYPT["n"] = 2**4  # the set-up is not what is measured
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
                     "cafile": cafile},
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
    with campaign.store.transaction() as db:
        for copy in range(messages - len(reports)):
            row = dict(reports[copy % len(reports)], id=None)
            db["outbox"].insert(row)
    return campaign


def requeue(campaign: Campaign) -> list[Outgoing]:
    with campaign.store.transaction() as db:
        db.execute("update outbox set status = 'queued', sent_at = null where kind like '%report'")
    rows = campaign.store.rows("select id, recipient, raw from outbox where status = 'queued'")
    return [Outgoing(key=str(r["id"]), sender="gm@example.org", recipients=(r["recipient"],),
                     data=r["raw"]) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
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
        campaign = build_campaign(work / "campaign", args.players, port, cafile, args.messages)
        messages = requeue(campaign)
        size = sum(len(m.data) for m in messages) / len(messages)
        print(f"campaign of {args.players} players built in {time.perf_counter() - built:.1f} s "
              f"(untimed); {len(messages)} queued reports of {size:.0f} bytes on average; "
              f"best of {args.runs}")

        def gm_send() -> None:
            requeue(campaign)
            report = send(campaign)
            assert report.sent == len(messages) and not report.permanent and not report.temporary

        senders = {
            "floor: smtplib, one reused connection": lambda: smtplib_reused(settings, messages),
            "gm send (SQLite outbox, pool of 4, a commit per accepted message)": gm_send,
            "naive: smtplib, a connection per message": lambda: smtplib_naive(settings, messages),
        }
        best = {label: float("inf") for label in senders}
        for _ in range(args.runs):
            for label, run in senders.items():
                began = time.perf_counter()
                run()
                best[label] = min(best[label], time.perf_counter() - began)
        for label, seconds in best.items():
            print(f"{label:<70} {seconds:7.2f} s  {len(messages) / seconds:7.0f} msg/s")
        floor, gm_time, naive = best.values()
        print(f"gm send / floor = {gm_time / floor:.2f}x (aim <= 1.25x); "
              f"naive / gm send = {naive / gm_time:.1f}x faster (aim >= 4x)")
        campaign.close()
    finally:
        server.terminate()
        server.join()


if __name__ == "__main__":
    main()
