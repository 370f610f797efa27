"""Benchmark: the exact board analysis (gm.boards.analysis) against a pure-Python float
reference, its peak memory, a 10,000-square board, and the designer (issues 27 and 1).

    OPENBLAS_NUM_THREADS=1 python benchmarks/analysis.py               # all, in one run
    OPENBLAS_NUM_THREADS=1 python benchmarks/analysis.py --repeat 9 --skip 10000

Prints, in one run:

1. The whole analysis of a 1,000-square board, every ruleset together and one die, as
   `gm board analyze` does: gm's best of `--repeat` runs (CPU and wall), one run of the
   pure-Python float reference (benchmarks/analysis_reference.py: the same figures by the
   textbook method in plain lists), their ratio (aim: at most 0.5x), and the peak
   resident memory of a child process that only reads the board and analyses it (aim:
   under 200 MB), beside a child that only starts (Python, numpy and gm imported). The
   reference's figures are checked equal to gm's. Boards: boards/designed-thousand.yaml
   (1,000 squares in forty levels, fifty snakes and fifty ladders of 10 to 120 squares,
   made by `gm board design tests/data/designs/thousand.yaml`) and a random board as the
   issue measured (a tenth of its squares' worth of snakes and ladders between random
   squares, seed 1), whose reference takes minutes (`--skip random-reference`).
2. Each ruleset's part of gm's time on both boards.
3. A random 10,000-square board (the largest a board may be), the whole analysis in a child
   process: wall and CPU time, peak memory (aim: minutes, under 1 GB).
4. The designer: the 1,000-square design and a target search.

Figures go in docs/benchmarks-analysis.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from gm.analysis import analyze as analysis  # noqa: E402
from gm.analysis.design import build_design  # noqa: E402
from gm.analysis.designfile import load_design  # noqa: E402
from gm.boards.board import load_board  # noqa: E402
from gm.boards.model import Board  # noqa: E402
from gm.rules.postal import analysis as postal_analysis  # noqa: E402

THOUSAND = ROOT / "boards" / "designed-thousand.yaml"


def random_board(squares: int, seed: int = 1) -> Board:
    """A tenth of the squares' worth of snakes and ladders, each between two random
    squares, half of each kind on average (the issue's board; tests/test_analysis.py)."""
    rng = random.Random(seed)
    ends = rng.sample(range(2, squares), 2 * (squares // 10))
    snakes, ladders = [], []
    for a, b in zip(ends[::2], ends[1::2], strict=True):
        (snakes.append((max(a, b), min(a, b))) if rng.random() < 0.5 else ladders.append((min(a, b), max(a, b))))
    return Board.build(squares, snakes=snakes, ladders=ladders, name=f"random-{squares}")


def board_of(spec: str) -> Board:
    """`random:N` or a board file."""
    if spec.startswith("random:"):
        return random_board(int(spec.split(":")[1]))
    return load_board(spec)


def child(spec: str) -> None:
    """Run in a child process: read the board and analyse it (`start`: neither), then
    print the times and the peak resident memory as JSON."""
    wall, cpu = time.perf_counter(), time.process_time()
    if spec != "start":
        analysis.analyze(board_of(spec))
    print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def in_child(spec: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", spec], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def best(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best wall-clock and CPU seconds of `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def reference(board: Board) -> tuple[float, float]:
    """One run of the pure-Python reference (wall, CPU), its figures checked against gm's."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import analysis_reference

    wall, cpu = time.perf_counter(), time.process_time()
    figures = analysis_reference.analyze(board.squares, list(board.snakes), list(board.ladders))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    ours = analysis.analyze(board).to_json()
    ours["postal"].pop("fewest_sequence")  # one sequence of many
    if figures != ours:
        raise SystemExit(f"{board.name}: the reference's figures differ from gm's:\n{figures}\n{ours}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip", action="append", default=[], choices=["reference", "random-reference", "10000"],
                        help="leave out a slow part (repeatable)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    boards = {"designed-thousand": load_board(THOUSAND), "random-1000": random_board(1000)}
    assert boards["designed-thousand"].squares == 1000
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
          f"best of {args.repeat}\n")

    start = in_child("start")
    print("## The whole analysis of a 1,000-square board (every ruleset and one die)\n")
    print("| board | gm CPU s | gm wall s | reference CPU s | ratio (CPU) | gm peak RSS | only started |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, board in boards.items():
        wall, cpu = best(lambda board=board: analysis.analyze(board), args.repeat)
        skip = "reference" in args.skip or (name == "random-1000" and "random-reference" in args.skip)
        ref_cpu = None if skip else reference(board)[1]
        peak = in_child(str(THOUSAND) if name == "designed-thousand" else "random:1000")["rss_mb"]
        shown = "-" if ref_cpu is None else f"{ref_cpu:.1f}"
        ratio = "-" if ref_cpu is None else f"**{cpu / ref_cpu:.3f}x**"
        print(f"| {name} | {cpu:.3f} | {wall:.3f} | {shown} | {ratio} | {peak:.0f} MB | {start['rss_mb']:.0f} MB |")

    print("\n## Each part (CPU s, best of the runs)\n")
    parts: list[tuple[str, Callable[[Board], object]]] = [
        ("classic", analysis.classic),
        ("doubles", analysis.doubles),
        ("postal (chain, solve, law, landings, fewest)", postal_analysis.postal),
        ("postal expected turns only (the designer's)", postal_analysis.postal_expected_turns),
        ("one die, exact", lambda b: analysis.one_die(b, "exact")),
    ]
    print("| part | " + " | ".join(boards) + " |\n| --- |" + " ---: |" * len(boards))
    for label, run in parts:
        cells = [f"{best(lambda b=b, run=run: run(b), args.repeat)[1]:.3f}" for b in boards.values()]
        print(f"| {label} | " + " | ".join(cells) + " |")

    if "10000" not in args.skip:
        print("\n## A random 10,000-square board, the whole analysis in a child process\n")
        big = in_child("random:10000")
        print(f"wall {big['wall']:.1f} s, CPU {big['cpu']:.1f} s, peak RSS {big['rss_mb']:.0f} MB")

    print("\n## The designer\n\n| case | wall s | CPU s |\n| --- | ---: | ---: |")
    designs = [("design of the 1,000-square board (`thousand.yaml`)", "thousand.yaml"),
               ("design with a target search (`rules-hundred.yaml`)", "rules-hundred.yaml")]
    for label, spec in designs:
        path = ROOT / "tests" / "data" / "designs" / spec
        wall, cpu = best(lambda path=path: build_design(load_design(path)), args.repeat)
        print(f"| {label} | {wall:.3f} | {cpu:.3f} |")
    result = analysis.analyze(boards["designed-thousand"]).to_json()
    print(f"\n1,000-square board: postal {result['postal']['expected_turns']} turns expected "
          f"(median {result['postal']['median_turns']}, p90 {result['postal']['p90_turns']}), fewest "
          f"{result['postal']['fewest_turns']}; classic {result['classic']['expected_turns']}; doubles "
          f"{result['doubles']['expected_turns']}")


if __name__ == "__main__":
    main()
