"""The options and boards of a record are checked against the ruleset's limits
before anything is built from them. A GM's record of a few hundred bytes asking for a
deck of 100,000 cards, or a board of ten million squares, would have the auditor's
machine shuffle or build it first; made consistent with a game text that hashes to its
commitment, nothing else would stop it. Such a record could not be checked: exit 3 within
30 s and 1 GiB, never 1 (a finding) and never a traceback."""

from __future__ import annotations

import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from auditforger import canonical

from gm.audit.replay import load_record
from gm.demo import run as demo_run

GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "archive"


@pytest.fixture(scope="module")
def unleashed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("limits") / "unleashed"
    demo_run.play(folder, ruleset="unleashed", echo=lambda line: None)
    return load_record(str(folder / "archive"))


def consistent(record):
    """The game text remade to say what the record now plays with, and its commitment."""
    game = json.loads(record["game"]["text"]) | {"options": record["options"], "boards": {
        b["id"]: b["commitment"] for b in record["boards"] if b["commitment"] is not None}}
    record["game"] = {"text": canonical(game), "commitment": hashlib.sha256(canonical(game).encode()).hexdigest()}
    return record


def audited(record, tmp_path):
    """`gm audit` of `record` as a player runs it: exit status, output, seconds."""
    (tmp_path / "audit.json").write_text(json.dumps(record))
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", "from gm.cli import main; main()", "audit", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr, time.monotonic() - began


def test_25_a_deck_of_100000_cards_is_refused_before_it_is_shuffled(unleashed, tmp_path):
    record = consistent(unleashed | {"options": unleashed["options"] | {"deck": {"BLANK": 100_000}, "white_dots": {}}})
    code, output, seconds = audited(record, tmp_path)
    assert code == 3, output
    assert "option deck holds 100000 cards; a deck holds at most 2,000" in output
    assert "Traceback" not in output and "line 0" not in output
    assert seconds < 30 and resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 < 2**30


def test_25_a_board_larger_than_any_board_is_refused(tmp_path):
    """A board of ten million squares, committed to and bound by the game text."""
    record = json.loads((GOLDEN / "audit.json").read_text())
    entry = record["boards"][0]
    board = json.loads(entry["canonical"]) | {"squares": 10_000_000, "levels": [10_000_000], "offsets": [0]}
    entry["canonical"] = canonical(board)
    entry["commitment"] = hashlib.sha256(f"{entry['salt']}\n{entry['canonical']}".encode()).hexdigest()
    code, output, seconds = audited(consistent(record), tmp_path)
    assert code == 3 and "board A of the record is no board gm plays" in output and "Traceback" not in output
    assert seconds < 30


def test_25_options_with_a_mix_read_back_as_written(unleashed):
    """unleashed writes mix as {"S": ..., "L": ..., "P": ...}; the checked read takes it."""
    from gm.rules.registry import find_ruleset

    ruleset = find_ruleset("unleashed")
    written = unleashed["options"] | {"mix": {"S": 3, "L": 3, "P": 1}}
    assert ruleset.options_to_json(ruleset.options_from_json(written)) == written
