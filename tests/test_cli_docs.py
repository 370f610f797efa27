"""Every `gm` command explains itself (`--help`) and is documented in the README, so a GM
never meets a command the README does not mention (as sqlite-utils' tests/test_docs.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from gm.cli import cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def every_command(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    """('board check', command) for every command and subcommand, groups included (gm's own
    are loaded when asked for: gm.cli.COMMANDS)."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, f"gm {' '.join((*path, name))} is listed but cannot be loaded"
        words = (*path, name)
        yield " ".join(words), command
        if isinstance(command, click.Group):
            yield from every_command(command, words)


COMMANDS = list(every_command(cli))


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_command_has_help_text(name, command):
    assert (command.help or command.short_help or "").strip(), f"gm {name} has no help text"


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_command_is_documented_in_the_readme(name, command):
    # `gm board check` or `gm turn`, not merely a word in passing: "gm state" is not "gm status"
    assert re.search(rf"\bgm {re.escape(name)}\b(?![-\w])", README), f"README.md never mentions `gm {name}`"


@pytest.mark.parametrize("name", ["turn", "demo"])
def test_the_newcomer_and_weekly_commands_are_part_of_gm(name):
    assert name in cli.list_commands(click.Context(cli)), f"gm.cli does not register `gm {name}`"


def test_every_command_a_cli_module_defines_is_in_gm_clis_table():
    """gm.cli loads a command's module only when the command is asked for, from
    its table COMMANDS: a command added to a module must be added there too, under its name."""
    import importlib

    from gm.cli import COMMANDS as TABLE

    for entry in set(TABLE.values()):
        module = importlib.import_module(f"gm.cli.{entry.partition(':')[0]}")
        for command in getattr(module, "COMMANDS", ()):
            assert TABLE.get(command.name, "").startswith(module.__name__.rpartition(".")[2] + ":"), \
                f"gm {command.name} ({module.__name__}) is missing from gm.cli.COMMANDS"
    for name, entry in TABLE.items():
        module, _, attribute = entry.partition(":")
        command = getattr(importlib.import_module(f"gm.cli.{module}"), attribute)
        assert command.name == name, f"gm.cli.COMMANDS names {entry} `gm {name}`, but it is `gm {command.name}`"


def test_every_command_answers_help_with_exit_zero():
    from click.testing import CliRunner

    runner = CliRunner()
    for name, _ in COMMANDS:
        result = runner.invoke(cli, [*name.split(), "--help"])
        assert result.exit_code == 0, f"gm {name} --help: {result.output}"
        assert "Usage:" in result.output
