"""The archive commands: `gm publish`, `gm reveal` and `gm verify` (CONTRACT.md)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import GmError
from .campaign import opened


@click.command("publish")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the archive (default: DIR/archive).")
@click.pass_context
def publish_cmd(ctx: click.Context, out: Path | None) -> None:
    """Write the campaign's HTML archive: standings, a page per turn and per player, race
    charts and the boards drawn (boards the ruleset keeps secret: only after `gm reveal`).
    Only changed pages are rewritten.

    Example: gm -C campaigns/spring-2027 publish --out /var/www/spring-2027
    """
    from ..publish.write import publish

    with opened(ctx, lock=True) as campaign:
        where, report = publish(campaign, out)
    click.echo(f"archive: {where / 'index.html'} ({len(report.written)} pages written, "
               f"{len(report.unchanged)} unchanged)")


@click.command("reveal")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Where the archive is published (default: DIR/archive).")
@click.pass_context
def reveal_cmd(ctx: click.Context, out: Path | None) -> None:
    """Once the campaign is over: publish every board's salt and canonical text and the
    seed, and rewrite the archive to show the boards and how to check each commitment.

    Example: gm -C campaigns/spring-2027 reveal
    """
    from ..campaign.reveal import reveal
    from ..publish.write import publish

    with opened(ctx, lock=True) as campaign:
        when = reveal(campaign)
        where, _ = publish(campaign, out)
        data = campaign.state_json()["revealed"]
    click.echo(f"revealed {when}; archive: {where / 'boards.html'}")
    click.echo(f"seed {data['seed']['value']} salt {data['seed']['salt']}")
    for board_id, board in data["boards"].items():
        click.echo(f"board {board_id} salt {board['salt']} canonical {board['canonical']}")


@click.command("verify")
@click.argument("commitment")
@click.argument("salt")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=int, help="Check a seed instead of a board file.")
def verify_cmd(commitment: str, salt: str, file: Path | None, seed: int | None) -> None:
    """Check a board file (YAML, or the canonical text the archive publishes) or a seed
    against a commitment: exit 0 when it matches, 1 when it does not.

    Example: gm verify 6b53...d373 9f2c...01ab boards/small.yaml
    """
    from ..campaign.reveal import verify_board_file, verify_seed

    if (file is None) == (seed is None):
        raise click.UsageError("give either a board FILE or --seed N")
    checked = verify_seed(commitment, salt, seed) if seed is not None else verify_board_file(commitment, salt, file)
    if not checked.matches:
        raise GmError(f"{checked.what} does NOT match commitment {commitment}")
    click.echo(f"ok: {checked.what} matches commitment {commitment}")


COMMANDS = [publish_cmd, reveal_cmd, verify_cmd]
