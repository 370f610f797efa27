"""Ids, addresses and URLs are matched whole: a regular expression ending in `$`
also matches before a final newline, so `id: "carol\\n"` passed and the archive wrote
`player-carol<newline>.html`. Every value a GM or player writes is checked with
`fullmatch` (or `\\Z`), and a check over gm's source keeps it so."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_config import GOOD, write

from gm.campaign.config.reading import load_config
from gm.cli import cli
from gm.errors import ConfigError

GM = Path(__file__).resolve().parent.parent / "gm"


def problems_of(text: str, folder: Path) -> list[str]:
    with pytest.raises(ConfigError) as error:
        load_config(write(folder, text))
    return error.value.problems


@pytest.mark.parametrize(
    ("what", "change", "said"),
    [
        ("campaign id", ("id: spring-2027", 'id: "spring-2027\\n"'), "id must be letters, digits"),
        ("board id", ("  A: BOARDS", '  "A\\n": BOARDS'), "board id 'A\\n' must be letters, digits"),
        ("player id", ("{id: alice,", '{id: "alice\\n",'), "player id 'alice\\n' must be letters, digits"),
        ("player email", ("email: alice@example.org}", 'email: "alice@example.org\\n"}'),
         "email 'alice@example.org\\n' is not an address"),
        ("observer email", ("mail:\n", 'observers:\n  - {name: Lewis, email: "lewis@example.org\\n"}\nmail:\n'),
         "observer email 'lewis@example.org\\n' is not an address"),
        ("archive URL", ("mail:\n", 'archive_url: "https://example.org/spring/\\n"\nmail:\n'),
         "archive_url must be an http(s) address"),
    ],
)
def test_a_value_with_a_trailing_newline_is_refused(tmp_path, what, change, said):
    old, new = change
    assert old in GOOD, what
    problems = problems_of(GOOD.replace(old, new, 1), tmp_path / "c")
    assert any(said in p for p in problems), (what, problems)


def test_the_same_values_without_the_newline_load(tmp_path):
    text = GOOD.replace("mail:\n", "observers:\n  - {name: Lewis, email: lewis@example.org}\n"
                                   "archive_url: https://example.org/spring/\nmail:\n", 1)
    config = load_config(write(tmp_path / "c", text))
    assert config.id == "spring-2027" and config.archive_url == "https://example.org/spring/"
    assert [p.id for p in config.players] == ["alice", "bob"] and config.observers[0].email == "lewis@example.org"


def test_4_4_a_team_with_a_trailing_newline_is_refused(tmp_path):
    text = (GOOD.replace("ruleset: postal", "ruleset: advanced").replace("seed: 20270321", f"seed: {2**130}")
            .replace("BOARDS/milton-bradley.yaml", "BOARDS/advanced.yaml").replace("  close_after: all\n", "")
            .replace("{id: alice, name: Alice,", '{id: alice, team: "red\\n", name: Alice,'))
    problems = problems_of(text, tmp_path / "c")
    assert any("team must be an id" in p and "'red\\n'" in p for p in problems), problems
    assert load_config(write(tmp_path / "d", text.replace('"red\\n"', "red"))).players[0].extra == {"team": "red"}


def test_gm_player_commands_match_the_whole_id_and_address(tmp_path, monkeypatch):
    """`gm player replace` and `gm player email` trim what the GM typed, then match it whole:
    nothing after a newline or a space slips through."""
    monkeypatch.setenv("GM_NOW", "2027-01-01T00:00:00Z")
    folder = write(tmp_path / "c", GOOD)
    runner = CliRunner()
    assert runner.invoke(cli, ["-C", str(folder), "start"]).exit_code == 0
    replaced = runner.invoke(cli, ["-C", str(folder), "player", "replace", "alice", "carol\nx",
                                   "--name", "Carol", "--email", "carol@example.org"])
    assert replaced.exit_code == 1 and "must be letters, digits" in replaced.output
    moved = runner.invoke(cli, ["-C", str(folder), "player", "email", "alice", "alice@example.org\nBcc: x@y.z"])
    assert moved.exit_code == 1 and "is not an address" in moved.output


# -- no validating pattern in gm ends in a bare `$` ---------------------------------------


def _patterns(tree: ast.AST):
    """(line, pattern, flags source) of every re.compile/match/search/fullmatch call whose
    pattern is a string literal."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in ("compile", "match", "search", "fullmatch")):
            continue
        if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str | bytes):
            flags = " ".join(ast.unparse(a) for a in (*node.args[1:], *(k.value for k in node.keywords)))
            yield node.lineno, node.args[0].value, flags


def test_no_pattern_in_gm_relies_on_a_bare_dollar():
    """A `$` that ends a pattern is wanted only line by line (re.MULTILINE); anywhere else
    it lets a trailing newline through, so write `\\Z` or use fullmatch."""
    found = []
    for path in sorted(GM.rglob("*.py")):
        for line, pattern, flags in _patterns(ast.parse(path.read_text(encoding="utf-8"))):
            text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
            if re.search(r"(?<!\\)\$\)?$", text) and "MULTILINE" not in flags:
                found.append(f"{path.relative_to(GM.parent)}:{line}: {text!r}")
    assert found == []
