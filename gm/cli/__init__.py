"""The `gm` command line: a thin shell over the core. Every command opens what it needs,
calls one core function and turns a GmError into a one-line refusal (exit 1)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping

import click

from ..errors import GmError, ProblemsError

# Where each command is defined, as module:attribute under gm.cli. A command's module is
# imported only when the command runs (or help lists them all), so `gm publish` does not
# pay for the imports of `gm ingest` or `gm board analyze`; tests/test_cli_docs.py checks
# this table against the commands each module defines.
COMMANDS: Mapping[str, str] = {
    "board": "analysis:board",  # gm.cli.analysis adds design, analyze and draw to gm.cli.board's group
    "campaign": "campaign:campaign_group",
    **{name: f"campaign:{name}_cmd" for name in ("start", "ingest", "orders", "remind", "resolve", "undo")},
    **{name: f"turn:{name}_cmd" for name in ("turn", "send")},
    **{name: f"status:{name}_cmd" for name in ("state", "status")},
    "player": "admin:player_group",
    **{name: f"admin:{name}_cmd" for name in ("pause", "resume", "deadline", "end")},
    "publish": "publish:publish_cmd",
    **{name: f"archive:{name}_cmd" for name in ("reveal", "verify", "audit")},
    "mail": "mail:mail_group",
    "signup": "signup:signup_group",
    "demo": "demo:demo_cmd",
    "judge": "judge:judge_cmd",
}


class GmGroup(click.Group):
    """Turns every refusal into `Error: ...` on stderr and exit 1, never a traceback. The
    commands in `lazy` (name: module:attribute, as COMMANDS) are imported when asked for."""

    def __init__(self, *args, lazy: Mapping[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attribute = self.lazy[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(f"{__name__}.{module}"), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

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


@click.group(cls=GmGroup, lazy=COMMANDS)
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
