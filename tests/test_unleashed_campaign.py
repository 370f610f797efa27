"""Unleashed as a campaign (docs/rules/unleashed.md, CONTRACT's Unleashed section): what gm start
refuses and draws, the keys of `gm state --json` and `--player`, the default board, and a
whole campaign played by mail with `gm turn` on the Maildir transport (gm demo)."""

from __future__ import annotations

import json

import pytest
import yaml
from campaignkit import PLAIN_PLAYERS, CampaignKit
from click.testing import CliRunner

from gm.campaign.folder import Campaign
from gm.cli import cli
from gm.demo import run as demo_run

STRONG = 2**128


def kit_for(tmp_path, monkeypatch, *, players=3, seed=STRONG + 5, options=None, start=True, **extra):
    made = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS[:players], start=False)
    path = made.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data.pop("boards")
    data.update(ruleset="unleashed", options=options or {"seating": "listed"}, **extra)
    if seed is None:
        data.pop("seed", None)
    else:
        data["seed"] = seed
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    if start:
        made.start()
    return made


def gm(folder, *args):
    return CliRunner().invoke(cli, ["-C", str(folder), *args])


def test_6_12_gm_start_refuses_a_seed_below_2_to_the_128_saying_why(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch, seed=STRONG - 1, start=False)
    result = gm(made.folder, "start")
    assert result.exit_code == 1
    assert "at least 2^128" in result.output and "hand" in result.output
    assert not list(made.folder.glob("*.sqlite")) and "Traceback" not in result.output  # nothing changed


def test_6_12_gm_start_draws_a_seed_of_at_least_2_to_the_128(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch, seed=None)
    with made.campaign() as opened:
        assert opened.config.seed >= STRONG
    made.close()


def test_6_12_no_board_commitment_only_the_seeds(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch)
    with made.campaign() as opened:
        data = opened.state_json()
    made.close()
    assert data["commitments"]["boards"] == {}
    assert len(data["commitments"]["seed"]) == 64


@pytest.mark.parametrize("player_id", ["me", "Leader", "LAST", "next", "none"])
def test_6_13_gm_start_refuses_player_ids_of_the_order_language(tmp_path, monkeypatch, player_id):
    made = kit_for(tmp_path, monkeypatch, start=False)
    path = made.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data["players"][0]["id"] = player_id
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = gm(made.folder, "start")
    assert result.exit_code == 1
    assert player_id in result.output and "order language" in result.output


@pytest.mark.parametrize("count", [1, 7])
def test_6_1_a_campaign_has_2_to_6_players(tmp_path, monkeypatch, count):
    players = [{"id": f"p{i}", "name": f"P {i}", "email": f"p{i}@example.org"} for i in range(count)]
    made = kit_for(tmp_path, monkeypatch, start=False)
    path = made.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data["players"] = players
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = gm(made.folder, "start")
    assert result.exit_code == 1 and "2 to 6 players" in result.output


def test_contract_postal_options_are_refused(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch, options={"numbers": "shared"}, start=False)
    result = gm(made.folder, "start")
    assert result.exit_code == 1 and "numbers" in result.output


def test_6_15_with_boards_exactly_one(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch, start=False)
    path = made.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    from pathlib import Path

    board = str(Path(__file__).resolve().parent.parent / "boards" / "unleashed.yaml")
    data["boards"] = {"A": board, "B": board}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = gm(made.folder, "start")
    assert result.exit_code == 1 and "exactly one board" in result.output


def test_contract_state_json_keys(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch)
    result = gm(made.folder, "state", "--json")
    made.close()
    data = json.loads(result.output)
    assert data["ruleset"] == "unleashed" and data["setup"] is True and data["winners"] == []
    (board_id, board), = data["boards"].items()
    assert board_id == "A"
    assert (board["rows"], board["columns"], board["squares"]) == (6, 10, 60)  # 3 players, super_size
    assert board["trapdoor"] is None and board["closed"] is False and board["reversed"] is False
    assert len(board["cards"]) == 60 and board["items"] == {}
    assert board["locked_cards"] == [] and board["locked_items"] == []
    assert board["draw_pile"] == 132 - 60 - 9
    for piece in board["players"].values():
        assert set(piece) >= {"square", "finished", "placing", "overshoot", "seat", "hand_size"}
        assert piece["hand_size"] == 3 and piece["overshoot"] is None
    for player, facts in data["players"].items():
        assert facts["numbers_left"] is None and facts["aggregate"] is None and facts["place"] is None
        assert len(facts["hand"]) == 3 and facts["seat"] == board["players"][player]["seat"]


def test_contract_state_json_player_shows_no_other_hand(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch)
    made.order("alice", ["REACT BACK LAST", "REACT MOVE-ANY P1 ME+8 carol-3"])
    result = gm(made.folder, "state", "--json", "--player", "alice")
    unknown = gm(made.folder, "state", "--json", "--player", "zed")
    made.close()
    data = json.loads(result.output)
    assert "hand" in data["players"]["alice"]
    assert all("hand" not in facts for p, facts in data["players"].items() if p != "alice")
    # reactions stand from the resolve that reads them; before any turn the private view is empty
    assert data["private"] == {"drew": [], "skipped": [], "reactions": {}}
    assert unknown.exit_code == 1 and "zed" in unknown.output


def test_6_10_max_turns_counts_the_setup_turn(tmp_path, monkeypatch):
    from gm.rules.base import Setup
    from gm.rules.chance import SeededChance
    from gm.rules.unleashed import Unleashed
    from gm.rules.unleashed.options import parse_options
    from gm.yamlfile import LineDict

    ruleset = Unleashed()
    options = parse_options(LineDict({"setup": "players", "max_turns": 1}))
    boards, _ = ruleset.campaign_boards({}, 2, options)
    setup = Setup(boards, ("ann", "bob"), options, STRONG + 1)
    state = ruleset.start(setup, SeededChance(setup.seed)).state
    after = ruleset.resolve(setup, state, {}, SeededChance(setup.seed)).state
    assert after.over and after.winners == []
    assert [after.pawns[p].placing for p in ("ann", "bob")] == [1, 1]


def test_6_a_campaign_runs_to_its_end_by_mail_on_maildir(tmp_path):
    """gm demo --ruleset unleashed: robots that read their hand from their mail write real
    play lists; every week is `gm turn`; the campaign ends with placings and an archive."""
    result = demo_run.play(tmp_path / "demo", ruleset="unleashed", echo=lambda line: None)
    assert result.turns >= 3
    opened = Campaign.open(tmp_path / "demo")
    try:
        data = opened.state_json()
    finally:
        opened.close()
    assert data["over"] and data["winners"]
    assert result.archive is not None and result.archive.is_file()
    page = (result.archive.parent / "player-ada.html").read_text()
    assert "rolls " in page and "<bdi>Ada Runner</bdi> Start -> " in page  # each of the player's goes, step by step
    robots = {r.id: r for r in result.robots}
    assert all(r.read["welcome"] == 1 and r.read["report"] >= 2 for r in robots.values())
    assert robots["felix"].read["refusal"] == 1  # played a card it did not hold, then again
    assert all(robot.hand is not None for robot in robots.values())


def test_6_4_setup_board_refuses_pieces_and_mix_even_on_the_default_board(tmp_path, monkeypatch):
    made = kit_for(tmp_path, monkeypatch, options={"setup": "board", "pieces": 4}, start=False)
    result = gm(made.folder, "start")
    assert result.exit_code == 1 and "pieces and mix cannot be given" in result.output


def test_the_same_demo_seed_plays_the_same_game_whatever_the_hash_seed(tmp_path):
    """The robots must not depend on the order of a set (PYTHONHASHSEED changes it per
    process): the same --seed gives the same campaign."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    outputs = []
    for hash_seed in ("1", "2"):
        folder = tmp_path / hash_seed
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        command = [str(Path(sys.executable).parent / "gm"), "demo", "--ruleset", "unleashed", str(folder), "--quiet"]
        done = subprocess.run(command,
                              env=env, capture_output=True, text=True, check=True)
        outputs.append([line for line in done.stdout.splitlines() if str(folder) not in line])
    assert outputs[0] == outputs[1] and outputs[0]
