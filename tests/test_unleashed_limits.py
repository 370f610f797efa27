"""What a campaign `gm start` accepts can be played to its end: chains of moves
and actions (docs/rules/unleashed.md, Moving-6.9) as long as the board and deck make them resolve without
deep recursion, with the results the rules give (the reference engine agrees), and what
cannot be played (a deck too large for memory, a board no deck can deal) is refused at
`gm start`, naming the option, before anything is built.

The issue's case: a board of 100 levels of 10 squares (1,000 squares), `deck: {FORWARD-9:
1100}`, `pieces: 0`, 6 players. Every square sends someone 9 forward, the sent pawn lands
on another send, and so on: a go can chain 6 pawns x 111 sends, which recursed some
2,500 Python frames deep."""

from __future__ import annotations

import inspect
import json
import random
import sys
from pathlib import Path

import pytest
import unleashed_reference as ref
import yaml
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer
from click.testing import CliRunner
from test_unleashed_differential import diff, make_orders

from gm.boards.model import Board
from gm.cli import cli
from gm.errors import ProblemsError
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.options import MAX_DECK, parse_options
from gm.rules.unleashed.state import Pawn, UnleashedState
from gm.yamlfile import LineDict

R = Unleashed()
SIX = ("ann", "bob", "cat", "dan", "eve", "fay")
ISSUE = {"deck": {"FORWARD-9": 1100}, "pieces": 0}


def long_board(rows: int = 100, columns: int = 10) -> Board:
    return Board.build(rows * columns, levels=[columns] * rows, chains=True).with_extra(cards=None, lampposts=[])


def long_setup(options: dict, seed: int, players=SIX) -> Setup:
    opts = parse_options(LineDict(options))
    boards, problems = R.campaign_boards({"A": long_board()}, len(players), opts)
    assert problems == []
    return Setup(boards, tuple(players), opts, seed)


# -- chains (6.7-6.9) ----------------------------------------------------------------------


def test_6_7_the_issues_chain_of_sends_resolves_every_campaign_to_its_end():
    """40 campaigns of the issue's setup, each to its end (39 of them raised RecursionError)."""
    longest = 0
    for k in range(40):
        setup = long_setup(ISSUE, 2**128 + k)
        state = R.start(setup, SeededChance(setup.seed)).state
        while not state.over:
            out = R.resolve(setup, state, {}, SeededChance(setup.seed))
            longest = max(longest, sum(e.kind == "action" for e in out.events))
            state = out.state
        assert state.winners
    assert longest > 300  # chains as long as the issue's: hundreds of sends in one round


def test_6_7_a_long_chain_keeps_the_python_stack_flat():
    """A campaign of the issue's resolved to its end with the recursion limit far below
    its chains' length."""
    setup = long_setup(ISSUE, 2**128 + 2)
    state = R.start(setup, SeededChance(setup.seed)).state
    longest = 0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 100)
    try:
        while not state.over:
            out = R.resolve(setup, state, {}, SeededChance(setup.seed))
            longest = max(longest, sum(e.kind == "action" for e in out.events))
            state = out.state
    finally:
        sys.setrecursionlimit(limit)
    assert longest > 300


ACTIONS = ["FORWARD-9", "FORWARD-5", "BACK-3", "EXTRA-ROLL", "SWAP-PLAYERS", "+4", "-2", "REVERSE",
           "MOVE-ANY", "SWAP-CARDS", "BLANK"]


def test_6_7_long_chains_give_the_results_of_the_reference_engine():
    """On the issue's long board, with sends, extra rolls, swaps and movement cards on
    most squares, gm (iterative) and the reference engine (recursive, given the stack it
    needs) agree on every state and draw, turn after turn."""
    rng = random.Random(2024)
    longest = 0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        for case in range(8):
            seed = 2**128 + rng.randrange(10**9)
            players = list(SIX[:rng.randint(4, 6)])
            options = {"seating": "listed", "setup": "random", "pieces": 0,
                       "snake_eyes": rng.choice(["off", "evil"]), "deck": {"BLANK": 1100}}
            setup = long_setup(options, seed, players)
            n = 1000
            cards = ["FORWARD-9" if rng.random() < 0.9 else rng.choice(ACTIONS) for _ in range(n)]
            hands = {p: [rng.choice(ACTIONS) for _ in range(3)] for p in players}
            squares = {p: rng.randint(0, 40) for p in players}
            state = UnleashedState(turn=1, rows=100, columns=10, seats=list(players), cards=list(cards),
                                   pile=["BLANK"] * 30, hands={p: list(h) for p, h in hands.items()},
                                   pawns={p: Pawn(s) for p, s in squares.items()})
            mine = ref.build_state(seed, players, options, turn=1, cards=cards, pile=["BLANK"] * 30,
                                   hands=hands, squares=squares, items={})
            mine.rows, mine.cols = 100, 10
            for _ in range(4):
                view = R.state_json(setup, state)
                if view["over"]:
                    break
                orders = make_orders(rng, setup, state, view, players, options["snake_eyes"] == "evil")
                out = R.resolve(setup, state, {p: R.order_from_json(o) for p, o in orders.items()},
                                SeededChance(seed))
                mine = ref.resolve(mine, orders)
                theirs = {"state": R.state_json(setup, out.state), "draws": [d.to_json() for d in out.draws]}
                ours = {"state": ref.state_json(mine), "draws": mine.draws}
                assert diff(theirs, ours) is None, (case, view["turn"], diff(theirs, ours))
                longest = max(longest, sum(e.kind == "action" for e in out.events))
                state = out.state
    finally:
        sys.setrecursionlimit(limit)
    assert longest > 150  # the recursive reference needs some 4 Python frames per action


# -- limits checked at gm start ------------------------------------------------------------


def refused(**options) -> list[str]:
    with pytest.raises(ProblemsError) as caught:
        parse_options(LineDict(options))
    return caught.value.problems


def test_6_2_a_deck_of_more_than_the_most_cards_is_refused_naming_the_option():
    assert refused(deck={"BLANK": 20_000}) == [
        "line 0: option deck holds 20000 cards; a deck holds at most 2,000 (the standard deck 132)"]
    assert refused(deck={"BLANK": 10**40, "+1": 10**40})[0].startswith("line 0: option deck holds")
    assert sum(parse_options(LineDict({"deck": {"BLANK": MAX_DECK - 1, "+1": 1}})).deck.values()) == MAX_DECK


def test_6_15_a_board_no_deck_can_deal_is_refused_saying_so():
    board = Board.build(2000, levels=[40] * 50, chains=True).with_extra(cards=None, lampposts=[])
    _, problems = R.campaign_boards({"A": board}, 3, parse_options(LineDict({"deck": {"BLANK": MAX_DECK}})))
    assert problems == ["board A: 2000 squares and 3 cards for each of 3 players need 2009 cards, but a deck "
                        "holds at most 2,000: the board is too large for Unleashed"]


SIX_PLAYERS = (*PLAIN_PLAYERS, KitPlayer("erin", "Erin", "erin@example.org", "pw-erin"),
               KitPlayer("frank", "Frank", "frank@example.org", "pw-frank"))


def unleashed_folder(tmp_path: Path, monkeypatch, options: dict, board: str | None = None) -> CampaignKit:
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=SIX_PLAYERS, start=False)
    path = kit.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data.pop("boards")
    if board is not None:
        (kit.folder / "long.yaml").write_text(board)
        data["boards"] = {"A": "long.yaml"}
    data.update(ruleset="unleashed", seed=2**128 + 7, options=options)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return kit


def gm(folder, *args):
    return CliRunner().invoke(cli, ["-C", str(folder), *args])


def test_6_2_gm_start_refuses_a_deck_too_large_in_one_line_and_changes_nothing(tmp_path, monkeypatch):
    kit = unleashed_folder(tmp_path, monkeypatch, {"deck": {"BLANK": 20_000}})
    result = gm(kit.folder, "start")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "option deck holds 20000 cards; a deck holds at most 2,000" in result.output
    assert not list(kit.folder.glob("*.sqlite"))


def test_6_7_the_issues_campaign_starts_and_gm_resolve_plays_its_chains(tmp_path, monkeypatch):
    board = "squares: 1000\nshape: {levels: [" + ", ".join(["10"] * 100) + "]}\n"
    kit = unleashed_folder(tmp_path, monkeypatch, ISSUE, board)
    assert gm(kit.folder, "start").exit_code == 0
    for _ in range(30):
        if json.loads(gm(kit.folder, "state", "--json").output)["over"]:
            break
        for args in (("resolve", "--preview", "--force"), ("resolve", "--force")):
            result = gm(kit.folder, *args)
            assert result.exit_code == 0 and "internal error" not in result.output, result.output
    assert json.loads(gm(kit.folder, "state", "--json").output)["winners"]
