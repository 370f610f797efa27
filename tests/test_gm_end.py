"""`gm end` (CONTRACT.md; RULES.md 5 "What an audit proves"): the GM ends a running
campaign after its last resolved turn, as if `max_turns` had been reached there, each
ruleset placing the players by its own rules for a campaign cut short (RULES.md 2.3 for
postal, 4.1 End (c) for classic and doubles, 4.4's max_turns end for advanced, 6.10's for
unleashed).

The rules core: `Ruleset.end` after turn t gives exactly the state `resolve` gives for turn
t under `max_turns: t`, for every turn of a campaign of each ruleset. The command: its
refusals, the final mail to every player and observer with the reason, the campaign over
for `gm status` and `gm state --json`, `gm reveal`, `gm publish` and `gm audit` after it,
and one transaction."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from gm.errors import RulesError
from gm.rules.advanced import AdvancedOrder
from gm.rules.base import Ruleset, Setup
from gm.rules.chance import SeededChance
from gm.rules.dice import DiceOrder
from gm.rules.registry import find_ruleset

ROOT = Path(__file__).resolve().parent.parent
BOARDS = ROOT / "boards"


# -- the rules core: end after turn t == resolve turn t under max_turns: t ----------------


def _setup(name: str, seed: int) -> Setup:
    """A campaign of `name` that runs long enough to be cut short at many turns, with what
    makes its placings interesting: postal two boards, double turns and trapdoors; classic
    and doubles a resignation; advanced teams and builds; unleashed its default board."""
    ruleset = find_ruleset(name)
    players = ("ann", "bob", "cat", "dan")
    if name == "postal":
        boards = {"A": BOARDS / "small.yaml", "B": BOARDS / "ziggurat.yaml"}
        options = {"double_turns": True, "trapdoor_threshold": 2, "close_after": 2, "max_turns": 200}
    elif name == "advanced":
        boards = {"A": BOARDS / "advanced.yaml"}
        options = {"max_turns": 200}
    elif name == "unleashed":
        boards = {}
        options = {"max_turns": 200}
    else:
        boards = {"A": BOARDS / "milton-bradley.yaml"}
        options = {"close_after": 2, "max_turns": 200}
    from gm.yamlfile import LineDict

    parsed = ruleset.parse_options(LineDict(options))
    read = {b: ruleset.read_board(path) for b, path in boards.items()}
    played, problems = ruleset.campaign_boards(read, len(players), parsed)
    assert not problems, problems
    keys = {"bob": {"team": "red"}, "cat": {"team": "red"}} if name == "advanced" else {}
    return Setup(played, players, parsed, seed, keys)


def _orders(name: str, ruleset: Ruleset, setup: Setup, state: Any) -> dict[str, Any]:
    """Orders that vary the game: the rest of the players send nothing (NMR)."""
    turn = state.turn
    if name == "postal":
        sizes = {b: board.squares for b, board in setup.boards.items()}
        return {p: dataclasses.replace(ruleset.empty_order(), trapdoors={b: min(n, 3 + turn) for b, n in sizes.items()})
                for p in ("ann", "bob") if not turn % 2}
    if name in ("classic", "doubles"):
        return {"dan": DiceOrder(resign=True)} if turn == 3 else {}
    if name == "advanced":
        square = state.squares["cat"]
        return {"cat": AdvancedOrder("build", "snake", square - 2)} if square > 3 and turn % 3 == 0 else {}
    return {}


@pytest.mark.parametrize("name", ["postal", "classic", "doubles", "advanced", "unleashed"])
@pytest.mark.parametrize("seed", [2**130 + 5, 2**130 + 77])
def test_5_end_after_turn_t_is_resolving_turn_t_under_max_turns_t(name, seed):
    """For every turn t of a campaign played to its end: `end` on the state after turn t
    gives the same state (state_json and the stored form), placings included, as resolving
    turn t from the state before it with the same orders under `max_turns: t`; its events
    are the ones that resolve ends with, and it draws nothing."""
    ruleset = find_ruleset(name)
    setup = _setup(name, seed)
    state = ruleset.start(setup, SeededChance(seed)).state
    ended_at = 0
    while not state.over:
        turn = state.turn
        orders = _orders(name, ruleset, setup, state)
        after = ruleset.resolve(setup, state, orders, SeededChance(seed)).state
        if after.over:
            break  # the rules ended it at this turn: there is nothing to cut short
        last = after.turn - 1  # a postal double turn played turn and turn + 1
        cut = dataclasses.replace(setup, options=dataclasses.replace(setup.options, max_turns=last))
        expected = ruleset.resolve(cut, state, orders, SeededChance(seed))
        ended = ruleset.end(setup, after)
        assert ended.draws == ()
        assert ended.state.over and expected.state.over
        assert ruleset.state_json(setup, ended.state) == ruleset.state_json(cut, expected.state), (name, turn)
        assert ruleset.dump_state(ended.state) == ruleset.dump_state(expected.state), (name, turn)
        assert ended.events == expected.events[len(expected.events) - len(ended.events):], (name, turn)
        placings = ruleset.state_json(setup, ended.state)["players"]
        assert all(p["place"] is not None for p in placings.values()), (name, turn)
        # the state it was given is left as it was
        assert not after.over and ruleset.end(setup, after).state == ended.state
        state, ended_at = after, turn
    assert ended_at >= 3, f"{name} ended too soon to be cut short in many places"


@pytest.mark.parametrize("name", ["postal", "classic", "doubles", "advanced", "unleashed"])
def test_5_end_refuses_before_turn_1_and_once_over(name):
    ruleset = find_ruleset(name)
    setup = _setup(name, 2**130 + 5)
    first = ruleset.start(setup, SeededChance(setup.seed)).state
    with pytest.raises(RulesError, match="no turn has been resolved"):
        ruleset.end(setup, first)
    after = ruleset.resolve(setup, first, {}, SeededChance(setup.seed)).state
    over = ruleset.end(setup, after).state
    with pytest.raises(RulesError, match="over already"):
        ruleset.end(setup, over)


def test_5_a_ruleset_without_its_own_end_refuses_in_one_line():
    """The hook is new on a public interface: a ruleset written before it (the tests' toy
    one) keeps working and refuses `gm end` with one line instead of a traceback."""
    from toyrules import Step

    from gm.boards.board import Board

    toy = Step()
    setup = Setup({"A": Board.build(10)}, ("ann", "ben"), toy.parse_options({"silent": "random"}), 7)
    state = toy.start(setup, SeededChance(7)).state
    state = toy.resolve(setup, state, {}, SeededChance(7)).state
    with pytest.raises(RulesError) as refused:
        toy.end(setup, state)
    assert "\n" not in str(refused.value) and "step" in str(refused.value)
