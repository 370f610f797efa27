"""`gm signup` (CONTRACT.md, docs/rules/, Joining by mail): the sign-ups by mail, and the GM's decisions on
them under `approve: gm`. Everyone whose standing a decision changes is told by mail."""

from __future__ import annotations

import json

import click

from .. import clock
from ..campaign.deadlines import deadline_text
from ..campaign.names import clean
from ..campaign.signup import admission, standing
from ..counts import count
from .opening import opened

SEND = "; run gm send to deliver the mail"
# the order gm signup lists the requests in, with the heading of each
SECTIONS = (
    (standing.PLAYING, "playing (joined by mail)"),
    (standing.IN, "in"),
    (standing.WAITING, "waiting"),
    (standing.AWAITING, "awaiting the GM (gm signup accept|reject ID...)"),
    (standing.POOL, "the pool: waiting for a seat (gm player replace OLD ID)"),
    (standing.REJECTED, "rejected"),
    (standing.LEFT, "left"),
)


@click.group("signup", invoke_without_command=True)
@click.pass_context
def signup_group(ctx: click.Context) -> None:
    """List the players joining by mail: in, waiting, awaiting the GM and unconfirmed, each
    with their address and times (after the start: those who joined, and the pool).

    Example: gm -C campaigns/spring-2027 signup
    """
    if ctx.invoked_subcommand is not None:
        return
    with opened(ctx) as campaign:
        standing.refresh(campaign)  # campaign.yaml as it is now
        found = admission.listing(campaign)
        lines = summary_lines(campaign, found)
    for line in lines:
        click.echo(line)


def summary_lines(campaign, found: admission.Listing) -> list[str]:
    config = campaign.config
    lines = [f"{config.title} ({config.id}), {config.ruleset_name}: {sign_up_state(campaign)}"]
    if found.places is not None and not campaign.started():
        taken = len(found.where(standing.IN))
        lines.append(f"places by sign-up: {found.places} ({count(len(config.players), 'player')} listed in "
                     f"campaign.yaml), {taken} taken, {max(0, found.places - taken)} left")
    # a seat of one who joined may have changed since (gm player replace, drop)
    seats = {r["id"]: r for r in campaign.store.rows("select id, replaced_by, dropped_turn from players")}
    for status, heading in SECTIONS:
        rows = found.where(status)
        if not rows and status not in (standing.IN, standing.WAITING) or not rows and campaign.started():
            continue
        lines.append(f"{heading}: {len(rows)}")
        for number, row in enumerate(rows, 1):
            keys = " ".join([*(f"{k}={v}" for k, v in json.loads(row["keys"] or "{}").items()),
                             *(f"asks {k}={v}" for k, v in json.loads(row["requested"] or "{}").items())])
            seat = seats.get(row["player"]) if status == standing.PLAYING else None
            since = (f"  (seat handed to {seat['replaced_by']})" if seat and seat["replaced_by"] else
                     "  (left the game)" if seat and seat["dropped_turn"] is not None else "")
            lines.append(f"  {number:>4}. {row['player']:<20} {clean(row['name'])[:28]:<28} {row['email']:<28} "
                         f"confirmed {row['confirmed_at']}" + (f"  {keys}" if keys else "") + since)
    asking = [r for r in found.rows if r["requested"] and r["status"] in standing.LIVE]
    if asking:
        lines.append(f"asking for a team: {len(asking)} (gm signup accept ID --team T places them; "
                     "unplaced, they play as a team of one)")
    if found.unconfirmed:
        lines.append(f"unconfirmed: {count(len(found.unconfirmed), 'address', 'addresses')} sent JOIN and no CONFIRM yet")
        for row in found.unconfirmed:
            times = f" ({count(row['n'], 'JOIN')})" if row["n"] > 1 else ""
            lines.append(f"        {row['sender']:<28} last JOIN {row['last']}{times}")
    return lines


def sign_up_state(campaign) -> str:
    """Where sign-up stands, in a line: open or closed, until when, who approves."""
    if campaign.started():
        return "started; sign-up is over"
    settings = campaign.config.signup
    if settings is None:
        return "not started; no signup: block in campaign.yaml"
    closes = deadline_text(settings.closes, campaign.config.timezone) if settings.closes else None
    if not settings.taking(clock.now()):
        state = "sign-up closed" + (f" {closes['local'] or closes['utc']}" if closes and settings.open else "")
    else:
        state = "sign-up open" + (f" until {closes['local'] or closes['utc']}" if closes else "")
    return f"not started; {state}; approve: {settings.approve}"


def _decide(ctx: click.Context, players: tuple[str, ...], decision: str, placed: dict[str, str] | None = None) -> None:
    with opened(ctx) as campaign:
        standing.refresh(campaign)
        decided, told = admission.decide(campaign, players, decision, placed)
    words = {standing.IN: "in", standing.WAITING: "accepted, waiting for a place", standing.REJECTED: "rejected"}
    on = "".join(f", {key} {value}" for key, value in (placed or {}).items())
    for player, status in decided:
        click.echo(f"{player}: {words.get(status, status)}{on}")
    click.echo(f"{count(len(told), 'person', 'people')} told where they stand now{SEND}")


@signup_group.command("accept")
@click.argument("players", nargs=-1, required=True, metavar="ID...")
@click.option("--team", metavar="T", help="put them on team T (advanced: a team of campaign.yaml, a sign-up's, "
              "or a new one), whatever they asked for")
@click.pass_context
def accept_cmd(ctx: click.Context, players: tuple[str, ...], team: str | None) -> None:
    """Accept each sign-up named (under approve: gm, or one confirmed after sign-up closed):
    in while places are left, in the order confirmed, else first on the waiting list.
    With --team, put them on that team (under signup teams: gm a sign-up only asks for
    one); gm start seats them on it.

    Example: gm -C campaigns/spring-2027 signup accept ann-smith bob --team red
    """
    _decide(ctx, players, standing.ACCEPTED, {"team": team} if team is not None else None)


@signup_group.command("reject")
@click.argument("players", nargs=-1, required=True, metavar="ID...")
@click.pass_context
def reject_cmd(ctx: click.Context, players: tuple[str, ...]) -> None:
    """Reject each sign-up named, whatever its standing before the start; the first waiting
    take the places freed.

    Example: gm -C campaigns/spring-2027 signup reject mallory
    """
    _decide(ctx, players, standing.DECLINED)


COMMANDS = [signup_group]
