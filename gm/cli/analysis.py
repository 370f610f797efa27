"""`gm board design`, `gm board analyze` and `gm board draw`: designing a board from rules,
knowing exactly how long it plays, and seeing it drawn. Each command calls one core
function (gm.boards.design, gm.boards.analysis, gm.boards.svg) and turns a GmError into a refusal."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from ..boards.analysis import FINISHES, BoardAnalysis, analyze
from ..boards.board import load_board
from ..boards.design import board_yaml, build_design, design_header, load_design
from ..boards.plot import length_plot
from ..boards.svg import board_svg
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
    design = build_design(load_design(spec))
    text = board_yaml(design.board, header=design_header(design, spec))
    if output not in (None, "-"):
        _write(text, output)
        load_board(output)  # what was written must read back as the same sound board
        b = design.board
        expected = ("" if design.postal_expected is None
                    else f", expected postal length {design.postal_expected:.2f} turns")
        click.echo(f"{output}: {b.squares} squares, {_plural(len(b.snakes), 'snake')}, "
                   f"{_plural(len(b.ladders), 'ladder')}{expected} (try {design.tries})", err=True)
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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def side_by_side(named: list[tuple[str, BoardAnalysis]]) -> str:
    """The terminal table of `gm board analyze`: one column per board."""
    data = [(name, result.to_json()) for name, result in named]
    rows: list[tuple[str, list[str]]] = [
        ("squares", [str(d["squares"]) for _, d in data]),
        ("postal fewest turns", [str(d["postal"]["fewest_turns"]) for _, d in data]),
        ("  one way", [" ".join(map(str, d["postal"]["fewest_sequence"])) for _, d in data]),
        ("postal turns", [_cell(d["postal"], "turns") for _, d in data]),
        *[(f"one die, {finish} (rolls)", [_cell(d["one_die"][finish], "rolls") for _, d in data])
          for finish in FINISHES],
        ("classic turns", [_cell(d["classic"], "turns") for _, d in data]),
        ("landed on most (postal)", [", ".join(str(s) for s, _ in d["postal"]["most_landed"][:5])
                                     for _, d in data]),
        ("turns end most on", [", ".join(str(s) for s, _ in d["postal"]["most_ended"][:5])
                               for _, d in data]),
    ]
    label_width = max(len(label) for label, _ in rows)
    widths = [max(len(name), *(len(values[i]) for _, values in rows)) for i, (name, _) in enumerate(data)]
    lines = ["  ".join([" " * label_width, *(n.ljust(w) for (n, _), w in zip(data, widths, strict=True))]).rstrip()]
    for label, values in rows:
        lines.append("  ".join([label.ljust(label_width),
                                *(v.ljust(w) for v, w in zip(values, widths, strict=True))]).rstrip())
    lines.append("expected (median/p90); exact figures for one player alone, no trapdoor")
    return "\n".join(lines)


@board.command("analyze")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the CONTRACT.md JSON instead.")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Also write an SVG of the game-length distributions, postal and classic.")
@refusing
def board_analyze(files: tuple[str, ...], as_json: bool, plot: str | None) -> None:
    """Exact game-length analysis of boards: fewest and expected turns, median and 90th
    percentile, for the postal game, one die and the classic rules. Several boards are
    shown side by side.

    Example: gm board analyze boards/milton-bradley.yaml boards/small.yaml --plot lengths.svg
    """
    boards = [(path, load_board(path)) for path in files]
    named = [(b.name or Path(path).stem, analyze(b)) for path, b in boards]
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
@click.option("--trapdoor", "trapdoors", type=int, multiple=True,
              help="Mark a square as a trapdoor (repeatable).")
@click.option("--title", help="A title above the board (default: the board's name).")
@refusing
def board_draw(file: str, output: str | None, trapdoors: tuple[int, ...], title: str | None) -> None:
    """Draw a board as SVG, exactly as the archive draws it.

    Example: gm board draw boards/milton-bradley.yaml -o classic.svg
    """
    b = load_board(file)
    bad = [t for t in trapdoors if not 1 <= t <= b.squares]
    if bad:
        raise GmError(f"trapdoor {bad[0]} is not a square of {file} (1..{b.squares})")
    _write(board_svg(b, trapdoors=trapdoors, title=title if title is not None else b.name or None),
           output)
