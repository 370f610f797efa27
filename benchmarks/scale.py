"""Benchmark: how `resolve` grows with the number of players (issue 15).

Each report lists every player on every board, so a turn's mail grows with the square of
the players. For each size in `--players`, this starts a postal campaign on three boards
of 100, 200 and 300 squares (boards/milton-bradley.yaml and two boards generated into the
temp folder), with a cheap scrypt (the start is not what is measured) and the Maildir
transport, then times `resolve(campaign, force=True)` of its first turn with every player
NMR: the rules, the views, and every report rendered, built and queued, in-process. A copy
of the campaign is resolved first in a fresh interpreter of its own (multiprocessing,
spawn) that opens it as `gm resolve` would, so its peak resident memory (VmHWM) is the
resolve's, shown beside that of the same interpreter once the campaign's state is read.

    python benchmarks/scale.py [--players 50,500,2000]

Quick run: `python benchmarks/scale.py --players 50,500`. It prints, per size: seconds,
the growth exponent between consecutive sizes (log(t2/t1) / log(n2/n1)), the average and
largest queued report (raw bytes), the bytes the resolve queued, the size of the
write-ahead log (gm.sqlite-wal) right after the resolve, and the peak RSS with the state
read and after the resolve; then t(2000) / t(500) when both were run (goal: at most 4.8,
i.e. no worse than about n**1.13). Last, what one report holds, decoded (the README's
table): its text part, its HTML part and the table of every player a large campaign
attaches, averaged over the first PARTS_SAMPLE players' copies.

Only the outbox table's columns kind, player, turn, raw and status (and SQLite's rowid)
are read, so a change in what a report contains does not break this script.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import math
import multiprocessing
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gm.campaign.passwords  # noqa: E402
from gm import clock  # noqa: E402
from gm.boards.board import load_board  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.folder import Campaign  # noqa: E402
from gm.campaign.outbox import stored_mail  # noqa: E402
from gm.campaign.turns import resolve  # noqa: E402

START_AT = "2027-01-01T00:00:00Z"
DEADLINE = "2027-01-08T00:00:00Z"
RESOLVE_AT = "2027-01-08T00:30:00Z"


def tiled_board(folder: Path, squares: int) -> Path:
    """A board file of `squares` squares (a multiple of 100): the Milton Bradley layout
    repeated once per hundred, so every hundred squares has the same snakes and ladders."""
    classic = yaml.safe_load((ROOT / "boards" / "milton-bradley.yaml").read_text())
    if squares % 100 or classic["squares"] != 100:
        raise SystemExit(f"tiled_board: {squares} squares is not a multiple of 100")
    tiles = range(0, squares, 100)
    ladders = [[a + t, b + t] for t in tiles for a, b in classic["ladders"]]
    snakes = [[a + t, b + t] for t in tiles for a, b in classic["snakes"]]
    path = folder / f"tiled-{squares}.yaml"
    path.write_text(yaml.safe_dump({"name": f"Tiled {squares}", "squares": squares,
                                    "ladders": ladders, "snakes": snakes},
                                   default_flow_style=None, sort_keys=False))
    load_board(path)  # raises if gm does not accept it
    return path


def boards(folder: Path) -> dict[str, str]:
    return {"A": str(ROOT / "boards" / "milton-bradley.yaml"),
            "B": str(tiled_board(folder, 200)),
            "C": str(tiled_board(folder, 300))}


PARTS_SAMPLE = 50  # reports whose parts are measured: every player's copy is alike in size


def report_parts(raw: bytes) -> dict[str, int]:
    """The bytes of a report's text part, its HTML part and its attached table of every
    player (a large campaign's `<campaign>-turn-<n>-players.txt`), decoded, as a mail app
    shows and fetches them: the README's table of what a report holds."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    sizes = {"text": 0, "html": 0, "table": 0}
    for part in message.walk():
        if part.is_multipart():
            continue
        content = part.get_payload(decode=True) or b""
        if part.get_filename():
            sizes["table"] += len(content) if part.get_filename().endswith("-players.txt") else 0
        elif part.get_content_type() in ("text/plain", "text/html"):
            sizes["text" if part.get_content_type() == "text/plain" else "html"] += len(content)
    return sizes


def peak_rss() -> int:
    """This process's peak resident memory so far, in bytes (VmHWM)."""
    with open("/proc/self/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmHWM:"))) * 1024


def resolve_apart(folder: str, answer) -> None:
    """In a fresh interpreter: open the campaign, read its state, resolve its turn; send
    back the peak RSS with the state read, and after the resolve."""
    campaign = Campaign.open(folder)
    try:
        campaign.state()
        state_read = peak_rss()
        with clock.frozen(clock.parse_time(RESOLVE_AT)):
            resolve(campaign, force=True)
        answer.send((state_read, peak_rss()))
    finally:
        campaign.close()


def one_size(work: Path, players: int, board_files: dict[str, str]) -> dict[str, float]:
    folder = work / f"campaign-{players}"
    folder.mkdir()
    config = {
        "id": f"scale-{players}",
        "seed": 1,
        "first_deadline": DEADLINE,
        "boards": board_files,
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": "pw-bench"} for i in range(players)],
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    with clock.frozen(clock.parse_time(START_AT)):
        campaign, _ = start(folder)
    try:
        # the memory figures: a copy of the campaign resolved in a fresh interpreter, as
        # `gm resolve` would (the timing below stays in-process, warm, as it always was)
        campaign.store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        copy = shutil.copytree(folder, work / f"memory-{players}")
        spawn = multiprocessing.get_context("spawn")
        receive, answer = spawn.Pipe(duplex=False)
        child = spawn.Process(target=resolve_apart, args=(str(copy), answer))
        child.start()
        state_read, peak = receive.recv()
        child.join()
        shutil.rmtree(copy, ignore_errors=True)

        before = campaign.store.one("select coalesce(max(rowid), 0) as last from outbox")["last"]
        with clock.frozen(clock.parse_time(RESOLVE_AT)):
            began = time.perf_counter()
            resolve(campaign, force=True)
            seconds = time.perf_counter() - began
        wal = folder / "gm.sqlite-wal"
        wal_bytes = wal.stat().st_size if wal.exists() else 0
        # the mail as sent (a large campaign's table of every player is stored once,
        # gm.campaign.outbox.stored_mail puts it back), and what the outbox itself holds
        conn = campaign.store.db.conn
        mails, parts = [], []
        for kind, player, raw in conn.execute(
                "select kind, player, raw from outbox where rowid > ? and status = 'queued'", (before,)):
            sent = stored_mail(conn, raw)
            mails.append((kind, player, len(sent)))
            if kind == "report" and player is not None and len(parts) < PARTS_SAMPLE:
                parts.append(report_parts(sent))
        sizes = [size for kind, player, size in mails if kind == "report" and player is not None]
        stored = conn.execute("select coalesce(sum(length(raw)), 0) from outbox where rowid > ?", (before,)
                              ).fetchone()[0] + conn.execute("select coalesce(sum(length(data)), 0) from shared_parts"
                                                             ).fetchone()[0]
        queued = {"n": len(mails), "bytes": sum(size for _, _, size in mails)}
        reports = {"n": len(sizes), "avg": sum(sizes) / len(sizes) if sizes else 0, "max": max(sizes, default=0)}
        part_avg = {name: sum(p[name] for p in parts) / len(parts) if parts else 0 for name in ("text", "html", "table")}
    finally:
        campaign.close()
    shutil.rmtree(folder, ignore_errors=True)  # 2,000 players' reports take room
    if reports["n"] != players:
        print(f"warning: {players} players but {reports['n']} player reports queued", file=sys.stderr)
    return {"players": players, "seconds": seconds, "reports": reports["n"],
            "avg": reports["avg"] or 0, "max": reports["max"] or 0,
            "queued": queued["n"], "bytes": queued["bytes"], "stored": stored, "wal": wal_bytes,
            "state_rss": state_read, "peak_rss": peak, "parts": part_avg}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", default="50,500,2000",
                        help="comma-separated campaign sizes (default 50,500,2000; "
                             "leave out 2000 for a quick run)")
    args = parser.parse_args()
    try:
        sizes = sorted({int(n) for n in args.players.split(",") if n.strip()})
    except ValueError:
        parser.error(f"--players: not a list of whole numbers: {args.players!r}")
    if not sizes or sizes[0] < 1:
        parser.error("--players: give at least one size of 1 or more")
    gm.campaign.passwords.SCRYPT["n"] = 2**4  # the start is not what is measured
    work = Path(tempfile.mkdtemp(prefix="gm-bench-scale-"))
    try:
        board_files = boards(work)
        rows = []
        for players in sizes:
            row = one_size(work, players, board_files)
            rows.append(row)
            print(f"  {players} players: resolve {row['seconds']:.2f} s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nresolve of turn 1, every player NMR, three boards of 100, 200 and 300 squares "
          f"(Python {sys.version.split()[0]})\n")
    print("| players | resolve (s) | exponent vs previous | reports | avg report | max report "
          "| queued by resolve (as sent) | stored in the outbox | gm.sqlite-wal after "
          "| peak RSS, state read | peak RSS, resolve |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    previous = None
    for row in rows:
        exponent = "—"
        if previous is not None and previous["seconds"] > 0:
            exponent = (f"{math.log(row['seconds'] / previous['seconds']) / math.log(row['players'] / previous['players']):.2f}")
        print(f"| {row['players']} | {row['seconds']:.2f} | {exponent} | {row['reports']} "
              f"| {row['avg'] / 1024:.1f} KB | {row['max'] / 1024:.1f} KB "
              f"| {row['queued']} mails, {row['bytes'] / 2**20:.1f} MB | {row['stored'] / 2**20:.1f} MB "
              f"| {row['wal'] / 2**20:.1f} MB | {row['state_rss'] / 2**20:.0f} MB "
              f"| {row['peak_rss'] / 2**20:.0f} MB |")
        previous = row
    by_size = {row["players"]: row["seconds"] for row in rows}
    if 500 in by_size and 2000 in by_size:
        ratio = by_size[2000] / by_size[500]
        print(f"\nt(2000) / t(500) = {ratio:.2f} (goal <= 4.8: {'met' if ratio <= 4.8 else 'NOT met'})")
    else:
        print("\nt(2000) / t(500): not measured (run with --players 50,500,2000)")
    print("\nwhat one report holds (decoded, the average of the first "
          f"{PARTS_SAMPLE} players' copies; the whole report as sent):\n")
    print("| players | text part | HTML part | table attached | whole report | a turn's reports |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        parts = row["parts"]
        table = f"{parts['table'] / 1024:.1f} KB" if parts["table"] else "(in the body)"
        print(f"| {row['players']} | {parts['text'] / 1024:.1f} KB | {parts['html'] / 1024:.1f} KB | {table} "
              f"| {row['avg'] / 1024:.0f} KB | {row['reports'] * row['avg'] / 2**20:.1f} MB |")


if __name__ == "__main__":
    main()
