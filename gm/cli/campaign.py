"""The GM's commands on a campaign folder (`gm -C DIR ...`). Each opens the campaign,
takes the campaign's lock when it changes state, calls one core function and says what
it did in a line or two."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import click

from .. import clock
from ..campaign.campaign import WEAK_SEED, start
from ..campaign.config.judged import judge_of
from ..campaign.deadlines import deadline_text
from ..campaign.ingest import ingest_mail
from ..campaign.store import command_lock
from ..campaign.turns import order_statuses, remind, resolve, resolved_summary, undo
from ..counts import count, one_or_many
from ..errors import GmError
from ..rules.base import Ruleset
from ..rules.files import lineage, rules_file, rules_label, ruleset_board
from ..rules.registry import DEFAULT, UnknownRuleset, find_ruleset
from .opening import opened
from .status import awaited_mark, orders_in

# -- setting up ---------------------------------------------------------------------------


@click.group("campaign")
def campaign_group() -> None:
    """Create campaign folders."""


STARTER = """\
# A gm campaign (see docs/campaign.md and the README). Edit, then run: gm -C {dir} start
id: {id}
title: {title}
ruleset: {ruleset}
# seed: a whole number every random choice derives from. Leave it out and gm start draws
# {seed_bits} random bits; either way it is committed at start and kept secret until gm reveal.
timezone: UTC                # the GM's time zone, for deadlines
turn_days: 7                 # each resolved turn sets the next deadline this many days later
boards:                      # board id -> board file, relative to this file
  A: {board}                 # copied here: the game is played from what gm start fixes
players:                     # a password is issued to each player who has none
  - {{id: alice, name: Alice, email: alice@example.org}}
  - {{id: bob, name: Bob, email: bob@example.org, timezone: Europe/Berlin}}
  - {{id: carol, name: Carol, email: carol@example.org}}
options:                     # all optional; {rules} gives the meaning
{options}# archive_url: https://example.org/{id}/
#   where the archive gm publish writes (the archive/ folder) is served; with it, every
#   mail links the game's pages (each turn, the board drawn, the rules), so players can
#   look things up between mails. Free to add or change at any time.
# signup:                    # players join by mail before gm start (docs/campaign.md);
#   open: true               #   with it, players: above may be empty. gm turn from cron answers
#   max_players: 500         #   JOIN and CONFIRM mail; every player of the game, those listed included
#   closes: "2027-03-14 18:00"  # in the timezone above; a later JOIN joins the waiting list
#   approve: auto            # or gm: each confirmed request waits for gm signup accept|reject
# press:                     # players write to each other through the GM (docs/campaign.md);
#   mode: grey               #   none (the default), white, grey (ANONYMOUS too) or public (ALL
#   max_bytes: 8192          #   and GM only); fixed at start. Text per block;
#   max_per_day: 20          #   blocks a player a UTC day;
#   max_recipients_per_day: 200  # recipients a player a UTC day;
#   digest_above: 50         #   above this many players, ALL press goes into the turn report;
#   observers: true          #   observers get ALL press;
#   publish: public          #   ALL press on the archive's turn pages (or none)
# absence: {{mode: standing}}  # ABSENCE by mail; extend: a deadline inside a player's absence
#                            #   moves past it (docs/campaign.md); free to edit
# extend: {{quorum: 0.66}}     # EXTEND by mail: players vote to extend a deadline; free to edit
# notify:                    # one POST at the start, each resolved turn, the end, sign-up
#   webhooks:                #   opening and closing (docs/deployment.md, Notifications)
#     - {{url: "https://discord.com/api/webhooks/...", format: discord}}   # or slack, json
mail:
  transport: maildir         # mail/inbox and mail/outbox in this folder; or imap+smtp:
  from: "{sender} <gm@example.org>"
  # imap: {{host: imap.example.org, port: 993, user: gm, ssl: true, folder: INBOX}}
  # smtp: {{host: smtp.example.org, port: 587, user: gm, starttls: true}}
  # passwords come only from GM_IMAP_PASSWORD and GM_SMTP_PASSWORD
"""


@campaign_group.command("new")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--id", "campaign_id", help="The campaign id (default: the folder's name).")
@click.option("--ruleset", "ruleset_name", default=DEFAULT, show_default=True, help="The campaign's ruleset.")
def campaign_new(directory: str, campaign_id: str | None, ruleset_name: str) -> None:
    """Write a commented starter campaign.yaml into DIRECTORY.

    Example: gm campaign new campaigns/spring-2027
    """
    try:
        ruleset = find_ruleset(ruleset_name)
    except UnknownRuleset as error:
        raise GmError(str(error)) from None

    folder = Path(directory)
    if (folder / "campaign.yaml").exists():
        raise GmError(f"{folder / 'campaign.yaml'} already exists; nothing was written")
    (folder / "boards").mkdir(parents=True, exist_ok=True)
    # a copy in the campaign's folder, never a path into the installed package: upgrading
    # gm must not change the board a campaign is designed around
    board = Path("boards") / ruleset.starter_board
    if not (folder / board).exists():
        shutil.copyfile(ruleset_board(ruleset, ruleset.starter_board), folder / board)
    cid = campaign_id or folder.resolve().name
    # the page a GM reads the options in: gm's docs, or the ruleset's own rules page
    page = rules_file(lineage(ruleset))
    rules = rules_label(page) if page is not None else "the ruleset's documentation"
    text = STARTER.format(dir=directory, id=cid, title=cid.replace("-", " ").title(), board=board.as_posix(),
                          ruleset=ruleset.name, options=ruleset.starter_options, seed_bits=ruleset.seed_bits,
                          rules=rules, sender=_sender(ruleset))
    if judge_of(folder) is not None:
        # one of a judge's games: it mails with the judge's settings (docs/deployment.md)
        text = text[: text.index("\nmail:\n") + 1] + "# no mail: here: this game uses the judge's (judge.yaml)\n"
    (folder / "campaign.yaml").write_text(text, encoding="utf-8")
    click.echo(f"wrote {folder / 'campaign.yaml'}; edit it, then run: gm -C {directory} start")


def _sender(ruleset: Any) -> str:
    """The GM's name in the starter's `from:`: the game's own (Ruleset.game_name); gm's own
    rulesets keep the short one their starters always had."""
    return "Snakes GM" if ruleset.game_name == Ruleset.game_name else f"{ruleset.game_name} GM"


@click.command("start")
@click.pass_context
def start_cmd(ctx: click.Context) -> None:
    """Check the campaign, create its state, issue passwords, publish the commitments of
    every board and of the seed, and queue a welcome mail to each player.

    Example: gm -C campaigns/spring-2027 start
    """
    folder = Path(ctx.obj["dir"])
    with command_lock(folder):
        campaign, issued = start(folder)
        try:
            data = campaign.state_json()
            game = campaign.row().get("game_commitment")
        finally:
            campaign.close()
    config = campaign.config
    passwords = (f"{one_or_many(len(issued), 'a password', 'passwords')} issued to {count(len(issued), 'player')}"
                 if issued else "no password issued (campaign.yaml gives every player one)")
    joined = f" ({config.joined} joined by mail)" if config.joined else ""
    click.echo(f"started {data['campaign']}: {count(len(config.players), 'player')}{joined}, "
               f"{count(len(data['boards']), 'board')}, {passwords}")
    if config.seed < WEAK_SEED:
        click.echo(f"warning: the seed {config.seed} is below 2^64 and can be guessed from the published "
                   f"outcomes; leave seed out of campaign.yaml and gm start draws {config.ruleset.seed_bits} random bits",
                   err=True)
    # docs/audit.md: what the GM publishes, and every welcome shows, for gm audit --game-commitment
    click.echo(f"game commitment {game}")
    click.echo(f"seed commitment {data['commitments']['seed']}")
    for board_id, value in data["commitments"]["boards"].items():
        click.echo(f"board {board_id} commitment {value}")
    when = deadline_text(clock.parse_time(data["deadline"]), config.timezone)
    click.echo(f"welcome mail queued; deadline {when['local'] or when['utc']}; run gm send to deliver")


# -- mail in ------------------------------------------------------------------------------


@click.command("ingest")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--mbox", type=click.Path(exists=True, dir_okay=False), help="Read an mbox file.")
@click.option("--maildir", type=click.Path(exists=True, file_okay=False), help="Read another Maildir.")
@click.pass_context
def ingest_cmd(ctx: click.Context, files: tuple[str, ...], mbox: str | None, maildir: str | None) -> None:
    """Read new order mail and answer each message once.

    With no arguments, reads the campaign's own mailbox (mail/inbox, or IMAP).
    Example: gm -C campaigns/spring-2027 ingest ~/Downloads/*.eml
    """
    with opened(ctx) as campaign:
        report = ingest_mail(campaign, files=files, mbox=mbox, maildir=maildir)
    click.echo(report.summary())
    for error in report.errors:
        click.echo(f"  could not handle {error}", err=True)


# -- the turn ------------------------------------------------------------------------------


@click.command("orders")
@click.option("--full", is_flag=True, help="Show each player's whole standing order (GM eyes only).")
@click.pass_context
def orders_cmd(ctx: click.Context, full: bool) -> None:
    """Who has ordered for the current turn, and who has not.

    Example: gm -C campaigns/spring-2027 orders --full
    """
    with opened(ctx, lock=False) as campaign:
        state = campaign.state()
        if state.over:
            click.echo("the campaign is over")
            return
        statuses = order_statuses(campaign)
    click.echo(f"turn {state.turn}: {orders_in(campaign, statuses)}")
    for s in statuses:
        mark = "ok  " if s.complete else "MISSING" if s.must_send else awaited_mark(campaign, s)
        line = f"  {s.player:<16} {mark}"
        if s.receipt:
            line += f"  (order #{s.receipt})"
        if full and s.receipt:
            line += f"  {campaign.ruleset.order_text(s.order)}"
        click.echo(line)


@click.command("remind")
@click.pass_context
def remind_cmd(ctx: click.Context) -> None:
    """Queue a reminder to every player whose order is not complete.

    Example: gm -C campaigns/spring-2027 remind && gm -C campaigns/spring-2027 send
    """
    with opened(ctx) as campaign:
        missing = remind(campaign)
    if not missing:
        click.echo("no reminder queued: every player who must send an order has one")
        return
    click.echo(f"{one_or_many(len(missing), 'a reminder', 'reminders')} queued for {count(len(missing), 'player')}: "
               f"{', '.join(missing)}")


@click.command("resolve")
@click.option("--preview", is_flag=True, help="Show the GM's report of the turn and save nothing.")
@click.option("--force", is_flag=True, help="Resolve before the deadline, or with most orders missing.")
@click.pass_context
def resolve_cmd(ctx: click.Context, preview: bool, force: bool) -> None:
    """Resolve the current turn and queue every report.

    Refuses before the deadline, and when more than half of the players who must send an
    order have none (a broken mailbox must not play a whole turn as missed orders; not where
    sending nothing is an order: classic, doubles, advanced), unless --force; a paused
    campaign resolves nothing, --force or not. --preview saves nothing, so it always runs,
    and says whether a resolve now would go ahead.
    Example: gm -C campaigns/spring-2027 resolve --preview
    """
    with opened(ctx, lock=not preview) as campaign:
        resolution = resolve(campaign, force=force, preview=preview)
    if preview:
        click.echo(resolution.gm_report)
        command = "gm resolve --force" if force else "gm resolve"
        click.echo("(preview: nothing was saved; "
                   + (f"{command} would refuse now: {resolution.refused})" if resolution.refused
                      else f"{command} would resolve the turn now)"))
        return
    click.echo(resolved_summary(resolution))


@click.command("undo")
@click.option("--force", is_flag=True, help="Undo even though the turn's reports were sent.")
@click.pass_context
def undo_cmd(ctx: click.Context, force: bool) -> None:
    """Roll back the last resolved turn; its orders stand again.

    Example: gm -C campaigns/spring-2027 undo
    """
    with opened(ctx) as campaign:
        turn = undo(campaign, force=force)
    click.echo(f"turn {turn} undone; its orders stand and it can be resolved again")


COMMANDS = [start_cmd, ingest_cmd, orders_cmd, remind_cmd, resolve_cmd, undo_cmd]
