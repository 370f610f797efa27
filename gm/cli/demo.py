"""`gm demo DIR`: the newcomer's first command (gm/demo/run.py does the playing)."""

from __future__ import annotations

from pathlib import Path

import click

from ..demo.judge import play_judge
from ..demo.run import DEFAULT_RULESET, DEFAULT_SEED, play, rulesets, summary
from ..errors import GmError
from ..rules import registry


class _Ruleset(click.ParamType):
    """--ruleset: any ruleset with robots, gm's own or an installed package's, listed only
    when help or a refusal is shown (finding which have robots imports every ruleset). An
    unknown name is a usage error; a known one without robots is refused by the demo itself,
    in one line (exit 1)."""

    name = "ruleset"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return f"[{'|'.join(rulesets())}]"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        name = str(value)
        if name in registry.BUILT_IN or name in registry.known():
            return name
        self.fail(f"unknown ruleset {name!r} (gm demo plays {', '.join(rulesets())})", param, ctx)


@click.command("demo")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--ruleset", type=_Ruleset(), default=DEFAULT_RULESET, show_default=True,
              help="The rules the robots play, each with its own boards and robots: gm's own (docs/rules/) "
                   "or an installed ruleset package's.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True,
              help="The campaign's seed and the robots' choices: the same seed plays the same game.")
@click.option("--force", is_flag=True, help="Replace an earlier demo in DIRECTORY.")
@click.option("--signup", is_flag=True,
              help="The robots join by mail before the start (JOIN, CONFIRM), beside a forged JOIN, a replay "
                   "and an auto-reply that change nothing.")
@click.option("--press", is_flag=True,
              help="A grey press game: the robots write a little press, and the archive shows the public part.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final standings and the archive's path.")
@click.option("--judge", is_flag=True,
              help="A judge with three games of different rulesets behind one address, played by their "
                   "robots through gm judge DIR turn alone.")
def demo_cmd(directory: str, ruleset: str, seed: int, force: bool, signup: bool, press: bool, quiet: bool, judge: bool) -> None:
    """Play a whole demonstration campaign in DIRECTORY with six robot players.

    The robots read their mail from DIRECTORY/mail/outbox and mail real orders into
    DIRECTORY/mail/inbox; every turn runs exactly as `gm turn` does, weeks passing in
    a second. At the end the boards are revealed and the archive is published to
    DIRECTORY/archive/index.html. Refuses a folder that is in use unless --force.
    With --signup, campaign.yaml lists no player: the robots join by mail a week before
    the start, each mailing JOIN and then CONFIRM with the code gm mailed back, and gm
    start seats them.
    Example: gm demo /tmp/demo && gm -C /tmp/demo status
    (or gm demo /tmp/advanced --ruleset advanced, or gm demo /tmp/joined --signup)
    With --judge, DIRECTORY is a judge with three games of different rulesets.
    """
    if judge:
        try:
            lines = play_judge(Path(directory), seed=seed, force=force,
                               echo=(lambda _line: None) if quiet else click.echo)
        except GmError as error:
            raise click.ClickException(str(error)) from None
        for line in lines:
            click.echo(line)
        return
    try:
        result = play(Path(directory), seed=seed, force=force, ruleset=ruleset, signup=signup, press=press,
                      echo=(lambda _line: None) if quiet else click.echo)
    except GmError as error:
        # exit 1 with one line, under gm's own group or any other
        raise click.ClickException(str(error)) from None
    if not quiet:
        click.echo("")
    for line in summary(result):
        click.echo(line)
