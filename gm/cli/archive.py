"""The archive commands: `gm publish`, `gm reveal`, `gm verify` (CONTRACT.md) and `gm audit`."""

from __future__ import annotations

from pathlib import Path

import click

from ..counts import count
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
    click.echo(f"archive: {where / 'index.html'} ({count(len(report.written), 'page')} written, "
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


@click.command("audit")
@click.argument("source", metavar="DIR_OR_URL")
@click.option("--seed-commitment", metavar="HEX",
              help="The seed commitment you were given at the start (your welcome mail): the audit "
                   "fails unless the archive's is the same.")
def audit_cmd(source: str, seed_commitment: str | None) -> None:
    """Re-adjudicate a revealed campaign from its published archive alone (a folder or an
    http(s) address): recompute every commitment, every random draw from the seed and
    every turn from the orders with gm's rules; exit 0 when the whole campaign replays
    exactly, 1 at the first difference (turn, board, player, expected, found).

    Example: gm audit https://example.org/spring-2027/ --seed-commitment 9f2c...01ab
    """
    from ..audit import Difference, audit, load_record

    record = load_record(source)
    if seed_commitment is not None and record.get("seed", {}).get("commitment") != seed_commitment.strip().lower():
        raise GmError(f"the archive's seed commitment {record.get('seed', {}).get('commitment')} is not the one "
                      f"you were given, {seed_commitment}")
    result = audit(record)
    if isinstance(result, Difference):
        raise GmError(f"audit failed: {result}")
    click.echo(f"ok: {result.campaign} ({result.ruleset}) replays exactly: {count(result.turns, 'turn')}, "
               f"{count(result.draws, 'random draw')}, every commitment recomputed")
    for what, value in result.commitments:
        click.echo(f"  {what} commitment {value}")


COMMANDS = [publish_cmd, reveal_cmd, verify_cmd, audit_cmd]
