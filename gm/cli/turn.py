"""`gm turn` and `gm send`: the weekly turn the GM runs by hand or from cron, and its
delivery step on its own. Each opens the campaign under its lock, calls
gm.weekly.turn and prints its lines."""

from __future__ import annotations

import click

from ..weekly.turn import run_send, run_turn, send_summary
from .opening import opened


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
        run = run_turn(campaign, force=force)
    for line in run.lines:
        click.echo(line)
    if run.refused:
        raise SystemExit(1)


COMMANDS = [turn_cmd, send_cmd]
