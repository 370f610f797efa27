"""`gm board ...`: commands on board files, needing no campaign."""

from __future__ import annotations

import click

from ..boards.board import load_board
from ..boards.text import render
from ..errors import BoardError


@click.group()
def board() -> None:
    """Check, draw and analyse board files."""


@board.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def board_check(files: tuple[str, ...]) -> None:
    """Validate board files, listing every problem of every file.

    Example: gm board check boards/*.yaml
    """
    failed = False
    for path in files:
        try:
            b = load_board(path)
        except BoardError as error:
            failed = True
            for line in error.lines():
                click.echo(line, err=True)
            continue
        click.echo(f"{path}: ok, {b.squares} squares, {len(b.snakes)} snakes, {len(b.ladders)} ladders")
    if failed:
        raise SystemExit(1)


@board.command("show")
@click.argument("file", type=click.Path(dir_okay=False))
def board_show(file: str) -> None:
    """Draw a board in the terminal: levels as rows in their real columns.

    Example: gm board show boards/milton-bradley.yaml
    """
    try:
        b = load_board(file)
    except BoardError as error:
        for line in error.lines():
            click.echo(line, err=True)
        raise SystemExit(1) from None
    click.echo(render(b, title=b.name or file))
