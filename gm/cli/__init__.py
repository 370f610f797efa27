"""The `gm` command line: a thin shell over the core. Every command opens what it needs,
calls one core function and turns a GmError into a one-line refusal (exit 1)."""

from __future__ import annotations

import os
import sys

import click

from ..errors import GmError, ProblemsError
from . import analysis as cli_analysis  # noqa: F401  (adds design, analyze and draw to `gm board`)
from .admin import COMMANDS as ADMIN_COMMANDS
from .archive import COMMANDS as ARCHIVE_COMMANDS
from .board import board
from .campaign import COMMANDS, campaign_group
from .demo import demo_cmd
from .mail import COMMANDS as MAIL_COMMANDS
from .signup import COMMANDS as SIGNUP_COMMANDS


class GmGroup(click.Group):
    """Turns every refusal into `Error: ...` on stderr and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except ProblemsError as error:
            for line in error.lines():
                click.echo(f"Error: {line}", err=True)
            raise SystemExit(1) from None
        except GmError as error:
            refusal = click.ClickException(str(error))
            refusal.exit_code = getattr(error, "exit_code", 1)  # gm audit: 3, the record unreadable
            raise refusal from None


@click.group(cls=GmGroup)
@click.option(
    "-C",
    "campaign_dir",
    envvar="GM_CAMPAIGN",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The campaign folder (also the GM_CAMPAIGN environment variable).",
)
@click.version_option(package_name="gm")
@click.pass_context
def cli(ctx: click.Context, campaign_dir: str) -> None:
    """gm: a game master for Snakes and Ladders by email."""
    ctx.obj = {"dir": campaign_dir}


cli.add_command(board)
cli.add_command(campaign_group)
for command in (*COMMANDS, *ADMIN_COMMANDS, *ARCHIVE_COMMANDS, *MAIL_COMMANDS, *SIGNUP_COMMANDS, demo_cmd):
    cli.add_command(command)


def main() -> None:
    try:
        cli(prog_name="gm")
    except KeyboardInterrupt:
        click.echo("Interrupted; nothing half-done was saved.", err=True)
        sys.exit(1)
    except Exception as error:  # noqa: BLE001 - the last line of defence: no traceback for users
        if os.environ.get("GM_DEBUG"):
            raise
        click.echo(f"Error: internal error: {type(error).__name__}: {error} (set GM_DEBUG=1 for details)", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
