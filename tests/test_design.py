"""Board design by rules (gm.analysis.design, `gm board design`; docs/design-format.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gm.cli.analysis  # noqa: F401 - registers design/analyze/draw on the board group
from gm.analysis.design import build_design
from gm.analysis.designfile import DesignError, design_from_data, load_design
from gm.boards.board import load_board
from gm.cli.board import board as board_group
from gm.rules.postal.analysis import postal_expected_turns
from gm.yamlfile import parse

DESIGNS = Path(__file__).resolve().parent / "data" / "designs"


def design(text: str):
    """The Design a design file's text gives."""
    return build_design(design_from_data(parse(text), "test.yaml"))


def refusal(text: str) -> list[str]:
    with pytest.raises(DesignError) as caught:
        design(text)
    return caught.value.problems


# -- rules by square number -------------------------------------------------------------


def test_multiples_rule_puts_a_ladder_on_every_multiple_whose_top_is_on_the_board():
    result = design("squares: 100\nrules:\n  - {place: ladders, from: {multiples: 13}, to: {squares: 9}}\n")
    assert result.board.ladders == ((13, 22), (26, 35), (39, 48), (52, 61), (65, 74), (78, 87), (91, 100))
    assert result.notes == ()


def test_primes_rule_notes_snakes_left_out_for_tails_off_the_board_or_clashes():
    result = design("squares: 30\nrules:\n  - {place: snakes, from: primes, to: {squares: 6}, clash: skip}\n")
    assert result.board.snakes == ((7, 1), (11, 5), (19, 13), (23, 17))
    assert result.notes == (
        "rule 1 (line 3): no snake from 2, 3, 5: its end would be off the board",
        "rule 1 (line 3): left out for clashes: snake 13->7, snake 17->11, snake 29->23",
    )


def test_squares_rule_and_between_pick_the_perfect_squares_in_range():
    result = design("squares: 100\nrules:\n"
                    "  - {place: snakes, from: squares, between: [10, 99], to: {squares: 5}}\n")
    assert [head for head, _ in result.board.snakes] == [16, 25, 36, 49, 64, 81]


def test_list_rule_places_exactly_the_squares_named():
    result = design("squares: 50\nrules:\n  - {place: ladders, from: {list: [4, 17]}, to: {squares: 10}}\n")
    assert result.board.ladders == ((4, 14), (17, 27))


# -- rules by layout --------------------------------------------------------------------


def test_level_firsts_climbing_one_level_go_straight_up_on_a_serpentine_board():
    """From each level's first square to the level above: on the 10x10 serpentine board
    square 1 is in column 0, under square 20; square 11 is in column 9, under 30."""
    result = design("squares: 100\nrules:\n  - {place: ladders, from: level-firsts, to: {levels: 1}}\n")
    assert result.board.ladders == ((1, 20), (11, 30), (21, 40), (31, 50), (41, 60), (51, 70),
                                    (61, 80), (71, 90), (81, 100))
    assert "no ladder from 91" in result.notes[0]


def test_level_ends_falling_two_levels_land_on_the_nearest_end_of_a_shorter_level():
    """The ziggurat's levels shrink and shift right: a square above no square of the
    level below falls to that level's end nearest its column."""
    result = design("squares: 48\nshape: {levels: [12, 10, 9, 7, 6, 4], offsets: [0, 1, 2, 3, 4, 6]}\n"
                    "rules:\n  - {place: snakes, from: level-ends, between: [23, 48], to: {levels: 2},"
                    " clash: skip}\n")
    b = result.board
    for head, tail in b.snakes:
        assert b.level_of(tail) == b.level_of(head) - 2
        low, high = b.columns(b.level_of(tail))
        assert b.column_of(tail) == min(max(b.column_of(head), low), high)


def test_column_rule_places_an_item_on_every_square_of_the_column():
    result = design("squares: 60\nrules:\n  - {place: ladders, from: {column: 3}, to: {levels: 2},"
                    " clash: skip}\n")
    b = result.board
    assert {b.column_of(foot) for foot, _ in b.ladders} == {3}
    assert {b.column_of(top) for _, top in b.ladders} == {3}


# -- random placement -------------------------------------------------------------------


def test_random_placement_keeps_to_count_lengths_free_squares_and_no_square_twice():
    result = design("squares: 200\nseed: 9\nrules:\n"
                    "  - {place: ladders, random: {count: 12, shortest: 8, longest: 30, keep_free: 5}}\n"
                    "  - {place: snakes, random: {count: 12, shortest: 8, longest: 30,"
                    " keep_free: {first: 5, last: 10}}}\n")
    b = result.board
    assert len(b.ladders) == len(b.snakes) == 12
    squares = [s for item in b.ladders + b.snakes for s in item]
    assert len(set(squares)) == len(squares)
    assert all(8 <= abs(a - z) <= 30 for a, z in b.ladders + b.snakes)
    assert all(6 <= s <= 190 for a, z in b.snakes for s in (a, z))
    assert all(6 <= s <= 195 for a, z in b.ladders for s in (a, z))


def test_the_same_design_file_always_gives_the_same_board():
    text = "squares: 100\nseed: 4\nrules:\n  - {place: snakes, random: {count: 8, longest: 40}}\n"
    assert design(text).board == design(text).board
    other = text.replace("seed: 4", "seed: 5")
    assert design(other).board != design(text).board


def test_random_rule_never_reuses_a_square_an_earlier_rule_took():
    result = design("squares: 40\nseed: 1\nrules:\n"
                    "  - {place: ladders, from: {multiples: 4}, to: {squares: 2}, clash: skip}\n"
                    "  - {place: snakes, random: {count: 6, shortest: 1, longest: 5}}\n")
    squares = [s for item in result.board.ladders + result.board.snakes for s in item]
    assert len(set(squares)) == len(squares)


# -- targets ----------------------------------------------------------------------------


def test_target_is_met_by_search_and_the_board_really_has_that_length():
    result = load_design(DESIGNS / "rules-hundred.yaml")
    made = build_design(result)
    assert made.tries > 1  # the first draws missed: the search went on
    assert 30 <= made.expected["postal"] <= 40
    assert postal_expected_turns(made.board) == pytest.approx(made.expected["postal"])


def test_an_impossible_target_fails_saying_how_close_the_search_came():
    problems = refusal("squares: 100\nrules:\n  - {place: snakes, random: {count: 3, longest: 5}}\n"
                       "target: {postal_expected_turns: [5, 6], tries: 20}\n")
    assert len(problems) == 1
    assert problems[0].startswith("target expected postal length 5..6 turns: no board in 20 tries")
    assert "closest: postal" in problems[0]


def test_a_target_with_nothing_random_to_search_fails_with_the_length_the_rules_give():
    problems = refusal("squares: 30\nrules:\n  - {place: ladders, from: {list: [3]}, to: {squares: 9}}\n"
                       "target: {postal_expected_turns: [1, 2]}\n")
    assert "no random rule leaves anything to search, and the rules give postal" in problems[0]


def test_a_classic_length_target_is_met_too():
    result = design("squares: 100\nseed: 3\nrules:\n  - {place: snakes, random: {count: [2, 8], longest: 30}}\n"
                    "  - {place: ladders, random: {count: [2, 8], longest: 30}}\n"
                    "target: {classic_expected_turns: [25, 30]}\n")
    assert 25 <= result.expected["classic"] <= 30


# -- impossible requests and bad files --------------------------------------------------


def test_too_many_random_items_for_the_free_squares_fail_with_the_reason():
    problems = refusal("squares: 30\nrules:\n  - {place: snakes, random: {count: 14, keep_free: 2}}\n")
    assert problems == ["rule 1 (line 3): 14 snakes need 28 squares of their own, but only 26 are "
                        "free"]


def test_random_items_that_cannot_fit_their_lengths_fail_with_the_reason():
    problems = refusal("squares: 20\nrules:\n  - {place: ladders, random: {count: 6, shortest: 15}}\n")
    assert "room for only" in problems[0] and "of 6 ladders of 15..any length squares" in problems[0]


def test_clashing_items_are_an_error_naming_both_unless_clash_skip():
    text = "squares: 50\nrules:\n  - {place: ladders, from: {multiples: 5}, to: {squares: 10}}\n"
    problems = refusal(text)
    assert problems[0] == ("rule 1 (line 3): ladder 15->25 clashes with ladder 5->15 "
                           "(add clash: skip to leave such items out)")
    skipped = design(text.replace("}}\n", "}, clash: skip}\n"))
    assert skipped.board.ladders == ((5, 15), (10, 20), (25, 35), (30, 40))
    assert skipped.notes[1].endswith("left out for clashes: ladder 15->25, ladder 20->30, ladder 35->45, "
                                     "ladder 40->50")


def test_chains_true_lets_a_rule_chain_ladders():
    result = design("squares: 50\nchains: true\nrules:\n"
                    "  - {place: ladders, from: {multiples: 5}, to: {squares: 5}, between: [5, 20]}\n")
    assert result.board.ladders == ((5, 10), (10, 15), (15, 20), (20, 25))


def test_a_bad_design_file_lists_every_problem_with_its_line_and_a_suggestion():
    problems = refusal(
        "squares: 100\n"          # 1
        "shpae: {levels: [10]}\n"  # 2
        "seed: x\n"                # 3
        "rules:\n"                 # 4
        "  - place: snaeks\n"      # 5
        "    from: primes\n"       # 6
        "    to: {squares: 0}\n"   # 7
        "  - place: ladders\n"     # 8
        "    form: primes\n"       # 9
        "  - place: ladders\n"     # 10
        "    random: {count: 5, shortest: 9, longest: 3, keep_fre: 2}\n"  # 11
        "target: {postal_expected: [1, 2], tries: 0}\n"  # 12
    )
    assert problems == [
        "line 2: unknown key 'shpae' (did you mean 'shape'?)",
        "line 3: seed must be a whole number, not 'x'",
        "line 5: rule 1: place must be snakes or ladders, not 'snaeks'",
        "line 7: rule 1: to must be {squares: k} or {levels: k} with k at least 1, not {'squares': 0}",
        "line 9: rule 2: unknown key 'form' (did you mean 'from'?)",
        "line 8: rule 2 needs from and to, or random",
        "line 11: rule 3: random: unknown key 'keep_fre' (did you mean 'keep_free'?)",
        "line 11: rule 3: random longest 3 is below shortest 9",
        "line 12: target: unknown key 'postal_expected' (did you mean 'postal_expected_turns'?)",
        "line 12: target tries must be a whole number of at least 1, not 0",
    ]


def test_a_bad_shape_is_reported_as_a_board_file_would_be():
    problems = refusal("squares: 30\nshape: {levels: [10, 10]}\nrules:\n"
                       "  - {place: snakes, from: primes, to: {squares: 1}}\n")
    assert problems == ["line 2: shape: levels [10, 10] hold 20 squares, not 30"]


# -- the command ------------------------------------------------------------------------


def test_design_command_writes_a_board_file_that_gm_board_check_accepts(tmp_path):
    out = tmp_path / "designed.yaml"
    runner = CliRunner()
    made = runner.invoke(board_group, ["design", str(DESIGNS / "rules-hundred.yaml"), "-o", str(out)])
    assert made.exit_code == 0, made.output
    checked = runner.invoke(board_group, ["check", str(out)])
    assert checked.exit_code == 0, checked.output
    assert load_board(out) == build_design(load_design(DESIGNS / "rules-hundred.yaml")).board
    assert out.read_text().startswith("# Designed by `gm board design")


def test_design_command_refuses_a_bad_file_with_exit_1_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("squares: 10\nrules: []\n")
    result = CliRunner().invoke(board_group, ["design", str(bad)])
    assert result.exit_code == 1
    assert "line 2: rules must be a list of placement rules" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("path", sorted(DESIGNS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_sample_design_builds(path):
    build_design(load_design(path))


# -- invariants -------------------------------------------------------------------------

SELECTORS = ["primes", "squares", "level-firsts", "level-lasts", "level-ends",
             "{multiples: 3}", "{multiples: 7}", "{column: 2}", "{list: [5, 9, 12]}"]


@st.composite
def designs(draw):
    levels = draw(st.lists(st.integers(1, 9), min_size=1, max_size=7))
    offsets = draw(st.lists(st.integers(-3, 3), min_size=len(levels), max_size=len(levels)))
    lines = [f"squares: {sum(levels)}", f"shape: {{levels: {levels}, offsets: {offsets},"
             f" serpentine: {str(draw(st.booleans())).lower()}}}",
             f"chains: {str(draw(st.booleans())).lower()}", f"seed: {draw(st.integers(0, 99))}",
             "rules:"]
    for _ in range(draw(st.integers(1, 4))):
        place = draw(st.sampled_from(["snakes", "ladders"]))
        if draw(st.booleans()):
            how = draw(st.sampled_from(["squares", "levels"]))
            lines.append(f"  - {{place: {place}, from: {draw(st.sampled_from(SELECTORS))}, "
                         f"to: {{{how}: {draw(st.integers(1, 4))}}}, clash: skip}}")
        else:
            shortest = draw(st.integers(1, 5))
            lines.append(f"  - {{place: {place}, random: {{count: {draw(st.integers(0, 4))}, "
                         f"shortest: {shortest}, longest: {shortest + draw(st.integers(0, 9))}, "
                         f"keep_free: {draw(st.integers(0, 2))}}}}}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs())
def test_designed_boards_always_pass_board_validation(text):
    """Whatever the rules, a design either gives a sound board or refuses with reasons."""
    try:
        result = design(text)
    except DesignError as error:
        assert error.problems and all(isinstance(p, str) and p for p in error.problems)
        return
    assert result.board.problems() == []
    assert result.board.squares == sum(result.board.levels)
