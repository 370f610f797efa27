"""docs/rules/, The board (boards) and the CONTRACT.md board file and canonical text, one test per
bullet or hand-worked case. Each docstring states the case; the asserts check one result
per piece or per square."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from rulehelpers import RULES, board, campaign, moved, order, play, square, start_state, state

from gm.boards.board import board_from_data, load_board
from gm.boards.model import Board, default_levels
from gm.commitment import commitment, matches, new_salt, seed_text
from gm.errors import BoardError
from gm.yamlfile import parse

ROOT = Path(__file__).resolve().parent.parent


def problems_of(text: str) -> list[str]:
    with pytest.raises(BoardError) as caught:
        board_from_data(parse(text), "test.yaml")
    return caught.value.problems


def build_problems(*args, **kwargs) -> list[str]:
    with pytest.raises(BoardError) as caught:
        Board.build(*args, **kwargs)
    return caught.value.problems


def one_move(b: Board, start: int, number: int, trapdoor: int | None = None) -> int:
    """Where one piece on `start` ends after moving `number` (one player, board A)."""
    setup = campaign(b, players=["ann"])
    before = state(setup, turn=1, squares={"ann": start}, trapdoors=trapdoor)
    return square(play(setup, before, {"ann": order(number)}), "ann")


# -- 1.1 squares and Start ------------------------------------------------------------


def test_1_1_every_piece_starts_off_the_board_on_square_0():
    """A fresh campaign on a 30-square board with three players: every piece is on 0
    (Start), not on square 1."""
    setup = campaign(board(30))
    start = start_state(setup)
    for player in ("ann", "bob", "cat"):
        assert start.boards["A"].pieces[player].square == 0
        assert start.boards["A"].pieces[player].finished is False


def test_1_1_squares_are_numbered_1_to_n():
    """A board of N=23 squares places exactly the squares 1..23 (no 0, no 24)."""
    b = board(23)
    for sq in range(1, 24):
        assert 1 <= b.level_of(sq) <= 3
    for outside in (0, 24):
        with pytest.raises(KeyError):
            b.level_of(outside)


def test_1_1_a_move_from_start_counts_from_0():
    """ann on Start moves 4 on a bare board: she stands on square 4."""
    assert one_move(board(30), 0, 4) == 4


# -- 1.2 shape -------------------------------------------------------------------------


def test_1_2_levels_must_sum_to_n():
    """levels [10, 10, 9] for N=30 hold 29 squares: refused, naming both figures."""
    problems = build_problems(30, levels=[10, 10, 9])
    assert any("29" in p and "30" in p for p in problems)


def test_1_2_every_level_holds_at_least_one_square():
    """levels [10, 0, 20] (sum 30): a level of 0 squares is refused."""
    problems = build_problems(30, levels=[10, 0, 20])
    assert any("at least 1" in p for p in problems)


def test_1_2_one_offset_per_level():
    """Three levels with two offsets: refused."""
    problems = build_problems(30, levels=[10, 10, 10], offsets=[0, 0])
    assert any("offsets" in p for p in problems)


def test_1_2_offsets_may_be_negative():
    """levels [3, 3], offsets [-2, 5], not serpentine: square 1 is in column -2, square 4
    in column 5."""
    b = board(6, levels=[3, 3], offsets=[-2, 5], serpentine=False)
    assert [b.column_of(s) for s in range(1, 7)] == [-2, -1, 0, 5, 6, 7]


def test_1_2_numbering_runs_along_level_1_then_level_2():
    """levels [4, 3, 2]: squares 1-4 on level 1, 5-7 on level 2, 8-9 on level 3."""
    b = board(9, levels=[4, 3, 2])
    assert [b.level_of(s) for s in range(1, 10)] == [1, 1, 1, 1, 2, 2, 2, 3, 3]


def test_1_2_column_formula_serpentine():
    """Serpentine, levels [5, 3, 2], offsets [0, 3, -1]. Level 1 runs left to right:
    column = 0 + index. Level 2 runs right to left: column = 3 + (3 - 1 - index), so
    squares 6, 7, 8 are in columns 5, 4, 3. Level 3 left to right again: 9 -> -1, 10 -> 0."""
    b = board(10, levels=[5, 3, 2], offsets=[0, 3, -1])
    expected = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 4, 8: 3, 9: -1, 10: 0}
    for sq, column in expected.items():
        assert b.column_of(sq) == column, sq


def test_1_2_column_formula_not_serpentine():
    """serpentine: false, levels [5, 3, 2], offsets [0, 3, -1]: every level runs left to
    right, so squares 6, 7, 8 are in columns 3, 4, 5."""
    b = board(10, levels=[5, 3, 2], offsets=[0, 3, -1], serpentine=False)
    expected = {1: 0, 5: 4, 6: 3, 7: 4, 8: 5, 9: -1, 10: 0}
    for sq, column in expected.items():
        assert b.column_of(sq) == column, sq


def test_1_2_default_shape_is_levels_of_ten_serpentine_offsets_0():
    """N=30 with no shape: levels [10, 10, 10], offsets [0, 0, 0], serpentine; square 11
    (first of level 2) lies above square 10 in column 9."""
    b = board(30)
    assert b.levels == (10, 10, 10)
    assert b.offsets == (0, 0, 0)
    assert b.serpentine is True
    assert (b.level_of(11), b.column_of(11)) == (2, 9)
    assert (b.level_of(20), b.column_of(20)) == (2, 0)


def test_1_2_default_shape_when_n_is_not_a_multiple_of_ten():
    """N=47 with no shape: levels [10, 10, 10, 10, 7], the top level holding the rest;
    N=7: one level of 7; N=10: exactly one level of 10."""
    assert board(47).levels == (10, 10, 10, 10, 7)
    assert default_levels(47) == (10, 10, 10, 10, 7)
    assert board(7).levels == (7,)
    assert board(10).levels == (10,)
    b = board(47)
    # level 5 runs left to right (odd level), offsets 0: square 41 in column 0, 47 in 6
    assert (b.level_of(41), b.column_of(41), b.column_of(47)) == (5, 0, 6)


def test_1_2_default_shape_from_a_file_fills_in_the_defaults():
    """A board file with only `squares: 25`: levels [10, 10, 5], offsets 0, serpentine."""
    b = board_from_data(parse("squares: 25\n"), "t.yaml")
    assert (b.levels, b.offsets, b.serpentine, b.chains) == ((10, 10, 5), (0, 0, 0), True, False)


# -- 1.3 snakes and ladders ------------------------------------------------------------


def test_1_3_snake_head_below_tail_refused():
    """A snake 12->30 goes up: refused as 'snake 12->30: head below tail'."""
    assert "snake 12->30: head below tail" in build_problems(30, snakes=[[12, 30]])


def test_1_3_ladder_top_below_foot_refused():
    """A ladder 20->5 goes down: refused."""
    problems = build_problems(30, ladders=[[20, 5]])
    assert any(p.startswith("ladder 20->5") for p in problems)


def test_1_3_items_end_inside_the_board():
    """A snake from 31 on a 30-square board, and a ladder from 0: both refused."""
    problems = build_problems(30, snakes=[[31, 4]], ladders=[[0, 8]])
    assert any("31" in p and "outside" in p for p in problems)
    assert any("ladder 0->8" in p and "outside" in p for p in problems)


def test_1_3_items_may_end_on_square_n():
    """A ladder 20->30 and a snake 29->1 on N=30 are sound (both ends within 1..N)."""
    b = board(30, ladders=[[20, 30]], snakes=[[29, 1]])
    assert b.jumps == {20: 30, 29: 1}


def test_1_3_a_square_starts_at_most_one_item():
    """Two snakes from head 25 (to 3 and to 7): refused."""
    problems = build_problems(30, snakes=[[25, 3], [25, 7]])
    assert any("25" in p and "share" in p for p in problems)


def test_1_3_no_two_items_share_an_end():
    """A snake 25->7 and a ladder 2->7 end on the same square: refused, also with chains."""
    assert any(
        "share square 7" in p for p in build_problems(30, snakes=[[25, 7]], ladders=[[2, 7]])
    )
    assert any(
        "share square 7" in p
        for p in build_problems(30, snakes=[[25, 7]], ladders=[[2, 7]], chains=True)
    )


def test_1_3_two_ladders_to_one_top_refused_even_with_chains():
    """Ladders 2->15 and 4->15 share their top: refused, chains or not."""
    for chains in (False, True):
        assert build_problems(30, ladders=[[2, 15], [4, 15]], chains=chains)


def test_1_3_chain_needs_chains_true():
    """Ladders 6->15 and 15->27 (a foot on another's top), chains false: refused."""
    problems = build_problems(30, ladders=[[6, 15], [15, 27]])
    assert any("chains: true" in p for p in problems)


def test_1_3_chains_true_allows_same_kind_chains():
    """chains: true: ladders 6->15 and 15->27, snakes 29->20 and 20->3 are sound."""
    b = board(30, ladders=[[6, 15], [15, 27]], snakes=[[29, 20], [20, 3]], chains=True)
    assert b.jumps[15] == 27 and b.jumps[20] == 3


def test_1_3_chains_never_join_a_snake_and_a_ladder():
    """chains: true, a ladder 6->15 and a snake 15->3 (a head on a ladder's top): refused."""
    problems = build_problems(30, ladders=[[6, 15]], snakes=[[15, 3]], chains=True)
    assert any("never chains" in p for p in problems)


def test_1_3_snake_tail_on_ladder_foot_refused():
    """A snake 25->6 and a ladder 6->15: refused (shared square), chains or not."""
    for chains in (False, True):
        assert build_problems(30, ladders=[[6, 15]], snakes=[[25, 6]], chains=chains)


# -- 1.4 moving ------------------------------------------------------------------------


def test_1_4_a_move_of_k_from_p_goes_to_p_plus_k():
    """ann on 7 moves 5 on a bare board: she stands on 12."""
    assert one_move(board(30), 7, 5) == 12


def test_1_4_landing_on_a_snake_head_takes_the_snake():
    """Snake 17->5; ann on 14 moves 3, lands on 17: she ends on 5."""
    assert one_move(board(30, snakes=[[17, 5]]), 14, 3) == 5


def test_1_4_landing_on_a_ladder_foot_takes_the_ladder():
    """Ladder 8->19; ann on 2 moves 6, lands on 8: she ends on 19."""
    assert one_move(board(30, ladders=[[8, 19]]), 2, 6) == 19


def test_1_4_passing_over_an_item_does_nothing():
    """Snake 17->5 and ladder 8->19; ann on 6 moves 6 (over 8), bob on 15 moves 4 (over
    17): ann on 12, bob on 19."""
    b = board(30, snakes=[[17, 5]], ladders=[[8, 19]])
    setup = campaign(b, players=["ann", "bob"])
    result = play(
        setup, state(setup, squares={"ann": 6, "bob": 15}), {"ann": order(6), "bob": order(4)}
    )
    assert square(result, "ann") == 12
    assert square(result, "bob") == 19


def test_1_4_landing_on_a_tail_or_top_does_nothing():
    """Snake 17->5, ladder 8->19; ann lands on 5 (a tail), bob on 19 (a top): they stay."""
    b = board(30, snakes=[[17, 5]], ladders=[[8, 19]])
    setup = campaign(b, players=["ann", "bob"])
    result = play(
        setup, state(setup, squares={"ann": 2, "bob": 16}), {"ann": order(3), "bob": order(3)}
    )
    assert square(result, "ann") == 5
    assert square(result, "bob") == 19


# -- 1.5 effects at most once per move -------------------------------------------------


def test_1_5_effects_keep_applying_along_a_chain():
    """chains: true, ladders 6->15 and 15->27; ann on 1 moves 5 to 6: up to 15, and on up
    to 27 (the square she stands on still has an unused effect)."""
    b = board(30, ladders=[[6, 15], [15, 27]], chains=True)
    setup = campaign(b, players=["ann"])
    result = play(setup, state(setup, squares={"ann": 1}), {"ann": order(5)})
    assert square(result, "ann") == 27
    assert [(s.square, s.via) for s in moved(result, "ann")[0].steps] == [
        (6, "number"),
        (15, "ladder"),
        (27, "ladder"),
    ]


def test_1_5_snake_chain_followed_down():
    """chains: true, snakes 29->20 and 20->3; ann on 25 moves 4 to 29: to 20, then to 3."""
    b = board(30, snakes=[[29, 20], [20, 3]], chains=True)
    assert one_move(b, 25, 4) == 3


def test_1_5_a_square_whose_effect_was_used_stops_the_move():
    """Trapdoor on 15 (level 2, column 5 on the default 30 board), which drops to 6
    (level 1, column 5); ladder 6->15 leads back to the trapdoor. ann on 12 moves 3 to 15:
    drops to 6, climbs to 15, and stops there since 15's effect was used in this move."""
    b = board(30, ladders=[[6, 15]])
    assert b.drop_target(15) == 6
    setup = campaign(b, players=["ann"])
    result = play(setup, state(setup, squares={"ann": 12}, trapdoors=15), {"ann": order(3)})
    assert square(result, "ann") == 15
    assert [(s.square, s.via) for s in moved(result, "ann")[0].steps] == [
        (15, "number"),
        (6, "trapdoor"),
        (15, "ladder"),
    ]


# -- 1.6 hidden layout -----------------------------------------------------------------


def test_1_6_state_json_shows_only_n_of_a_board():
    """The state JSON's board entry shows squares (N) and no shape, snakes, ladders or name."""
    b = board(30, snakes=[[17, 5]], ladders=[[8, 19]], name="Secret Garden")
    setup = campaign(b)
    data = RULES.state_json(setup, state(setup))
    entry = data["boards"]["A"]
    assert entry["squares"] == 30
    text = json.dumps(data)
    for secret in ("Secret Garden", "snakes", "ladders", "levels", "offsets", "serpentine"):
        assert secret not in text


# -- board files (CONTRACT.md): every problem with its line ----------------------------


def test_1_file_unknown_key_named_with_line_and_suggestion():
    """`snkaes:` on line 3: 'line 3: unknown key 'snkaes' (did you mean 'snakes'?)'."""
    problems = problems_of("name: X\nsquares: 30\nsnkaes: [[17, 5]]\n")
    assert "line 3: unknown key 'snkaes' (did you mean 'snakes'?)" in problems


def test_1_file_unknown_shape_key_named_with_line():
    """`ofsets` inside shape, on line 4: named with its line and the likely key."""
    problems = problems_of("squares: 30\nshape:\n  levels: [10, 10, 10]\n  ofsets: [0, 0, 0]\n")
    assert any(p.startswith("line 4:") and "'ofsets'" in p and "offsets" in p for p in problems)


def test_1_file_key_given_twice_refused():
    """`squares` on lines 1 and 2: refused naming line 2."""
    problems = problems_of("squares: 30\nsquares: 40\n")
    assert any(p.startswith("line 2:") and "twice" in p for p in problems)


def test_1_file_snake_head_below_tail_with_line():
    """The second snake (line 5) goes up: 'line 5: snake 12->30: head below tail'."""
    text = "squares: 30\nsnakes:\n  - [29, 21]\n  - [24, 13]\n  - [12, 30]\n"
    assert "line 5: snake 12->30: head below tail" in problems_of(text)


def test_1_file_shared_square_with_line():
    """A snake 20->5 (line 3) and a ladder 5->15 (line 5) share square 5: listed with a
    line of one of them."""
    text = "squares: 30\nsnakes:\n  - [20, 5]\nladders:\n  - [5, 15]\n"
    problems = problems_of(text)
    assert any(re.match(r"line [35]: .*share square 5", p) for p in problems)


def test_1_file_levels_not_summing_to_n_with_line():
    """levels on line 3 hold 29 squares for N=30: named with line 3."""
    problems = problems_of("squares: 30\nshape:\n  levels: [10, 10, 9]\n")
    assert any(p.startswith("line 3:") and "29" in p for p in problems)


def test_1_file_offset_count_with_line():
    """Two offsets (line 4) for three levels: named with a line."""
    problems = problems_of("squares: 30\nshape:\n  levels: [10, 10, 10]\n  offsets: [0, 0]\n")
    assert any(p.startswith("line 4:") and "offsets" in p for p in problems)


@pytest.mark.parametrize(
    ("text", "line", "word"),
    [
        ("squares: '30'\n", 1, "squares"),
        ("squares: 30.5\n", 1, "squares"),
        ("squares: 0\n", 1, "squares"),
        ("squares: true\n", 1, "squares"),
        ("squares: 30\nchains: maybe\n", 2, "chains"),
        ("squares: 30\nsnakes: 17\n", 2, "snakes"),
        ("squares: 30\nsnakes:\n  - [17, 5]\n  - [9, x]\n", 4, "snake"),
        ("squares: 30\nladders:\n  - [3, 12, 20]\n", 3, "ladder"),
        ("squares: 30\nladders:\n  - [true, 12]\n", 3, "ladder"),
        ("squares: 30\nshape:\n  levels: 30\n", 3, "levels"),
        ("squares: 30\nshape:\n  levels: [10, 10, ten]\n", 3, "levels"),
        ("squares: 30\nshape:\n  levels: [10, 10, 10]\n  serpentine: sometimes\n", 4, "serpentine"),
        ("squares: 30\nshape: [10, 10, 10]\n", 2, "shape"),
        ("squares: 30\nname: [a, b]\n", 2, "name"),
        ("squares: 30\nshape:\n  offsets: [0, 0, 0]\n", 3, "offsets"),
        ("squares: 30\nshape:\n  levels: [10, -5, 25]\n", 3, "at least 1"),
    ],
)
def test_1_file_bad_types_with_line(text, line, word):
    """A value of the wrong type is refused with its line and the key's name."""
    problems = problems_of(text)
    assert any(p.startswith(f"line {line}:") and word in p for p in problems), problems


def test_1_file_missing_squares_refused():
    """A board file without `squares` is refused."""
    assert any("squares" in p for p in problems_of("name: Nothing\n"))


def test_1_file_every_problem_listed_at_once():
    """One file with an unknown key (line 2), levels not summing (line 5), a snake going
    up (line 8), a ladder sharing a square with a snake (line 10) and a bad chains value
    (line 11): all five are listed, each with its line."""
    text = (
        "squares: 30\n"  # 1
        "colour: red\n"  # 2
        "name: Everything wrong\n"  # 3
        "shape:\n"  # 4
        "  levels: [10, 10, 9]\n"  # 5
        "snakes:\n"  # 6
        "  - [20, 5]\n"  # 7
        "  - [12, 30]\n"  # 8
        "ladders:\n"  # 9
        "  - [5, 15]\n"  # 10
        "chains: maybe\n"  # 11
    )
    problems = problems_of(text)
    assert any(p.startswith("line 2:") and "colour" in p for p in problems)
    assert any(p.startswith("line 5:") and "29" in p for p in problems)
    assert "line 8: snake 12->30: head below tail" in problems
    assert any(re.match(r"line (7|10): .*share square 5", p) for p in problems)
    assert any(p.startswith("line 11:") and "chains" in p for p in problems)


@pytest.mark.parametrize("name", ["milton-bradley", "small", "spiral", "ziggurat"])
def test_1_file_sample_boards_are_sound(name):
    """The sample boards shipped in boards/ load without a problem."""
    b = load_board(ROOT / "boards" / f"{name}.yaml")
    assert b.squares == sum(b.levels)


# -- canonical text and commitments (CONTRACT.md, docs/audit.md) ------------------------------


def test_5_canonical_text_written_out_by_hand():
    """A 12-square board given with unsorted snakes: its canonical text is the sorted-key,
    space-free JSON with snakes and ladders sorted and every default filled in."""
    b = board(
        12,
        levels=[5, 4, 3],
        offsets=[0, -1, 2],
        serpentine=False,
        snakes=[[11, 3], [9, 2]],
        ladders=[[1, 7]],
        name="Tiny \u2713",
    )
    expected = (
        '{"chains":false,"ladders":[[1,7]],"levels":[5,4,3],"name":"Tiny \u2713",'
        '"offsets":[0,-1,2],"serpentine":false,"snakes":[[9,2],[11,3]],"squares":12}'
    )
    assert b.canonical_text() == expected


def test_5_canonical_text_of_a_file_without_shape_fills_defaults():
    """`squares: 25` alone: the canonical text names levels [10,10,5], offsets [0,0,0],
    serpentine true, chains false, empty snakes and ladders, name ""."""
    b = board_from_data(parse("squares: 25\n"), "t.yaml")
    assert b.canonical_text() == (
        '{"chains":false,"ladders":[],"levels":[10,10,5],"name":"","offsets":[0,0,0],'
        '"serpentine":true,"snakes":[],"squares":25}'
    )


def test_5_canonical_text_round_trips():
    """Board.from_canonical(canonical text) gives the same board back."""
    b = load_board(ROOT / "boards" / "ziggurat.yaml")
    assert Board.from_canonical(b.canonical_text()) == b


def test_5_commitment_recomputed_by_hand():
    """commitment = sha256(salt + "\\n" + canonical text) in hex, computed here with
    hashlib, for a board and for the seed (whose canonical text is the decimal integer)."""
    b = load_board(ROOT / "boards" / "small.yaml")
    salt = "0123456789abcdef0123456789abcdef"
    by_hand = hashlib.sha256((salt + "\n" + b.canonical_text()).encode("utf-8")).hexdigest()
    assert commitment(salt, b.canonical_text()) == by_hand
    assert matches(by_hand.upper(), salt, b.canonical_text())
    assert not matches(by_hand, salt, b.canonical_text() + " ")
    assert seed_text(20270321) == "20270321"
    seed_hash = hashlib.sha256(f"{salt}\n20270321".encode()).hexdigest()
    assert commitment(salt, seed_text(20270321)) == seed_hash


def test_5_salt_is_32_lowercase_hex_digits():
    """A salt is 32 lowercase hex digits, and two salts differ."""
    salts = {new_salt() for _ in range(5)}
    assert len(salts) == 5
    for salt in salts:
        assert re.fullmatch(r"[0-9a-f]{32}", salt)


def test_1_file_yaml_syntax_error_names_its_line(tmp_path):
    """A board file whose line 3 is broken YAML is refused naming line 3."""
    path = tmp_path / "broken.yaml"
    path.write_text("squares: 30\nsnakes:\n  - [17, 5\nladders: []\n", encoding="utf-8")
    with pytest.raises(BoardError) as caught:
        load_board(path)
    assert any(re.match(r"line \d+: YAML syntax", p) for p in caught.value.problems)


def test_1_file_a_bad_squares_does_not_hide_the_other_problems():
    """`squares: thirty` (line 1) and a snake going up (line 3): both are listed, with
    their lines, although N is unknown."""
    problems = problems_of("squares: thirty\nsnakes:\n  - [12, 30]\n  - [20, 5]\nladders: [[5, 9]]\n")
    assert any(p.startswith("line 1:") and "squares" in p for p in problems)
    assert "line 3: snake 12->30: head below tail" in problems
    assert any(p.startswith("line 4:") and "share square 5" in p for p in problems)
