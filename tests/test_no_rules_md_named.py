"""No text a user reads names RULES.md or CONTRACT.md: those are the project's
own specifications, not in a user's clone or installed copy. Messages, CLI help,
templates, board and campaign files, docs and the README link the rules pages in
docs/rules/ (and the formats in docs/campaign.md) instead. Code comments and docstrings
are for developers and may cite the sections; test names cite them by design."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click
from click.testing import CliRunner
from test_config import GOOD, write

from gm.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SPECS = re.compile(r"\b(?:RULES|CONTRACT)(?:\.md\b|\s+\d)")
# what a user's clone holds for users: every file under these, and these files
USER_FILES = ("README.md", "docs", "boards", "campaigns", "templates")


def _user_files() -> list[Path]:
    files = []
    for name in USER_FILES:
        path = ROOT / name
        files += [p for p in sorted(path.rglob("*")) if p.is_file()] if path.is_dir() else [path]
    return files


def test_no_user_file_names_the_specifications():
    found = []
    for path in _user_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a picture, say: no words
        found += [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
                  for n, line in enumerate(text.splitlines(), 1) if SPECS.search(line)]
    assert found == []


def _developer_docstrings(tree: ast.AST) -> set[int]:
    """The ids of docstring nodes a user never reads: those of modules, classes and
    functions, but not of click commands (their docstring is the command's --help)."""
    ids = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = node.body[0] if node.body else None
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            continue
        decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", ())]
        if not any(re.search(r"\b(?:command|group)\b", d) for d in decorators):
            ids.add(id(first.value))
    return ids


def test_no_message_or_help_in_gm_names_the_specifications():
    """Every string in gm that is not a developer's docstring may reach a user: an error,
    a refusal, a board problem, an option's help."""
    found = []
    for path in sorted((ROOT / "gm").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _developer_docstrings(tree)
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.strip()[:80]!r}"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in skip and SPECS.search(node.value)]
    assert found == []


def _commands(group: click.Command, path: tuple[str, ...] = ()):
    yield path, group
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*path, name))


def test_no_command_help_names_the_specifications():
    runner = CliRunner()
    for path, _ in _commands(cli):
        result = runner.invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert not SPECS.search(result.output), (path, result.output)


def test_2_6_gm_reveal_before_the_end_links_the_rules_page(tmp_path, monkeypatch):
    monkeypatch.setenv("GM_NOW", "2027-01-01T00:00:00Z")
    folder = write(tmp_path / "c", GOOD)
    runner = CliRunner()
    assert runner.invoke(cli, ["-C", str(folder), "start"]).exit_code == 0
    result = runner.invoke(cli, ["-C", str(folder), "reveal"])
    assert result.exit_code == 1
    assert "revealed only once it has ended (docs/rules/postal.md)" in result.output
    assert (ROOT / "docs" / "rules" / "postal.md").is_file()
