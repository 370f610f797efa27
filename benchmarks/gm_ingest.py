"""Benchmark: `gm ingest` of 5,000 order mails from a private Dovecot, and where the time
goes.

A campaign of 500 players (each sends 10 orders, the last one standing) reads its IMAP
inbox through the whole `gm ingest` path: one UID SEARCH, one UID FETCH per 500 mails,
parsing (`read_mail`, `parse_orders`), the password check (scrypt, once per player and
run), the order desk's decision, the reply composed and queued, one SQLite transaction
per mail, and one UID MOVE per 500. In the same run it times:

* naive fetch: the same mails fetched with one UID FETCH per message (no parsing);
* parse: bare `email` parsing of the same bytes (message_from_bytes + get_body), the
  floor of any ingest.

    python benchmarks/gm_ingest.py [--players 500] [--per-player 10] [--runs 2]

Between runs the mail is moved back to the inbox and the campaign's records of it are
deleted, and the password cache is emptied, so every run pays for everything.
"""

from __future__ import annotations

import argparse
import cProfile
import email
import email.policy
import os
import pstats
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import servers  # noqa: E402 - tests/servers.py, the same server the tests use
from imapclient import IMAPClient  # noqa: E402

from gm import clock  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.folder import Campaign  # noqa: E402
from gm.campaign.ingest import ingest_imap  # noqa: E402
from gm.campaign.passwords import check_password  # noqa: E402


def orders(players: int, per_player: int) -> list[bytes]:
    out = []
    for round_ in range(per_player):
        for i in range(players):
            msg = EmailMessage()
            msg["From"] = f"Player {i} <p{i}@example.org>"
            msg["To"] = "Snakes GM <gm@example.org>"
            msg["Subject"] = "Re: [bench] Turn 1 report"
            msg["Message-ID"] = f"<{round_}.{i}@mail.example.org>"
            msg["Date"] = f"Sat, 02 Jan 2027 {10 + round_ % 10:02d}:{i % 60:02d}:00 +0000"
            body = (f"PLAYER p{i}\nPASSWORD pw-{i}-secret\nNUMBER {(i + round_) % 6 + 1}\n"
                    f"TRAPDOOR A {(i * 7 + round_) % 90 + 5}\n\n-- \nSent from my phone\n")
            if i % 10 < 7:
                msg.set_content(body)
            else:
                msg.set_content(body + "> quoted turn report line\n" * 20, cte="quoted-printable")
                msg.add_alternative(f"<html><body><pre>{body}</pre></body></html>", subtype="html")
            out.append(bytes(msg))
    return out


def build(folder: Path, players: int, dovecot, user: str, password: str) -> Campaign:
    folder.mkdir(parents=True)
    config = {
        "id": "bench",
        "seed": 1,
        "first_deadline": "2027-01-08T00:00:00Z",
        "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml")},
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": f"pw-{i}-secret"} for i in range(players)],
        "mail": {
            "transport": "imap+smtp",
            "from": "Snakes GM <gm@example.org>",
            "imap": {"host": "127.0.0.1", "port": dovecot.port, "user": user, "ssl": False,
                     "starttls": True, "cafile": dovecot.tls.cafile},
            "smtp": {"host": "127.0.0.1", "user": user},
        },
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    os.environ["GM_IMAP_PASSWORD"] = password
    with clock.frozen(clock.parse_time("2027-01-01T00:00:00Z")):
        campaign, _ = start(folder)
    return campaign


def client(dovecot, user: str, password: str) -> IMAPClient:
    imap = IMAPClient("127.0.0.1", port=dovecot.port, ssl=False)
    imap.login(user, password)
    return imap


def reset(campaign: Campaign, dovecot, user: str, password: str) -> None:
    """Mail back in the inbox, the campaign's records of it gone, no password cached."""
    imap = client(dovecot, user, password)
    if imap.folder_exists("gm-processed"):
        imap.select_folder("gm-processed")
        uids = imap.search("ALL")
        if uids:
            imap.move(uids, "INBOX")
    imap.logout()
    with campaign.store.transaction() as db:
        for table in ("messages", "orders", "outbox"):
            db.execute(f"delete from {table}")
    check_password.cache_clear()


def naive_fetch(dovecot, user: str, password: str) -> int:
    imap = client(dovecot, user, password)
    imap.select_folder("INBOX", readonly=True)
    total = 0
    for uid in imap.search("ALL"):
        total += len(imap.fetch([uid], [b"BODY.PEEK[]", b"INTERNALDATE"])[uid][b"BODY[]"])
    imap.logout()
    return total


def bare_parse(raws: list[bytes]) -> None:
    for raw in raws:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        body = message.get_body(("plain", "html"))
        if body is not None:
            body.get_content()


BUCKETS = {
    "fetch and move (IMAP)": ("imap.py", ("fetch", "move_processed", "uids")),
    "read_mail (MIME parsing)": ("inbound.py", ("read_mail",)),
    "parse_orders": ("orderlang.py", ("parse_orders",)),
    "check_password (scrypt)": ("campaign.py", ("check_password",)),
    "reply composed (templates + MIME)": ("mailout.py", ("compose",)),
    "reply queued (MIME to bytes, insert)": ("outbox.py", ("queue",)),
    "SQLite commits": ("store.py", ("transaction",)),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--per-player", type=int, default=10)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gm-bench-ingest-"))
    work.chmod(0o755)  # Dovecot's auth process (user dovecot) must reach the passwd file
    tls = servers.TlsFiles.create(work / "tls")
    dovecot = servers.start_dovecot(work / "dovecot", tls, users=1)
    try:
        user, password = dovecot.add_user()
        raws = orders(args.players, args.per_player)
        imap = client(dovecot, user, password)
        for i in range(0, len(raws), 250):
            imap.multiappend("INBOX", raws[i:i + 250])
        imap.logout()
        began = time.perf_counter()
        campaign = build(work / "campaign", args.players, dovecot, user, password)
        print(f"{len(raws)} order mails from {args.players} players; campaign started in "
              f"{time.perf_counter() - began:.1f} s (untimed); best of {args.runs}")
        best: dict[str, float] = {}

        def timed(label: str, run) -> None:
            began = time.perf_counter()
            run()
            best[label] = min(best.get(label, float("inf")), time.perf_counter() - began)

        profile = cProfile.Profile()
        for number in range(args.runs):
            reset(campaign, dovecot, user, password)
            timed("naive fetch: one UID FETCH per message", lambda: naive_fetch(dovecot, user, password))
            timed("parse: bare email parsing", lambda: bare_parse(raws))
            with clock.frozen(clock.parse_time("2027-01-03T00:00:00Z")):
                if number == args.runs - 1:
                    profile.enable()
                timed("gm ingest (whole path)", lambda: ingest_imap(campaign))
                profile.disable()
            outcomes = campaign.store.rows("select outcome, count(*) as n from messages group by outcome")
            assert outcomes == [{"outcome": "applied", "n": len(raws)}], outcomes
        for label, seconds in best.items():
            print(f"{label:<42} {seconds:7.2f} s  {len(raws) / seconds:7.0f} msg/s")
        stats = pstats.Stats(profile)
        total = best["gm ingest (whole path)"]
        print("where the time of the profiled gm ingest run goes (cumulative, overlapping):")
        for label, (module, functions) in BUCKETS.items():
            seconds = sum(row[3] for (file, _, name), row in stats.stats.items()
                          if file.endswith(module) and name in functions)
            print(f"  {label:<40} {seconds:6.2f} s")
        print(f"gm ingest / bare parsing = {total / best['parse: bare email parsing']:.1f}x")
        campaign.close()
    finally:
        dovecot.stop()


if __name__ == "__main__":
    main()
