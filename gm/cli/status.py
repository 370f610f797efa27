"""`gm state` and `gm status`: what the GM reads of a campaign, from its typed standings
(gm.rules.standings) and what its desk kept (gm.campaign.desk.ledger): turn, deadline,
orders in, boards, standings, mail kept and failing addresses."""

from __future__ import annotations

import json

import click

from .. import clock
from ..campaign import away, press
from ..campaign.away import listing
from ..campaign.campaign_end import how_it_ended
from ..campaign.deadlines import deadline_text
from ..campaign.desk.ledger import mail_summary, refused_this_turn
from ..campaign.due import forecast
from ..campaign.folder import Campaign
from ..campaign.notify import waiting_lines
from ..campaign.signup import admission, standing
from ..campaign.turns import order_statuses
from ..counts import count, one_or_many, ordinal
from ..judge.store import DB_NAME as JUDGE_DB
from ..judge.store import JudgeStore
from ..judge.webhooks import failing
from ..rules.standings import PieceStanding
from .opening import opened
from .signup import sign_up_state


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
            # absences and votes beside the game's state, never in it (docs/campaign.md)
            data, notes = campaign.state_json() | listing(campaign), campaign.state_notes()
        else:  # the GM's notes name every hand: none beside one player's view
            data, notes = campaign.player_state_json(player), {}
        # the text reads the typed standings, the JSON is CONTRACT.md's keys
        standings = None if as_json else campaign.ruleset.standings(campaign.setup, campaign.state())
    if standings is None:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{data['campaign']} ({data['ruleset']}): "
               + (_over(data["end"]) if standings.over else f"turn {standings.turn} next"))
    notes = _json_notes(data) | notes
    for board_id, board in standings.boards.items():
        note = f", {notes[board_id]}" if notes.get(board_id) else ""
        click.echo(f"board {board_id} ({board.squares} squares, {'closed' if board.closed else 'open'}{note})")
        for player, piece in board.pieces.items():
            where = "Start" if piece.square == 0 else str(piece.square)
            done = " finished" if piece.finished else ""
            placed = f", placed {piece.placing}" if piece.placing else ""
            click.echo(f"  {player:<16} {where}{done}{placed}")
    for player, facts in standings.players.items():
        said = [notes[player]] if notes.get(player) else []
        said += [f"aggregate {facts.aggregate}, place {facts.place}"] if facts.place else []
        click.echo(f"{player:<18}" + (f" {'; '.join(said)}" if said else ""))


def _json_notes(data: dict) -> dict[str, str]:
    """What --json says beyond squares and placings, for the text too (advanced: the order
    of play and the items built beside the board; each player's die, team, place in the
    order of play and items built). Read from the JSON's keys; only a ruleset with teams
    has them all (the others' order of play is every player's own business, a d6 each)."""
    notes: dict[str, str] = {}
    if not data.get("teams"):
        return notes
    for board_id, board in data.get("boards", {}).items():
        said = []
        if data.get("order"):
            said.append("order of play " + " ".join(data["order"]))
        if "built" in board:
            said.append("built: " + (", ".join(f"{b['kind']} {b['from']}->{b['to']} ({b['by']}, turn {b['turn']})"
                                               for b in board["built"]) or "none"))
        if said:
            notes[board_id] = "; ".join(said)
    for player, facts in data.get("players", {}).items():
        said = [f"d{facts['die']}"] if facts.get("die") else []
        said += [f"team {facts['team']}"] if facts.get("team") else []
        said += [f"plays {ordinal(facts['seat'])}"] if facts.get("seat") and data.get("order") else []
        said += [f"built {facts['builds']}"] if facts.get("builds") is not None else []
        if said:
            notes[player] = ", ".join(said)
    return notes


def _over(end: dict) -> str:
    """How the campaign ended, for the GM (`end` of gm state --json): the last turn played
    and, when the GM ended it (gm end), the reason given."""
    why = ""
    if end["by"] == "gm":
        why = f" (ended by the GM: {end['reason']})" if end["reason"] else " (ended by the GM)"
    return f"over after turn {end['turn']}{why}"


def _piece_text(piece: PieceStanding) -> str:
    """Where a piece is, for the GM: its square, or its placing once placed."""
    if piece.placing:
        return f"placed {piece.placing}"
    return "Start" if piece.square == 0 else f"on {piece.square}"


@click.command("status")
@click.pass_context
def status_cmd(ctx: click.Context) -> None:
    """A summary for the GM: turn, deadline, orders in, boards open, standings, failing addresses.

    Example: gm -C campaigns/spring-2027 status
    """
    with opened(ctx, lock=False) as campaign:
        if not campaign.started():
            for line in _signup_status(campaign) + _webhook_lines(campaign):
                click.echo(line)
            return
        # the typed standings are every ruleset's, so this summary fits them all
        config, state, notes = campaign.config, campaign.state(), campaign.state_notes()
        standings = campaign.ruleset.standings(campaign.setup, state)
        names = campaign.names()
        click.echo(f"{config.title} ({config.id}), {config.ruleset_name}, {count(len(config.players), 'player')}"
                   + (f", {count(len(config.observers), 'observer')}" if config.observers else ""))
        if standings.over:
            click.echo(_over(how_it_ended(campaign, state).to_json()))
        elif campaign.paused():
            click.echo(f"turn {standings.turn}: PAUSED (gm resume [WHEN] goes on)")
        else:
            text = deadline_text(campaign.deadline(), config.timezone)
            click.echo(f"turn {standings.turn}, deadline {(text['local'] or text['utc']) if text else '-'}")
        if not standings.over:
            statuses = order_statuses(campaign)
            click.echo(f"orders: {orders_in(campaign, statuses)}")
            # what `gm turn` would do now, in its own words: the two never disagree
            click.echo(f"gm turn: {forecast(campaign, statuses)}")
            for line in [*_mail_lines(campaign, standings.turn, statuses), *away.status_lines(campaign)]:
                click.echo(line)
        for board_id, board in standings.boards.items():
            crossed = sum(piece.finished for piece in board.pieces.values())
            status = "closed" if board.closed else f"open, {crossed} finished"
            note = f", {notes[board_id]}" if notes.get(board_id) else ""
            click.echo(f"board {board_id} ({board.squares} squares): {status}{note}")
        click.echo("standings:")
        for player in standings.placed_first():
            where = " ".join(_piece_text(board.pieces[player]) for board in standings.boards.values())
            place = standings.players[player].place
            # one board's placing is the place: said once ("placed 1", not "placed 1, place 1")
            said = place is None or where == f"placed {place}"
            figure = standings.players[player].figure  # what the game ranks by during play
            note = "".join(f"; {part}" for part in (figure, notes.get(player)) if part and not standings.over)
            click.echo(f"  {names.get(player, player):<20} {where}{'' if said else f', place {place}'}{note}")
        pool = _pool_line(campaign)
        if pool:
            click.echo(pool)
        now = clock.now()
        lines = press.status_lines(campaign, now) + mail_summary(campaign, now) + _webhook_lines(campaign)
    for line in lines:
        click.echo(line)


def _webhook_lines(campaign: Campaign) -> list[str]:
    """Its webhooks still waiting: a standalone campaign's own (docs/campaign.md, notify), a
    judge's game's in the judge's store (docs/deployment.md, Notifications)."""
    judge = campaign.config.mail.judge
    if judge is None:
        return waiting_lines(campaign)
    if not (judge / JUDGE_DB).exists():
        return []
    store = JudgeStore(judge, read_only=True)
    try:
        return failing(store, campaign.folder.name)
    finally:
        store.close()


def _signup_status(campaign: Campaign) -> list[str]:
    """gm status before the start (docs/rules/, Joining by mail): how sign-up stands, counted."""
    config = campaign.config
    found = admission.counts(campaign)
    free = standing.places(config)
    taken = found.get(standing.IN, 0)
    places = f" of {free} places" if free is not None else ""
    lines = [f"{config.title} ({config.id}), {config.ruleset_name}: {sign_up_state(campaign)}",
             f"sign-ups: {taken} in{places}, {found.get(standing.WAITING, 0)} waiting, "
             f"{found.get(standing.AWAITING, 0)} awaiting the GM, {found['unconfirmed']} unconfirmed, "
             f"{found.get(standing.LEFT, 0)} left, {found.get(standing.REJECTED, 0)} rejected (gm signup lists them)",
             f"gm start: {count(len(config.players) + taken, 'player')} ({len(config.players)} listed in "
             f"campaign.yaml, {taken} joined by mail)"]
    asking = admission.asking(campaign)
    if asking:
        lines.append(f"team requests: {count(asking, 'sign-up')} asking for a team the GM has not given "
                     "(gm signup lists them; gm signup accept ID --team T places one)")
    return lines + mail_summary(campaign, clock.now())


def _pool_line(campaign: Campaign) -> str | None:
    """After the start: those left waiting by sign-up, the GM's pool for gm player replace."""
    pool = standing.count_status(campaign.store, standing.POOL)
    return (f"sign-up pool: {count(pool, 'person', 'people')} waiting for a seat (gm signup lists them; "
            "gm player replace OLD ID seats one)") if pool else None


def _mail_lines(campaign: Campaign, turn: int, statuses) -> list[str]:
    """What became of each player's mail this turn: their order as it stands, and every
    message refused (why, in the words the player got), so the GM can answer "I did send
    it!" at a glance. Refused mail that failed to authenticate is matched by its sender."""
    refused = refused_this_turn(campaign, turn)
    dropped, held_by = campaign.dropped_players(), campaign.held_by()
    lines = ["players this turn:"]
    for s in statuses:
        if s.player in dropped:
            mark = "left the game (moved as one who sends no order)"
        elif s.complete and s.receipt:
            mark = f"ok, order #{s.receipt}"
        elif s.receipt:
            mark = f"INCOMPLETE, order #{s.receipt}"
        else:
            mark = "MISSING" if s.must_send else awaited_mark(campaign, s)
        if held_by.get(s.player):
            mark += f"; seat held before by {', '.join(held_by[s.player])}"
        lines.append(f"  {s.player:<16} {mark}")
        lines += [f"      refused: {why}" for why in refused.get(s.player, [])]
    return lines


def awaited_mark(campaign: Campaign, status) -> str:
    """A player who need not write: whether the turn still waits for them before its
    deadline (OrderStatus.awaited, which `gm turn` reads too)."""
    if status.awaited and campaign.ruleset.resolves_early:
        return "not written (the turn waits for it until the deadline)"
    return "nothing needed"


COMMANDS = [state_cmd, status_cmd]
