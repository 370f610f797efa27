"""A dishonest GM who rewrites the record after announcing the game and mailing
its turns is caught by anyone holding the mail. Each forgery below is made the way such a
GM would make it: change something, then regenerate every later state and draw with gm's
own engine and every receipt, record hash, game text and commitment by docs/audit.md's
documented formulas (written out here from docs/audit.md, not taken from gm). So each one
passes `gm audit` without mail, which proves the formulas are the documented ones, and
fails with the players' mail (the demo's outbox Maildir) or with the game commitment
announced. Edits a GM cannot make consistent (a board without its commitment, dropped last
turns, nmr and dropped lists) fail without either."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from auditforger import canonical, end_link, forge, gm_audit, mixed, published, sha256, standings

from gm.audit.replay import load_record
from gm.boards.model import Board
from gm.demo import run as demo_run
from gm.errors import RulesError
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.registry import BUILT_IN, find_ruleset

RULESETS = sorted(BUILT_IN)


@pytest.fixture(scope="module")
def demos(tmp_path_factory):
    """Each ruleset's demo, played to the end and revealed: name -> its folder."""
    base = tmp_path_factory.mktemp("forgeries")
    for name in RULESETS:
        demo_run.play(base / name, ruleset=name, echo=lambda line: None)
    return {name: base / name for name in RULESETS}


def mail_of(demo: Path) -> Path:
    """The demo's outbox: every mail gm sent its players and observers."""
    return demo / "mail" / "outbox"


def changed_orders(record: dict[str, Any]) -> list[dict[int, dict[str, Any]]]:
    """Ways to change one player's orders for two turns that the rules still play: swap a
    player's orders of two turns running, or (classic, doubles) move a resignation two
    turns later."""
    turns = record["turns"]
    ways = []
    for before, after in zip(turns, turns[1:], strict=False):
        for player in before["orders"]:
            first, second = before["orders"][player], after["orders"].get(player)
            if first.get("resign"):
                ways.append({before["turn"]: {player: {"resign": False}}, before["turn"] + 2: {player: first}})
            elif second is not None and second != first:
                ways.append({before["turn"]: {player: second}, after["turn"]: {player: first}})
    return ways


def forged_orders(record: dict[str, Any], *, places: bool = False) -> dict[str, Any]:
    """The first change of changed_orders that the rules play and that changes the game
    (with `places`: the final standings)."""
    for way in changed_orders(record):
        try:
            forged = forge(record, orders=way)
        except RulesError:
            continue
        if places and standings(forged) != standings(record):
            return forged
        if not places and [t["state"] for t in forged["turns"]] != [t["state"] for t in record["turns"]]:
            return forged
    raise AssertionError("no order of the demo could be changed")


# -- the honest demo --------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_every_demo_audits_with_its_players_mail(demos, ruleset):
    record = load_record(str(demos[ruleset] / "archive"))
    result = gm_audit(demos[ruleset] / "archive", "--mail", mail_of(demos[ruleset]),
                      "--game-commitment", record["game"]["commitment"])
    assert result.exit_code == 0, result.output
    assert "the game announced: the game commitment of" in result.output
    assert "the history mailed: the record hashes of" in result.output
    assert "not checked" not in result.output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_the_forger_remakes_the_honest_record_exactly(demos, ruleset):
    """With nothing changed, the forger's record is the one gm published: the formulas
    it uses, written from docs/audit.md, are gm's."""
    record = load_record(str(demos[ruleset] / "archive"))
    assert forge(record) == record


# -- forgeries that only the mail or the announced game commitment catch ---------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_a_player_s_orders_rewritten_for_two_turns(demos, ruleset, tmp_path):
    record = load_record(str(demos[ruleset] / "archive"))
    forged = forged_orders(record)
    archive = published(forged, demos[ruleset], tmp_path)
    alone = gm_audit(archive)
    assert alone.exit_code == 0, alone.output
    assert "orders not checked against any receipt" in alone.output
    # the orders are not in the game text: the game commitment cannot catch this
    assert gm_audit(archive, "--game-commitment", record["game"]["commitment"]).exit_code == 0
    mailed = gm_audit(archive, "--mail", mail_of(demos[ruleset]))
    assert mailed.exit_code == 1, mailed.output
    assert "audit failed: turn" in mailed.output and "the mail holds" in mailed.output


def test_5_the_postal_forgery_changes_the_standings(demos):
    """What the issue found: a player's orders rewritten move players up and down."""
    record = load_record(str(demos["postal"] / "archive"))
    assert standings(forged_orders(record, places=True)) != standings(record)


@pytest.mark.parametrize("ruleset, options", [
    ("postal", "max_turns"), ("classic", "max_turns"), ("doubles", "max_turns"), ("advanced", "max_turns"),
    ("unleashed", "rotate_start"), ("unleashed", "compulsory_play"),
])
def test_5_options_changed_after_the_start(demos, ruleset, options, tmp_path):
    record = load_record(str(demos[ruleset] / "archive"))
    value = (record["turns"][-1]["turn"] - 2 if options == "max_turns" else not record["options"][options])
    forged = forge(record, options={options: value})
    assert forged["game"] != record["game"] and forged["turns"] != record["turns"]
    archive = published(forged, demos[ruleset], tmp_path)
    assert gm_audit(archive).exit_code == 0
    announced = gm_audit(archive, "--game-commitment", record["game"]["commitment"])
    assert announced.exit_code == 1 and "is not the one announced" in announced.output
    mailed = gm_audit(archive, "--mail", mail_of(demos[ruleset]))
    assert mailed.exit_code == 1 and "the game announced (X-GM-Game in" in mailed.output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_the_seat_order_changed_after_the_start(demos, ruleset, tmp_path):
    record = load_record(str(demos[ruleset] / "archive"))
    forged = forge(record, seats=list(reversed(record["players"])))
    archive = published(forged, demos[ruleset], tmp_path)
    assert gm_audit(archive).exit_code == 0
    assert gm_audit(archive, "--game-commitment", record["game"]["commitment"]).exit_code == 1
    mailed = gm_audit(archive, "--mail", mail_of(demos[ruleset]))
    assert mailed.exit_code == 1 and "X-GM-Game" in mailed.output


# -- forgeries the record alone catches -------------------------------------------------------


def test_5_a_board_without_its_commitment_and_its_snakes_removed(demos, tmp_path):
    """The check used to skip a board without a commitment: the GM could change it unseen."""
    record = load_record(str(demos["postal"] / "archive"))
    board = json.loads(record["boards"][0]["canonical"])
    board["snakes"] = []
    record["boards"][0]["commitment"] = None
    forged = forge(record, boards={"A": canonical(board)})
    assert standings(forged) != standings(record) or forged["turns"] != record["turns"]
    result = gm_audit(published(forged, demos["postal"], tmp_path))
    assert result.exit_code == 1
    assert "board A: board commitment: every board played from a file is committed" in result.output
    forged["boards"][0]["from_seed"] = True  # said to be made from the seed: postal makes none
    result = gm_audit(published(forged, demos["postal"], tmp_path / "2"))
    assert result.exit_code == 1 and "the ruleset's own default board" in result.output


def test_5_unleashed_s_default_board_is_bound_by_the_seed_and_must_be_the_default(demos, tmp_path):
    record = load_record(str(demos["unleashed"] / "archive"))
    assert record["boards"][0] == record["boards"][0] | {"commitment": None, "from_seed": True}
    board = json.loads(record["boards"][0]["canonical"])
    board["lampposts"] = [[5, 9]]
    record["boards"][0]["canonical"] = canonical(board)
    result = gm_audit(published(record, demos["unleashed"], tmp_path))
    assert result.exit_code == 1 and "the ruleset's own default board" in result.output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_the_last_turns_dropped(demos, ruleset, tmp_path):
    record = load_record(str(demos[ruleset] / "archive"))
    last = record["turns"][-3]["turn"]
    record["turns"] = record["turns"][:-2]
    result = gm_audit(published(record, demos[ruleset], tmp_path))
    assert result.exit_code == 1
    assert f"the record stops at turn {last}, the campaign is not over" in result.output
    record["end"] = None
    assert gm_audit(published(record, demos[ruleset], tmp_path / "2")).exit_code == 1


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_a_record_of_no_turns(demos, ruleset, tmp_path):
    record = load_record(str(demos[ruleset] / "archive"))
    record["turns"] = []
    result = gm_audit(published(record, demos[ruleset], tmp_path))
    assert result.exit_code == 1 and "the record holds no turn, the campaign is not over" in result.output


def test_5_the_last_turns_dropped_and_called_a_gm_end_are_caught_by_the_mail(demos, tmp_path):
    """The one cut the record alone cannot tell from a real `gm end`: the reports mailed for
    the turns dropped show it."""
    record = load_record(str(demos["postal"] / "archive"))
    ruleset = find_ruleset("postal")
    record["turns"] = record["turns"][:-2]
    last = record["turns"][-1]
    setup = Setup({b["id"]: Board.from_canonical(b["canonical"]) for b in record["boards"]},
                  tuple(record["players"]), ruleset.options_from_json(record["options"]),
                  int(record["seed"]["value"]))
    state = ruleset.start(setup, SeededChance(setup.seed)).state
    for entry in record["turns"]:
        orders = {p: ruleset.order_from_json(o) for p, o in entry["orders"].items()}
        state = ruleset.resolve(setup, state, orders, SeededChance(mixed(setup.seed, record["entropy"]))).state
    ended = ruleset.end(setup, state).state
    record["end"] = {"by": "gm", "turn": last["turn"], "reason": "forged", "state": ruleset.state_json(setup, ended)}
    record["end"]["record_hash"] = end_link(setup.seed, last["record_hash"], record["end"])
    archive = published(record, demos["postal"], tmp_path)
    alone = gm_audit(archive)
    assert alone.exit_code == 0 and f"by the GM after turn {last['turn']}" in alone.output
    mailed = gm_audit(archive, "--mail", mail_of(demos["postal"]))
    assert mailed.exit_code == 1 and f"the record stops at turn {last['turn']}" in mailed.output


@pytest.mark.parametrize("change, words", [
    (lambda t: t["nmr"].append(next(p for p in t["players"] if p in t["orders"])), "nmr: the players who had to"),
    (lambda t: t.update(nmr=[]), "nmr: the players who had to"),
    (lambda t: t["dropped"].append(t["players"][0]), "dropped: the holders who had left"),
])
def test_5_nmr_and_dropped_lists_edited(demos, tmp_path, change, words):
    """`nmr` is who had to write and is absent from `orders`, `dropped` who had left by the
    seats' history: neither is bound by a hash, so each is recomputed."""
    record = load_record(str(demos["postal"] / "archive"))
    entry = next(t for t in record["turns"] if t["nmr"] and t["orders"])
    change(entry)
    result = gm_audit(published(record, demos["postal"], tmp_path))
    assert result.exit_code == 1 and words in result.output


def test_5_a_drop_written_into_the_seats_history_must_explain_the_orders(demos, tmp_path):
    """A player said to have left at turn 2 who sent orders after it: no dropped player's
    order counts, so the record contradicts itself."""
    record = load_record(str(demos["advanced"] / "archive"))
    player = record["players"][0]
    record["seats"][0][0]["dropped_turn"] = 2
    for entry in record["turns"]:
        if entry["turn"] >= 2:
            entry["dropped"] = [player]
            entry["nmr"] = [p for p in entry["nmr"] if p != player]
    result = gm_audit(published(record, demos["advanced"], tmp_path))
    assert result.exit_code == 1 and "orders: of a player who had left the game" in result.output


def test_5_a_receipt_not_of_the_order_played(demos, tmp_path):
    record = load_record(str(demos["advanced"] / "archive"))
    entry = record["turns"][4]
    player = next(iter(entry["orders"]))
    entry["receipts"][player]["count"] += 1
    result = gm_audit(published(record, demos["advanced"], tmp_path))
    assert result.exit_code == 1 and "receipt of the order played" in result.output


def test_5_a_broken_record_chain(demos, tmp_path):
    record = load_record(str(demos["doubles"] / "archive"))
    record["turns"][3]["record_hash"] = record["turns"][2]["record_hash"]
    result = gm_audit(published(record, demos["doubles"], tmp_path))
    assert result.exit_code == 1 and "record hash (the record chain)" in result.output


def test_5_a_game_text_that_says_other_than_the_record(demos, tmp_path):
    """The game text hashes to its commitment but names other options than those replayed."""
    record = load_record(str(demos["classic"] / "archive"))
    game = json.loads(record["game"]["text"])
    game["options"]["max_turns"] += 1
    record["game"] = {"text": canonical(game), "commitment": sha256(canonical(game))}
    result = gm_audit(published(record, demos["classic"], tmp_path))
    assert result.exit_code == 1 and "game text: options, which the game commitment binds" in result.output


def test_5_the_seed_is_a_decimal_string(demos, tmp_path):
    """A 128-bit number in JSON is rounded by JavaScript's and Go's default readers."""
    record = load_record(str(demos["unleashed"] / "archive"))
    assert isinstance(record["seed"]["value"], str) and int(record["seed"]["value"]) >= 2**128
    record["seed"]["value"] = int(record["seed"]["value"])
    result = gm_audit(published(record, demos["unleashed"], tmp_path))
    assert result.exit_code == 1 and "seed.value: expected a string of decimal digits" in result.output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_5_docs_name_the_state_keys_recorded_and_no_campaign_key(demos, ruleset):
    """docs/audit.md "The state recorded" names every key of a recorded state, and the
    record holds none of the campaign's own keys of `gm state --json` it says are left out."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "audit.md").read_text()
    section = text.split("### The state recorded", 1)[1].split("\n### ", 1)[0]
    left_out = section.split("are not recorded:", 1)[1].split("\n\n", 1)[0]
    record = load_record(str(demos[ruleset] / "archive"))
    for state in (record["opening"]["state"], record["turns"][-1]["state"]):
        board = next(iter(state["boards"].values()))
        piece = next(iter(board["players"].values()))
        player = next(iter(state["players"].values()))
        for key in [*state, *board, *piece, *player]:
            assert f"`{key}`" in section, (ruleset, key)
        for key in [*state, *player]:
            assert f"`{key}`" not in left_out, (ruleset, key)
        assert not {"dropped", "held_by"} & set(player)


def test_5_an_end_by_the_rules_carries_no_state_of_its_own(demos, tmp_path):
    """docs/audit.md: `end.state` is null unless the GM ended the campaign; a state beside an
    end by the rules is something the replay never checks, so it is refused."""
    record = load_record(str(demos["classic"] / "archive"))
    assert record["end"]["by"] in ("rules", "max_turns") and record["end"]["state"] is None
    record["end"]["state"] = record["turns"][-1]["state"]
    result = gm_audit(published(record, demos["classic"], tmp_path))
    assert result.exit_code == 1 and "end: state" in result.output
