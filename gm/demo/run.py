"""`gm demo DIR`: a whole campaign played by six robots, in a few seconds.

The demo is an ordinary campaign folder with an ordinary campaign.yaml for the ruleset
asked for (sample boards copied beside it), played on the Maildir transport. What the
ruleset's robots order, and the campaign's boards, options and cast, are the ruleset's
own (its package's `robot` module, gm/demo/robots.py's `robots_of`). The robots read what
gm delivered to `mail/outbox` and write order mail into `mail/inbox`; the GM's side is
exactly `gm turn` (gm.weekly.turn.run_turn).
Weeks pass through clock.frozen: the robots write before each deadline, and the turn runs
at it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Any

from .. import clock
from ..campaign.campaign import start
from ..campaign.config.reading import CONFIG_NAME
from ..campaign.deadlines import deadline_text
from ..campaign.folder import Campaign
from ..campaign.reveal import reveal
from ..campaign.signup import admission, standing
from ..campaign.store import command_lock
from ..counts import count, one_or_many
from ..errors import GmError
from ..mail import maildir
from ..publish.write import publish
from ..rules import registry
from ..rules.files import ruleset_board
from ..weekly.turn import TurnRun, run_send, run_turn, send_summary
from .press import PRESS_YAML, press_lines
from .robots import DemoSetup, Postman, Robot, post, robots_of

DEFAULT_SEED = 20270301
START = datetime(2027, 3, 1, 18, 0, tzinfo=UTC)  # a Monday evening; the first deadline is a week on
MARK = "# Written by gm demo"  # --force only ever clears a folder whose campaign.yaml says this
CAMPAIGN_ID = "demo"
GM_ADDRESS = "gm@demo.example"
DEFAULT_RULESET = registry.DEFAULT

CAMPAIGN_YAML = """\
{mark}: a demonstration campaign played by six robots.
# `gm demo DIR --force` replaces it; copy it elsewhere to keep it.
id: {id}
title: {title}
ruleset: {ruleset}
seed: {seed}
timezone: UTC
turn_days: 7
boards:                       # relative to this file: copies of gm's sample boards
{boards}
{players}{press}options:
{options}mail:
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
    title: str = "The Robot Derby"
    heading: str = "Final standings:"
    ruleset: str = DEFAULT_RULESET
    robots: list[Robot] = field(default_factory=list)  # as they ended, with what they read


def demo_of(ruleset: str) -> DemoSetup:
    """The ruleset's demo (its robots, cast, boards and options); GmError when there is none."""
    try:
        found = robots_of(registry.find_ruleset(ruleset))
    except registry.UnknownRuleset as error:
        raise GmError(f"unknown ruleset {error.name!r} (gm demo plays {', '.join(rulesets())})") from None
    if found is None:
        raise GmError(f"the {ruleset} ruleset has no robots for gm demo (it plays {', '.join(rulesets())})")
    return found


def rulesets() -> tuple[str, ...]:
    """What `gm demo --ruleset` plays: every known ruleset that has robots (robots_of),
    gm's own first in their usual order, then the installed ones by name. Each is imported
    to ask, so only --help and a refusal call this, never a demo that names its ruleset."""
    found = []
    # an installed ruleset that fails to load is no ruleset to play: registry.loadable notes it
    for name, ruleset in registry.loadable(sorted(registry.known(),
                                                  key=lambda name: (_BUILT_IN.get(name, len(_BUILT_IN)), name))):
        try:
            if robots_of(ruleset) is not None:
                found.append(name)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a package's robot module that fails (SystemExit too) offers no robots
            registry.note_left_out(f"the {name} ruleset's robots", error)
    return tuple(found)


_BUILT_IN = {name: index for index, name in enumerate(registry.BUILT_IN)}


PLAYERS = """\
players:                      # no passwords: gm issues them, the robots read their welcome mail
{lines}
"""
SIGNUP = """\
players: []                   # the robots join by mail: see gm -C DIR signup
signup:
  open: true
  max_players: {most}
  approve: auto
"""
# gm demo --signup: the robots join a week before the start; the strangers' mail beside theirs
SIGNUP_DAYS = 7
STRANGER = "someone-else@elsewhere.example"  # whose address a forged JOIN gives


def prepare(folder: Path, *, seed: int, force: bool, ruleset: str = DEFAULT_RULESET,
            signup: bool = False, press: bool = False) -> list[Robot]:
    """Write the demo campaign into `folder`: refuse a folder in use unless --force, and
    never clear one whose campaign.yaml gm demo did not write. With `signup`, campaign.yaml
    lists no player and takes them by mail (the robots join before the start)."""
    demo = demo_of(ruleset)
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
    rules = registry.find_ruleset(ruleset)  # its own boards_folder first, then gm's boards/
    for name in demo.boards.values():
        shutil.copyfile(ruleset_board(rules, name), folder / "boards" / name)
    robots = demo.robots(seed)
    text = CAMPAIGN_YAML.format(
        mark=MARK,
        id=CAMPAIGN_ID,
        title=demo.title,
        ruleset=ruleset,
        seed=demo.campaign_seed(seed),
        gm=GM_ADDRESS,
        boards="\n".join(f"  {b}: boards/{name}" for b, name in demo.boards.items()),
        players=SIGNUP.format(most=len(robots)) if signup else PLAYERS.format(lines="\n".join(
            _player_line(r, spec, demo.player_keys) for r, spec in zip(robots, demo.cast, strict=True))),
        press=PRESS_YAML if press else "",
        options=demo.options,
    )
    (folder / CONFIG_NAME).write_text(text, encoding="utf-8")
    return robots


def _player_line(robot: Robot, spec: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    extra = "".join(f", {key}: {spec[key]}" for key in keys if spec.get(key) is not None)
    return f"  - {{id: {robot.id}, name: {robot.name}, email: {robot.email}{extra}}}"


def play(folder: Path, *, seed: int = DEFAULT_SEED, force: bool = False, ruleset: str = DEFAULT_RULESET,
         echo: Callable[[str], None] = print, signup: bool = False, press: bool = False) -> DemoResult:
    """Create the demo campaign for `ruleset` in `folder` and play it to the end; with
    `signup`, the robots first join it by mail."""
    demo = demo_of(ruleset)
    robots = prepare(folder, seed=seed, force=force, ruleset=ruleset, signup=signup, press=press)
    with command_lock(folder):
        if signup:
            _sign_up(folder, demo, robots, echo)
        with clock.frozen(START):
            campaign, issued = start(folder)
        try:
            return _play(campaign, demo, robots, echo, issued=len(issued))
        finally:
            campaign.close()


def _sign_up(folder: Path, demo: DemoSetup, robots: list[Robot], echo: Callable[[str], None]) -> None:
    """The week before the start (docs/rules/, Joining by mail): each robot mails JOIN and, once gm's code
    comes, CONFIRM; beside them a JOIN forged in a stranger's name (its code goes to the
    stranger, who never confirms), a robot's CONFIRM delivered twice (the replay is kept,
    not applied) and a robot's holiday auto-reply to gm's code (kept, never answered).
    Every step on gm's side is `gm turn`, which answers sign-ups before the start."""
    inbox = maildir.inbox(folder)
    opened = datetime(START.year, START.month, START.day, 9, tzinfo=UTC) - timedelta(days=SIGNUP_DAYS)
    campaign = Campaign.open(folder)  # the sign-up's store and Maildirs
    try:
        postman = Postman(maildir.outbox(folder), robots)
        echo(f"gm demo: {demo.title} is announced in {folder}; {count(len(robots), 'robot')} join it by mail")
        keys = {spec["id"]: {k: spec[k] for k in demo.player_keys if spec.get(k) is not None} for spec in demo.cast}
        for index, robot in enumerate(robots):
            when = opened + timedelta(hours=index)
            post(inbox, robot.compose(robot.join_lines(CAMPAIGN_ID, keys.get(robot.id, {})), turn=0,
                                      campaign=CAMPAIGN_ID, to=GM_ADDRESS, when=when, subject=f"Join {demo.title}"),
                 received=when + timedelta(minutes=1))
        when = opened + timedelta(hours=len(robots))
        post(inbox, _forged_join(when), received=when + timedelta(minutes=1))
        echo(f"  each robot mails JOIN; one more JOIN is forged in the name of {STRANGER}")
        _run(campaign, opened + timedelta(days=1), echo, "sign-up")
        postman.deliver()
        confirm = opened + timedelta(days=2)
        for index, robot in enumerate(robots):
            when = confirm + timedelta(hours=index)
            message = robot.compose(robot.confirm_lines(), turn=0, campaign=CAMPAIGN_ID, to=GM_ADDRESS,
                                    when=when, subject=f"Confirm {demo.title}")
            post(inbox, message, received=when + timedelta(minutes=1))
            if index == 0:  # delivered twice: the same message, replayed
                post(inbox, message, received=when + timedelta(minutes=2))
        when = confirm + timedelta(hours=len(robots))
        post(inbox, _holiday_reply(robots[-1], when), received=when + timedelta(minutes=1))
        echo(f"  each robot mails CONFIRM with its code; {robots[0].name}'s arrives twice, "
             f"and {robots[-1].name}'s holiday auto-reply answers gm's code mail too")
        _run(campaign, opened + timedelta(days=3), echo, "sign-up")
        postman.deliver()
        found = admission.counts(campaign)
        echo(f"  in: {found.get(standing.IN, 0)}; unconfirmed: {found['unconfirmed']} (the forged JOIN's); "
             f"the replay and the auto-reply kept unanswered")
        lost = [robot.id for robot in robots if robot.standing != standing.IN]
        if lost:
            raise GmError(f"the demo's robots {', '.join(lost)} did not get a place by sign-up")
    finally:
        campaign.close()


def _forged_join(when: datetime) -> EmailMessage:
    """A JOIN that gives a stranger's address as its sender: gm mails the code there, and
    nobody is signed up."""
    message = EmailMessage()
    message["From"] = f"Someone Else <{STRANGER}>"
    message["To"] = GM_ADDRESS
    message["Date"] = format_datetime(when)
    message["Message-ID"] = "<forged.join@elsewhere.example>"
    message["Subject"] = "Join"
    message.set_content(f"JOIN {CAMPAIGN_ID}\nNAME Someone Else\n")
    return message


def _holiday_reply(robot: Robot, when: datetime) -> EmailMessage:
    """An auto-responder's answer to gm's code mail (RFC 3834: Auto-Submitted)."""
    message = EmailMessage()
    message["From"] = formataddr((robot.name, robot.email))
    message["To"] = GM_ADDRESS
    message["Date"] = format_datetime(when)
    message["Message-ID"] = f"<holiday.{robot.id}@robots.example>"
    message["Subject"] = "Out of office"
    message["Auto-Submitted"] = "auto-replied"
    if robot.last_from_gm is not None:
        message["In-Reply-To"] = robot.last_from_gm.message_id
    message.set_content("I am away until Monday and will read your mail then.\n")
    return message


def _play(campaign: Campaign, demo: DemoSetup, robots: list[Robot], echo: Callable[[str], None], *,
          issued: int) -> DemoResult:
    folder = campaign.folder
    inbox = maildir.inbox(folder)
    postman = Postman(maildir.outbox(folder), robots)
    with clock.frozen(START):
        echo(f"gm demo: {count(len(robots), 'robot')} {one_or_many(len(robots), 'plays', 'play')} "
             f"{campaign.config.title} in {folder}")
        echo("  they read gm's mail in mail/outbox and mail their orders into mail/inbox;")
        echo("  each week the GM runs gm turn (ingest, resolve, send, publish) at the deadline")
        echo(f"gm start: {count(issued, 'password')} issued; "
             + send_summary(run_send(campaign)) + " (welcome mail)")
    turns = 0
    has_press = campaign.config.press.mode != "none"  # gm demo --press: the robots write a little
    while not campaign.state().over:
        turn, deadline = campaign.state().turn, campaign.deadline()
        assert deadline is not None  # a campaign that is not over always has one
        postman.deliver()
        public = demo.public(campaign)  # what every player may know (robots.py)
        seen = demo.seen_by(campaign, [robot.id for robot in robots])  # and what each may know of itself
        for robot in robots:
            robot.state = seen[robot.id]
        # the week's orders: each robot writes on its own evening, well before the deadline
        mailed = [robot for index, robot in enumerate(robots)
                  if _write(robot, turn, deadline - timedelta(hours=47 - 3 * index), inbox, public,
                            press_lines(robots, index, turn) if has_press else [])]
        echo(f"turn {turn}: {_mailed(len(mailed))}" + _slips(robots, turn))
        if any(robot.mid_week(turn) for robot in robots):
            # the GM reads mail mid-week, so a slip is answered in time to put it right
            _run(campaign, deadline - timedelta(days=1), echo, "mid-week")
            postman.deliver()
            for robot in robots:
                lines, what = robot.second_letter(turn, campaign=CAMPAIGN_ID, public=public)
                if lines:
                    post(inbox, robot.compose(lines, turn=turn, campaign=CAMPAIGN_ID, to=GM_ADDRESS,
                                              when=deadline - timedelta(hours=6)))
                    echo(f"  {robot.name} {what}")
        run = _run(campaign, deadline, echo, "the deadline")
        if not run.resolved:
            raise GmError(f"the demo's turn {turn} was not resolved: {'; '.join(run.lines)}")
        turns += 1
    postman.deliver()
    result = _finish(campaign, demo, turns)
    result.robots = robots
    return result


def _mailed(written: int) -> str:
    if written == 0:
        return "no robot writes"
    return f"{count(written, 'robot')} {one_or_many(written, 'mails', 'mail')} orders"


def _slips(robots: list[Robot], turn: int) -> str:
    slips = [f"{robot.name} {slip}" for robot in robots if (slip := robot.slip(turn))]
    return f" ({'; '.join(slips)})" if slips else ""


def _write(robot: Robot, turn: int, when: datetime, inbox: Path, public: Mapping[str, Any],
           press: list[str]) -> bool:
    lines = robot.order_lines(turn, campaign=CAMPAIGN_ID, public=public)
    if lines:
        # a press block runs to ENDPRESS: it follows the orders
        post(inbox, robot.compose([*lines, *press], turn=turn, campaign=CAMPAIGN_ID, to=GM_ADDRESS, when=when))
    return bool(lines)


def _run(campaign: Campaign, moment: datetime, echo: Callable[[str], None], why: str) -> TurnRun:
    with clock.frozen(moment):
        run = run_turn(campaign)
    echo(f"  gm turn at {deadline_text(moment)['utc']} ({why}):")  # type: ignore[index]
    for line in run.lines:
        echo(f"    {line}")
    if run.refused:
        raise GmError(f"the demo's turn was refused: {run.refused}")
    return run


def _finish(campaign: Campaign, demo: DemoSetup, turns: int) -> DemoResult:
    notes: list[str] = []
    reveal(campaign)
    archive = publish(campaign)[0] / "index.html"
    return DemoResult(campaign.folder, turns, demo.standings(campaign), archive, notes,
                      title=campaign.config.title, heading=demo.heading, ruleset=campaign.config.ruleset_name)


def summary(result: DemoResult) -> list[str]:
    """What `gm demo` prints at the end, even with --quiet, whatever the ruleset."""
    lines = [f"{result.title} is over after {count(result.turns, 'turn')}. {result.heading}"]
    lines += [f"  {line}" for line in result.standings]
    lines += [f"note: {note}" for note in result.notes]
    if result.archive is not None:
        lines.append(f"archive: {result.archive}")
    lines.append(f"look around: gm -C {result.folder} status; the mail is in {result.folder / 'mail'}")
    return lines
