"""`gm demo DIR --judge`: a judge with three games of different rulesets, each played by its
ruleset's robots, every step on the GM's side one run of `gm judge DIR turn` as cron would
make it. The robots read the judge's one outbox (each its own game's mail) and write to the
judge's one address; a stranger asks for the LIST and a robot for its RECORD."""

from __future__ import annotations

import mailbox
import shutil
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from .. import clock
from ..campaign.campaign import start
from ..campaign.folder import Campaign
from ..campaign.reveal import reveal
from ..counts import count
from ..errors import GmError
from ..judge.layout import load_judge, new_judge
from ..judge.site import write_site
from ..judge.turn import judge_turn
from ..mail import maildir
from ..publish.write import publish
from .robots import Letter, Robot, post
from .run import MARK, START, demo_of, prepare, rulesets

JUDGE_ADDRESS = "judge@demo.example"
GAMES = 3
MOST_WEEKS = 100  # a game longer than this is no demo


class Reader:
    """The judge's outbox holds every game's mail: each file is read once, in the order gm
    sent it, and handed to the robot it is addressed to in the game its subject names (one
    address may play in several games)."""

    def __init__(self, outbox: Path, robots: dict[str, list[Robot]]):
        self.outbox = outbox
        self.robots = {(game, robot.email.lower()): robot for game, team in robots.items() for robot in team}
        self.seen: set[str] = set()

    def deliver(self) -> None:
        box = mailbox.Maildir(str(self.outbox), factory=None, create=False)
        for key in sorted(k for k in box.iterkeys() if k not in self.seen):
            self.seen.add(key)
            letter = Letter.from_bytes(box.get_bytes(key))
            robot = self.robots.get((letter.campaign, letter.to))
            if robot is not None:
                robot.receive(letter)


def play_judge(folder: Path, *, seed: int, force: bool, echo: Callable[[str], None] = print) -> list[str]:
    """Write the judge and its games into `folder`, play every game to its end by mail."""
    if (folder / "judge.yaml").exists():
        if not force or not (folder / "demo-judge").exists():
            raise GmError(f"{folder} already holds a judge; use --force to replace a demo's, or choose a new folder")
        shutil.rmtree(folder)
    elif folder.exists() and any(folder.iterdir()):
        raise GmError(f"{folder} is not empty; choose a new folder")
    new_judge(folder)
    (folder / "demo-judge").write_text(f"{MARK} --judge\n", encoding="utf-8")
    text = (folder / "judge.yaml").read_text(encoding="utf-8")
    (folder / "judge.yaml").write_text(text.replace("judge@example.org", JUDGE_ADDRESS), encoding="utf-8")
    judge = load_judge(folder)
    chosen = rulesets()[:GAMES]
    robots: dict[str, list[Robot]] = {}
    for name in chosen:
        game = folder / "campaigns" / name
        robots[name] = prepare(game, seed=seed, force=False, ruleset=name)
        yaml = (game / "campaign.yaml").read_text(encoding="utf-8")
        yaml = yaml.replace("\nid: demo\n", f"\nid: {name}\n")
        (game / "campaign.yaml").write_text(yaml[: yaml.index("\nmail:\n") + 1], encoding="utf-8")
        with clock.frozen(START):
            campaign, _ = start(game)
        campaign.close()
    echo(f"gm demo --judge: {count(len(chosen), 'game')} behind {JUDGE_ADDRESS} in {folder}: {', '.join(chosen)}")
    reader = Reader(maildir.outbox(folder), robots)
    inbox = maildir.inbox(folder)
    _strangers(inbox, robots[chosen[0]][0])
    moment: datetime | None = START + timedelta(hours=2)  # cron's first run: the welcomes go out
    for _ in range(MOST_WEEKS):
        if moment is None:
            break
        with clock.frozen(moment):
            run = judge_turn(judge)
            write_site(judge, run.games)
        echo(f"gm judge {folder} turn at {moment:%Y-%m-%d %H:%M} UTC:")
        for line in run.lines:
            echo(f"  {line}")
        moment = _week(folder, chosen, robots, reader, inbox)
    return _finish(folder, chosen)


def _week(folder: Path, chosen: tuple[str, ...], robots: dict[str, list[Robot]], reader: Reader,
          inbox: Path) -> datetime | None:
    """The robots of the games whose deadline comes next write their orders; that deadline."""
    reader.deliver()
    due: dict[str, datetime] = {}
    for name in chosen:
        campaign = Campaign.open(folder / "campaigns" / name)
        try:
            if not campaign.state().over and campaign.deadline() is not None:
                due[name] = campaign.deadline()
        finally:
            campaign.close()
    if not due:
        return None
    moment = min(due.values())
    for name in (n for n, when in due.items() if when == moment):
        campaign = Campaign.open(folder / "campaigns" / name)
        try:
            demo = demo_of(campaign.config.ruleset_name)
            public = demo.public(campaign)
            seen = demo.seen_by(campaign, [robot.id for robot in robots[name]])
            turn = campaign.state().turn
        finally:
            campaign.close()
        for index, robot in enumerate(robots[name]):
            robot.state = seen[robot.id]
            when = moment - timedelta(hours=47 - 3 * index)
            lines = robot.order_lines(turn, campaign=name, public=public)
            if lines:
                # to the judge's address with the game's +detail, as a player's address book keeps it
                to = JUDGE_ADDRESS.replace("@", f"+{name}@")
                post(inbox, robot.compose(lines, turn=turn, campaign=name, to=to, when=when),
                     when + timedelta(minutes=1))
    return moment


def _strangers(inbox: Path, robot: Robot) -> None:
    """A stranger asks the judge for its games; a robot asks for its record."""
    for sender, line in (("newcomer@elsewhere.example", "LIST"), (robot.email, "RECORD")):
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, JUDGE_ADDRESS, "games?"
        message["Date"] = format_datetime(START + timedelta(hours=1))
        message["Message-ID"] = f"<{line.lower()}@elsewhere.example>"
        message.set_content(f"{line}\n")
        post(inbox, message, START + timedelta(hours=1))


def _finish(folder: Path, chosen: tuple[str, ...]) -> list[str]:
    lines = []
    for name in chosen:
        campaign = Campaign.open(folder / "campaigns" / name)
        try:
            reveal(campaign)
            publish(campaign)
            demo = demo_of(campaign.config.ruleset_name)
            lines.append(f"{campaign.config.title} ({name}): " + "; ".join(demo.standings(campaign)[:3]))
        finally:
            campaign.close()
    judge = load_judge(folder)
    lines.append(f"site: {write_site(judge)}")
    lines.append(f"look around: gm judge {folder} status; the mail is in {folder / 'mail'}")
    return lines
