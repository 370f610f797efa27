"""`gm demo DIR`: a whole campaign played by six robots, in a few seconds.

The demo is an ordinary campaign folder with an ordinary campaign.yaml (two sample boards
copied beside it), played on the Maildir transport. The robots (gm/demo/robots.py) read what gm
delivered to `mail/outbox` and write order mail into `mail/inbox`; the GM's side is exactly
`gm turn` (cycle.run_turn with the CLI's own ingest, send and publish steps). Weeks pass
through clock.frozen: the robots write before each deadline, and the turn runs at it.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .. import clock
from ..campaign.campaign import Campaign, deadline_text, start
from ..campaign.config import CONFIG_NAME
from ..campaign.store import command_lock
from ..campaign.weekly import TurnRun
from ..errors import GmError
from ..mail.mailout import ordinal
from ..resources import shipped
from .robots import Postman, Robot, post

DEFAULT_SEED = 20270301
START = datetime(2027, 3, 1, 18, 0, tzinfo=UTC)  # a Monday evening; the first deadline is a week on
MARK = "# Written by gm demo"  # --force only ever clears a folder whose campaign.yaml says this
BOARDS = {"A": "small.yaml", "B": "ziggurat.yaml"}
CAMPAIGN_ID = "demo"
GM_ADDRESS = "gm@demo.example"

# Six robots: three strategies, four ways of writing mail, and the usual human slips.
CAST = (
    dict(id="ada", name="Ada Random", strategy="random", style="plain", plotter=True),
    dict(id="brian", name="Brian Greedy", strategy="greedy", style="html"),
    dict(id="cleo", name="Cleo Cautious", strategy="cautious", style="phone", plotter=True),
    dict(id="dmitri", name="Dmitri Random", strategy="random", style="reply", plotter=True),
    dict(id="eve", name="Eve Greedy", strategy="greedy", style="plain", misses=3),
    dict(id="felix", name="Felix Cautious", strategy="cautious", style="phone", plotter=True,
         blunders=2),
)

CAMPAIGN_YAML = """\
{mark}: a demonstration campaign played by six robots.
# `gm demo DIR --force` replaces it; copy it elsewhere to keep it.
id: {id}
title: The Robot Derby
ruleset: postal
seed: {seed}
timezone: UTC
turn_days: 7
boards:                       # relative to this file: copies of gm's sample boards
{boards}
players:                      # no passwords: gm issues them, the robots read their welcome mail
{players}
options:
  close_after: 3
  trapdoor_threshold: 3
  nmr: random
  max_turns: 60               # a guard; the robots finish long before
mail:
  transport: maildir
  from: "Demo GM <{gm}>"
"""


@dataclass
class DemoResult:
    folder: Path
    turns: int
    standings: list[str]  # printable lines, best first
    archive: Path | None  # the archive's index.html, when gm can publish one
    notes: list[str]


def robots_for(seed: int) -> list[Robot]:
    return [
        Robot(email=f"{spec['id']}@robots.example", rng=random.Random(f"{seed}/{spec['id']}"), **spec)
        for spec in CAST
    ]


def prepare(folder: Path, *, seed: int, force: bool) -> list[Robot]:
    """Write the demo campaign into `folder`: refuse a folder in use unless --force, and
    never clear one whose campaign.yaml gm demo did not write."""
    if folder.exists() and not folder.is_dir():
        raise GmError(f"{folder} is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        config = folder / CONFIG_NAME
        ours = config.is_file() and config.read_text(encoding="utf-8", errors="replace").startswith(MARK)
        if not ours:
            raise GmError(f"{folder} is not empty and holds no earlier demo; choose a new folder")
        if not force:
            raise GmError(f"{folder} already holds a demo; use --force to replace it, or choose a new folder")
        for entry in folder.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    (folder / "boards").mkdir(parents=True, exist_ok=True)
    for name in BOARDS.values():
        shutil.copyfile(shipped("boards") / name, folder / "boards" / name)
    robots = robots_for(seed)
    text = CAMPAIGN_YAML.format(
        mark=MARK,
        id=CAMPAIGN_ID,
        seed=seed,
        gm=GM_ADDRESS,
        boards="\n".join(f"  {b}: boards/{name}" for b, name in BOARDS.items()),
        players="\n".join(f"  - {{id: {r.id}, name: {r.name}, email: {r.email}}}" for r in robots),
    )
    (folder / CONFIG_NAME).write_text(text, encoding="utf-8")
    return robots


def gm_turn(campaign: Campaign) -> TurnRun:
    """`gm turn`, step for step: the CLI's own function."""
    from ..cli.campaign import weekly_turn

    return weekly_turn(campaign)


def play(folder: Path, *, seed: int = DEFAULT_SEED, force: bool = False,
         echo: Callable[[str], None] = print) -> DemoResult:
    """Create the demo campaign in `folder` and play it to the end."""
    robots = prepare(folder, seed=seed, force=force)
    with command_lock(folder):
        with clock.frozen(START):
            campaign, issued = start(folder)
        try:
            return _play(campaign, robots, echo, issued=len(issued))
        finally:
            campaign.close()


def _play(campaign: Campaign, robots: list[Robot], echo: Callable[[str], None], *,
          issued: int) -> DemoResult:
    from ..cli import campaign as cli_campaign

    folder = campaign.folder
    inbox = folder / "mail" / "inbox"
    postman = Postman(folder / "mail" / "outbox", robots)
    with clock.frozen(START):
        echo(f"gm demo: {len(robots)} robots play {campaign.config.title} in {folder}")
        echo("  they read gm's mail in mail/outbox and mail their orders into mail/inbox;")
        echo("  each week the GM runs gm turn (ingest, resolve, send, publish) at the deadline")
        echo(f"gm start: {issued} passwords issued; "
             + cli_campaign.send_summary(cli_campaign.run_send(campaign)) + " (welcome mail)")
    turns = 0
    while not campaign.state().over:
        turn, deadline = campaign.state().turn, campaign.deadline()
        assert deadline is not None  # a campaign that is not over always has one
        postman.deliver()
        public = campaign.state_json()["boards"]  # what every report shows (robots.py)
        # the week's orders: each robot writes on its own evening, well before the deadline
        mailed = [robot for index, robot in enumerate(robots)
                  if _write(robot, turn, deadline - timedelta(hours=47 - 3 * index), inbox, public)]
        echo(f"turn {turn}: {len(mailed)} robots mail orders" + _slips(robots, turn))
        if any(robot.blunders == turn for robot in robots):
            # the GM reads mail mid-week, so a refused order is answered in time to fix it
            _run(campaign, deadline - timedelta(days=1), echo, "mid-week")
            postman.deliver()
            for robot in robots:
                if robot.refused and _write(robot, turn, deadline - timedelta(hours=6), inbox, public):
                    echo(f"  {robot.name} reads the refusal and mails a corrected order")
        run = _run(campaign, deadline, echo, "the deadline")
        if not run.resolved:
            raise GmError(f"the demo's turn {turn} was not resolved: {'; '.join(run.lines)}")
        turns += 1
    postman.deliver()
    return _finish(campaign, turns, echo)


def _slips(robots: list[Robot], turn: int) -> str:
    slips = [f"{r.name} forgets to write" for r in robots if r.misses == turn]
    slips += [f"{r.name} plays a number already used" for r in robots if r.blunders == turn]
    return f" ({'; '.join(slips)})" if slips else ""


def _write(robot: Robot, turn: int, when: datetime, inbox: Path, public: dict) -> bool:
    lines = robot.order_lines(turn, campaign=CAMPAIGN_ID, public=public)
    if lines:
        post(inbox, robot.compose(lines, turn=turn, campaign=CAMPAIGN_ID, to=GM_ADDRESS, when=when))
    return bool(lines)


def _run(campaign: Campaign, moment: datetime, echo: Callable[[str], None], why: str) -> TurnRun:
    with clock.frozen(moment):
        run = gm_turn(campaign)
    echo(f"  gm turn at {deadline_text(moment)['utc']} ({why}):")  # type: ignore[index]
    for line in run.lines:
        echo(f"    {line}")
    if run.refused:
        raise GmError(f"the demo's turn was refused: {run.refused}")
    return run


def _finish(campaign: Campaign, turns: int, echo: Callable[[str], None]) -> DemoResult:
    from ..campaign.reveal import reveal
    from ..publish.write import publish
    from ..rules.postal.views import standings

    notes: list[str] = []
    reveal(campaign)
    archive = publish(campaign)[0] / "index.html"
    state, board_ids = campaign.state(), list(campaign.config.boards)
    lines = []
    for line in standings(campaign.setup, state, campaign.names()):
        placings = "  ".join(f"{b}: {ordinal(p):>4}" for b, p in zip(board_ids, line.placings, strict=True))
        lines.append(f"{ordinal(line.place):>4}  {line.name:<16} {placings}   aggregate {line.aggregate}")
    return DemoResult(campaign.folder, turns, lines, archive, notes)


def summary(result: DemoResult) -> list[str]:
    """What `gm demo` prints at the end, even with --quiet."""
    lines = [f"The Robot Derby is over after {result.turns} turns. "
             "Final standings (aggregate of placings, lowest wins):"]
    lines += [f"  {line}" for line in result.standings]
    lines += [f"note: {note}" for note in result.notes]
    if result.archive is not None:
        lines.append(f"archive: {result.archive}")
    lines.append(f"look around: gm -C {result.folder} status; the mail is in {result.folder / 'mail'}")
    return lines
