"""Unleashed board files (docs/rules/unleashed.md, Board files): what is refused, with every problem named, the
ids items take, the boards gm ships for the ruleset, and `gm board check` / `gm board
show` reading them (--ruleset, or unleashed when the file has cards or lampposts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gm.cli import cli
from gm.errors import BoardError
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.boardfile import board_items
from gm.rules.unleashed.items import Grid
from gm.rules.unleashed.options import parse_options
from gm.yamlfile import LineDict

ROOT = Path(__file__).resolve().parent.parent
GRID = Grid(6, 10)  # the 6 x 10 boards below
HEAD = "squares: 60\nshape: {levels: [10, 10, 10, 10, 10, 10]}\n"


def up(square: int, levels: int, aside: int = 0, grid: Grid = GRID) -> int:
    """The square `levels` levels above `square`, `aside` columns to its right."""
    level, column = grid.level(square) + levels, grid.column(square) + aside
    index = column if level % 2 else grid.columns - 1 - column
    return (level - 1) * grid.columns + index + 1


def problems(tmp_path: Path, text: str, players: int = 3, **options) -> list[str]:
    """What Unleashed says of a board file: its load problems, else campaign_boards'."""
    path = tmp_path / "board.yaml"
    path.write_text(text, encoding="utf-8")
    ruleset = Unleashed()
    try:
        board = ruleset.read_board(path)
    except BoardError as error:
        return error.problems
    return ruleset.campaign_boards({"A": board}, players, parse_options(LineDict(options)))[1]


def loaded(tmp_path: Path, text: str):
    path = tmp_path / "board.yaml"
    path.write_text(text, encoding="utf-8")
    ruleset = Unleashed()
    board = ruleset.read_board(path)
    made, found = ruleset.campaign_boards({"A": board}, 3, parse_options(LineDict({})))
    assert found == []
    return made["A"]


def test_the_grid_helper_reads_the_serpentine_columns():
    assert up(1, 1) == 20 and up(10, 1) == 11 and up(1, 2) == 21 and up(4, 2, 1) == 25


# -- a sound board ------------------------------------------------------------------------


def test_a_plain_rectangle_with_a_chain_of_ladders_is_accepted(tmp_path):
    # chains default to true for Unleashed: a ladder may start on another ladder's top
    text = HEAD + f"ladders: [[1, {up(1, 1)}], [{up(1, 1)}, {up(1, 2)}]]\n"
    assert problems(tmp_path, text) == []


def test_a_board_of_the_box_holds_three_and_three_of_each_kind_and_two_lampposts(tmp_path):
    snakes = [[up(s, 1), s] for s in (1, 2, 3)] + [[up(s, 2), s] for s in (5, 6, 7)]
    ladders = [[s, up(s, 1)] for s in (31, 32, 33)] + [[s, up(s, 2)] for s in (35, 36, 37)]
    text = HEAD + f"snakes: {snakes}\nladders: {ladders}\nlampposts: [[9, {up(9, 1)}], [40, {up(40, 2)}]]\n"
    assert problems(tmp_path, text) == []


# -- RULES 6.15's refusals, one each ----------------------------------------------------------


def test_unequal_levels_are_refused(tmp_path):
    found = problems(tmp_path, "squares: 30\nshape: {levels: [10, 12, 8]}\n")
    assert any("levels must all hold the same number of squares" in p for p in found), found


def test_nonzero_offsets_are_refused(tmp_path):
    found = problems(tmp_path, "squares: 30\nshape: {levels: [10, 10, 10], offsets: [0, 1, 0]}\n")
    assert any("offsets must all be 0" in p for p in found), found


def test_serpentine_false_is_refused(tmp_path):
    found = problems(tmp_path, "squares: 30\nshape: {levels: [10, 10, 10], serpentine: false}\n")
    assert any("serpentine: false" in p for p in found), found


def test_chains_false_is_refused(tmp_path):
    found = problems(tmp_path, "squares: 30\nchains: false\n")
    assert any("chains: false" in p for p in found), found


def test_every_problem_of_the_shape_is_listed_at_once(tmp_path):
    found = problems(tmp_path, "squares: 30\nchains: false\nshape: {levels: [10, 12, 8], offsets: [0, 1, 0], "
                               "serpentine: false}\n")
    assert len(found) == 4, found


def test_cards_not_exactly_n_codes_are_refused(tmp_path):
    found = problems(tmp_path, "squares: 30\ncards: [BLANK, BLANK, BLANK]\n")
    assert any("cards lists 3 codes for 30 squares" in p for p in found), found


def test_cards_that_are_no_codes_are_refused(tmp_path):
    cards = ["BLANK"] * 28 + ["JOKER", "+0"]
    found = problems(tmp_path, f"squares: 30\ncards: {cards}\n")
    assert any("JOKER" in p and "+0" in p and "no card code" in p for p in found), found


def test_cards_in_any_case_and_yaml_integers_are_codes(tmp_path):
    cards = ["blank"] * 26 + [2, -2, "move-any", "Forward-2"]
    board = loaded(tmp_path, f"squares: 30\ncards: {cards}\n")
    assert board.extra_value("cards")[-4:] == ["+2", "-2", "MOVE-ANY", "FORWARD-2"]


def test_cards_holding_more_of_a_code_than_the_deck_are_refused(tmp_path):
    # the default deck holds 4 MOVE-ANY and no +9
    cards = ["BLANK"] * 21 + ["MOVE-ANY"] * 5 + ["+9"] + ["-1"] * 3
    found = problems(tmp_path, f"squares: 30\ncards: {cards}\n")
    assert any("more than the deck has of" in p and "MOVE-ANY" in p and "+9" in p for p in found), found
    assert not any("-1" in p for p in found), found


def test_cards_are_counted_against_the_deck_after_blank_removal_and_simple(tmp_path):
    blanks = ["BLANK"] * 30
    assert problems(tmp_path, f"squares: 30\ncards: {blanks}\n") == []
    found = problems(tmp_path, f"squares: 30\ncards: {blanks}\n", blank_removal=10)
    assert any("more than the deck has of BLANK" in p for p in found), found
    dotted = ["BLANK"] * 29 + ["REVERSE"]
    assert problems(tmp_path, f"squares: 30\ncards: {dotted}\n") == []
    found = problems(tmp_path, f"squares: 30\ncards: {dotted}\n", simple=True)
    assert any("more than the deck has of REVERSE" in p for p in found), found


@pytest.mark.parametrize(("items", "kind"), [
    (f"snakes: [[{up(1, 3)}, 1]]", "snake"),  # three levels: no reach
    (f"ladders: [[1, {up(1, 1, 2)}]]", "ladder"),  # the next level, two columns aside
    (f"ladders: [[1, {up(1, 2, 3)}]]", "ladder"),  # two levels, three columns aside
    ("lampposts: [[1, 5]]", "lamppost"),  # the same level
])
def test_an_item_breaking_its_reach_is_refused(tmp_path, items, kind):
    found = problems(tmp_path, HEAD + items + "\n")
    assert any(p.startswith(f"board A: {kind} ") and "breaks its reach" in p for p in found), found


def test_a_snake_whose_head_is_below_its_tail_is_refused(tmp_path):
    # RULES 1 already refuses it, whatever the ruleset
    found = problems(tmp_path, HEAD + f"snakes: [[1, {up(1, 1)}]]\n")
    assert found and any("snake" in p for p in found), found


def test_a_lamppost_listed_upper_end_first_is_refused(tmp_path):
    found = problems(tmp_path, HEAD + f"lampposts: [[{up(3, 1)}, 3]]\n")
    assert any("lamppost" in p and "[lower, upper]" in p for p in found), found


def test_a_lamppost_sharing_an_end_with_a_snake_breaks_ends(tmp_path):
    # the lamppost's upper end on the snake's head: two upper ends on one square
    found = problems(tmp_path, HEAD + f"snakes: [[{up(3, 1)}, 3]]\nlampposts: [[4, {up(3, 1)}]]\n")
    assert any("Ends rule" in p for p in found), found


def test_a_lamppost_chained_to_a_snake_breaks_ends(tmp_path):
    # a lamppost starting on a snake's head: one upper and one lower end, of two kinds
    head = up(3, 1)
    found = problems(tmp_path, HEAD + f"snakes: [[{head}, 3]]\nlampposts: [[{head}, {up(head, 1)}]]\n")
    assert any("Ends rule" in p for p in found), found


def test_two_lampposts_chained_are_accepted(tmp_path):
    middle = up(3, 1)
    assert problems(tmp_path, HEAD + f"lampposts: [[3, {middle}], [{middle}, {up(middle, 2)}]]\n") == []


def test_a_snake_and_a_ladder_sharing_a_square_are_refused(tmp_path):
    top = up(3, 1)
    found = problems(tmp_path, HEAD + f"ladders: [[3, {top}]]\nsnakes: [[{up(top, 1)}, {top}]]\n")
    assert found, "a snake's tail on a ladder's top: never a snake with a ladder (RULES 1, 6.3)"


def test_more_than_three_short_snakes_are_refused(tmp_path):
    snakes = [[up(s, 1), s] for s in (1, 2, 3, 4)]
    found = problems(tmp_path, HEAD + f"snakes: {snakes}\n")
    assert any("4 short snakes: the box holds 3" in p for p in found), found


def test_more_than_three_long_snakes_are_refused(tmp_path):
    snakes = [[up(s, 2), s] for s in (1, 2, 3, 4)]
    found = problems(tmp_path, HEAD + f"snakes: {snakes}\n")
    assert any("4 long snakes: the box holds 3" in p for p in found), found


def test_more_than_three_short_ladders_are_refused(tmp_path):
    ladders = [[s, up(s, 1)] for s in (1, 2, 3, 4)]
    found = problems(tmp_path, HEAD + f"ladders: {ladders}\n")
    assert any("4 short ladders: the box holds 3" in p for p in found), found


def test_more_than_three_long_ladders_are_refused(tmp_path):
    ladders = [[s, up(s, 2)] for s in (1, 2, 3, 4)]
    found = problems(tmp_path, HEAD + f"ladders: {ladders}\n")
    assert any("4 long ladders: the box holds 3" in p for p in found), found


def test_more_than_one_short_lamppost_is_refused(tmp_path):
    found = problems(tmp_path, HEAD + f"lampposts: [[1, {up(1, 1)}], [2, {up(2, 1)}]]\n")
    assert any("2 short lampposts: the box holds 1" in p for p in found), found


def test_more_than_one_long_lamppost_is_refused(tmp_path):
    found = problems(tmp_path, HEAD + f"lampposts: [[1, {up(1, 2)}], [2, {up(2, 2)}]]\n")
    assert any("2 long lampposts: the box holds 1" in p for p in found), found


def test_a_board_listing_items_means_setup_board(tmp_path):
    text = HEAD + f"ladders: [[1, {up(1, 1)}]]\n"
    assert any("pieces and mix" in p for p in problems(tmp_path, text, pieces=4))
    assert any("setup: board" in p for p in problems(tmp_path, text, setup="players"))
    assert problems(tmp_path, text, setup="board") == []


def test_a_board_too_large_for_the_deck_is_refused_for_the_deal(tmp_path):
    found = problems(tmp_path, "squares: 130\nshape: {levels: [10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10]}\n")
    assert any("cards short of the deal" in p for p in found), found


# -- the ids items take (6.15) ------------------------------------------------------------------


def test_items_take_ids_by_kind_and_size(tmp_path):
    board = loaded(tmp_path, HEAD + f"snakes: [[{up(1, 2)}, 1], [{up(2, 1)}, 2]]\n"
                                    f"ladders: [[5, {up(5, 1)}], [6, {up(6, 2)}]]\n"
                                    f"lampposts: [[8, {up(8, 2)}], [9, {up(9, 1)}]]\n")
    assert board_items(board) == {
        "S1": [2, up(2, 1)], "S4": [1, up(1, 2)], "L1": [5, up(5, 1)], "L4": [6, up(6, 2)],
        "P1": [9, up(9, 1)], "P2": [8, up(8, 2)],
    }


def test_items_of_a_size_take_ids_in_list_order(tmp_path):
    # two short snakes and two long ladders listed against their ascending order
    board = loaded(tmp_path, HEAD + f"snakes: [[50, {up(50, -1)}], [{up(12, 1)}, 12]]\n"
                                    f"ladders: [[28, {up(28, 2)}], [3, {up(3, 2)}]]\n")
    assert board_items(board) == {
        "S1": [up(50, -1), 50], "S2": [12, up(12, 1)], "L4": [28, up(28, 2)], "L5": [3, up(3, 2)],
    }


# -- the boards gm ships ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ["unleashed.yaml", "unleashed-fiendish-forty.yaml"])
def test_the_shipped_unleashed_boards_are_sound(name, players):
    ruleset = Unleashed()
    board = ruleset.read_board(ROOT / "boards" / name)
    assert ruleset.campaign_boards({"A": board}, players, parse_options(LineDict({})))[1] == []


def test_the_starter_board_is_a_plain_rectangle_for_the_players_to_fill():
    ruleset = Unleashed()
    assert ruleset.starter_board == "unleashed.yaml"
    board = ruleset.read_board(ROOT / "boards" / "unleashed.yaml")
    assert (board.squares, board.levels) == (60, (10,) * 6)
    assert board_items(board) == {} and board.extra_value("cards") is None


def test_the_fiendish_forty_is_the_worked_example_board():
    ruleset = Unleashed()
    board = ruleset.read_board(ROOT / "boards" / "unleashed-fiendish-forty.yaml")
    made = ruleset.campaign_boards({"A": board}, 3, parse_options(LineDict({})))[0]["A"]
    assert board_items(made) == {"S1": [19, 31], "S4": [18, 34], "L1": [11, 22], "L4": [4, 20], "P2": [7, 23]}
    cards = made.extra_value("cards")
    assert " ".join(cards[:8]) == "BLANK +1 BLANK -1 BLANK +3 MOVE-LADDER BLANK"
    assert " ".join(cards[32:]) == "-2 BLANK SWAP-PLAYERS +2 BLANK -3 BACK-3 BLANK"
    assert cards[22] == "BLANK" and cards[29] == "+1"  # before alice's and bob's plays of 6.16


# -- gm board check and gm board show ---------------------------------------------------------------


def run(*args: str):
    return CliRunner().invoke(cli, ["board", *args])


def test_check_reads_a_file_with_cards_or_lampposts_as_unleashed():
    path = str(ROOT / "boards" / "unleashed-fiendish-forty.yaml")
    result = run("check", path)
    assert result.exit_code == 0, result.output
    assert result.output == f"{path}: ok, 40 squares, 2 snakes, 2 ladders, 1 lamppost, every card fixed\n"


def test_check_reads_a_plain_file_by_postals_rules_unless_told(tmp_path):
    path = tmp_path / "plain.yaml"
    path.write_text("squares: 30\nshape: {levels: [10, 12, 8]}\n", encoding="utf-8")
    assert run("check", str(path)).exit_code == 0
    result = run("check", "--ruleset", "unleashed", str(path))
    assert result.exit_code == 1
    assert result.output.strip() == (f"{path}: levels must all hold the same number of squares (a rectangle), "
                                     "not [10, 12, 8]")


def test_check_with_ruleset_unleashed_judges_the_starter_board():
    path = str(ROOT / "boards" / "unleashed.yaml")
    result = run("check", "--ruleset", "unleashed", path)
    assert result.exit_code == 0 and result.output == f"{path}: ok, 60 squares, 0 snakes, 0 ladders\n"


def test_check_with_ruleset_postal_refuses_unleashed_keys_on_their_lines():
    path = str(ROOT / "boards" / "unleashed-fiendish-forty.yaml")
    result = run("check", "--ruleset", "postal", path)
    assert result.exit_code == 1
    assert "unknown key 'cards'" in result.output and "unknown key 'lampposts'" in result.output
    assert all(line.startswith(f"{path}: line ") for line in result.output.splitlines())


def test_check_lists_every_problem_of_every_file_one_line_each(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(HEAD + f"lampposts: [[1, {up(1, 1)}], [2, {up(2, 1)}]]\nsnakes: [[{up(3, 3)}, 3]]\n",
                   encoding="utf-8")
    good = ROOT / "boards" / "unleashed.yaml"
    result = run("check", str(bad), str(good))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert f"{good}: ok, 60 squares, 0 snakes, 0 ladders" in lines
    wrong = [line for line in lines if line.startswith(f"{bad}: ")]
    assert len(wrong) == 2 and any("breaks its reach" in line for line in wrong)
    assert any("2 short lampposts: the box holds 1" in line for line in wrong)


def test_an_unknown_ruleset_is_a_usage_error():
    result = run("check", "--ruleset", "chess", str(ROOT / "boards" / "small.yaml"))
    assert result.exit_code == 2 and "unknown ruleset 'chess'" in result.output


def test_show_draws_an_unleashed_board_with_its_lampposts_and_cards():
    result = run("show", str(ROOT / "boards" / "unleashed-fiendish-forty.yaml"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Fiendish Forty\n40 squares, 5 levels\n")
    assert "lampposts (lower-upper): 7-23" in result.output
    assert "   1-8   BLANK +1 BLANK -1 BLANK +3 MOVE-LADDER BLANK" in result.output
    assert "snakes (S head, s tail): 31->19, 34->18" in result.output


def test_show_refuses_a_board_unleashed_cannot_play():
    path = str(ROOT / "boards" / "advanced.yaml")
    result = run("show", "--ruleset", "unleashed", path)
    assert result.exit_code == 1
    assert f"{path}: offsets must all be 0 (a rectangle)" in result.output.splitlines()


def test_show_still_draws_a_postal_board():
    result = run("show", str(ROOT / "boards" / "small.yaml"))
    assert result.exit_code == 0 and "lampposts" not in result.output and "cards" not in result.output
