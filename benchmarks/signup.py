"""Benchmark: 2,000 sign-ups by mail (issue 28), JOIN then CONFIRM, 4,000 mails, ingested
and answered, against the same number of order mails, measured in one run.

Each side is the real `gm` command line (a subprocess each, start-up included) on the
Maildir transport, mail dropped into mail/inbox as a mail server would (untimed):

* sign-up: a campaign with `signup: {max_players: 1900}` and no player listed. 2,000
  JOINs, then `gm ingest` and `gm send` (2,000 code mails); 2,000 CONFIRMs carrying the
  codes read back from mail/outbox, then `gm ingest` and `gm send` (2,000 notices of where
  each stands: 1,900 in, 100 waiting). Timed: the two ingests and the two sends.
* orders: a started campaign of the same 2,000 players, each sending two order mails
  (NUMBER, then TRAPDOOR) in two rounds of 2,000, each round `gm ingest` and `gm send`
  (2,000 acknowledgements). Timed likewise. Twice: with the players' passwords hashed at
  gm's own scrypt cost (what gm does for order mail: a check per player, about 30 ms,
  which sign-up mail never pays: a code is an HMAC), and at scrypt n=2, which leaves the
  desk's own work (reading, parsing, deciding, recording, composing, delivering): the
  stricter comparison, and the aim of issue 28 (at most 1.25x).

    python benchmarks/signup.py [--people 2000] [--runs 3] [--real-scrypt | --no-real-scrypt]

It prints a Markdown table of the medians of --runs and the ratios, and checks that
every mail got its one reply (4,000 each side) and that 1,900 are in and 100 waiting.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from gm import clock  # noqa: E402
from gm.campaign import campaign as gm_campaign  # noqa: E402
from gm.campaign import passwords as gm_passwords  # noqa: E402

# the gm command of the venv this Python runs in (the script `pip install` made)
GM = [str(Path(sys.executable).parent / "gm")]
NOW = "2027-03-01T09:00:00Z"
CODE = re.compile(rb"^\s*CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})\r?$", re.MULTILINE)


@dataclass
class Took:
    """Wall time, and the CPU time (user + system) of the gm process: on a machine others
    share, the CPU time is the steadier measure of gm's own work."""

    wall: float = 0.0
    cpu: float = 0.0

    def __add__(self, other: Took) -> Took:
        return Took(self.wall + other.wall, self.cpu + other.cpu)


def gm(folder: Path, *args: str) -> Took:
    """One gm command as the GM runs it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([*GM, "-C", str(folder), *args], check=True, capture_output=True,
                   env=os.environ | {"GM_NOW": NOW})
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Took(wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def drop(folder: Path, mails: list[bytes]) -> None:
    inbox = folder / "mail" / "inbox" / "new"
    inbox.mkdir(parents=True, exist_ok=True)
    for number, raw in enumerate(mails):
        (inbox / f"{time.time_ns()}.{number}.bench").write_bytes(raw)


def letter(sender: str, body: str, number: int, subject: str) -> bytes:
    message = EmailMessage()
    message["From"] = f"Player <{sender}>"
    message["To"] = "gm@example.org"
    message["Subject"] = subject
    message["Message-ID"] = f"<{number}.{sender}>"
    message.set_content(body + "\n-- \nSent from my phone\n")
    return bytes(message)


def address(i: int) -> str:
    return f"p{i:04d}@example.org"


def config(people: int, *, signup: bool) -> dict:
    data = {"id": "bench", "title": "Bench", "seed": 2**128 + 1, "first_deadline": "2027-04-01T00:00:00Z",
            "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml")}, "mail": {"from": "GM <gm@example.org>"}}
    if signup:
        data |= {"players": [], "signup": {"max_players": people - people // 20}}
    else:
        data |= {"players": [{"id": f"p{i:04d}", "name": f"Player {i}", "email": address(i),
                              "password": f"pw-{i}-secret"} for i in range(people)]}
    return data


def signup_run(base: Path, people: int) -> tuple[Took, dict]:
    folder = base / "signup"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config(people, signup=True)))
    drop(folder, [letter(address(i), f"JOIN bench\nNAME Player {i}", i, "Join") for i in range(people)])
    took = gm(folder, "ingest") + gm(folder, "send")
    codes = {}
    for path in (folder / "mail" / "outbox" / "new").iterdir():
        raw = path.read_bytes()
        to = re.search(rb"^To: (\S+)\r?$", raw, re.MULTILINE).group(1).decode()
        codes[to] = CODE.search(raw).group(1).decode()
    drop(folder, [letter(address(i), f"CONFIRM {codes[address(i)]}", people + i, "Confirm") for i in range(people)])
    took += gm(folder, "ingest") + gm(folder, "send")
    with sqlite3.connect(folder / "gm.sqlite") as db:
        facts = {"replies": db.execute("select count(*) from outbox where status = 'sent'").fetchone()[0],
                 "standing": dict(db.execute("select status, count(*) from signups group by status").fetchall())}
    return took, facts


def started(base: Path, people: int, cost: int) -> Path:
    """A started campaign of `people` whose passwords are hashed at scrypt n=`cost`
    (hashed on every core: setting it up is not what is measured)."""
    folder = base / f"orders-{cost}"
    folder.mkdir()
    data = config(people, signup=False)
    (folder / "campaign.yaml").write_text(yaml.safe_dump(data))
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        hashes = list(pool.map(lambda p: gm_campaign.hash_password(p["password"], n=cost), data["players"]))
    real = gm_campaign.hash_password
    gm_campaign.hash_password = lambda password, **kw: hashes[int(password.split("-")[1])]
    try:
        with clock.frozen(clock.parse_time(NOW)):
            gm_campaign.start(folder)[0].close()
    finally:
        gm_campaign.hash_password = real
    with sqlite3.connect(folder / "gm.sqlite") as db:
        db.execute("delete from outbox")  # the welcomes: not part of the measure
    return folder


def orders_run(base: Path, people: int, cost: int) -> tuple[Took, dict]:
    folder = started(base, people, cost)
    took = Took()
    for round_, line in enumerate(("NUMBER {n}", "TRAPDOOR A {t}")):
        drop(folder, [letter(address(i), f"PLAYER p{i:04d}\nPASSWORD pw-{i}-secret\n"
                                         + line.format(n=i % 6 + 1, t=i % 90 + 5),
                             round_ * people + i, "Re: [bench] orders") for i in range(people)])
        took += gm(folder, "ingest") + gm(folder, "send")
    with sqlite3.connect(folder / "gm.sqlite") as db:
        facts = {"replies": db.execute("select count(*) from outbox where status = 'sent' and kind = 'ack'").fetchone()[0]}
    return took, facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--real-scrypt", action=argparse.BooleanOptionalAction, default=True,
                        help="also time order mail at gm's own scrypt cost (slow to set up)")
    args = parser.parse_args()
    times: dict[str, list[Took]] = {"signup": [], "orders": [], "orders-real": []}
    for run in range(args.runs):
        base = Path(tempfile.mkdtemp(prefix="gm-bench-signup-"))
        try:
            # interleaved, so the machine's load falls on each side alike
            took, facts = signup_run(base, args.people)
            assert facts["replies"] == 2 * args.people, facts
            assert facts["standing"] == {"in": args.people - args.people // 20, "waiting": args.people // 20}, facts
            times["signup"].append(took)
            took, facts = orders_run(base, args.people, 2)
            assert facts["replies"] == 2 * args.people, facts
            times["orders"].append(took)
            if args.real_scrypt:
                took, facts = orders_run(base, args.people, gm_passwords.SCRYPT["n"])
                assert facts["replies"] == 2 * args.people, facts
                times["orders-real"].append(took)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        print(f"run {run + 1}: " + ", ".join(f"{k} {v[-1].wall:.2f} s ({v[-1].cpu:.2f} s CPU)"
                                             for k, v in times.items() if v), file=sys.stderr)

    def median(name: str) -> Took:
        return Took(statistics.median(t.wall for t in times[name]), statistics.median(t.cpu for t in times[name]))

    signup = median("signup")
    print(f"| {args.people:,} people, {2 * args.people:,} mails each side (median of {args.runs}) "
          "| wall | CPU | ratio (wall) | ratio (CPU) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| sign-up: JOIN, CONFIRM (ingest + send, twice) | {signup.wall:.2f} s | {signup.cpu:.2f} s | | |")
    rows = [("orders", "order mail, passwords at scrypt n=2 (the desk's own work)")]
    if times["orders-real"]:
        rows.append(("orders-real", "order mail, passwords at gm's scrypt n=2^13"))
    for name, label in rows:
        base = median(name)
        print(f"| {label} | {base.wall:.2f} s | {base.cpu:.2f} s | {signup.wall / base.wall:.2f}x "
              f"| **{signup.cpu / base.cpu:.2f}x** |")


if __name__ == "__main__":
    main()
