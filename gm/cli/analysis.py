"""`gm board design`, `gm board analyze` and `gm board draw`: designing a board from rules,
knowing exactly how long it plays, and seeing it drawn. Each command calls one core
function (gm.analysis, gm.boards.svg) and turns a GmError into a refusal."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from ..boards.board import load_board
from ..boards.svg import Mark, board_svg
from ..counts import count
from ..errors import GmError, ProblemsError
from .board import board


def refusing(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a GmError into `Error: ...` lines on stderr and exit 1, also when the command is
    run from the `board` group alone (as the tests do), not only under `gm`."""

    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ProblemsError as error:
            for line in error.lines():
                click.echo(f"Error: {line}", err=True)
        except GmError as error:
            click.echo(f"Error: {error}", err=True)
        raise SystemExit(1)

    return run


def _write(text: str, output: str | None) -> None:
    """Write to the file named, or to stdout for none or `-`."""
    if output in (None, "-"):
        click.echo(text, nl=False)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise GmError(f"cannot write {output}: {error.strerror or error}") from None


@board.command("design")
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="The board file to write (default: standard output).")
@refusing
def board_design(spec: str, output: str | None) -> None:
    """Design a board from a design file's placement rules and write it as a board file.

    With a target in the design file, random rules are redrawn until the board's exact
    expected length meets it. The design format: docs/design-format.md.

    Example: gm board design designs/primes.yaml -o boards/designed-primes.yaml
    """
    # imported here: numpy, which they need, is a tenth of a second at every gm start
    from ..analysis.design import board_yaml, build_design, design_header
    from ..analysis.designfile import load_design

    design = build_design(load_design(spec))
    text = board_yaml(design.board, header=design_header(design, spec))
    if output not in (None, "-"):
        _write(text, output)
        load_board(output)  # what was written must read back as the same sound board
        b = design.board
        expected = "".join(f", expected {name} length {value:.2f} turns"
                           for name, value in design.expected.items() if value is not None)
        click.echo(f"{output}: {b.squares} squares, {count(len(b.snakes), 'snake')}, "
                   f"{count(len(b.ladders), 'ladder')}{expected} (try {design.tries})", err=True)
        for note in design.notes:
            click.echo(f"note: {note}", err=True)
    else:
        _write(text, output)


def _cell(summary: dict[str, Any], unit: str) -> str:
    expected = summary[f"expected_{unit}"]
    if expected is None:  # a piece can be caught for good: no finite length to show
        where = ", ".join(map(str, summary.get("caught_on", [])[:3]))
        return f"never ends with p={summary.get('never_finishes', 1):.4g} (caught on {where})"
    return f"{expected:.2f} ({summary[f'median_{unit}']}/{summary[f'p90_{unit}']})"


def side_by_side(named: list[tuple[str, Any]]) -> str:
    """The terminal table of `gm board analyze`: one column per board, a block of rows per
    ruleset analysed (its length, then its own rows), then one die."""
    from ..boards.figures import FINISHES

    rulesets = list(dict.fromkeys(r for _, result in named for r in result.rulesets))
    rows: list[tuple[str, list[str]]] = [("squares", [str(result.board.squares) for _, result in named])]
    for ruleset in rulesets:
        figures = [result.rulesets.get(ruleset) for _, result in named]
        rows.append((f"{ruleset} {_unit(figures)}",
                     [_cell(f.length.summary(f.unit), f.unit) if f else "-" for f in figures]))
        extra = [dict(f.rows()) if f else {} for f in figures]
        for label in dict.fromkeys(label for rows_of in extra for label in rows_of):
            rows.append((label, [rows_of.get(label, "-") for rows_of in extra]))
    finishes = [finish for finish in FINISHES if any(finish in result.one_die for _, result in named)]
    rows += [(f"one die, {finish} (rolls)", [_cell(result.one_die[finish].summary("rolls"), "rolls")
                                             if finish in result.one_die else "-" for _, result in named])
             for finish in finishes]
    label_width = max(len(label) for label, _ in rows)
    widths = [max(len(name), *(len(values[i]) for _, values in rows)) for i, (name, _) in enumerate(named)]
    lines = ["  ".join([" " * label_width, *(n.ljust(w) for (n, _), w in zip(named, widths, strict=True))]).rstrip()]
    for label, values in rows:
        lines.append("  ".join([label.ljust(label_width),
                                *(v.ljust(w) for v, w in zip(values, widths, strict=True))]).rstrip())
    lines.append("expected (median/p90); exact figures for one player alone, under each ruleset's "
                 "default options, with nothing decided in play")
    return "\n".join(lines)


def _unit(figures: list[Any]) -> str:
    return next((f.unit for f in figures if f), "turns")


@board.command("analyze")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead (its keys: docs/campaign.md, Board analysis as JSON).")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Also write an SVG of the game-length distributions, one panel per ruleset.")
@click.option("--ruleset", "rulesets", multiple=True, metavar="NAME",
              help="Analyse this ruleset alone, without one die (repeatable; default: every "
                   "ruleset that analyses boards, and one die).")
@refusing
def board_analyze(files: tuple[str, ...], as_json: bool, plot: str | None, rulesets: tuple[str, ...]) -> None:
    """Exact game-length analysis of boards for one player alone: expected turns, median and
    90th percentile for every ruleset that analyses boards (with each one's own figures)
    and for one die. Several boards are shown side by side.

    Example: gm board analyze boards/milton-bradley.yaml boards/small.yaml --plot lengths.svg
    """
    from ..analysis.analyze import (  # here, not at every gm start (numpy)
        analysing_rulesets,
        analyze,
    )
    from ..boards.plot import length_plot

    names = list(analysing_rulesets())
    for name in rulesets:
        if name not in names:
            raise click.BadParameter(f"{name} is not a ruleset that analyses boards (those that do: "
                                     f"{', '.join(names)})", param_hint="--ruleset")
    boards = [(path, load_board(path)) for path in files]
    named = [(b.name or Path(path).stem, analyze(b, only=list(dict.fromkeys(rulesets)))) for path, b in boards]
    if as_json:
        results = [result.to_json() for _, result in named]
        click.echo(json.dumps(results[0] if len(results) == 1 else results, indent=2))
    else:
        click.echo(side_by_side(named))
    if plot:
        _write(length_plot(named), plot)


@board.command("draw")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="The SVG file to write (default: standard output).")
@click.option("--mark", "marks", type=int, multiple=True,
              help="Frame a square and mark it with a downward triangle, as the archive marks a "
                   "square that sends pieces down (repeatable).")
@click.option("--title", help="A title above the board (default: the board's name).")
@refusing
def board_draw(file: str, output: str | None, marks: tuple[int, ...], title: str | None) -> None:
    """Draw a board as SVG, exactly as the archive draws it.

    Example: gm board draw boards/milton-bradley.yaml -o classic.svg
    """
    b = load_board(file)
    bad = [t for t in marks if not 1 <= t <= b.squares]
    if bad:
        raise GmError(f"--mark {bad[0]} is not a square of {file} (1..{b.squares})")
    _write(board_svg(b, marks=[Mark(t) for t in marks], title=title if title is not None else b.name or None),
           output)
