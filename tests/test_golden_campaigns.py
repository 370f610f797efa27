"""Golden campaigns (OpenSpiel's playthroughs): for every registered ruleset, one whole
campaign played through the rules core, turn by turn: the orders, every random draw, the
events and the state (`gm state --json`'s ruleset part) after each turn. The test replays
each from its setup and orders, with the seeded chance and again from the recorded draws
alone, and compares everything. A ruleset without a golden campaign fails the test.

Golden files: tests/data/golden/campaigns/<ruleset>.json. When a change to a ruleset's
results is intended, regenerate with

    GM_REGEN_GOLDEN=1 python -m pytest tests/test_golden_campaigns.py

and read `git diff tests/data/golden/campaigns` before committing it: accept it only when
every difference is one the change meant to make.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from gm.boards.model import Board
from gm.rules import registry
from gm.rules.base import Outcome, Ruleset, Setup
from gm.rules.chance import ReplayChance, SeededChance
from gm.yamlfile import parse

GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "campaigns"
BOARDS = Path(__file__).resolve().parent.parent / "boards"
MAX_TURNS = 80


def postal_orders(setup: Setup, state: Any, turn: int) -> dict[str, dict[str, Any]]:
    """Varied postal orders: numbers picked by player and turn from those held, an NMR now
    and then, and votes that elect trapdoors and sometimes tie."""
    orders = {}
    for index, player in enumerate(setup.players):
        if (turn + index) % 5 == 4:
            continue  # NMR
        held = state.hands[player]["*"]
        needs = registry.find_ruleset("postal").must_order(setup, state, player)
        numbers = {"*": held[(turn * 7 + index) % len(held)]} if needs else {}
        trapdoors = {}
        for b, board in setup.boards.items():
            # odd and even players vote for two squares: 3 against 2, or 2 against 2 (a tie
            # the seed breaks) when an NMR leaves one out
            trapdoors[b] = 1 + (turn * 5 + index % 2) % board.squares
        orders[player] = {"numbers": numbers, "trapdoors": trapdoors}
    return orders


def dice_orders(resigns: dict[int, tuple[str, bool]]) -> Callable[[Setup, Any, int], dict[str, dict[str, Any]]]:
    """Classic and doubles orders: nobody must write; in the turns named, a player sends
    RESIGN (True) or RESIGN NONE (False)."""

    def orders(setup: Setup, state: Any, turn: int) -> dict[str, dict[str, Any]]:
        player, resign = resigns.get(turn, (None, False))
        return {player: {"resign": resign}} if player else {}

    return orders


def advanced_orders(setup: Setup, state: Any, turn: int) -> dict[str, dict[str, Any]]:
    """Varied advanced orders: mostly MOVE, an NMR now and then, and builds of snakes and
    ladders one to three squares down, so that some are built and others fail on the
    roll, the distance, a square already holding an item end, or from too low a square."""
    orders = {}
    for index, player in enumerate(setup.players):
        if state.ended[player]:
            continue
        if (turn + index) % 6 == 5:
            continue  # NMR: a MOVE marked nmr
        square = state.squares[player]
        if square >= 1 and (turn + index) % 3 == 0:
            item = "snake" if (turn + index) % 2 else "ladder"
            orders[player] = {"action": "build", "item": item, "target": max(square - 1 - turn % 3, 0)}
        else:
            orders[player] = {"action": "move", "item": None, "target": None}
    return orders


def unleashed_orders(setup: Setup, state: Any, turn: int) -> dict[str, dict[str, Any]]:
    """Varied Unleashed orders: PLACE lists in the setup turn (some illegal, so default
    picks follow), then play lists from the hand with relative squares and choices given
    or left out, reactions set and emptied, PLAY NONE, and an NMR now and then."""
    orders: dict[str, dict[str, Any]] = {}
    items = ("S4", "L4", "P1", "S1", "L1")
    for index, player in enumerate(setup.players):
        if state.pawns[player].finished or (turn + index) % 5 == 4:
            continue  # finished, or NMR
        order: dict[str, Any] = {"sent": True, "plays": None, "reactions": {}, "places": None}
        if state.setup:
            order["places"] = [[items[(index + k) % len(items)], 1 + (index * 7 + k * 5) % 20,
                                11 + (index * 7 + k * 5) % 20] for k in range(3)]
        elif (turn + index) % 7 == 3:
            order["plays"] = []  # PLAY NONE
        else:
            words = ("LEADER+7", "ME+6", "LAST+3", "NEXT+1", "ME+2", "17")
            choices = {"FORWARD": "LAST", "BACK": "LEADER", "SWAP-PLAYERS": "ME LEADER", "SWAP-CARDS": "ME+1 ME+7",
                       "MOVE-SNAKE": "S4 LEADER+7 LEADER-3", "MOVE-ANY": "P1 ME+5 ME+15"}
            plays = []
            for k, card in enumerate(state.hands[player]):
                kind = card.rsplit("-", 1)[0] if card[:1] not in "+-" else card
                given = choices.get(kind) if (turn + k) % 2 else None
                plays.append([card, words[(turn + index + k) % len(words)], given])
            order["plays"] = plays
        if (turn + index) % 4 == 1:
            order["reactions"] = {"BACK": ["LEADER", "NEXT"], "SWAP-PLAYERS": ["ME LEADER"],
                                  "MOVE-ANY": ["P1 ME+8 ME+18"]}
        elif (turn + index) % 9 == 8:
            order["reactions"] = {"BACK": []}  # REACT BACK NONE
        orders[player] = order
    return orders


# How each built-in ruleset's golden campaign is set up and ordered.
PLAYTHROUGHS: dict[str, dict[str, Any]] = {
    "postal": {
        "boards": {"A": "small.yaml", "B": "ziggurat.yaml"},
        "players": ["ann", "ben", "cat", "dan", "eve"],
        "options": {"close_after": 3, "double_turns": True, "trapdoor_threshold": 2, "max_turns": 40},
        "seed": 90210,
        "orders": postal_orders,
    },
    "classic": {
        "boards": {"A": "small.yaml"},
        "players": ["ann", "ben", "cat", "dan"],
        "options": {"close_after": 2, "enter_on_one": True},
        "seed": 2010,
        "orders": dice_orders({3: ("ben", False), 6: ("dan", True)}),
    },
    "doubles": {
        "boards": {"A": "small.yaml"},
        "players": ["ann", "ben", "cat", "dan"],
        "options": {"close_after": "all"},
        "seed": 4004,
        "orders": dice_orders({4: ("ben", False), 6: ("dan", True)}),
    },
    "advanced": {
        "boards": {"A": "ziggurat.yaml"},
        "players": ["ann", "ben", "cat", "dan"],
        "player_keys": {"ben": {"team": "blue"}, "dan": {"team": "blue"}},
        "options": {"max_turns": 60},
        "seed": 2**128 + 3003,
        "orders": advanced_orders,
    },
    "unleashed": {
        "boards": {},  # the default board of docs/rules/unleashed.md, The board (5 x 10 for five players)
        "players": ["ann", "ben", "cat", "dan", "eve"],
        "options": {"setup": "players", "two_card_placement": True, "snake_eyes": "evil", "compulsory_play": True},
        "seed": 2**128 + 6006,
        "orders": unleashed_orders,
    },
}


def events_json(events: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(e) for e in events]


def snapshot(ruleset: Ruleset, setup: Setup, outcome: Outcome, **extra: Any) -> dict[str, Any]:
    """As the golden file holds it (through JSON, so tuples compare as lists)."""
    return json.loads(json.dumps(extra | {
        "draws": [d.to_json() for d in outcome.draws],
        "events": events_json(outcome.events),
        "state": ruleset.state_json(setup, outcome.state),
    }))


def make_setup(ruleset: Ruleset, data: Mapping[str, Any]) -> Setup:
    boards = {b: Board.from_canonical(text) for b, text in data["boards"].items()}
    options = ruleset.parse_options(parse(yaml.safe_dump(dict(data["options"]))) or {})
    player_keys = {p: dict(keys) for p, keys in data.get("player_keys", {}).items()}
    return Setup(boards, tuple(data["players"]), options, data["seed"], player_keys)


def play(name: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A whole golden campaign from its spec, as the file holds it."""
    ruleset = registry.find_ruleset(name)
    boards = {b: ruleset.read_board(BOARDS / f) for b, f in spec["boards"].items()}
    if not boards:  # the ruleset's default board
        options = ruleset.parse_options(parse(yaml.safe_dump(dict(spec["options"]))) or {})
        boards, problems = ruleset.campaign_boards({}, len(spec["players"]), options)
        assert not problems, problems
    data = {
        "ruleset": name,
        "boards": {b: board.canonical_text() for b, board in boards.items()},
        "players": spec["players"],
        "player_keys": spec.get("player_keys", {}),  # advanced: the teams
        "options": spec["options"],
        "seed": spec["seed"],
    }
    setup = make_setup(ruleset, data)
    opening = ruleset.start(setup, SeededChance(setup.seed))
    data["opening"] = snapshot(ruleset, setup, opening)
    order_for: Callable = spec["orders"]
    state, turns = opening.state, []
    while not state.over:
        assert len(turns) < MAX_TURNS, f"the {name} golden campaign did not end"
        orders = order_for(setup, state, state.turn)
        outcome = ruleset.resolve(setup, state, {p: ruleset.order_from_json(o) for p, o in orders.items()},
                                  SeededChance(setup.seed))
        turns.append(snapshot(ruleset, setup, outcome, turn=state.turn, orders=orders))
        state = outcome.state
    data["turns"] = turns
    return data


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.json"


@pytest.mark.parametrize("name", sorted(registry.BUILT_IN))
def test_every_registered_ruleset_has_a_golden_campaign(name):
    if os.environ.get("GM_REGEN_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        text = json.dumps(play(name, PLAYTHROUGHS[name]), indent=1, ensure_ascii=False)
        golden_path(name).write_text(text + "\n", encoding="utf-8")
    assert name in PLAYTHROUGHS, f"ruleset {name} has no playthrough in this test"
    assert golden_path(name).is_file(), f"ruleset {name} has no golden campaign: regenerate (module docstring)"


@pytest.mark.parametrize("name", sorted(registry.BUILT_IN))
def test_golden_campaign_replays_exactly_from_its_seed_and_from_its_draws(name):
    """Start and every turn, from the golden's setup and orders: the same draws, events
    and state with the seeded chance, and the same outcome again from the draws alone."""
    golden = json.loads(golden_path(name).read_text(encoding="utf-8"))
    ruleset = registry.find_ruleset(golden["ruleset"])
    setup = make_setup(ruleset, golden)
    opening = ruleset.start(setup, SeededChance(setup.seed))
    assert snapshot(ruleset, setup, opening) == golden["opening"]
    state = opening.state
    for recorded in golden["turns"]:
        assert state.turn == recorded["turn"]
        orders = {p: ruleset.order_from_json(o) for p, o in recorded["orders"].items()}
        outcome = ruleset.resolve(setup, state, orders, SeededChance(setup.seed))
        assert snapshot(ruleset, setup, outcome, turn=state.turn, orders=recorded["orders"]) == recorded, (
            f"{name} turn {recorded['turn']} differs from its golden")
        replayed = ruleset.resolve(setup, state, orders, ReplayChance(outcome.draws))
        assert replayed == outcome
        state = outcome.state
    assert state.over


def test_golden_campaign_exercises_what_it_should():
    """The postal golden is worth its size: double turns, NMR picks, elected trapdoors
    and a tie drawn by the seed, and a campaign that ends."""
    golden = json.loads(golden_path("postal").read_text(encoding="utf-8"))
    kinds = {d["kind"] for t in golden["turns"] for d in t["draws"]}
    assert kinds == {"nmr", "trapdoor"}
    assert any(t["state"]["turn"] - t["turn"] == 2 for t in golden["turns"])  # a double turn
    assert any(b["trapdoor"] for t in golden["turns"] for b in t["state"]["boards"].values())
    assert golden["turns"][-1]["state"]["over"]


def test_advanced_golden_has_a_team_of_two_placed_together():
    """The golden's Setup carries the players' `team` keys: ben and dan play as one team."""
    golden = json.loads(golden_path("advanced").read_text(encoding="utf-8"))
    assert golden["player_keys"] == {"ben": {"team": "blue"}, "dan": {"team": "blue"}}
    last = golden["turns"][-1]["state"]
    assert last["teams"]["blue"]["members"] == ["ben", "dan"]
    assert last["players"]["ben"]["place"] == last["players"]["dan"]["place"] == last["teams"]["blue"]["placing"]
