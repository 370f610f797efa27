"""What gm lends a house ruleset (docs/plugins.md, "What gm lends a game"): RESIGN with
its words, a standing order said back as command lines, placing by square, and the
defaults reading `resigned` and `figure` from the typed standings."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from goose import Goose, GooseOptions, GooseOrder

from gm.boards.board import Board
from gm.mail.words import problem_text
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.commands import Command, CommandProblem
from gm.rules.orderlines import order_lines
from gm.rules.problem import Problem
from gm.rules.ranking import place_the_rest, places_by_square
from gm.rules.resign import RESIGN, resign_problems

GOOSE = Goose()
SETUP = Setup(boards={"A": Board.build(30)}, players=("ann", "ben", "cat"), options=GooseOptions(), seed=7)


def test_resign_resigns_resign_none_withdraws_and_anything_else_is_refused():
    assert RESIGN.read((), "", None) == (None, True)
    assert RESIGN.read(("none",), "none", None) == (None, False)
    with pytest.raises(CommandProblem) as refused:
        RESIGN.read(("now", "please"), "now please", None)
    assert refused.value.problem.code == "resign_form"


def test_resigns_words_are_gms_so_a_game_lending_it_writes_none():
    said = problem_text("goose-unregistered", Problem("resign_form", {"rest": "now"}))
    assert said == 'RESIGN takes nothing, or NONE to withdraw it: write RESIGN or RESIGN NONE; got "RESIGN now"'
    assert "no longer in play" in problem_text("goose-unregistered", Problem("resign_not_in_play", {}))


def test_resign_is_merged_into_the_field_resign_by_the_default_merge():
    state = GOOSE.start(SETUP, SeededChance(7)).state
    commands = GOOSE.grammar().spec("RESIGN"), GOOSE.grammar().spec("ROLL")
    assert commands == (RESIGN, GOOSE.grammar().commands[0])
    order, problems = GOOSE.merge(SETUP, state, "ann", GooseOrder(roll=True),
                                  [Command(1, "RESIGN", "RESIGN", None, True)])
    assert order == GooseOrder(roll=False, resign=True) and problems == []


def test_a_resigned_player_is_out_of_play_by_the_default_in_play_and_may_not_resign_again():
    state = GOOSE.start(SETUP, SeededChance(7)).state
    after = GOOSE.resolve(SETUP, state, {"cat": GooseOrder(resign=True)}, SeededChance(7)).state
    assert GOOSE.standings(SETUP, after).players["cat"].resigned
    assert not GOOSE.in_play(SETUP, after, "cat") and GOOSE.in_play(SETUP, after, "ann")
    assert [p.code for p in resign_problems(GooseOrder(resign=True), in_play=False)] == ["resign_not_in_play"]
    assert resign_problems(GooseOrder(resign=True), in_play=True) == []


@dataclass(frozen=True)
class ThreeCommands:
    roll: int | None = None
    hold: bool = False
    play: tuple[str, ...] = ()


def test_order_lines_say_an_order_back_as_the_lines_that_give_it():
    assert order_lines(ThreeCommands()) == ()
    assert order_lines(ThreeCommands(roll=3)) == ("ROLL 3",)
    assert order_lines(ThreeCommands(hold=True, play=("A 1", "B 2"))) == ("HOLD", "PLAY A 1", "PLAY B 2")


def test_pieces_still_racing_are_placed_after_the_placed_highest_square_first_ties_sharing():
    assert places_by_square({"ann": 12, "ben": 20, "cat": 12}) == {"ann": 2, "ben": 1, "cat": 2}
    placings = {"ann": None, "ben": 1, "cat": None, "dan": None}
    assert place_the_rest(placings, {"ann": 5, "ben": 30, "cat": 9, "dan": 5}) == {"ann": 3, "cat": 2, "dan": 3}


def test_the_typed_standings_figure_reaches_the_generic_standings_view():
    state = GOOSE.start(SETUP, SeededChance(7)).state
    after = GOOSE.resolve(SETUP, state, {}, SeededChance(7)).state
    lines = GOOSE.standings_view(SETUP, after, {"ann": "Ann", "ben": "Ben", "cat": "Cat"})
    assert [line.figure for line in lines] == [f"{after.points[p]} points" for p in SETUP.players]
