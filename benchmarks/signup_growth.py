"""Benchmark: how the cost of sign-up grows with the places held (docs/rules/postal.md,
Joining by mail): `CONFIRM`s in batches of 1,000 against 4,000, in postal, advanced and
unleashed, measured in one run.

Each batch is the real `gm` command line on the Maildir transport (start-up included):
a campaign with nobody listed and room for everyone (`max_players` the ruleset's most or
the batch, `max_waiting` the rest), `JOIN`s dropped into mail/inbox and ingested
untimed, then the `CONFIRM`s carrying the codes read back from mail/outbox: timed is the
one `gm ingest` that takes them. In advanced every other person asks for a team of
`signup.teams: open` (teams of two), so the ruleset's team rules judge each request
against the teams held. A sign-up that checks each request against the places held once
costs in proportion to the requests: 4,000 within 5.5 times 1,000 (4 times, and the
start-up's share). Re-checking every place held for each request grows with the square:
16 times.

    python benchmarks/signup_growth.py [--small 1000] [--large 4000] [--runs 3]
                                       [--rulesets postal,advanced,unleashed]
    python benchmarks/signup_growth.py --profile advanced --large 2000  # where the time goes

It prints a Markdown table of the medians of --runs (wall and the gm process's CPU time)
and the ratio large / small, and checks that every CONFIRM was answered and every
request holds its place.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
from email.message import EmailMessage
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from gm.campaign.config.people import SIGNUP_KEYS  # noqa: E402

sys.path[:0] = [str(ROOT / "benchmarks")]
from signup import Took, drop, gm  # noqa: E402  (one way to time a gm command and drop mail)

# the gm command of the venv this Python runs in (the script `pip install` made)
NOW = "2027-03-01T09:00:00Z"
CODE = re.compile(rb"^\s*CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})\r?$", re.MULTILINE)
BOARDS = {"postal": "milton-bradley.yaml", "advanced": "advanced.yaml", "unleashed": None}
MOST = {"unleashed": 6}  # the ruleset's most players: the rest wait
LIMIT = 5.5  # linear: 4x the requests, and the start-up's share


def letter(sender: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"Player <{sender}>"
    message["To"] = "gm@example.org"
    message["Subject"] = "sign-up"
    message["Message-ID"] = f"<{number}.{sender}>"
    message.set_content(body + "\n")
    return bytes(message)


def address(i: int) -> str:
    return f"p{i:05d}@example.org"


def join_text(ruleset: str, i: int) -> str:
    team = f"\nTEAM t{i // 2:05d}" if ruleset == "advanced" and i % 2 else ""
    return f"JOIN bench\nNAME Player {i}{team}"


def campaign(folder: Path, ruleset: str, people: int) -> None:
    most = MOST.get(ruleset, people)
    signup = {"max_players": most, "max_waiting": max(1, people - most), "teams": "open"}
    data = {"id": "bench", "title": "Bench", "ruleset": ruleset, "seed": 2**128 + 1,
            "first_deadline": "2027-04-01T00:00:00Z", "mail": {"from": "GM <gm@example.org>"}, "players": [],
            # the keys this gm knows: the same script measures a gm from before them
            "signup": {k: v for k, v in signup.items() if k in SIGNUP_KEYS}}
    if BOARDS[ruleset]:
        data["boards"] = {"A": str(ROOT / "boards" / BOARDS[ruleset])}
    folder.mkdir(parents=True)
    (folder / "campaign.yaml").write_text(yaml.safe_dump(data))


def joined(base: Path, ruleset: str, people: int) -> Path:
    """A campaign whose `people` JOINs are answered (untimed) and whose CONFIRMs wait in
    the inbox."""
    folder = base / f"{ruleset}-{people}"
    campaign(folder, ruleset, people)
    drop(folder, [letter(address(i), join_text(ruleset, i), i) for i in range(people)])
    gm(folder, "ingest")
    codes = {}
    with sqlite3.connect(folder / "gm.sqlite") as db:
        for to, raw in db.execute("select recipient, raw from outbox where kind = 'signup-code'"):
            codes[to] = CODE.search(raw).group(1).decode()
        db.execute("delete from outbox")
    assert len(codes) == people, f"{ruleset}: {len(codes)} codes for {people} JOINs"
    drop(folder, [letter(address(i), f"CONFIRM {codes[address(i)]}", people + i) for i in range(people)])
    return folder


def confirmed(folder: Path, ruleset: str, people: int) -> None:
    with sqlite3.connect(folder / "gm.sqlite") as db:
        held = db.execute("select count(*) from signups where status in ('in', 'waiting')").fetchone()[0]
        told = db.execute("select count(*) from outbox where kind = 'signup'").fetchone()[0]
    assert held == people and told == people, f"{ruleset}: {held} places held, {told} told, of {people}"


def profile(ruleset: str, people: int) -> None:
    """The CONFIRMs' ingest in this process under cProfile: where the time goes."""
    from click.testing import CliRunner

    from gm.cli import cli

    base = Path(tempfile.mkdtemp(prefix="gm-bench-growth-"))
    try:
        folder = joined(base, ruleset, people)
        os.environ["GM_NOW"] = NOW
        profiler = cProfile.Profile()
        profiler.enable()
        result = CliRunner().invoke(cli, ["-C", str(folder), "ingest"], catch_exceptions=False)
        profiler.disable()
        assert result.exit_code == 0, result.output
        confirmed(folder, ruleset, people)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rulesets", default="postal,advanced,unleashed")
    parser.add_argument("--profile", metavar="RULESET", help="profile one ingest of --large CONFIRMs instead")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.large)
        return
    rulesets = args.rulesets.split(",")
    times: dict[tuple[str, int], list[Took]] = {(r, n): [] for r in rulesets for n in (args.small, args.large)}
    for run in range(args.runs):
        base = Path(tempfile.mkdtemp(prefix="gm-bench-growth-"))
        try:
            for ruleset in rulesets:
                # interleaved, so the machine's load falls on each size alike
                for people in (args.small, args.large):
                    folder = joined(base, ruleset, people)
                    times[ruleset, people].append(gm(folder, "ingest"))
                    confirmed(folder, ruleset, people)
                    shutil.rmtree(folder)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        print(f"run {run + 1}: " + ", ".join(f"{r} {n} {t[-1].wall:.2f} s ({t[-1].cpu:.2f} s CPU)"
                                             for (r, n), t in times.items()), file=sys.stderr)

    def median(key: tuple[str, int]) -> Took:
        return Took(statistics.median(t.wall for t in times[key]), statistics.median(t.cpu for t in times[key]))

    print(f"| `CONFIRM`s ingested (median of {args.runs}) | {args.small:,}: wall | CPU | {args.large:,}: wall "
          f"| CPU | ratio (wall) | ratio (CPU) | aim ≤ {LIMIT}x |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for ruleset in rulesets:
        small, large = median((ruleset, args.small)), median((ruleset, args.large))
        ratio = large.cpu / small.cpu
        print(f"| {ruleset} | {small.wall:.2f} s | {small.cpu:.2f} s | {large.wall:.2f} s | {large.cpu:.2f} s "
              f"| {large.wall / small.wall:.2f}x | **{ratio:.2f}x** | {'met' if ratio <= LIMIT else 'NOT met'} |")


if __name__ == "__main__":
    main()
