"""The GM's administration commands (CONTRACT.md): `gm player replace|drop|email|password`,
`gm pause`, `gm resume`, `gm deadline` and `gm end`. Each changes the campaign in one transaction
and queues the mail telling the people concerned; `gm send` (or the next `gm turn`)
delivers it."""

from __future__ import annotations

import click

from ..campaign import admin, schedule
from ..campaign.deadlines import deadline_text
from ..campaign.gm_end import end_campaign
from .opening import opened

SEND = "; run gm send to deliver the mail"
END_SHOWN = 10  # the places gm end prints; gm status lists every player


def _when(campaign, when) -> str:
    text = deadline_text(when, campaign.config.timezone)
    return f"{text['local']} = {text['utc']}" if text["local"] else text["utc"]


@click.group("player")
def player_group() -> None:
    """Change who plays: hand a seat to someone else, drop a player, change an address or
    a password. Each player concerned is told by mail."""


@player_group.command("replace")
@click.argument("old")
@click.argument("new")
@click.option("--name", help="The new player's name, as reports show it (default: the sign-up's, for NEW of the pool).")
@click.option("--email", help="The new player's address (default: the sign-up's, for NEW of the pool).")
@click.pass_context
def replace_cmd(ctx: click.Context, old: str, new: str, name: str | None, email: str | None) -> None:
    """NEW takes over OLD's seat at once, with its pieces, numbers, placings and history.

    NEW is mailed a fresh password; OLD's password and address stop working, and OLD is
    told. The open turn's order stands until NEW sends one. NEW may be the id of someone
    left waiting by sign-up (the pool `gm signup` lists): --name and --email are then theirs.
    Example: gm -C campaigns/spring-2027 player replace bob dora --name "Dora Maar" --email dora@example.org
    """
    with opened(ctx) as campaign:
        admin.replace_player(campaign, old, new, name=name, email=email)
        address = campaign.config.player(new).email
    click.echo(f"{new} holds {old}'s seat from now on; a password was mailed to {address}{SEND}")


@player_group.command("drop")
@click.argument("player")
@click.pass_context
def drop_cmd(ctx: click.Context, player: str) -> None:
    """PLAYER leaves the game: no more orders, moved as one who sends none from now on, waited
    for by nobody and not counted by resolve's "more than half" rule. PLAYER is told.

    Example: gm -C campaigns/spring-2027 player drop carol
    """
    with opened(ctx) as campaign:
        dropped = admin.drop_player(campaign, player)
    click.echo(f"{dropped} has left the game; moved as one who sends no order from now on{SEND}")


@player_group.command("email")
@click.argument("player")
@click.argument("address")
@click.pass_context
def email_cmd(ctx: click.Context, player: str, address: str) -> None:
    """Change PLAYER's registered address to ADDRESS; the old and the new address are both told.

    Example: gm -C campaigns/spring-2027 player email alice alice@new.example.org
    """
    with opened(ctx) as campaign:
        old, new = admin.change_email(campaign, player, address)
    click.echo(f"{player}'s address is now {new} (was {old}){SEND}")


@player_group.command("password")
@click.argument("player")
@click.pass_context
def password_cmd(ctx: click.Context, player: str) -> None:
    """Issue a new password for PLAYER and mail it; the old one stops working at once.

    Example: gm -C campaigns/spring-2027 player password alice
    """
    with opened(ctx) as campaign:
        admin.new_password(campaign, player)
    click.echo(f"a new password for {player} is queued for their registered address{SEND}")


@click.command("pause")
@click.pass_context
def pause_cmd(ctx: click.Context) -> None:
    """Pause the campaign (holidays, a dispute): nothing resolves, not even with --force,
    and orders are refused with a reply saying the game is paused. Everyone is told.

    Example: gm -C campaigns/spring-2027 pause
    """
    with opened(ctx) as campaign:
        schedule.pause(campaign)
    click.echo(f"paused; gm resume [WHEN] goes on{SEND}")


@click.command("resume")
@click.argument("when", required=False)
@click.pass_context
def resume_cmd(ctx: click.Context, when: str | None) -> None:
    """Resume a paused campaign with a new deadline: WHEN (as for gm deadline, +3d from
    now), or turn_days from now. Everyone still in the game and every observer is told.

    Example: gm -C campaigns/spring-2027 resume "2027-04-20 18:00"
    """
    with opened(ctx) as campaign:
        deadline = schedule.resume(campaign, when)
        shown = _when(campaign, deadline)
    click.echo(f"resumed; turn deadline {shown}{SEND}")


@click.command("deadline")
@click.argument("when", required=False)
@click.option("--earlier", is_flag=True, help="Allow a deadline earlier than the current one.")
@click.pass_context
def deadline_cmd(ctx: click.Context, when: str | None, earlier: bool) -> None:
    """Show or move the current turn's deadline; everyone is told of a move.

    WHEN is a date and time in the GM's time zone unless it names one
    (2027-03-28 18:00, 2027-03-28T18:00+02:00), or +3d / +12h from the current deadline.
    Moving it earlier needs --earlier.
    Example: gm -C campaigns/spring-2027 deadline +3d
    """
    with opened(ctx, lock=when is not None) as campaign:
        if when is not None:
            schedule.move_deadline(campaign, when, earlier=earlier)
        state, deadline, paused = campaign.state(), campaign.deadline(), campaign.paused()
        turn, over = state.turn, state.over
        shown = _when(campaign, deadline) if deadline else None
    if over:
        click.echo("no deadline: the campaign is over")
    elif paused:
        click.echo(f"turn {turn}: paused (gm resume [WHEN] sets the deadline)")
    else:
        click.echo(f"turn {turn} deadline: {shown}" + (SEND if when is not None else ""))


@click.command("end")
@click.option("--reason", metavar="TEXT", help="Why the campaign ends now, told to every player and observer.")
@click.pass_context
def end_cmd(ctx: click.Context, reason: str | None) -> None:
    """End the campaign after its last resolved turn, as if max_turns had been reached
    there: each ruleset places the players as it does for a campaign cut short. Every
    player and observer gets the final results, with the reason; the audit record says
    the GM ended it. gm reveal may follow. It cannot be undone.

    Example: gm -C campaigns/spring-2027 end --reason "most players have stopped writing"
    """
    with opened(ctx) as campaign:
        turn, state = end_campaign(campaign, reason)
        standings = campaign.ruleset.standings(campaign.setup, state)
        names = campaign.names()
    placed = sorted((facts.place, names.get(p, p)) for p, facts in standings.players.items()
                    if facts.place is not None)
    shown = ", ".join(f"{place} {name}" for place, name in placed[:END_SHOWN])
    more = f" and {len(placed) - END_SHOWN:,} more (gm status lists them)" if len(placed) > END_SHOWN else ""
    click.echo(f"ended after turn {turn}; final places: {shown}{more}")
    click.echo(f"the final results are queued for every player and observer{SEND}; gm reveal may follow")


COMMANDS = [player_group, pause_cmd, resume_cmd, deadline_cmd, end_cmd]
