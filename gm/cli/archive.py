"""The commands on a campaign's proof: `gm reveal` (and the archive rewritten with it),
`gm verify` and `gm audit` (docs/audit.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ..audit.checks import Difference
from ..audit.mail import check_mail, read_mail
from ..audit.replay import audit, load_record
from ..campaign.reveal import reveal, verify_board_file, verify_seed
from ..counts import count
from ..errors import GmError
from ..publish.write import publish
from .opening import opened


@click.command("reveal")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Where the archive is published (default: DIR/archive).")
@click.pass_context
def reveal_cmd(ctx: click.Context, out: Path | None) -> None:
    """Once the campaign is over: publish every board's salt and canonical text and the
    seed, and rewrite the archive to show the boards and how to check each commitment.

    Example: gm -C campaigns/spring-2027 reveal
    """
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
    if (file is None) == (seed is None):
        raise click.UsageError("give either a board FILE or --seed N")
    checked = verify_seed(commitment, salt, seed) if seed is not None else verify_board_file(commitment, salt, file)
    if not checked.matches:
        raise GmError(f"{checked.what} does NOT match commitment {commitment}")
    click.echo(f"ok: {checked.what} matches commitment {commitment}")


_HEX = re.compile(r"[0-9a-fA-F]{64}")


def _commitment(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A commitment as given on the command line: 64 hex digits, any case."""
    if value is None:
        return None
    value = value.strip()
    if not _HEX.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not a commitment (64 hex digits)")
    return value.lower()


@click.command("audit")
@click.argument("source", metavar="DIR_OR_URL")
@click.argument("more", nargs=-1, metavar="", type=click.Path(path_type=Path))
@click.option("--game-commitment", metavar="HEX", callback=_commitment,
              help="The game commitment announced at the start (your welcome mail): the audit fails unless "
                   "the archive's game text hashes to it.")
@click.option("--seed-commitment", metavar="HEX", callback=_commitment,
              help="The seed commitment you were given at the start: the audit fails unless the archive's "
                   "is the same.")
@click.option("--mail", "mail", multiple=True, metavar="PATH...", type=click.Path(exists=True, path_type=Path),
              help="Mail you received from the campaign: .eml files, mbox files or Maildir folders, several "
                   "after one --mail or one per --mail. Every game commitment, record hash and receipt in it "
                   "must be the replay's.")
def audit_cmd(source: str, more: tuple[Path, ...], game_commitment: str | None, seed_commitment: str | None,
              mail: tuple[Path, ...]) -> None:
    """Re-adjudicate a revealed campaign from its published archive (a folder or an http(s)
    address) and check it against what you were announced and mailed: every
    commitment, the game text, every random draw, every turn with gm's rules, every receipt
    and record hash; the record must run to the campaign's end. Prints what it proved,
    what it could not check for want of input, and the final standings. Exit 0 when all
    matches, 1 at the first difference, 3 when the record or mail could not be read (or
    is of another shape than docs/audit.md gives, naming the key).

    Example: gm audit https://example.org/spring-2027/ --mail ~/Mail/spring-2027
    """
    if more and not mail:
        raise click.UsageError(f"unexpected argument {more[0]}: mail to check follows --mail")
    missing = next((path for path in more if not path.exists()), None)
    if missing:
        raise click.BadParameter(f"{missing} does not exist", param_hint="--mail")
    paths = (*mail, *more)
    record = load_record(source)
    result = audit(record)
    if isinstance(result, Difference):
        raise GmError(f"audit failed: {result}")
    if seed_commitment is not None and result.seed_commitment != seed_commitment:
        raise GmError(f"audit failed: the archive's seed commitment {result.seed_commitment} is not the one "
                      f"you were given, {seed_commitment}")
    if game_commitment is not None and result.game_commitment != game_commitment:
        raise GmError(f"audit failed: the archive's game commitment "
                      f"{result.game_commitment or '(none: the record holds no game text)'} is not the one "
                      f"announced, {game_commitment}")
    checked = None
    if paths:
        checked = check_mail(result, read_mail(paths))
        if isinstance(checked, Difference):
            raise GmError(f"audit failed: {checked}")
    click.echo(f"ok: {result.campaign} ({result.ruleset}) replays exactly: {count(result.turns, 'turn')}, "
               f"{count(result.draws, 'random draw')}, every commitment recomputed")
    proved, unchecked = _proved(result, checked, paths, game_commitment, seed_commitment)
    for title, lines in (("proved", proved), ("not checked", unchecked)):
        if lines:
            click.echo(f"{title}:")
            for line in lines:
                click.echo(f"  {line}")
    click.echo("commitments:")
    for what, value in result.commitments:
        click.echo(f"  {what} commitment {value}")
    click.echo("final standings:")
    for place, player in result.standings:
        click.echo(f"  {place if place is not None else '-':>3}  {player}")


def _proved(result: Any, checked: Any, paths: Sequence[Path], game: str | None,
            seed: str | None) -> tuple[list[str], list[str]]:
    """What the audit proved and what it could not check, in words (docs/audit.md)."""
    boards = sum(1 for what, _ in result.commitments if what.startswith("board "))
    matched = "the seed and " + count(boards, "board") + " match their commitments" if boards else \
        "the seed matches its commitment"
    proved = [matched + (", the game text the game commitment" if result.game_commitment else ""),
              "every random draw by the seed formula, every turn by gm's rules"]
    if result.chain:
        proved.append(f"{count(result.receipts, 'receipt')} recomputed from the orders played, the record "
                      f"chain of {count(result.chain, 'turn')}")
    proved.append(f"the record runs to the campaign's end: {result.ending}")
    if game:
        proved.append("the game announced: the game commitment given (--game-commitment)")
    if seed:
        proved.append("the seed announced: the seed commitment given (--seed-commitment)")
    unchecked = list(result.notes)
    if checked is not None:
        proved += [f"with the mail given: {line}" for line in checked.proved]
        unchecked += list(checked.notes)
    else:
        unchecked.append("orders not checked against any receipt (no mail given: --mail)")
        unchecked.append("the history not checked against the reports mailed (no mail given)")
    if not game and not (checked is not None and checked.announced):
        unchecked.append("the game announced not checked (no --game-commitment and no mail carrying it)")
    return proved, unchecked


COMMANDS = [reveal_cmd, verify_cmd, audit_cmd]
