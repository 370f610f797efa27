"""Benchmark: `gm publish` after one more turn, against a full publish (issues 15 and 27).

Starts a postal campaign of `--players` on the three boards of benchmarks/scale.py and
turn.py (100, 200 and 300 squares, as issue 15 sets them; with a cheap scrypt: the
start is not what is measured) and resolves `--turns` turns. Each run copies that
campaign, times a full publish of the copy into an empty folder, resolves ONE more turn in
the copy (not timed) and times the incremental publish into that same folder: what the
weekly `gm turn` does (the same campaign's store keeps what the first publish derived). Prints the medians over `--runs`, their ratio
(no aim: the 0.2 once set measured Python's start-up, docs/benchmarks.md) and how many pages each wrote and left unchanged (WriteReport).
`--profile` prints where one more incremental publish spends its time.

`--command` times what a GM runs instead (issue 27): `gm -C DIR publish` as a subprocess,
start-up, imports and opening the campaign included. The campaign after `--turns` turns
is published once (untimed) and turn `--turns` + 1 resolved in it; then each run times,
on a fresh copy of that folder, the full publish (into an empty folder: the archive
removed first) and the incremental one over the previous turn's archive. Every copy
stands at the same path, as the memo keeps pages under the archive's path. Prints the
medians, their ratio and the pages each wrote, as gm said them, and a
floor timed in the same runs: the interpreter importing click and Jinja2 and nothing of
gm, which any publish that renders a page pays, and rendering the pages the incremental
publish writes, alone and in-process (`render_floor`); with `--profile`, a cProfile of one
more incremental command, imports included.

    .venv/bin/python benchmarks/publish.py [--players 500] [--turns 6] [--runs 3] [--profile] [--keep DIR]
    .venv/bin/python benchmarks/publish.py --command --turns 1 [--runs 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gm.campaign.passwords  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.folder import Campaign  # noqa: E402
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


# the gm command of this checkout, as the console script runs it; with --profile, under cProfile
# from its first import on
GM = """
import sys
sys.argv[0] = "gm"
from gm.cli import main
sys.exit(main())
"""
GM_PROFILED = """
import cProfile, pstats, sys
sys.argv[0] = "gm"
profiler = cProfile.Profile()
profiler.enable()
try:
    from gm.cli import main
    main()
except SystemExit:
    pass
finally:
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
"""
SAID = re.compile(r"\((\d+) pages? written, (\d+) unchanged\)")


# what any publish that renders a page pays before gm's own code: the interpreter, the CLI
# library and the template engine
FLOOR = "import click, jinja2"


def gm_publish(folder: Path, turn: int, script: str = GM) -> tuple[float, float, str]:
    """`gm -C folder publish` in a fresh interpreter, an hour after turn `turn`'s deadline:
    its wall time, start-up included, its CPU time (the machine is shared: waiting for a
    core counts in the first, not in the second) and what it printed. Python keeps its compiled
    modules (in the work folder), as an installed gm has them, even where the environment
    says not to write them (PYTHONDONTWRITEBYTECODE)."""
    env = dict(os.environ, GM_NOW=clock.iso(BEGIN + timedelta(days=7 * turn, hours=1)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    env["PYTHONPYCACHEPREFIX"] = str(folder.parent / "pycache")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("GM_CAMPAIGN", None)
    began, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run([sys.executable, "-c", script, *(("-C", str(folder), "publish") if script != FLOOR else ())],
                          env=env, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - began, children_cpu() - cpu
    if done.returncode:
        raise SystemExit(f"gm publish failed: {done.stderr.strip()}")
    return seconds, cpu, done.stdout.strip()


def children_cpu() -> float:
    """User and system CPU of the children waited for so far, in seconds."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fresh_copy(source: Path, target: Path) -> Path:
    """`source` copied to `target`, file times kept (the memo checks them), and on disk: the
    store's checkpoint as gm closes it would otherwise flush the whole copy (0.1 s of a
    200 MB store at turn 21), which no GM's campaign has waiting."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    os.sync()
    return target


def empty_archive(folder: Path) -> None:
    """The full publish's start: the archive folder gone, as the issue measures it ("gm
    publish into an empty folder"); the store keeps the summaries of the turns published
    before, as a publish to a new --out would find them."""
    shutil.rmtree(folder / "archive")


def pages_said(said: str) -> tuple[int, int]:
    found = SAID.search(said)
    if found is None:
        raise SystemExit(f"gm publish said no page count: {said}")
    return int(found[1]), int(found[2])


def render_floor(folder: Path) -> tuple[float, float]:
    """In-process, gm and Jinja imported: the wall and CPU time of rendering the pages an
    incremental publish of `folder` must render (those its memo does not know fresh), and
    nothing else; what any publish that shows the new turn pays on top of its imports."""
    from gm.publish.archive import build_site
    from gm.publish.archive_load import load_archive
    from gm.publish.memo import Memo
    from gm.publish.render import render_page
    from gm.rules.files import lineage

    campaign = Campaign.open(folder)
    try:
        memo = Memo(campaign.store, folder / "archive", lineage(campaign.ruleset))
        pages = [page for page in build_site(load_archive(campaign, memo)) if not memo.fresh(page)]
        began, cpu = time.perf_counter(), time.process_time()
        for page in pages:
            render_page(page)
        return time.perf_counter() - began, time.process_time() - cpu
    finally:
        campaign.close()


def commands(args: argparse.Namespace, work: Path, before: Path) -> None:
    """--command: the full and the incremental `gm publish` as commands (module docstring)."""
    run, after = work / "run", work / "after"
    turn = args.turns + 1
    # made again each time: the memo is only good for the gm that wrote it
    shutil.rmtree(after, ignore_errors=True)
    fresh_copy(before, run)
    gm_publish(run, args.turns)
    resolve_turns(run, turn, 1)
    run.rename(after)
    times: dict[str, list[tuple[float, float]]] = {"full": [], "incremental": [], "floor": [], "render": []}
    for number in range(args.runs):
        times["floor"].append(tuple(gm_publish(run, turn, FLOOR)[:2]))
        empty_archive(fresh_copy(after, run))
        *full, full_said = gm_publish(run, turn)
        fresh_copy(after, run)
        times["render"].append(render_floor(run))
        *incremental, said = gm_publish(run, turn)
        times["full"].append(tuple(full))
        times["incremental"].append(tuple(incremental))
        written, unchanged = pages_said(said)
        print(f"run {number + 1}: full {full[0]:.2f} s, CPU {full[1]:.2f} s ({pages_said(full_said)[0]} pages "
              f"written); incremental {incremental[0]:.2f} s, CPU {incremental[1]:.2f} s ({written} written, "
              f"{unchanged} unchanged)", flush=True)
    (full, full_cpu), (incremental, incremental_cpu), (floor, floor_cpu), (render, render_cpu) = (
        tuple(statistics.median(run[i] for run in times[kind]) for i in (0, 1))
        for kind in ("full", "incremental", "floor", "render"))
    print(f"{args.players} players, 3 boards (100, 200, 300 squares), `gm publish` as a command at turn {turn} "
          f"(median of {args.runs}): full {full:.2f} s, incremental {incremental:.2f} s, ratio "
          f"{incremental / full:.2f}; CPU full {full_cpu:.2f} s, incremental {incremental_cpu:.2f} s, ratio "
          f"{incremental_cpu / full_cpu:.2f}; incremental wrote {written} of "
          f"{written + unchanged} pages")
    print(f"floor: `python -c '{FLOOR}'` {floor:.2f} s, CPU {floor_cpu:.2f} s: {floor / full:.2f} of the full "
          f"publish's time, {floor_cpu / full_cpu:.2f} of its CPU; rendering the {written} pages alone, in-process: "
          f"{render:.3f} s, CPU {render_cpu:.3f} s ({render_cpu / full_cpu:.2f} of the full publish's CPU); the two "
          f"together {(floor_cpu + render_cpu) / full_cpu:.2f}")
    if args.profile:
        fresh_copy(after, run)
        print(gm_publish(run, turn, GM_PROFILED)[2])
    shutil.rmtree(run, ignore_errors=True)


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
    parser.add_argument("--command", action="store_true",
                        help="time `gm publish` as a command, start-up included (issue 27)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the campaign in DIR and reuse it when it holds it already")
    args = parser.parse_args()
    gm.campaign.passwords.SCRYPT["n"] = 2**4
    work = args.keep or Path(tempfile.mkdtemp(prefix="gm-bench-publish-"))
    before, after = work / "before", work / "after"
    if (before / "gm.sqlite").exists():
        print(f"reusing the campaign in {work}", flush=True)
    else:
        prepare(args, before)
    if args.command:
        commands(args, work, before)
        if not args.keep:
            shutil.rmtree(work)
        return
    fulls, incrementals = [], []
    for run in range(args.runs):
        out = work / f"archive-{run}"
        shutil.rmtree(out, ignore_errors=True)
        fresh_copy(before, after)
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
          f"ratio {incremental / full:.2f}; incremental wrote "
          f"{len(report.written)} of {len(report.written) + len(report.unchanged)} pages")

    if args.profile:
        out = work / "archive-profile"
        shutil.rmtree(out, ignore_errors=True)
        fresh_copy(before, after)
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
