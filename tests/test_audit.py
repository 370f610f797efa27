"""Anyone re-adjudicates a revealed campaign from its published archive alone.
`gm audit` replays every demo exactly; before the reveal nothing of the record is
published; each way a dishonest GM could tamper with a published archive (an order, a
draw, a result, a board against its commitment, the seed against its commitment) fails
the audit at the right turn; the archive can be read over HTTP; a seat handed over
mid-campaign replays too."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path

import pytest
from auditforger import gm_audit, tampered
from campaignkit import CampaignKit
from click.testing import CliRunner

from gm.audit.checks import Difference
from gm.audit.replay import FORMAT, Replayed, audit, load_record
from gm.audit.source import AUDIT_FILE
from gm.cli import cli
from gm.demo import run as demo_run
from gm.rules.registry import BUILT_IN

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demos(tmp_path_factory):
    """Each ruleset's demo, played to the end and revealed: folder -> its archive."""
    base = tmp_path_factory.mktemp("demos")
    archives = {}
    for name in sorted(BUILT_IN):
        demo_run.play(base / name, ruleset=name, echo=lambda line: None)
        archives[name] = base / name / "archive"
    return archives


@pytest.mark.parametrize("ruleset", sorted(BUILT_IN))
def test_17_every_demo_archive_replays_exactly(demos, ruleset):
    result = gm_audit(demos[ruleset])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"ok: demo ({ruleset}) replays exactly")
    record = load_record(str(demos[ruleset]))
    assert record["format"] == FORMAT and record["turns"]
    assert f"seed commitment {record['seed']['commitment']}" in result.output


def test_17_a_changed_order_fails_at_its_turn(demos, tmp_path):
    """Another number the player held that turn, as if the GM had played it for them."""
    record = load_record(str(demos["postal"]))
    index, player, other = next(
        (i, p, n) for i in range(1, len(record["turns"]))
        for p, order in record["turns"][i]["orders"].items() if order["numbers"]
        for n in record["turns"][i - 1]["state"]["players"][p]["numbers_left"] if n != order["numbers"]["*"])

    def change(tampered_record):
        tampered_record["turns"][index]["orders"][player]["numbers"]["*"] = other

    found = audit(load_record(str(tampered(demos["postal"], tmp_path, change))))
    assert isinstance(found, Difference)
    assert found.turn == record["turns"][index]["turn"] and found.what.startswith("state")


def test_17_an_order_the_rules_cannot_play_fails_at_its_turn(demos, tmp_path):
    def change(record):
        order = next(o for o in record["turns"][3]["orders"].values() if o["numbers"])
        order["numbers"]["*"] = 9  # no player ever holds a 9

    result = gm_audit(tampered(demos["postal"], tmp_path, change))
    turn = load_record(str(demos["postal"]))["turns"][3]["turn"]
    assert result.exit_code == 1 and f"turn {turn}: orders" in result.output


def test_17_a_changed_draw_fails_at_its_turn_by_the_formula(demos, tmp_path):
    def change(record):
        draw = record["turns"][3]["draws"][0]
        draw["index"] = (draw["index"] + 1) % len(draw["candidates"])

    copy = tampered(demos["classic"], tmp_path, change)
    result = gm_audit(copy)
    assert result.exit_code == 1
    turn = load_record(str(demos["classic"]))["turns"][3]["turn"]
    assert f"turn {turn}" in result.output and "seed formula" in result.output


def test_17_a_changed_result_fails_at_its_turn_naming_board_and_player(demos, tmp_path):
    def change(record):
        board = next(iter(record["turns"][2]["state"]["boards"].values()))
        piece = board["players"]["ada"]
        piece["square"] = piece["square"] + 1

    found = audit(load_record(str(tampered(demos["doubles"], tmp_path, change))))
    assert isinstance(found, Difference)
    assert found.turn == load_record(str(demos["doubles"]))["turns"][2]["turn"]
    assert (found.board, found.player) == ("A", "ada") and found.found == found.expected + 1


def test_17_a_board_that_does_not_match_its_commitment_fails(demos, tmp_path):
    def change(record):
        board = json.loads(record["boards"][0]["canonical"])
        board["snakes"] = board["snakes"][1:]  # one snake fewer than committed to
        record["boards"][0]["canonical"] = json.dumps(board, sort_keys=True, separators=(",", ":"))

    result = gm_audit(tampered(demos["postal"], tmp_path, change))
    assert result.exit_code == 1 and "commitments, board A: board commitment" in result.output


def test_17_a_seed_that_does_not_match_its_commitment_fails(demos, tmp_path):
    def change(record):
        record["seed"]["value"] = str(int(record["seed"]["value"]) + 1)  # a decimal string (gm-audit/2)

    result = gm_audit(tampered(demos["unleashed"], tmp_path, change))
    assert result.exit_code == 1 and "seed commitment" in result.output


def test_17_a_seed_commitment_not_the_one_given_at_start_fails(demos):
    result = gm_audit(demos["advanced"], "--seed-commitment", "0" * 64)
    assert result.exit_code == 1 and "not the one you were given" in result.output


def test_17_an_unleashed_changed_play_fails_at_its_turn(demos, tmp_path):
    def change(record):
        for entry in record["turns"][1:]:
            for order in entry["orders"].values():
                if order["plays"]:
                    order["plays"] = []  # PLAY NONE instead of the play list
                    return

    found = audit(load_record(str(tampered(demos["unleashed"], tmp_path, change))))
    assert isinstance(found, Difference) and found.turn is not None and found.turn >= 2


def test_17_an_archive_read_over_http_replays(demos):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(demos["classic"]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        result = gm_audit(url)
        missing = gm_audit(url + "nowhere/")
    finally:
        server.shutdown()
    assert result.exit_code == 0 and "replays exactly" in result.output
    assert missing.exit_code == 3 and "cannot read" in missing.output  # could not be checked


def test_17_no_record_before_the_reveal_and_one_after(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    kit.play_to_end()
    runner = CliRunner()
    runner.invoke(cli, ["-C", str(kit.folder), "publish"], catch_exceptions=False)
    archive = kit.folder / "archive"
    assert not (archive / AUDIT_FILE).exists()
    before = gm_audit(archive)
    assert before.exit_code == 3 and "once the campaign is revealed" in before.output
    runner.invoke(cli, ["-C", str(kit.folder), "reveal"], catch_exceptions=False)
    kit.close()
    assert gm_audit(archive).exit_code == 0
    assert 'href="audit.json"' in (archive / "boards.html").read_text()


def test_17_a_seat_handed_over_mid_campaign_replays(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    kit.play_turn()
    kit.close()  # the kit keeps its campaign open: read it afresh once the seat has changed hands
    runner = CliRunner()
    result = runner.invoke(cli, ["-C", str(kit.folder), "player", "replace", "bob", "dora", "--name", "Dora",
                                 "--email", "dora@example.org"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    kit.players = tuple(p for p in kit.players if p.id != "bob")  # dora never writes: the rules pick for her
    kit.play_to_end()
    runner.invoke(cli, ["-C", str(kit.folder), "reveal"], catch_exceptions=False)
    kit.close()
    record = load_record(str(kit.folder / "archive"))
    assert "bob" in record["players"] and "dora" in record["turns"][-1]["players"]
    assert isinstance(audit(record), Replayed)


def test_17_a_record_of_the_wrong_shape_is_refused_naming_the_key(demos, tmp_path):
    """docs/audit.md, A record of the wrong shape: a gm-audit/3 record with a key missing is
    refused (exit 1), named by its key, never a traceback."""
    copy = tampered(demos["postal"], tmp_path, lambda record: record["turns"][0].pop("orders"))
    result = gm_audit(copy)
    assert result.exit_code == 1 and "turns[0].orders: missing" in result.output
    assert "Traceback" not in result.output


def test_17_an_older_record_of_the_wrong_shape_still_exits_3(demos, tmp_path):
    """docs/audit.md: a gm-audit/2 record of the wrong shape cannot be checked (exit 3)."""
    copy = tampered(demos["postal"], tmp_path,
                    lambda record: record.update(format="gm-audit/2") or record["turns"][0].pop("orders"))
    result = gm_audit(copy)
    assert result.exit_code == 3 and "turns[0].orders: missing" in result.output


def test_17_the_format_is_documented_key_by_key():
    text = (ROOT / "docs" / "audit.md").read_text()
    record_keys = ("format", "campaign", "ruleset", "ruleset_version", "seed", "game", "boards", "from_seed",
                   "options", "players", "player_keys", "seats", "opening", "turns", "end")
    turn_keys = ("turn", "players", "orders", "receipts", "nmr", "dropped", "draws", "state", "record_hash")
    assert FORMAT in text
    for key in record_keys + turn_keys:
        assert f"`{key}`" in text, key


def test_17_the_golden_archive_replays_exactly():
    """The archive tests/test_archive.py pins byte for byte carries a record that replays."""
    result = gm_audit(ROOT / "tests" / "data" / "golden" / "archive")
    assert result.exit_code == 0, result.output
