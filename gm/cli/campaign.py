"""The GM's commands on a campaign folder (`gm -C DIR ...`). Each opens the campaign,
takes the campaign's lock when it changes state, calls one core function and says what
it did in a line or two."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .. import clock
from ..campaign.campaign import WEAK_SEED, Campaign, deadline_text, start
from ..campaign.store import command_lock
from ..campaign.weekly import TurnRun, due, resolved_summary, run_turn
from ..counts import count, one_or_many
from ..errors import GmError
from ..progress import Progress
from ..rules.registry import DEFAULT
from .opening import opened

UNANSWERED_WHY = {
    "capped": "past the refusals a day to one address, not answered",
    "hostile": "too large, too deep or unreadable as mail, refused unread",
    "unreadable": "no usable sender, not answered",
    "loop": "auto-replies, bounces, bulk mail, our own, or replies to our refusals that do not authenticate; "
            "not answered",
}
# gm status lists kept mail by sender and subject (RULES.md 3), this many lines a kind at
# most: a flood of forged mail must not bury the rest of the summary
KEPT_LINES = 20


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
mail:
  transport: maildir         # mail/inbox and mail/outbox in this folder; or imap+smtp:
  from: "Snakes GM <gm@example.org>"
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
    import shutil

    from ..rules.registry import UnknownRuleset, find_ruleset
    from ..ruleset_files import lineage, rules_file, rules_label, ruleset_board

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
                          rules=rules)
    (folder / "campaign.yaml").write_text(text, encoding="utf-8")
    click.echo(f"wrote {folder / 'campaign.yaml'}; edit it, then run: gm -C {directory} start")


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
    # RULES.md 5: what the GM publishes, and every welcome shows, for gm audit --game-commitment
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
        report = run_ingest(campaign, files=files, mbox=mbox, maildir=maildir)
    click.echo(ingest_summary(report))
    for error in report.errors:
        click.echo(f"  could not handle {error}", err=True)


def run_ingest(campaign: Campaign, *, files=(), mbox=None, maildir=None):
    from ..campaign import ingest

    progress = Progress("ingesting")
    if files:
        return ingest.ingest_files(campaign, [Path(f) for f in files], progress)
    if mbox:
        return ingest.ingest_mbox(campaign, Path(mbox), progress)
    if maildir:
        return ingest.ingest_maildir(campaign, Path(maildir), progress)
    if campaign.config.mail.transport == "imap+smtp":
        return ingest.ingest_imap(campaign, progress)
    # the campaign's own inbox: a message's time is when it was delivered (RULES.md 3)
    return ingest.ingest_maildir(campaign, campaign.folder / "mail" / "inbox", progress, delivered=True)


def ingest_summary(report) -> str:
    if not report.total and not report.errors:
        return "ingest: no new mail"
    parts = ", ".join(f"{n} {what}" for what, n in sorted(report.outcomes.items()) if what != "seen")
    seen = report.outcomes.get("seen", 0)
    new = report.total - seen
    line = f"ingest: {count(new, 'new message')}" + (f" ({parts})" if parts else "")
    if seen:
        line += f"; {seen} already recorded"
    if report.errors:
        # gm turn shows this line alone: say that gm ingest lists what went wrong
        line += f"; {len(report.errors)} could not be handled (gm ingest lists them)"
    return line


# -- the turn ------------------------------------------------------------------------------


@click.command("orders")
@click.option("--full", is_flag=True, help="Show each player's whole standing order (GM eyes only).")
@click.pass_context
def orders_cmd(ctx: click.Context, full: bool) -> None:
    """Who has ordered for the current turn, and who has not.

    Example: gm -C campaigns/spring-2027 orders --full
    """
    from ..campaign.turns import order_statuses

    with opened(ctx, lock=False) as campaign:
        state = campaign.state()
        if state.over:
            click.echo("the campaign is over")
            return
        statuses = order_statuses(campaign)
    click.echo(f"turn {state.turn}: {orders_in(campaign, statuses)}")
    for s in statuses:
        mark = "ok  " if s.complete else "MISSING" if s.must_send else "nothing needed"
        line = f"  {s.player:<16} {mark}"
        if s.receipt:
            line += f"  (order #{s.receipt})"
        if full and s.receipt:
            line += f"  {campaign.ruleset.order_text(s.order)}"
        click.echo(line)


def orders_in(campaign: Campaign, statuses) -> str:
    """How many orders are in and how many players have written: `gm orders` and `gm
    status` say it alike. In classic and doubles nobody has to write, so no order is
    missing; saying "0 of 0 orders in" would read as if something were."""
    must = sum(s.must_send for s in statuses)
    written = sum(1 for s in statuses if s.receipt)
    if must or campaign.ruleset.resolves_early:
        orders = f"{sum(s.complete for s in statuses if s.must_send)} of {count(must, 'order')} in"
    else:
        orders = f"nobody has to write in {campaign.ruleset.name}"
    return f"{orders}; {count(written, 'player')} {one_or_many(written, 'has', 'have')} written"


@click.command("remind")
@click.pass_context
def remind_cmd(ctx: click.Context) -> None:
    """Queue a reminder to every player whose order is not complete.

    Example: gm -C campaigns/spring-2027 remind && gm -C campaigns/spring-2027 send
    """
    from ..campaign.turns import remind

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
    order have none (a broken mailbox must not play a whole turn as missed orders), unless
    --force; a paused campaign resolves nothing, --force or not. --preview saves nothing, so
    it always runs, and says whether a resolve now would go ahead.
    Example: gm -C campaigns/spring-2027 resolve --preview
    """
    from ..campaign.turns import resolve

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
    from ..campaign.turns import undo

    with opened(ctx) as campaign:
        turn = undo(campaign, force=force)
    click.echo(f"turn {turn} undone; its orders stand and it can be resolved again")


@click.command("send")
@click.pass_context
def send_cmd(ctx: click.Context) -> None:
    """Deliver every queued message exactly once (mail/outbox, or SMTP).

    Example: gm -C campaigns/spring-2027 send
    """
    with opened(ctx) as campaign:
        report = run_send(campaign)
    click.echo(send_summary(report))
    for failure in report.permanent:
        click.echo(f"  refused for good: {failure} (address marked failing)", err=True)


def run_send(campaign: Campaign):
    from ..mail.delivery import send

    return send(campaign, progress=Progress("sending"))


def send_summary(report) -> str:
    line = f"send: {report.sent} delivered"
    if report.temporary:
        line += (f", {report.temporary} kept for the next run "
                 f"({one_or_many(report.temporary, 'a temporary failure', 'temporary failures')})")
    if report.permanent:
        line += f", {len(report.permanent)} refused for good"
    return line


# -- reading ---------------------------------------------------------------------------------


@click.command("state")
@click.option("--json", "as_json", is_flag=True, help="The state as JSON (its keys: docs/campaign.md).")
@click.option("--player", "player", metavar="ID",
              help="Only what player ID may see: no other player's hand, plus their private facts (unleashed).")
@click.pass_context
def state_cmd(ctx: click.Context, as_json: bool, player: str | None) -> None:
    """Print the campaign's state: every piece and what each player holds (the GM's view);
    --json gives the JSON that scripts read (docs/campaign.md); --player ID what ID may see.

    Example: gm -C campaigns/spring-2027 state --json
    """
    with opened(ctx, lock=False) as campaign:
        if player is None:
            data, notes = campaign.state_json(), campaign.state_notes()
        else:  # the GM's notes name every hand: none beside one player's view
            data, notes = campaign.player_state_json(player), {}
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{data['campaign']} ({data['ruleset']}): "
               + (_over(data) if data["over"] else f"turn {data['turn']} next"))
    for board_id, board in data["boards"].items():
        note = f", {notes[board_id]}" if notes.get(board_id) else ""
        click.echo(f"board {board_id} ({board['squares']} squares, {'closed' if board['closed'] else 'open'}{note})")
        for player, piece in board["players"].items():
            where = "Start" if piece["square"] == 0 else str(piece["square"])
            done = " finished" if piece["finished"] else ""
            placed = f", placed {piece['placing']}" if piece["placing"] else ""
            click.echo(f"  {player:<16} {where}{done}{placed}")
    for player, facts in data["players"].items():
        note = f" {notes[player]}" if notes.get(player) else ""
        aggregate = f"; aggregate {facts['aggregate']}, place {facts['place']}" if facts["place"] else ""
        click.echo(f"{player:<18}{note}{aggregate}")


def _over(data: dict) -> str:
    """How the campaign ended, for the GM (`end` of gm state --json): the last turn played
    and, when the GM ended it (gm end), the reason given."""
    end, why = data["end"], ""
    if end["by"] == "gm":
        why = f" (ended by the GM: {end['reason']})" if end["reason"] else " (ended by the GM)"
    return f"over after turn {end['turn']}{why}"


def _piece_text(piece: dict) -> str:
    """Where a piece is, for the GM: its square, or its placing once placed."""
    if piece["placing"]:
        return f"placed {piece['placing']}"
    return "Start" if piece["square"] == 0 else f"on {piece['square']}"


@click.command("status")
@click.pass_context
def status_cmd(ctx: click.Context) -> None:
    """A summary for the GM: turn, deadline, orders in, boards open, standings, failing addresses.

    Example: gm -C campaigns/spring-2027 status
    """
    from ..campaign.turns import order_statuses

    with opened(ctx, lock=False) as campaign:
        if not campaign.started():
            for line in _signup_status(campaign):
                click.echo(line)
            return
        # CONTRACT.md's state keys are every ruleset's, so this summary fits them all
        config, data, notes = campaign.config, campaign.state_json(), campaign.state_notes()
        names = campaign.names()
        click.echo(f"{config.title} ({config.id}), {config.ruleset_name}, {count(len(config.players), 'player')}"
                   + (f", {count(len(config.observers), 'observer')}" if config.observers else ""))
        if data["over"]:
            click.echo(_over(data))
        elif data["paused"]:
            click.echo(f"turn {data['turn']}: PAUSED (gm resume [WHEN] goes on)")
        else:
            text = deadline_text(campaign.deadline(), config.timezone)
            click.echo(f"turn {data['turn']}, deadline {(text['local'] or text['utc']) if text else '-'}")
        if not data["over"]:
            statuses = order_statuses(campaign)
            click.echo(f"orders: {orders_in(campaign, statuses)}")
            # what `gm turn` would do now, in its own words: the two never disagree
            ready, why = due(campaign, statuses)
            click.echo(f"gm turn: resolves turn {data['turn']}" if ready else f"gm turn: not yet: {why}")
            for line in _mail_lines(campaign, data, statuses):
                click.echo(line)
        for board_id, board in data["boards"].items():
            crossed = sum(piece["finished"] for piece in board["players"].values())
            status = "closed" if board["closed"] else f"open, {crossed} finished"
            note = f", {notes[board_id]}" if notes.get(board_id) else ""
            click.echo(f"board {board_id} ({board['squares']} squares): {status}{note}")
        click.echo("standings:")
        for player, facts in sorted(data["players"].items(), key=lambda pf: (pf[1]["place"] is None, pf[1]["place"] or 0)):
            where = " ".join(_piece_text(board["players"][player]) for board in data["boards"].values())
            place = f", place {facts['place']}" if facts["place"] else ""
            click.echo(f"  {names.get(player, player):<20} {where}{place}")
        pool = _pool_line(campaign)
        if pool:
            click.echo(pool)
        lines = _mail_summary(campaign)
    for line in lines:
        click.echo(line)


def _mail_summary(campaign: Campaign) -> list[str]:
    """The end of gm status, started or not: the outbox, failing addresses, mail kept."""
    failing = campaign.store.rows("select id, email, failing from players where failing is not null")
    broken = campaign.store.one("select count(*) as n from messages where outcome = 'error'")["n"]
    queued = campaign.store.one("select count(*) as n from outbox where status = 'queued'")["n"]
    failed = campaign.store.one("select count(*) as n from outbox where status = 'failed'")["n"]
    lines = [f"outbox: {queued} queued, {failed} refused for good"]
    lines += [f"FAILING address {row['email']} ({row['id']}): {row['failing']}" for row in failing]
    if broken:
        lines.append(f"UNANSWERED: {count(broken, 'message')} gm could not handle "
                     f"{one_or_many(broken, 'is', 'are')} kept in the database (messages with outcome 'error')")
    return lines + _kept_lines(campaign)


def _signup_status(campaign: Campaign) -> list[str]:
    """gm status before the start (RULES.md 3.1): how sign-up stands, counted."""
    from ..campaign import signup
    from .signup import sign_up_state

    config = campaign.config
    found = signup.counts(campaign)
    free = signup.places(config)
    taken = found.get(signup.IN, 0)
    places = f" of {free} places" if free is not None else ""
    lines = [f"{config.title} ({config.id}), {config.ruleset_name}: {sign_up_state(campaign)}",
             f"sign-ups: {taken} in{places}, {found.get(signup.WAITING, 0)} waiting, "
             f"{found.get(signup.AWAITING, 0)} awaiting the GM, {found['unconfirmed']} unconfirmed, "
             f"{found.get(signup.LEFT, 0)} left, {found.get(signup.REJECTED, 0)} rejected (gm signup lists them)",
             f"gm start: {count(len(config.players) + taken, 'player')} ({len(config.players)} listed in "
             f"campaign.yaml, {taken} joined by mail)"]
    return lines + _mail_summary(campaign)


def _pool_line(campaign: Campaign) -> str | None:
    """After the start: those left waiting by sign-up, the GM's pool for gm player replace."""
    from ..campaign import signup

    pool = signup.count_status(campaign.store, signup.POOL)
    return (f"sign-up pool: {count(pool, 'person', 'people')} waiting for a seat (gm signup lists them; "
            "gm player replace OLD ID seats one)") if pool else None


def _kept_lines(campaign: Campaign) -> list[str]:
    """Mail kept but not answered (RULES.md 3), for the GM to look at: per kind a count and
    why, then each sender and subject (the same ones once, with how many), newest first."""
    lines = []
    for outcome, why in sorted(UNANSWERED_WHY.items()):
        rows = campaign.store.rows(
            # a loop's detail says which kind (a bounce, our own, a reply to a refusal); others' vary
            # message by message (a cap's count), so they group by sender and subject alone
            "select sender, subject, case when outcome = 'loop' then detail end as detail, count(*) as n, "
            "max(received_at) as last from messages where outcome = ? group by 1, 2, 3 order by last desc, sender",
            (outcome,))
        if not rows:
            continue
        total = sum(row["n"] for row in rows)
        lines.append(f"kept: {count(total, outcome + ' message')} ({why})")
        for row in rows[:KEPT_LINES]:
            times = f" (x{row['n']})" if row["n"] > 1 else ""
            detail = f": {_short(row['detail'])}" if row["detail"] else ""
            lines.append(f"  {row['sender'] or '(no sender)'}, \"{_short(row['subject']) or '(no subject)'}\""
                         f"{times}{detail}")
        if len(rows) > KEPT_LINES:
            rest = sum(row["n"] for row in rows[KEPT_LINES:])
            lines.append(f"  and {count(rest, 'more message')} from other senders or with other subjects")
    return lines


def _short(text: str | None, width: int = 100) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _mail_lines(campaign: Campaign, data: dict, statuses) -> list[str]:
    """What became of each player's mail this turn: their order as it stands, and every
    message refused (why, in the words the player got), so the GM can answer "I did send
    it!" at a glance. Refused mail that failed to authenticate is matched by its sender."""
    by_address = {p.email: p.id for p in campaign.config.players}
    refused: dict[str, list[str]] = {}
    for row in campaign.store.rows(
            "select outcome, player, sender, detail from messages where turn = ? and outcome in "
            "('refused', 'hostile', 'capped') order by id", (data["turn"],)):
        player = row["player"] or by_address.get(row["sender"])
        if player is not None:
            why = row["detail"] or row["outcome"]
            refused.setdefault(player, []).append(why if len(why) <= 90 else why[:87] + "...")
    lines = ["players this turn:"]
    for s in statuses:
        facts = data["players"].get(s.player, {})
        if facts.get("dropped"):
            mark = "left the game (moved as one who sends no order)"
        elif s.complete and s.receipt:
            mark = f"ok, order #{s.receipt}"
        elif s.receipt:
            mark = f"INCOMPLETE, order #{s.receipt}"
        else:
            mark = "MISSING" if s.must_send else "nothing needed"
        if facts.get("held_by"):
            mark += f"; seat held before by {', '.join(facts['held_by'])}"
        lines.append(f"  {s.player:<16} {mark}")
        lines += [f"      refused: {why}" for why in refused.get(s.player, [])]
    return lines


@click.command("turn")
@click.option("--force", is_flag=True, help="Resolve even though the turn is not due or most orders are missing.")
@click.pass_context
def turn_cmd(ctx: click.Context, force: bool) -> None:
    """One whole turn: ingest new mail, resolve when due, send, publish.

    The turn is due at its deadline, or earlier once every player who still moves has an
    accepted order for it with everything they must send (in classic and doubles, where
    nobody has to write, only at its deadline). A paused campaign has its mail read,
    answered and sent and its archive published, resolves nothing and exits 0, so cron can
    run it every day. Exits 1 when resolve refused a due turn (the GM must act). Safe to
    rerun after any failure: it picks up where it stopped and never resolves a turn twice.
    Example: gm -C campaigns/spring-2027 turn
    """
    with opened(ctx) as campaign:
        run = weekly_turn(campaign, force=force)
    for line in run.lines:
        click.echo(line)
    if run.refused:
        raise SystemExit(1)


def publish_step(campaign: Campaign) -> str:
    from ..publish.write import publish

    where, report = publish(campaign)
    return (f"publish: {where / 'index.html'} ({count(len(report.written), 'page')} written, "
            f"{len(report.unchanged)} unchanged)")


def weekly_turn(campaign: Campaign, *, force: bool = False) -> TurnRun:
    """`gm turn`'s steps exactly: the demo plays every turn through this too."""
    return run_turn(
        campaign,
        force=force,
        ingest=lambda c: ingest_summary(run_ingest(c)),
        send=lambda c: send_summary(run_send(c)),
        publish=publish_step,
    )


COMMANDS = [turn_cmd, start_cmd, ingest_cmd, orders_cmd, remind_cmd, resolve_cmd, undo_cmd,
            send_cmd, state_cmd, status_cmd]
