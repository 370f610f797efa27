"""docs/audit.md, "Limits" and "A record of the wrong shape": a gm-audit/3 record of another
shape than the page's (a key missing, a list where an object is, a string where a number
is) is refused: `gm audit` exits 1 with one line naming the key, never a Python error (a
gm-audit/1 or /2 record of the wrong shape still exits 3: tests/test_audit.py)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gm.audit.checks import Difference
from gm.audit.replay import Replayed, audit, load_record
from gm.audit.source import RecordMalformed, RecordUnreadable
from gm.cli import cli
from gm.demo import run as demo_run
from gm.rules.registry import BUILT_IN

GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "archive"
PYTHON_ERROR = re.compile(r"Traceback|\w+Error\b|string indices|object is not|has no attribute")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each ruleset's demo record, played to the end and revealed, and the golden postal one."""
    base = tmp_path_factory.mktemp("shape-demos")
    found = {"golden": load_record(str(GOLDEN))}
    for name in sorted(BUILT_IN):
        demo_run.play(base / name, ruleset=name, echo=lambda line: None)
        found[name] = load_record(str(base / name / "archive"))
    return found


def gm_audit(record: dict[str, Any], tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(cli, ["audit", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_a_receipt_that_is_a_bare_string_is_refused_naming_the_key(tmp_path):
    record = load_record(str(GOLDEN))
    record["turns"][2]["receipts"]["alice"] = "66aa6107"
    code, output = gm_audit(record, tmp_path)
    assert code == 1, output
    assert "turns[2].receipts.alice: expected an object or null, found a string" in output
    assert not PYTHON_ERROR.search(output), output


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        holder = record
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
    return change


def _drop(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        holder = record
        for key in path[:-1]:
            holder = holder[key]
        del holder[path[-1]]
    return change


@pytest.mark.parametrize("change, words", [
    (_set(("turns", 0, "orders"), ["alice"]), "turns[0].orders: expected an object, found a list"),
    (_set(("turns", 1, "turn"), "2"), "turns[1].turn: expected a whole number, found a string"),
    (_set(("turns", 1, "turn"), True), "turns[1].turn: expected a whole number, found true"),
    (_drop(("turns", 0, "nmr")), "turns[0].nmr: missing (expected a list)"),
    (_set(("boards", 0), ["A"]), "boards[0]: expected an object, found a list"),
    (_set(("players",), "alice bob"), "players: expected a list, found a string"),
    (_set(("seats", 1, 0, "from_turn"), "1"), "seats[1][0].from_turn: expected a whole number, found a string"),
    (_set(("seed", "value"), 20270321), "seed.value: expected a string of decimal digits, found a number"),
    (_set(("game",), "4b11"), "game: expected an object or null, found a string"),
    (_set(("end", "turn"), [23]), "end.turn: of another type than docs/audit.md gives"),
    (_set(("opening", "draws"), {}), "opening.draws: expected a list, found an object"),
    (_set(("turns", 3, "receipts", "bob", "count"), "1"),
     "turns[3].receipts.bob.count: expected a whole number or null, found a string"),
    (_set(("player_keys",), []), "player_keys: expected an object, found a list"),
    (_drop(("turns",)), "turns: missing (expected a list)"),
    (_set(("turns", 0, "orders", "alice", "numbers"), "1"), "turns[0].orders.alice: a value the postal rules"),
], ids=["orders-as-list", "turn-as-string", "turn-as-true", "nmr-missing", "board-as-list",
        "players-as-string", "seat-turn-as-string", "seed-as-number", "game-as-string", "end-turn-as-list",
        "draws-as-object", "count-as-string", "player-keys-as-list", "turns-missing",
        "order-of-another-shape"])
def test_a_record_of_the_wrong_shape_is_refused_naming_the_key(tmp_path, change, words):
    record = load_record(str(GOLDEN))
    change(record)
    code, output = gm_audit(record, tmp_path)
    # an order the ruleset cannot read is past what can be checked at all (exit 3)
    assert code == (3 if "a value the postal rules" in words else 1), output
    assert words in output, output
    assert not PYTHON_ERROR.search(output), output


def test_an_option_of_another_type_is_beyond_what_the_ruleset_plays(tmp_path):
    """docs/audit.md, Limits: the options are checked against the ruleset before anything
    is built from them; one it cannot read is refused (exit 3), named, never an error."""
    record = load_record(str(GOLDEN))
    record["options"]["max_turns"] = "200"
    code, output = gm_audit(record, tmp_path)
    assert code == 3 and "option max_turns must be a whole number" in output, output
    assert not PYTHON_ERROR.search(output), output


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a record but `format` and the insides of a state (which is compared
    whole: anything changed there is a difference)."""
    if path:
        yield path
    if path and path[-1] == "state":
        return
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if path or key != "format":
            yield from _paths(item, (*path, key))


_OTHERS = [None, True, False, 0, 3, -1, 2**70, "", "x", "3", [], [1], ["x"], {}, {"a": 1}, {"player": "alice"}]


def _kind(value: Any) -> str:
    return "bool" if isinstance(value, bool) else type(value).__name__


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_record_with_a_value_of_another_type_is_refused_or_a_difference_never_an_error(records, data):
    """Any one value of any ruleset's record replaced by one of another JSON type: `gm
    audit`'s replay gives a difference or refuses the record's shape (exit 3), naming a
    key; it never stops on a Python error."""
    name = data.draw(st.sampled_from(sorted(records)))
    record = copy.deepcopy(records[name])
    path = data.draw(st.sampled_from(list(_paths(record))))
    holder = record
    for key in path[:-1]:
        holder = holder[key]
    value = data.draw(st.sampled_from([v for v in _OTHERS if _kind(v) != _kind(holder[path[-1]])]))
    holder[path[-1]] = value
    try:
        outcome = audit(record)
    except (RecordMalformed, RecordUnreadable) as error:
        assert str(error).startswith(("the record's shape: ", "the record's options")), error
        assert not PYTHON_ERROR.search(str(error)), error
        return
    assert isinstance(outcome, Difference | Replayed)
    if isinstance(outcome, Difference):
        assert not PYTHON_ERROR.search(str(outcome)), outcome
