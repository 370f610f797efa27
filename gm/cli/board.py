"""`gm board ...`: commands on board files, needing no campaign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..boards.model import Board
from ..boards.text import render
from ..counts import count
from ..errors import BoardError, ProblemsError
from ..rules.registry import UnknownRuleset, board_ruleset, find_ruleset
from ..yamlfile import LineDict, read

PLAYERS = 2  # the fewest players a ruleset plays; the board is judged for them


@click.group()
def board() -> None:
    """Check, draw and analyse board files."""


def _ruleset_option(command: Any) -> Any:
    return click.option(
        "--ruleset", "ruleset_name", default=None, metavar="NAME",
        help="Judge the file by this ruleset's rules (default: the ruleset whose own keys "
             "the file uses, such as unleashed's cards and lampposts, else the default ruleset's).")(command)


def _find(name: str) -> Any:
    try:
        return find_ruleset(name)
    except UnknownRuleset as error:
        raise click.BadParameter(str(error), param_hint="--ruleset") from None


def _load(path: str, ruleset_name: str | None) -> Board:
    """The board in `path`, read with the ruleset's own keys and `chains` default and
    judged by its board rules too; raises BoardError listing every problem."""
    data = read(Path(path), BoardError)
    if ruleset_name is None:
        ruleset_name = board_ruleset(data if isinstance(data, dict) else ())
    ruleset = _find(ruleset_name)
    b = ruleset.board_from_data(data, path)
    try:
        options = ruleset.parse_options(LineDict({}))
    except (ProblemsError, ValueError) as error:  # a ruleset whose options have no defaults
        raise BoardError(path, [f"ruleset {ruleset.name}: {error}"]) from None
    made, problems = ruleset.campaign_boards({"A": b}, PLAYERS, options)
    if problems:
        raise BoardError(path, [p.removeprefix("board A: ") for p in problems])
    return made.get("A", b)


def _counts(b: Board) -> str:
    text = f"{b.squares} squares, {count(len(b.snakes), 'snake')}, {count(len(b.ladders), 'ladder')}"
    posts = b.extra_value("lampposts")
    if posts:
        text += f", {count(len(posts), 'lamppost')}"
    if b.extra_value("cards"):
        text += ", every card fixed"
    return text


@board.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@_ruleset_option
def board_check(files: tuple[str, ...], ruleset_name: str | None) -> None:
    """Validate board files, listing every problem of every file.

    Example: gm board check boards/*.yaml
    """
    if ruleset_name is not None:
        _find(ruleset_name)  # a usage error before any file is read
    failed = False
    for path in files:
        try:
            b = _load(path, ruleset_name)
        except BoardError as error:
            failed = True
            for line in error.lines():
                click.echo(line, err=True)
            continue
        click.echo(f"{path}: ok, {_counts(b)}")
    if failed:
        raise SystemExit(1)


@board.command("show")
@click.argument("file", type=click.Path(dir_okay=False))
@_ruleset_option
def board_show(file: str, ruleset_name: str | None) -> None:
    """Draw a board in the terminal: levels as rows in their real columns.

    Example: gm board show boards/milton-bradley.yaml
    """
    try:
        b = _load(file, ruleset_name)
    except BoardError as error:
        for line in error.lines():
            click.echo(line, err=True)
        raise SystemExit(1) from None
    click.echo(render(b, title=b.name or file))
    posts = b.extra_value("lampposts")
    if posts:
        click.echo("lampposts (lower-upper): " + ", ".join(f"{low}-{high}" for low, high in posts))
    cards = b.extra_value("cards")
    if cards:
        width = len(str(b.squares))
        columns = b.levels[0] if b.levels else 10
        click.echo("cards, square 1 first:")
        for first in range(0, len(cards), columns):
            row = cards[first:first + columns]
            click.echo(f"  {first + 1:>{width}}-{first + len(row):<{width}}  " + " ".join(row))
