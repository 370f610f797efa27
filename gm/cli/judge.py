"""`gm judge new DIR` and `gm judge DIR turn|status|publish`: many games behind one address
(docs/deployment.md, A judge)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import GmError
from ..judge.games import games_of
from ..judge.layout import load_judge, new_judge
from ..judge.replies import held_back
from ..judge.site import write_site
from ..judge.store import JudgeStore
from ..judge.turn import judge_turn
from ..judge.webhooks import failing

ACTIONS = ("turn", "status", "publish")


@click.command("judge")
@click.argument("words", nargs=-1, required=True)
def judge_cmd(words: tuple[str, ...]) -> None:
    """A judge: many games behind one address.

    \b
    gm judge new DIR        write a commented judge.yaml and an empty campaigns/
    gm judge DIR turn       read the mailbox once, route each message, run every game's turn
    gm judge DIR status     one line per game, then the judge's own mail
    gm judge DIR publish    write the judge's site (DIR/site/)
    """
    if words[0] == "new" and len(words) == 2:
        path = new_judge(Path(words[1]))
        click.echo(f"wrote {path}; add games with: gm campaign new {words[1]}/campaigns/ID")
        return
    if len(words) != 2 or words[1] not in ACTIONS:
        raise GmError("usage: gm judge new DIR, or gm judge DIR turn|status|publish")
    judge = load_judge(Path(words[0]))
    if words[1] == "turn":
        run = judge_turn(judge)
        for line in run.lines:
            click.echo(line)
        click.echo(f"site: {write_site(judge, run.games)}")
        if run.failed:
            click.echo(f"failed and skipped: {', '.join(run.failed)} (the others went on)")
    elif words[1] == "status":
        for game in games_of(judge):
            where = f", turn {game.turn}" if game.turn else ""
            due = f", deadline {game.deadline}" if game.deadline and game.state == "running" else ""
            problem = f": {game.problem}" if game.problem else ""
            orders = f", orders in {game.orders_in}" if game.orders_in else ""
            click.echo(f"{game.id}: {game.state}{where}{due}{orders}{problem}")
        store = JudgeStore(judge.folder)
        try:
            waiting = store.one("select count(*) n from outbox where status = 'queued'")["n"]
            click.echo(f"judge mail: {waiting} waiting to be sent")
            for line in failing(store) + held_back(store):
                click.echo(line)
        finally:
            store.close()
    else:
        click.echo(f"site: {write_site(judge)}")
