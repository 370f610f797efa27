"""Time the exact board analysis (gm.boards.analysis) and the designer (gm.boards.design).

    python benchmarks/analysis.py            # prints a Markdown table
    python benchmarks/analysis.py --repeat 9

The board is boards/designed-thousand.yaml: 1,000 squares, 50 snakes and 50 ladders, made
by `gm board design tests/data/designs/thousand.yaml`. Each figure is the best of
`--repeat` runs, wall clock and CPU time (CPU time is steadier on a busy machine).
Figures go in docs/benchmarks-analysis.md.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from gm.boards import analysis  # noqa: E402
from gm.boards.board import load_board  # noqa: E402
from gm.boards.design import build_design, load_design  # noqa: E402
from gm.rules.postal import analysis as postal_analysis  # noqa: E402


def best(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best wall-clock and CPU seconds of `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    big = load_board(ROOT / "boards" / "designed-thousand.yaml")
    classic = load_board(ROOT / "boards" / "milton-bradley.yaml")
    assert big.squares == 1000 and len(big.snakes) + len(big.ladders) == 100
    cases: list[tuple[str, Callable[[], object]]] = [
        ("1,000 squares: whole analysis (`analyze`)", lambda: analysis.analyze(big)),
        ("1,000 squares: postal (chain, solve, law, landings, fewest)", lambda: postal_analysis.postal(big)),
        ("1,000 squares: postal expected turns only", lambda: postal_analysis.postal_expected_turns(big)),
        ("1,000 squares: classic", lambda: analysis.classic(big)),
        ("1,000 squares: one die, exact", lambda: analysis.one_die(big, "exact")),
        ("100 squares (Milton Bradley): whole analysis", lambda: analysis.analyze(classic)),
        ("design of the 1,000-square board (`thousand.yaml`)",
         lambda: build_design(load_design(ROOT / "tests" / "data" / "designs" / "thousand.yaml"))),
        ("design with a target search (`rules-hundred.yaml`)",
         lambda: build_design(load_design(ROOT / "tests" / "data" / "designs" / "rules-hundred.yaml"))),
    ]
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
          f"best of {args.repeat}\n")
    print("| case | wall s | CPU s |\n| --- | ---: | ---: |")
    for name, run in cases:
        wall, cpu = best(run, args.repeat)
        print(f"| {name} | {wall:.3f} | {cpu:.3f} |")
    result = analysis.analyze(big).to_json()
    print(f"\n1,000-square board: postal {result['postal']['expected_turns']} turns expected "
          f"(median {result['postal']['median_turns']}, p90 {result['postal']['p90_turns']}), "
          f"fewest {result['postal']['fewest_turns']}; classic "
          f"{result['classic']['expected_turns']} turns expected")


if __name__ == "__main__":
    main()
