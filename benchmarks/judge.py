"""Benchmark: one `gm judge DIR turn` for a judge of 50 campaigns and 5,000 players
(docs/benchmarks.md, A judge of 50 games).

Setup (untimed): a judge on the maildir transport with `--campaigns` postal campaigns of
`--players` players each (every player a distinct address), started in this process with
the passwords hashed at scrypt n=2^10 (gm's own cost, 2^13, would make the setup alone
take minutes on a shared machine; the cost is stored with each hash, so the timed turn
checks at that cost too: see the page for gm's real cost); one untimed `gm judge turn`
delivers the welcome mail. Then every player mails an order to the judge's one address
(`GAME <id>`, `PLAYER`, `PASSWORD`, `NUMBER 3`) and a stranger per campaign mails `LIST`,
and with GM_NOW past the deadline `gm judge DIR turn` runs once as a CLI subprocess:
routing, 50 ingests, 50 resolves, the reports sent, 50 archives and the judge's site.

    python benchmarks/judge.py [--campaigns 50] [--players 100]

Prints the time, the peak RSS of the child, and what the turn reported.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from gm import clock
from gm.campaign import passwords
from gm.campaign.campaign import start
from gm.judge.layout import new_judge

GM = [sys.executable, "-m", "gm"]


def setup(folder: Path, campaigns: int, players: int) -> None:
    new_judge(folder)
    passwords.SCRYPT["n"] = 2**10
    for c in range(campaigns):
        game = folder / "campaigns" / f"g{c:02d}"
        (game / "boards").mkdir(parents=True)
        board = Path(__file__).resolve().parent.parent / "boards" / "milton-bradley.yaml"
        (game / "boards" / "a.yaml").write_bytes(board.read_bytes())
        lines = "\n".join(f"  - {{id: p{i}, name: Player {c} {i}, email: p{c}-{i}@players.example, "
                          f"password: pass-{c}-{i}-bench-word}}" for i in range(players))
        (game / "campaign.yaml").write_text(
            f"id: g{c:02d}\ntitle: Game {c}\nruleset: postal\nseed: {10**20 + c}\nboards:\n  A: boards/a.yaml\n"
            f"players:\n{lines}\n", encoding="utf-8")
        start(game)[0].close()
    subprocess.run([*GM, "judge", str(folder), "turn"], check=True, capture_output=True)


def orders(folder: Path, campaigns: int, players: int) -> int:
    inbox = folder / "mail" / "inbox" / "new"
    n = 0
    for c in range(campaigns):
        for i in range(players):
            message = EmailMessage()
            message["From"], message["To"] = f"p{c}-{i}@players.example", "judge@example.org"
            message["Subject"], message["Message-ID"] = "orders", f"<o{c}.{i}@players.example>"
            message.set_content(f"GAME g{c:02d}\nPLAYER p{i}\nPASSWORD pass-{c}-{i}-bench-word\nNUMBER 3\n")
            (inbox / f"o{c}.{i}").write_bytes(message.as_bytes())
            n += 1
        message = EmailMessage()
        message["From"], message["To"] = f"stranger{c}@elsewhere.example", "judge@example.org"
        message["Subject"], message["Message-ID"] = "games?", f"<l{c}@elsewhere.example>"
        message.set_content("LIST\n")
        (inbox / f"l{c}").write_bytes(message.as_bytes())
        n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--campaigns", type=int, default=50)
    parser.add_argument("--players", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "judge"
        began = time.perf_counter()
        setup(folder, args.campaigns, args.players)
        mails = orders(folder, args.campaigns, args.players)
        print(f"setup: {args.campaigns} campaigns, {args.campaigns * args.players} players, {mails} mails "
              f"({time.perf_counter() - began:.0f} s, untimed)")
        env = dict(os.environ, GM_NOW=clock.iso(clock.now() + timedelta(days=8)))
        began = time.perf_counter()
        done = subprocess.run([*GM, "judge", str(folder), "turn"], env=env, capture_output=True, text=True)
        took = time.perf_counter() - began
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        lines = done.stdout.splitlines()
        resolved = sum("resolved, reports queued" in line for line in lines)
        print(f"gm judge turn: {took:.1f} s, peak RSS {rss:.0f} MB (the largest child), exit {done.returncode}")
        print(f"  {lines[0] if lines else done.stderr}")
        print(f"  {resolved} of {args.campaigns} campaigns resolved; {lines[-2] if len(lines) > 1 else ''}")
        sent = len(os.listdir(folder / "mail" / "outbox" / "new"))
        print(f"  outbox: {sent} mails in all since the start")


if __name__ == "__main__":
    main()
