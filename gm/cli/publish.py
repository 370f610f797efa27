"""`gm publish`: the campaign's HTML archive written, only its changed pages rewritten."""

from __future__ import annotations

from pathlib import Path

import click
import jinja2

from ..counts import count
from ..errors import GmError
from ..publish.write import publish
from ..rules.templating import template_problem
from .opening import opened


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
    with opened(ctx, lock=True) as campaign:
        try:
            where, report = publish(campaign, out)
        except jinja2.TemplateError as error:  # a ruleset's archive template failed: say which
            raise GmError(f"publish stopped by {template_problem(error)}; fix the template, then run "
                          "gm publish again") from None
    click.echo(f"archive: {where / 'index.html'} ({count(len(report.written), 'page')} written, "
               f"{len(report.unchanged)} unchanged)")


COMMANDS = [publish_cmd]
