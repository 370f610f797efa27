"""Benchmark: a flood of forged JOINs on an announced 10-place game (docs/rules/postal.md,
Refusal caps), against a tenth of it in the same run.

An attacker who knows only the GM's address mails `JOIN` from --forged different addresses
(forged senders at many domains, and `+tag` variants of one mailbox), each with a name
and free lines carrying a link. One `gm ingest` then `gm send` on the Maildir transport,
the real command line (start-up included). It prints the mails gm sent by kind, whether
any repeats the attacker's words, the time of the flood against a tenth of it (the cost
per message should stay flat: each cap is an index range), and the database's size.

    python benchmarks/join_flood.py [--forged 20000]

What must hold (and is checked): at most 200 + 20 code mails (caps.unasked_per_day plus
the 10 places and 10 waiting), exactly one note to the GM, no mail quoting the attacker.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

import yaml

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from signup import ROOT, Took, drop, gm, letter  # noqa: E402

ATTACK = "Your Bank Security Team https://evil.example"
LINES = "\n".join(f"Click https://evil.example/{n} to keep your account" for n in range(20))


def flood(base: Path, forged: int) -> tuple[Took, dict]:
    folder = base / f"flood-{forged}"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "spring", "title": "Spring", "seed": 2**128 + 1, "first_deadline": "2027-04-01T00:00:00Z",
        "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml")}, "mail": {"from": "GM <gm@example.org>"},
        "players": [], "signup": {"max_players": 10}}))
    senders = [f"victim+{i}@example.org" if i % 4 == 0 else f"user{i}@domain{i % 97}.example" for i in range(forged)]
    drop(folder, [letter(s, f"JOIN spring\nNAME {ATTACK}\n{LINES}", i, "Join") for i, s in enumerate(senders)])
    took = gm(folder, "ingest") + gm(folder, "send")
    with sqlite3.connect(folder / "gm.sqlite") as db:
        kinds = dict(db.execute("select kind, count(*) from outbox group by kind").fetchall())
        quoting = db.execute("select count(*) from outbox where instr(raw, 'evil.example') or instr(raw, 'Bank')"
                             ).fetchone()[0]
    size = (folder / "gm.sqlite").stat().st_size
    return took, {"kinds": kinds, "quoting": quoting, "db_mb": size / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forged", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as base:
        small, small_facts = flood(Path(base), args.forged // 10)
        large, facts = flood(Path(base), args.forged)
    print("| JOINs | code mails | notes to the GM | quoting the attacker | CPU s | s per 1,000 | database |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, took, found in ((args.forged // 10, small, small_facts), (args.forged, large, facts)):
        kinds = found["kinds"]
        print(f"| {n:,} | {kinds.get('signup-code', 0)} | {kinds.get('caps-note', 0)} | {found['quoting']} | "
              f"{took.cpu:.1f} | {took.cpu / n * 1000:.2f} | {found['db_mb']:.0f} MB |")
    print(f"\nper message, the flood against a tenth of it: {(large.cpu / args.forged) / (small.cpu / (args.forged // 10)):.2f}x")
    for found in (small_facts, facts):
        assert found["kinds"].get("signup-code", 0) <= 220 and found["kinds"].get("caps-note", 0) == 1
        assert found["quoting"] == 0


if __name__ == "__main__":
    main()
