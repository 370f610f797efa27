"""Benchmark: a weekly turn at scale, `gm turn` as the real CLI against real mail servers
(issue 15), and each of its steps against a floor timed in the same run.

A postal campaign of 500 players on three boards of 100, 200 and 300 squares
(boards/milton-bradley.yaml and two boards generated into the temp folder) is started
with gm's REAL scrypt cost (password checks are part of what is measured), on the
imap+smtp transport: a private Dovecot (tests/servers.py, STARTTLS) and an aiosmtpd
server with STARTTLS + AUTH in a process of its own. The welcome mail is sent (untimed).
Then 674 order mails go into the IMAP inbox (90% of the players order, the rest of the
mails are second orders from some of them) as a mix of plain text, HTML-only mail and
replies quoting the turn report ('>' lines), and, with GM_NOW just after the deadline:

* `gm turn` (ingest, resolve, send, publish) is timed whole;
* `gm ingest`, `gm resolve`, `gm send`, `gm publish` are timed one by one;

each as a CLI subprocess (`gm -C DIR ...`, start-up included) on a fresh copy of the
same campaign folder, with the mailbox freshly loaded where the step reads it, so every
run does the same work; the median of `--runs` is shown. The floors, timed in the same
runs on the same data:

* fetch:   one batched UID FETCH of the whole inbox with imapclient (STARTTLS + login);
* parse:   email.message_from_bytes(policy=default) + get_body + get_content of every
           mail, plus ONE hashlib.scrypt per distinct player at gm's own SCRYPT settings;
* send:    the exact bytes gm queued in the outbox (gm.sqlite, table outbox, raw, status
           'queued') over ONE reused smtplib STARTTLS + AUTH connection;
* archive: the bytes of the files `gm publish` wrote, written to a fresh folder.

    python benchmarks/turn.py [--runs 3] [--players 500] [--mails 674 per 500 players]

It prints a Markdown table (step | gm (median) | floor | ratio | peak RSS, the whole turn
against the sum of the floors), the peak RSS of `gm status` on the same campaign (what
any command pays for the interpreter, gm and the state), the CPU of each gm child (wait4)
and of the smtplib floor, the mail figures, the size of gm.sqlite-wal after the turn,
and checks with the SMTP server's own count that nothing was lost or doubled. Only the
outbox table's columns kind, player, turn, raw and status (and SQLite's rowid) are read,
each mail through gm's own stored_mail, so a change in what a report contains does not
break this script.
"""

from __future__ import annotations

import argparse
import contextlib
import email
import email.policy
import hashlib
import multiprocessing
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from types import SimpleNamespace

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import servers  # noqa: E402 - tests/servers.py, the servers the tests use
from imapclient import IMAPClient  # noqa: E402
from scale import boards  # noqa: E402 - the same three boards as benchmarks/scale.py
from send import PASSWORD, USER, smtplib_reused, wait_for  # noqa: E402

import gm.campaign.passwords  # noqa: E402
from gm import clock  # noqa: E402
from gm.campaign.campaign import start  # noqa: E402
from gm.campaign.outbox import stored_mail  # noqa: E402
from gm.mail.settings import tls_context  # noqa: E402

GM_FROM = "gm@example.org"
START_AT = "2027-01-01T00:00:00Z"
WELCOME_AT = "2027-01-01T00:05:00Z"
DEADLINE = "2027-01-08T00:00:00Z"
TURN_AT = "2027-01-08T00:30:00Z"  # GM_NOW for every timed step: just after the deadline
STEPS = ("ingest", "resolve", "send", "publish")


# `gm` itself, with one addition: as it exits, it writes its peak resident memory (VmHWM of
# /proc/self/status, in kB) to the file GM_BENCH_PEAK names. A parent cannot get this
# figure afterwards: wait4's ru_maxrss is the largest of this process and the image it
# replaced, so the benchmark's own size (it holds a turn's mail for the floors) leaks in.
GM_WITH_PEAK = """
import atexit, os, sys
def peak():
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["GM_BENCH_PEAK"], "w") as out:
        out.write(kb)
atexit.register(peak)
from gm.cli import main
sys.argv[0] = "gm"
sys.exit(main())
"""


def gm_command() -> list[str]:
    """The Python of the venv gm is installed in, running gm's CLI (GM_WITH_PEAK)."""
    for candidate in (Path(sys.executable).parent / "gm", ROOT / ".venv" / "bin" / "gm"):
        if candidate.exists():
            return [str(candidate.parent / "python"), "-c", GM_WITH_PEAK]
    found = shutil.which("gm")
    if found is None:
        raise SystemExit("cannot find the gm command: install gm into .venv first")
    return [str(Path(found).parent / "python"), "-c", GM_WITH_PEAK]


# --- the mail players send --------------------------------------------------------------


def quoted_report(i: int) -> str:
    """Lines of a turn report as a mail program quotes them, command words included."""
    lines = [f"Turn 1 report for Player {i} (p{i})", "",
             "Your standing order: NUMBER 6, TRAPDOOR A 50", ""]
    for board, squares in (("A", 100), ("B", 200), ("C", 300)):
        lines.append(f"Board {board} ({squares} squares)")
        lines += [f"  Player {j:<4} Start -> {(j * 7 + i) % squares}" for j in range(12)]
        lines.append("")
    lines.append("Numbers left: 1 2 3 4 5 6")
    return "".join(f"> {line}".rstrip() + "\n" for line in lines)


def order_mails(players: int, mails: int, squares: dict[str, int]) -> tuple[list[dict], int]:
    """`mails` order mails: 90% of the players order once, then as many as needed of them
    (spread evenly) order a second time. Returns IMAP APPEND items and the number of
    distinct players who wrote."""
    ordering = [i for i in range(players) if i % 10 != 9][: round(players * 0.9)]
    twice = mails - len(ordering)
    if not 0 <= twice <= len(ordering):
        raise SystemExit(f"--mails {mails}: must lie between {len(ordering)} and {2 * len(ordering)} "
                         f"for {players} players")
    seconds = [p for k, p in enumerate(ordering)
               if (k * twice) // len(ordering) != ((k + 1) * twice) // len(ordering)]
    base = clock.parse_time("2027-01-02T09:00:00Z")
    out = []
    for round_, who in ((0, ordering), (1, seconds)):
        for i in who:
            n = len(out)
            when = base + timedelta(days=2 * round_, minutes=n)
            lines = [f"PLAYER p{i}", f"PASSWORD pw-{i}-secret", f"NUMBER {(i + round_) % 6 + 1}"]
            lines += [f"TRAPDOOR {board} {(i * 7 + round_) % (size - 20) + 10}"
                      for board, size in squares.items()]
            body = "\n".join(lines) + "\n"
            msg = EmailMessage()
            msg["From"] = f"Player {i} <p{i}@example.org>"
            msg["To"] = f"Snakes GM <{GM_FROM}>"
            msg["Date"] = format_datetime(when)
            msg["Message-ID"] = f"<order-{round_}-{i}@mail.example.org>"
            style = n % 3
            if style == 0:  # plain text with a signature
                msg["Subject"] = "Orders"
                msg.set_content(body + "\n-- \nPlayer " + str(i) + "\nSent from my phone\n")
            elif style == 1:  # HTML only, as some webmail sends it
                msg["Subject"] = "my orders"
                html = "<br>\n".join(lines)
                msg.set_content(f"<html><body><div dir=\"ltr\">{html}</div>"
                                f"<div>-- <br>Player {i}</div></body></html>\n", subtype="html")
            else:  # a reply to the turn report: the report quoted above the orders
                msg["Subject"] = "Re: [bench] Turn 1 report"
                msg["In-Reply-To"] = f"<report-1-p{i}@example.org>"
                msg["References"] = f"<report-1-p{i}@example.org>"
                msg.set_content(f"On Fri, 1 Jan 2027 at 00:05, Snakes GM <{GM_FROM}> wrote:\n"
                                + quoted_report(i) + "\n" + body + "\nThanks!\n")
            out.append({"msg": bytes(msg), "date": when})
    return out, len(ordering)


# --- the servers --------------------------------------------------------------------------


def imap_client(dovecot, user: str, password: str) -> IMAPClient:
    imap = IMAPClient(servers.HOST, port=dovecot.port, ssl=False, timeout=120)
    imap.starttls(tls_context(dovecot.tls.cafile))
    imap.login(user, password)
    return imap


def load_mailbox(dovecot, user: str, password: str, mails: list[dict]) -> None:
    """Every folder emptied, then the order mails APPENDed to the inbox (untimed)."""
    imap = imap_client(dovecot, user, password)
    try:
        for _, _, folder in imap.list_folders():
            imap.select_folder(folder)
            uids = imap.search("ALL")
            if uids:
                imap.delete_messages(uids)
                imap.expunge()
        for at in range(0, len(mails), 200):
            imap.multiappend("INBOX", mails[at:at + 200])
    finally:
        imap.logout()


def folder_counts(dovecot, user: str, password: str) -> dict[str, int]:
    imap = imap_client(dovecot, user, password)
    try:
        counts = {}
        for _, _, folder in imap.list_folders():
            counts[folder] = imap.folder_status(folder, [b"MESSAGES"])[b"MESSAGES"]
        return counts
    finally:
        imap.logout()


# --- the campaign ----------------------------------------------------------------------


def build(folder: Path, players: int, board_files: dict[str, str], dovecot, user: str,
          smtp_port: int, cafile: str) -> None:
    """Start the campaign in-process with gm's default (real) scrypt cost."""
    folder.mkdir(parents=True)
    config = {
        "id": "bench",
        "title": "Issue 15 weekly turn",
        "seed": 1,
        "first_deadline": DEADLINE,
        "boards": board_files,
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": f"pw-{i}-secret"} for i in range(players)],
        "mail": {
            "transport": "imap+smtp",
            "from": f"Snakes GM <{GM_FROM}>",
            "imap": {"host": servers.HOST, "port": dovecot.port, "user": user, "ssl": False,
                     "starttls": True, "cafile": cafile},
            "smtp": {"host": servers.HOST, "port": smtp_port, "user": USER, "starttls": True,
                     "cafile": cafile},
        },
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    with clock.frozen(clock.parse_time(START_AT)):
        campaign, _ = start(folder)
    campaign.close()


@contextlib.contextmanager
def database(folder: Path):
    db = sqlite3.connect(folder / "gm.sqlite")
    try:
        yield db
    finally:
        db.close()


def outbox_status(folder: Path) -> dict[str, int]:
    with database(folder) as db:
        return dict(db.execute("select status, count(*) from outbox group by status"))


def last_rowid(folder: Path) -> int:
    with database(folder) as db:
        return db.execute("select coalesce(max(rowid), 0) from outbox").fetchone()[0]


def kinds_since(folder: Path, rowid: int) -> dict[str, int]:
    with database(folder) as db:
        return dict(db.execute("select kind, count(*) from outbox where rowid > ? "
                               "group by kind order by kind", (rowid,)))


def queued_mail(folder: Path) -> list[SimpleNamespace]:
    """The messages gm queued, exact bytes as gm sends them (gm.campaign.outbox.stored_mail
    puts a large campaign's stored-once table back), as smtplib_reused takes them."""
    with database(folder) as db:
        rows = db.execute("select raw, recipient from outbox where status = 'queued' order by rowid").fetchall()
        return [SimpleNamespace(sender=GM_FROM, recipients=(recipient,), data=stored_mail(db, bytes(raw)))
                for raw, recipient in rows]


def report_sizes(folder: Path) -> tuple[int, float, int]:
    with database(folder) as db:
        sizes = [len(stored_mail(db, bytes(raw))) for (raw,) in db.execute(
            "select raw from outbox where status = 'queued' and kind = 'report' and player is not null")]
    return len(sizes), (sum(sizes) / len(sizes) if sizes else 0), max(sizes, default=0)


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()} if folder.exists() else {}


# --- timing ------------------------------------------------------------------------------


class Runner:
    def __init__(self, env: dict[str, str], work: Path):
        self.command = gm_command()
        self.env = env
        self.peak_file = work / "peak-kb"

    def __call__(self, folder: Path, *args: str, now: str = TURN_AT) -> tuple[float, float, str, int]:
        """Run `gm -C folder args...`; wall seconds, CPU seconds (wait4: this child alone)
        and peak resident memory in bytes (GM_WITH_PEAK) of that one command, its output."""
        self.peak_file.unlink(missing_ok=True)
        with tempfile.TemporaryFile() as out:
            began = time.perf_counter()
            child = subprocess.Popen([*self.command, "-C", str(folder), *args], stdout=out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=dict(self.env, GM_NOW=now, GM_BENCH_PEAK=str(self.peak_file)))
            _, status, usage = os.wait4(child.pid, 0)
            seconds = time.perf_counter() - began
            child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
            out.seek(0)
            said = out.read().decode("utf-8", "replace").strip()
        if child.returncode != 0:
            raise SystemExit(f"gm {' '.join(args)} failed with status {child.returncode}:\n{said}")
        peak = int(self.peak_file.read_text()) * 1024
        return seconds, usage.ru_utime + usage.ru_stime, said, peak


def fresh_copy(source: Path, target: Path) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    return target


def floor_fetch(dovecot, user: str, password: str) -> list[bytes]:
    imap = imap_client(dovecot, user, password)
    try:
        imap.select_folder("INBOX", readonly=True)
        found = imap.fetch(imap.search("ALL"), [b"BODY.PEEK[]", b"INTERNALDATE"])
    finally:
        imap.logout()
    return [found[uid][b"BODY[]"] for uid in sorted(found)]


def floor_parse(raws: list[bytes], players: int) -> None:
    for raw in raws:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        body = message.get_body(("plain", "html"))
        if body is not None:
            body.get_content()
    cost = gm.campaign.passwords.SCRYPT
    for i in range(players):
        hashlib.scrypt(f"pw-{i}-secret".encode(), salt=i.to_bytes(16, "big"),
                       n=cost["n"], r=cost["r"], p=cost["p"], dklen=32)


def floor_archive(files: dict[str, bytes], target: Path) -> None:
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def seconds_text(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f} s" if value >= 0.1 else f"{value * 1000:.1f} ms"


def megabytes(value: float) -> str:
    return f"{value / 2**20:.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each step (median shown)")
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--mails", type=int, default=None,
                        help="order mails in the inbox (default: 674 per 500 players)")
    args = parser.parse_args()
    if args.mails is None:
        args.mails = round(args.players * 674 / 500)
    if args.runs < 1 or args.players < 10:
        parser.error("--runs must be at least 1 and --players at least 10")
    if shutil.which("dovecot") is None:
        raise SystemExit("dovecot is not installed: apt-get install -y dovecot-imapd")

    work = Path(tempfile.mkdtemp(prefix="gm-bench-turn-"))
    work.chmod(0o755)  # Dovecot's auth process (user dovecot) must reach the passwd file
    tls = servers.TlsFiles.create(work / "tls")
    cafile = tls.cafile
    smtp_port = servers.free_port()
    smtp = multiprocessing.get_context("spawn").Process(
        target=servers.serve_smtp_forever, args=(str(work / "tls"), smtp_port, USER, PASSWORD))
    dovecot = None
    accepted = None
    try:
        try:
            dovecot = servers.start_dovecot(work / "dovecot", tls, users=1)
        except (OSError, RuntimeError) as error:
            raise SystemExit(f"the private Dovecot did not start: {error}") from None
        smtp.start()
        wait_for(smtp_port)  # exits with a message if the SMTP server does not come up
        imap_user, imap_password = dovecot.add_user()
        env = dict(os.environ, GM_IMAP_PASSWORD=imap_password, GM_SMTP_PASSWORD=PASSWORD)
        env.pop("GM_CAMPAIGN", None)
        # the gm beside this script, even where another gm is installed in the venv
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
        gm_cli = Runner(env, work)
        smtp_settings = SimpleNamespace(host=servers.HOST, port=smtp_port, cafile=cafile)

        board_files = boards(work)
        squares = {"A": 100, "B": 200, "C": 300}
        mails, writers = order_mails(args.players, args.mails, squares)
        began = time.perf_counter()
        base = work / "base"
        build(base, args.players, board_files, dovecot, imap_user, smtp_port, cafile)
        _, _, said, welcome_rss = gm_cli(base, "send", now=WELCOME_AT)  # the welcomes: not timed
        sent_total = outbox_status(base).get("sent", 0)
        # what any gm command pays before it works: the interpreter, gm and the campaign's
        # state read (gm status reads the state, the players and the orders)
        _, _, _, status_rss = gm_cli(base, "status", now=WELCOME_AT)
        if outbox_status(base).get("queued"):
            raise SystemExit(f"the welcome mail was not all sent: {said}")
        print(f"campaign of {args.players} players started (scrypt n={gm.campaign.passwords.SCRYPT['n']}) "
              f"and {sent_total} welcomes sent in {time.perf_counter() - began:.1f} s (untimed); "
              f"{len(mails)} order mails from {writers} players; {args.runs} run(s) of each step",
              file=sys.stderr, flush=True)

        times: dict[str, list[float]] = {}
        cpus: dict[str, list[float]] = {}
        snapshots: dict[str, Path] = {}
        facts: dict[str, object] = {"store": (base / "gm.sqlite").stat().st_size}
        floor_cpu: list[float] = []
        peaks: dict[str, list[int]] = {}  # each gm child's peak RSS, bytes

        def record(label: str, seconds: float, cpu: float | None = None, rss: int | None = None) -> None:
            times.setdefault(label, []).append(seconds)
            if cpu is not None:
                cpus.setdefault(label, []).append(cpu)
            if rss is not None:
                peaks.setdefault(label, []).append(rss)

        def keep_first(step: str, folder: Path, found: dict[str, object]) -> None:
            """The first run's folder after `step` is what the next step starts from."""
            if step in snapshots:
                shutil.rmtree(folder)
                return
            facts.update(found)
            snapshots[step] = folder.rename(work / f"after-{step}")

        def check_inbox(after: str) -> None:
            counts = folder_counts(dovecot, imap_user, imap_password)
            left = counts.get("INBOX", 0)
            if left or sum(counts.values()) != len(mails):
                print(f"warning: after {after} the mailbox holds {counts} "
                      f"(expected INBOX empty, {len(mails)} moved)", file=sys.stderr)

        for run in range(args.runs):
            # the whole turn
            folder = fresh_copy(base, work / "run-turn")
            load_mailbox(dovecot, imap_user, imap_password, mails)
            before = outbox_status(folder).get("sent", 0)
            seconds, cpu, said, rss = gm_cli(folder, "turn")
            wal = folder / "gm.sqlite-wal"
            facts.setdefault("wal", wal.stat().st_size if wal.exists() else None)
            facts.setdefault("turn said", said)
            record("turn", seconds, cpu, rss)
            check_inbox("gm turn")
            status = outbox_status(folder)
            sent_total += status.get("sent", 0) - before
            if status.get("queued"):
                print(f"warning: gm turn left {status['queued']} messages queued", file=sys.stderr)
            shutil.rmtree(folder)

            # ingest, and the fetch and parse floors on the same inbox
            folder = fresh_copy(base, work / "run-ingest")
            load_mailbox(dovecot, imap_user, imap_password, mails)
            t0 = time.perf_counter()
            raws = floor_fetch(dovecot, imap_user, imap_password)
            record("fetch", time.perf_counter() - t0)
            t0 = time.perf_counter()
            floor_parse(raws, writers)
            record("parse", time.perf_counter() - t0)
            first = last_rowid(folder)
            seconds, cpu, said, rss = gm_cli(folder, "ingest")
            record("ingest", seconds, cpu, rss)
            check_inbox("gm ingest")
            keep_first("ingest", folder, {"ingest said": said, "replies": kinds_since(folder, first)})

            # resolve
            folder = fresh_copy(snapshots["ingest"], work / "run-resolve")
            first = last_rowid(folder)
            seconds, cpu, said, rss = gm_cli(folder, "resolve")
            record("resolve", seconds, cpu, rss)
            keep_first("resolve", folder, {"resolve said": said, "resolve queued": kinds_since(folder, first)})

            # send, and the smtplib floor on the same bytes
            folder = fresh_copy(snapshots["resolve"], work / "run-send")
            queued = queued_mail(folder)
            t0, c0 = time.perf_counter(), time.process_time()
            smtplib_reused(smtp_settings, queued)
            record("send floor", time.perf_counter() - t0)
            floor_cpu.append(time.process_time() - c0)
            sent_total += len(queued)
            before = outbox_status(folder).get("sent", 0)
            seconds, cpu, said, rss = gm_cli(folder, "send")
            record("send", seconds, cpu, rss)
            status = outbox_status(folder)
            sent = status.get("sent", 0) - before
            sent_total += sent
            if sent != len(queued) or status.get("queued"):
                print(f"warning: gm send sent {sent} of {len(queued)} queued; {status}", file=sys.stderr)
            if "send" not in snapshots:
                facts["send said"] = said
                facts["mails"] = (sent, sum(len(m.data) for m in queued))
                facts["reports"] = report_sizes(snapshots["resolve"])
                snapshots["send"] = folder.rename(work / "after-send")
            else:
                shutil.rmtree(folder)

            # publish, and the archive floor on the files it wrote
            folder = fresh_copy(snapshots["send"], work / "run-publish")
            old = tree(folder / "archive")
            seconds, cpu, said, rss = gm_cli(folder, "publish")
            record("publish", seconds, cpu, rss)
            new = tree(folder / "archive")
            written = {name: (folder / "archive" / name).read_bytes()
                       for name, stat in new.items() if old.get(name) != stat}
            facts.setdefault("publish said", said)
            facts.setdefault("archive", (len(written), sum(map(len, written.values()))))
            target = work / "floor-archive"
            shutil.rmtree(target, ignore_errors=True)
            t0 = time.perf_counter()
            floor_archive(written, target)
            record("archive", time.perf_counter() - t0)
            shutil.rmtree(target)
            shutil.rmtree(folder)
            print(f"  run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()),
                  file=sys.stderr, flush=True)
    finally:
        if smtp.pid is not None:
            smtp.terminate()  # SIGTERM: the server writes how many messages it accepted
            smtp.join(10)
            with contextlib.suppress(OSError, ValueError):
                accepted = int((work / "tls" / "accepted").read_text())
        if dovecot is not None:
            dovecot.stop()
        shutil.rmtree(work, ignore_errors=True)

    median = {label: statistics.median(values) for label, values in times.items()}
    floors = {"ingest": median["fetch"] + median["parse"], "resolve": None,
              "send": median["send floor"], "publish": median["archive"]}
    floor_names = {"ingest": "fetch + parse", "resolve": "no floor", "send": "smtplib, one connection",
                   "publish": "write the same files"}
    turn_floor = median["fetch"] + median["parse"] + median["send floor"] + median["archive"]

    print(f"\n`gm turn` at scale: {args.players} players, three boards (100, 200, 300 squares), "
          f"{len(mails)} order mails from {writers} players, imap+smtp (Dovecot, aiosmtpd with "
          f"STARTTLS + AUTH), scrypt n={gm.campaign.passwords.SCRYPT['n']}; CLI subprocesses, "
          f"median of {args.runs} run(s); Python {sys.version.split()[0]}\n")
    peak = {label: max(values) for label, values in peaks.items()}
    print("| step | gm (median) | floor | ratio | peak RSS (largest of the runs) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for step in STEPS:
        floor = floors[step]
        ratio = f"{median[step] / floor:.2f}x" if floor else "—"
        print(f"| gm {step} | {seconds_text(median[step])} | {seconds_text(floor)} "
              f"({floor_names[step]}) | {ratio} | {megabytes(peak[step])} |")
    steps_sum = sum(median[s] for s in STEPS)
    print(f"| gm turn (whole) | {seconds_text(median['turn'])} | {seconds_text(turn_floor)} "
          f"(sum of the floors) | {median['turn'] / turn_floor:.2f}x | {megabytes(peak['turn'])} |")
    print(f"\npeak RSS of gm status on the same campaign (the interpreter, gm and the state read): "
          f"{megabytes(status_rss)}; of gm send of the {args.players} welcomes (untimed): "
          f"{megabytes(welcome_rss)}; gm.sqlite before the turn: {megabytes(facts['store'])}")
    print(f"\nfloors: fetch {median['fetch']:.2f} s (one UID FETCH of {len(mails)} mails), "
          f"parse {median['parse']:.2f} s (email parsing + {writers} scrypt checks); "
          f"the four steps run one by one add up to {steps_sum:.2f} s")
    cpu_median = {label: statistics.median(values) for label, values in cpus.items()}
    print("CPU of each gm child (wait4, median): "
          + ", ".join(f"{label} {value:.2f} s" for label, value in cpu_median.items())
          + f"; smtplib floor process CPU {statistics.median(floor_cpu):.2f} s")
    sent, sent_bytes = facts["mails"]
    count, avg, biggest = facts["reports"]
    print(f"mail: gm send sent {sent} messages, {sent_bytes / 2**20:.1f} MB; "
          f"{count} player reports, average {avg / 1024:.1f} KB, largest {biggest / 1024:.1f} KB")
    print(f"replies queued by gm ingest, by kind: {facts['replies']}")
    print(f"queued by gm resolve, by kind: {facts['resolve queued']}")
    files, archive_bytes = facts["archive"]
    print(f"archive: gm publish wrote {files} files, {archive_bytes / 2**20:.1f} MB")
    wal = facts["wal"]
    print("gm.sqlite-wal after gm turn: "
          + ("none (checkpointed and removed on close)" if wal is None else f"{wal / 2**20:.1f} MB"))
    print("gm turn said:\n  " + str(facts["turn said"]).replace("\n", "\n  "))
    if accepted is None:
        print("SMTP server count: unavailable (the server did not report)")
    else:
        verdict = "nothing lost or doubled" if accepted == sent_total else "MISMATCH"
        print(f"SMTP server accepted {accepted} messages, {sent_total} sent by gm and the "
              f"floors: {verdict}")
        if accepted != sent_total:
            sys.exit(1)


if __name__ == "__main__":
    main()
