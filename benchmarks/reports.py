"""Benchmark: resolve one turn of a large campaign with every report queued.

Each report lists every player on every board (RULES.md 2.6), so a turn's mail grows with
the square of the players. This starts a campaign of `--players` on two sample boards
(with a cheap scrypt: the start is not what is measured) and times `gm resolve --force`
of its first turn: the rules, the views, and every report rendered, built and queued.

    python benchmarks/reports.py [--players 500]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gm.campaign.passwords  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.turns import resolve  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=500)
    args = parser.parse_args()
    gm.campaign.passwords.SCRYPT["n"] = 2**4
    folder = Path(tempfile.mkdtemp(prefix="gm-bench-reports-")) / "campaign"
    folder.mkdir()
    config = {
        "id": "bench",
        "seed": 1,
        "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml"),
                   "B": str(ROOT / "boards" / "ziggurat.yaml")},
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": "pw-bench"} for i in range(args.players)],
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    with clock.frozen(clock.parse_time("2027-01-01T00:00:00Z")):
        campaign, _ = start(folder)
    with clock.frozen(clock.parse_time("2027-01-09T00:00:00Z")):
        began = time.perf_counter()
        resolve(campaign, force=True)
        seconds = time.perf_counter() - began
    size = campaign.store.one("select avg(length(raw)) as size from outbox where kind = 'report'")
    print(f"{args.players} players, two boards: resolve with every report queued in "
          f"{seconds:.1f} s; a report is {size['size'] / 1024:.0f} KB")
    campaign.close()


if __name__ == "__main__":
    main()
