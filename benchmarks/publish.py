"""Benchmark: `gm publish` after one more turn, against a full publish (issue 15).

Starts a postal campaign of `--players` on the three boards of benchmarks/scale.py and
turn.py (100, 200 and 300 squares, as issue 15 sets them; with a cheap scrypt: the
start is not what is measured) and resolves `--turns` turns. Each run copies that
campaign, times a full publish of the copy into an empty folder, resolves ONE more turn in
the copy (not timed) and times the incremental publish into that same folder: what the
weekly `gm turn` does (the same campaign's store keeps what the first publish derived). Prints the medians over `--runs`, their ratio
(aim: at most 0.2) and how many pages each wrote and left unchanged (WriteReport).
`--profile` prints where one more incremental publish spends its time.

    .venv/bin/python benchmarks/publish.py [--players 500] [--turns 6] [--runs 3] [--profile] [--keep DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gm.campaign.campaign  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import Campaign, start  # noqa: E402
from gm.campaign.turns import resolve  # noqa: E402
from gm.publish.write import publish  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from scale import boards  # noqa: E402 - the same three boards as benchmarks/scale.py and turn.py

BEGIN = clock.parse_time("2027-01-01T00:00:00Z")


def resolve_turns(folder: Path, first: int, count: int) -> None:
    campaign = Campaign.open(folder)
    try:
        for turn in range(first, first + count):
            with clock.frozen(BEGIN + timedelta(days=7 * turn)):
                resolve(campaign, force=True)
    finally:
        campaign.close()


def timed_publish(folder: Path, out: Path):
    campaign = Campaign.open(folder)
    try:
        began = time.perf_counter()
        _, report = publish(campaign, out)
        return time.perf_counter() - began, report
    finally:
        campaign.close()


def prepare(args: argparse.Namespace, before: Path) -> None:
    """The campaign after `args.turns` turns in `before`."""
    before.mkdir(parents=True)
    config = {
        "id": "bench",
        "seed": 1,
        "boards": boards(before),
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": "pw-bench"} for i in range(args.players)],
    }
    (before / "campaign.yaml").write_text(yaml.safe_dump(config))
    began = time.perf_counter()
    with clock.frozen(BEGIN):
        campaign, _ = start(before)
    campaign.close()
    resolve_turns(before, 1, args.turns)
    print(f"set up {args.players} players, 3 boards, {args.turns} + 1 turns "
          f"in {time.perf_counter() - began:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--turns", type=int, default=6, help="turns resolved before the full publish")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="profile one more incremental publish")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the campaign in DIR and reuse it when it holds it already")
    args = parser.parse_args()
    gm.campaign.campaign.SCRYPT["n"] = 2**4
    work = args.keep or Path(tempfile.mkdtemp(prefix="gm-bench-publish-"))
    before, after = work / "before", work / "after"
    if (before / "gm.sqlite").exists():
        print(f"reusing the campaign in {work}", flush=True)
    else:
        prepare(args, before)
    fulls, incrementals = [], []
    for run in range(args.runs):
        out = work / f"archive-{run}"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(after, ignore_errors=True)
        shutil.copytree(before, after)
        full, full_report = timed_publish(after, out)
        resolve_turns(after, args.turns + 1, 1)
        incremental, report = timed_publish(after, out)
        fulls.append(full)
        incrementals.append(incremental)
        print(f"run {run + 1}: full {full:.2f} s ({len(full_report.written)} pages written), "
              f"incremental {incremental:.2f} s ({len(report.written)} written, "
              f"{len(report.unchanged)} unchanged)", flush=True)
    full, incremental = statistics.median(fulls), statistics.median(incrementals)
    print(f"{args.players} players, 3 boards (100, 200, 300 squares), turn {args.turns} then {args.turns + 1}: "
          f"full publish {full:.2f} s, incremental {incremental:.2f} s, "
          f"ratio {incremental / full:.2f} (aim: at most 0.2); incremental wrote "
          f"{len(report.written)} of {len(report.written) + len(report.unchanged)} pages")

    if args.profile:
        out = work / "archive-profile"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(after, ignore_errors=True)
        shutil.copytree(before, after)
        timed_publish(after, out)
        resolve_turns(after, args.turns + 1, 1)
        campaign = Campaign.open(after)
        profiler = cProfile.Profile()
        profiler.enable()
        publish(campaign, out)
        profiler.disable()
        campaign.close()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
