"""Benchmark: a ruleset from an installed package resolves as fast as the same class built in
(issue 26: a plugin once resolved 5x slower, its entry points rescanned at every template
lookup).

One ruleset class, `BenchPostal` (Postal under the name `benchpostal`), is built into a
distribution (`gm-bench-postal`, entry point `gm.rulesets`) and pip-installed into a temp
folder put on sys.path. A postal campaign of `--players` on two sample boards is started
with it once (cheap scrypt: the start is not measured) and copied fresh for every run.
Each run resolves `--turns` turns through gm's campaign layer (gm.campaign.turns.resolve:
the rules, the views, every report rendered and queued, so every template lookup that asks
for the ruleset counts), either with the class registered at run time (registry.register:
the built-in case, no entry point read) or found through the distribution's entry point.
The two alternate run by run; the medians and their ratio are printed (aim: at most 1.1).

    python benchmarks/plugin_resolve.py [--players 40] [--turns 5] [--runs 11]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from rulesetdist import install_ruleset  # noqa: E402 - tests/rulesetdist.py: pip builds and installs it

import gm.campaign.passwords  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.folder import Campaign  # noqa: E402
from gm.campaign.turns import resolve  # noqa: E402
from gm.rules import registry  # noqa: E402

NAME = "benchpostal"


def campaign_folder(base: Path, players: int, turns: int) -> Path:
    """A started campaign of the `benchpostal` ruleset, to copy for each run."""
    folder = base / "started"
    folder.mkdir()
    config = {
        "id": "bench",
        "ruleset": NAME,
        "seed": 1,
        "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml"),
                   "B": str(ROOT / "boards" / "ziggurat.yaml")},
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": "pw-bench"} for i in range(players)],
        "options": {"max_turns": turns + 1},  # never over before the last turn timed
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    with clock.frozen(clock.parse_time("2027-01-01T00:00:00Z")):
        campaign, _ = start(folder)
    campaign.close()
    return folder


def resolve_turns(source: Path, target: Path, turns: int) -> tuple[float, float]:
    """CPU and wall seconds to resolve `turns` turns of a fresh copy of the campaign (opening
    it untimed). CPU is what the ratio compares: the machine's other load moves wall time by
    more than the difference looked for."""
    shutil.copytree(source, target)
    campaign = Campaign.open(target)
    cpu = wall = 0.0
    try:
        for _ in range(turns):
            deadline = campaign.deadline()
            with clock.frozen(deadline + timedelta(hours=1)):
                began, began_cpu = time.perf_counter(), time.process_time()
                resolve(campaign, force=True)
                cpu += time.process_time() - began_cpu
                wall += time.perf_counter() - began
    finally:
        campaign.close()
    shutil.rmtree(target)
    return cpu, wall


def lookup_seconds(calls: int = 100_000) -> float:
    """Seconds of one registry.find_ruleset(NAME), however it is registered now."""
    began = time.perf_counter()
    for _ in range(calls):
        registry.find_ruleset(NAME)
    return (time.perf_counter() - began) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    gm.campaign.passwords.SCRYPT["n"] = 2**4
    base = Path(tempfile.mkdtemp(prefix="gm-bench-plugin-"))
    try:
        site = install_ruleset(base / "dist", distribution="gm-bench-postal", version="0.1.0", package="bench_postal",
                               ruleset=NAME, cls="BenchPostal")
        sys.path.insert(0, str(site))
        from bench_postal import BenchPostal  # the very class the entry point names

        assert registry.origin(NAME) == ("gm-bench-postal", "0.1.0")
        source = campaign_folder(base, args.players, args.turns)
        times: dict[str, list[tuple[float, float]]] = {"registered": [], "entry point": []}
        lookups, one = 0, {}
        for run in range(args.runs + 1):  # the first pair warms both up and is not counted
            for way in times if run % 2 else reversed(times):  # each goes first in every other run
                if way == "registered":
                    registry.register(BenchPostal)
                else:
                    registry.unregister(NAME)
                before = registry._entry_points.cache_info().hits
                seconds = resolve_turns(source, base / f"run-{run}", args.turns)
                if way == "entry point":
                    lookups = registry._entry_points.cache_info().hits - before
                    assert type(registry.find_ruleset(NAME)) is BenchPostal
                one[way] = lookup_seconds()
                if run:
                    times[way].append(seconds)
        print(f"{args.players} players, {args.turns} turns resolved with every report queued "
              f"(median of {args.runs} runs, CPU seconds; wall in brackets):")
        medians = {}
        for way, values in times.items():
            cpu, wall = [v[0] for v in values], [v[1] for v in values]
            medians[way] = statistics.median(cpu)
            print(f"  {way:<12} {medians[way]:.3f} s (min {min(cpu):.3f}, max {max(cpu):.3f}) "
                  f"[{statistics.median(wall):.3f} s]; one find_ruleset {one[way] * 1e6:.2f} us")
        print(f"  the ruleset looked up through the entry points {lookups} times in one run; the installed "
              f"packages scanned {registry._entry_points.cache_info().misses} time(s) in all")
        extra = lookups * (one["entry point"] - one["registered"])
        print(f"  what those look-ups cost beyond the registered class's: {extra * 1e3:.2f} ms a run, "
              f"{extra / medians['registered']:.2%} of it (the rest of any difference is the machine's noise)")
        print(f"ratio entry point / registered: {medians['entry point'] / medians['registered']:.3f}x "
              f"(aim: at most 1.1x)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
