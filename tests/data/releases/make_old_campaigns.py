"""Make the campaign folders and archives of an earlier gm release that tests/test_upgrades.py
carries on with today's gm. Run ONCE per release, by that release's own gm, never by
today's code (the fixtures are what the GM of that release left on disk):

    git -C . worktree add /tmp/gm-b588207 b588207
    python3 -m venv /tmp/gm-b588207/.venv
    /tmp/gm-b588207/.venv/bin/pip install /tmp/gm-b588207
    GM_RELEASE=b588207 /tmp/gm-b588207/.venv/bin/python tests/data/releases/make_old_campaigns.py \
        tests/data/releases/b588207 --archives

(and the same with 1cb023a, gm 0.1.0, without --archives; a later release adds its own
folder, run with that release's gm the day it is made). For each of gm's five rulesets it writes
`<ruleset>.tar.xz`: the starter campaign of `gm campaign new --ruleset <ruleset>` (its first
two players, Maildir transport), started and with two turns played, the players' orders
written by that release's own demo robots into mail/inbox and every gm command run
through that release's `gm` command line with GM_NOW. Beside the folder in the archive,
`fixture.json` says which release made it, the passwords it issued (read from its welcome
mail) and the next deadline. With --archives it also writes `demo-unleashed-archive.tar.xz`:
the archive's audit.json and the mail/outbox of that release's `gm demo --ruleset
unleashed`, played to the end, revealed and published wholly by it. The files are xz
tarballs so that a dozen campaigns, database and mail included, stay under half a megabyte.

Only the standard library and the release's own gm package are imported, so the script
runs with any release from b588207 on.
"""

from __future__ import annotations

import io
import json
import mailbox
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

RULESETS = ("postal", "classic", "doubles", "advanced", "unleashed")
START = datetime(2027, 3, 1, 18, 0, tzinfo=UTC)
SEED = 2**128 + 20270301  # strong enough for every ruleset (unleashed refuses one below 2^128)
TURNS = 2
ARCHIVES = ("unleashed",)  # `gm demo` archives kept: few, they are committed
GM = Path(sys.executable).with_name("gm")


def gm(*args: str, now: datetime, folder: Path | None = None) -> str:
    env = dict(os.environ, GM_NOW=now.strftime("%Y-%m-%dT%H:%MZ"))
    command = [str(GM), *(["-C", str(folder)] if folder else []), *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def robots_for(ruleset: str):
    """Two of the release's demo robots, as the starter campaign's alice and bob."""
    from gm.demo.robots import robots_of
    from gm.rules.registry import find_ruleset

    demo = robots_of(find_ruleset(ruleset))
    robots = []
    # not a robot that resigns: of two players, the other would have won before the upgrade
    cast = [spec for spec in demo.cast if not {"resigns", "wavers"} & set(spec)]
    for spec, (pid, name) in zip(cast, (("alice", "Alice"), ("bob", "Bob")), strict=False):
        spec = {k: v for k, v in spec.items() if k not in ("id", "name", "misses", "blunders", "team")}
        robots.append(demo.robot(id=pid, name=name, email=f"{pid}@example.org",
                                 rng=random.Random(f"{ruleset}/{pid}"), **spec))
    return demo, robots


def post(inbox: Path, message, received: datetime) -> None:
    box = mailbox.Maildir(str(inbox), factory=None, create=False)
    key = box.add(message.as_bytes())
    os.utime(inbox / "new" / key, (received.timestamp(), received.timestamp()))


def make_campaign(ruleset: str, work: Path, out: Path, release: str) -> None:
    from gm.campaign.folder import Campaign
    from gm.demo.robots import Postman

    folder = work / ruleset
    gm("campaign", "new", str(folder), "--ruleset", ruleset, now=START)
    config = folder / "campaign.yaml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"^(ruleset: .*\n)", rf"\1seed: {SEED}\n", text, count=1, flags=re.MULTILINE)
    text = re.sub(r"^  - \{id: carol, .*\n", "", text, count=1, flags=re.MULTILINE)  # two players: small files
    config.write_text(text, encoding="utf-8")
    gm("start", now=START, folder=folder)
    gm("send", now=START, folder=folder)
    demo, robots = robots_for(ruleset)
    postman = Postman(folder / "mail" / "outbox", robots)
    for _ in range(TURNS):
        postman.deliver()
        campaign = Campaign.open(folder)
        try:
            turn, deadline = campaign.state().turn, campaign.deadline()
            public = demo.public(campaign)
            address = campaign.config.mail.address
        finally:
            campaign.close()
        for hours, robot in zip((40, 20), robots, strict=True):
            lines = robot.order_lines(turn, campaign=ruleset, public=public)
            if lines:
                when = deadline - timedelta(hours=hours)
                post(folder / "mail" / "inbox", robot.compose(lines, turn=turn, campaign=ruleset, to=address,
                                                              when=when), when)
        gm("turn", now=deadline, folder=folder)
    postman.deliver()
    campaign = Campaign.open(folder)
    try:
        deadline = campaign.deadline()
    finally:
        campaign.close()
    facts = {"release": release, "version": gm("--version", now=START).split()[-1], "ruleset": ruleset,
             "campaign": ruleset, "turns_played": TURNS, "next_deadline": deadline.isoformat(),
             "passwords": {robot.id: robot.password for robot in robots}}
    _tar(out / f"{ruleset}.tar.xz", folder, facts)


def make_archive(ruleset: str, work: Path, out: Path, release: str) -> None:
    """`gm demo` of the release, played, revealed and published wholly by it: its archive/
    and the mail it sent (what a player's mail holds, for gm audit --mail)."""
    folder = work / f"demo-{ruleset}"
    gm("demo", str(folder), "--ruleset", ruleset, "--quiet", now=START)
    kept = work / f"kept-{ruleset}" / "demo"
    (kept / "archive").mkdir(parents=True)
    shutil.copyfile(folder / "archive" / "audit.json", kept / "archive" / "audit.json")
    shutil.copytree(folder / "mail" / "outbox", kept / "mail" / "outbox")
    facts = {"release": release, "version": gm("--version", now=START).split()[-1], "ruleset": ruleset,
             "campaign": "demo"}
    _tar(out / f"demo-{ruleset}-archive.tar.xz", kept, facts)


def _tar(path: Path, folder: Path, facts: dict) -> None:
    """The folder as `<name>/...` with fixture.json beside it, files in name order, so a
    second run of the same release makes the same members."""
    lock = folder / ".gm.lock"
    if lock.exists():
        lock.unlink()
    with tarfile.open(path, "w:xz", preset=9) as tar:
        data = json.dumps(facts, indent=2, sort_keys=True).encode() + b"\n"
        info = tarfile.TarInfo("fixture.json")
        info.size, info.mtime = len(data), int(START.timestamp())
        tar.addfile(info, io.BytesIO(data))
        for file in sorted(folder.rglob("*")):
            tar.add(file, arcname=f"{folder.name}/{file.relative_to(folder).as_posix()}", recursive=False)
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        raise SystemExit(__doc__)
    out = Path(args[0]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    release = os.environ.get("GM_RELEASE", "unknown")
    rulesets = [r for r in RULESETS if f"--only-{r}" in sys.argv] or RULESETS
    with tempfile.TemporaryDirectory() as tmp:
        for ruleset in rulesets:
            make_campaign(ruleset, Path(tmp), out, release)
        if "--archives" in sys.argv:
            for ruleset in ARCHIVES:
                make_archive(ruleset, Path(tmp), out, release)


if __name__ == "__main__":
    main()
