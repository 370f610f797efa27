"""Exact board analysis (gm.boards.analysis; CONTRACT.md `gm board analyze`): checked against the
literature, against hand-computed tiny boards, and against brute-force enumeration that
knows nothing of the six-turn-cycle shortcut."""

from __future__ import annotations

import functools
import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import gm.cli.analysis  # noqa: F401 - registers design/analyze/draw on the board group
from gm.analysis import analyze as analysis_module
from gm.analysis.analyze import analyze
from gm.analysis.design import board_yaml
from gm.boards import chain as chain_module
from gm.boards import dicechains as dicechains_module
from gm.boards.board import load_board
from gm.boards.chain import AnalysisError, landing_table, reachable_from, sweep_solve
from gm.boards.dicechains import StepChain, classic, doubles, doubles_throws, one_die
from gm.boards.model import Board
from gm.cli.board import board as board_group
from gm.errors import BoardError
from gm.rules.postal.analysis import postal

BOARDS = Path(__file__).resolve().parent.parent / "boards"


@pytest.fixture(scope="module")
def milton_bradley() -> Board:
    return load_board(BOARDS / "milton-bradley.yaml")


# -- the literature and the contract ----------------------------------------------------


def test_one_die_exact_on_milton_bradley_is_39_2251(milton_bradley):
    """Althoen, King and Schilling (Mathematical Gazette 1993): with the chute 47->26 and a
    roll past 100 leaving the piece, the expected game is 39.2251 rolls."""
    assert (47, 26) in milton_bradley.snakes and (80, 100) in milton_bradley.ladders
    assert round(one_die(milton_bradley, "exact").expected, 4) == 39.2251


def test_analyze_json_matches_the_contract_example_for_milton_bradley(milton_bradley):
    """CONTRACT.md's example JSON is the Milton Bradley board's; every figure must agree."""
    result = analyze(milton_bradley).to_json()
    assert result["squares"] == 100
    postal_part = {k: v for k, v in result["postal"].items() if not k.startswith("most_")}
    assert postal_part == {"fewest_turns": 8, "fewest_sequence": [1, 2, 5, 6, 3, 4, 6, 1],
                           "expected_turns": 36.4247, "median_turns": 30, "p90_turns": 67}
    rounded = {f: {k: round(v, 2) if isinstance(v, float) else v for k, v in s.items()}
               for f, s in result["one_die"].items()}
    assert rounded == {
        "exact": {"expected_rolls": 39.23, "median_rolls": 32, "p90_rolls": 72},
        "bounce": {"expected_rolls": 43.32, "median_rolls": 35, "p90_rolls": 83},
        "crossing": {"expected_rolls": 36.46, "median_rolls": 30, "p90_rolls": 67},
    }
    assert round(result["classic"]["expected_turns"], 2) == 36.24
    assert (result["classic"]["median_turns"], result["classic"]["p90_turns"]) == (29, 69)


def test_fewest_sequence_really_crosses_in_the_fewest_turns(milton_bradley):
    result = postal(milton_bradley)
    land = landing_table(milton_bradley)
    square = 0
    for turn, number in enumerate(result.fewest_sequence, 1):
        assert number in range(1, 7)
        if square + number > milton_bradley.squares:
            assert turn == result.fewest_turns == len(result.fewest_sequence)
            break
        square = int(land[square + number])
    else:
        pytest.fail("the sequence never crosses")
    for cycle in range(0, len(result.fewest_sequence), 6):  # each number once per cycle
        chunk = result.fewest_sequence[cycle : cycle + 6]
        assert len(set(chunk)) == len(chunk)
    assert result.fewest_turns == _brute_force_fewest(milton_bradley)


# -- hand-computed tiny boards ----------------------------------------------------------


def test_postal_on_an_empty_three_square_board_is_known_by_hand():
    """N=3: turn 1 crosses with 4, 5 or 6 (1/2); otherwise from k the next number crosses
    unless it is too small: P(T=2) = (4/5 + 4/5 + 1)/6 = 13/30, P(T=3) = 2/30.
    E[T] = 1/2 + 2*13/30 + 3*2/30 = 47/30."""
    result = postal(Board.build(3))
    law = result.length.probabilities
    assert law[1] == pytest.approx(1 / 2, abs=1e-15)
    assert law[2] == pytest.approx(13 / 30, abs=1e-15)
    assert law[3] == pytest.approx(2 / 30, abs=1e-15)
    assert result.length.expected == pytest.approx(47 / 30, abs=1e-12)
    assert result.fewest_turns == 1 and result.fewest_sequence == (4,)


def test_percentile_is_the_smallest_count_whose_cumulative_chance_reaches_it():
    """On the 3-square board P(T <= 1) is exactly 1/2, so the median is 1 even though
    floating point sums may fall a hair short; P(T <= 2) = 28/30, so p90 is 2."""
    length = postal(Board.build(3)).length
    assert (length.median, length.p90, length.percentile(95)) == (1, 2, 3)


def test_one_die_crossing_on_an_empty_three_square_board_is_known_by_hand():
    """From p the roll crosses with chance (3 + p)/6: E0 = 1 + 1/6 (E1 + E2 + E3) with
    E3 = 1, E2 = 1 + E3/6 = 7/6, E1 = 1 + (E2 + E3)/6 = 49/36: E0 = 1 + 127/216 = 343/216."""
    assert one_die(Board.build(3), "crossing").expected == pytest.approx(343 / 216, abs=1e-12)


def test_one_die_exact_needs_landing_on_the_last_square():
    """N=2: from 0 a 2 wins and a 1 goes to 1; from 1 only a 1 wins. E1 = 6 and
    E0 = 1 + E1/6 + 4/6 E0, so E0 = 6; on N=1 T is geometric with p = 1/6: median 4."""
    assert one_die(Board.build(2), "exact").expected == pytest.approx(6, abs=1e-12)
    law = one_die(Board.build(1), "exact")
    assert law.expected == pytest.approx(6, abs=1e-12)
    assert law.median == 4  # 1 - (5/6)^4 = 0.518 is the first >= 0.5


def test_bounce_on_a_board_shorter_than_a_roll_ping_pongs_between_start_and_the_end():
    """N=1: a roll of k goes 0 -> 1 -> 0 -> ...: odd rolls end on 1 and win, so one die wins
    with 1/2 (E = 2); under classic a 6 ends on 0 and rolls again: a turn wins with
    q = 1/2 + q/6 = 3/5, E = 5/3 turns."""
    assert one_die(Board.build(1), "bounce").expected == pytest.approx(2, abs=1e-12)
    assert classic(Board.build(1)).expected == pytest.approx(5 / 3, abs=1e-12)


def test_bounce_takes_the_snake_where_the_piece_ends():
    """N=10, snake 8->2: from 9 a roll of 3 bounces back to 8 and slides to 2."""
    plain = one_die(Board.build(10), "bounce").expected
    assert one_die(Board.build(10, snakes=[(8, 2)]), "bounce").expected > plain


def test_a_ladder_onto_the_last_square_wins_the_exact_finish():
    board = Board.build(10, ladders=[(9, 10)])
    plain = one_die(Board.build(10), "exact").expected
    assert one_die(board, "exact").expected < plain


def test_a_snake_on_the_last_square_means_the_exact_finish_never_ends():
    board = Board.build(12, snakes=[(12, 2)])
    law = one_die(board, "exact")
    assert law.expected is None and law.p90 is None
    assert analyze(board).to_json()["one_die"]["exact"]["expected_rolls"] is None
    assert postal(board).length.expected is not None  # crossing needs no landing on 12


def test_a_snake_of_exactly_21_can_catch_a_postal_piece_for_good(tmp_path):
    """A cycle always adds 21. From 0 the first cycle ends on 21 unless a prefix of the
    order sums to 5 (the ladder 5->8): 216 of the 720 orders. From 21 the next cycle ends on
    42, whose snake leads back to 21, forever. So P(never finishing) = 504/720 exactly."""
    board = Board.build(60, ladders=[(5, 8)], snakes=[(42, 21)])
    length = postal(board).length
    assert length.expected is None
    assert length.caught_on == (21,)
    assert length.never == pytest.approx(504 / 720, abs=1e-12)
    summary = analyze(board).to_json()["postal"]
    assert summary["expected_turns"] is None and summary["caught_on"] == [21]
    path = tmp_path / "trap.yaml"
    path.write_text(board_yaml(board))
    table = CliRunner().invoke(board_group, ["analyze", str(path)])
    assert "never ends with p=0.7 (caught on 21)" in table.output


def test_a_board_nobody_can_cross_is_refused_with_a_reason():
    """Every square a move from 1..6 can reach is a snake head back down."""
    board = Board.build(12, snakes=[(7, 1), (8, 2), (9, 3), (10, 4), (11, 5), (12, 6)])
    with pytest.raises(AnalysisError, match="no sequence of numbers ever crosses"):
        analyze(board)


# -- the chain against the expectation's solve and brute force ---------------------------


def test_expected_turns_from_the_distribution_agree_with_the_solve(milton_bradley):
    result = analyze(milton_bradley, until=1e-12)
    for law in (result.rulesets["postal"].length, result.rulesets["classic"].length, *result.one_die.values()):
        mean = sum(t * p for t, p in enumerate(law.probabilities))
        assert mean == pytest.approx(law.expected, abs=1e-8)
        assert law.tail < 1e-12


def test_landings_per_game_add_up_to_the_expected_turns_but_one(milton_bradley):
    """Every turn but the crossing one lands a number on a square."""
    result = postal(milton_bradley)
    assert result.landed.sum() + 1 == pytest.approx(result.length.expected, abs=1e-6)
    assert result.ended.sum() == pytest.approx(result.landed.sum(), abs=1e-9)


TINY = [
    Board.build(8, ladders=[(2, 6)], snakes=[(7, 3)]),
    Board.build(10, ladders=[(1, 9), (4, 8)], snakes=[(6, 2), (10, 5)]),
    Board.build(14, levels=[5, 4, 5], offsets=[0, 1, 0], ladders=[(3, 12)], snakes=[(13, 1)]),
    Board.build(9, chains=True, ladders=[(2, 5), (5, 8)], snakes=[(9, 4), (4, 1)]),
]


def _padded(law, length: int) -> list[float]:
    """The law to `length` entries: propagation stops once no mass is left in play."""
    return list(law) + [0.0] * max(0, length - len(law))


def _brute_postal(board: Board, turns: int) -> list[Fraction]:
    """P(T = t), t <= turns, by following (square, numbers held) turn by turn in exact
    fractions, numbers picked uniformly: no cycle shortcut, no numpy."""
    land = [int(x) for x in landing_table(board)]
    states = {(0, frozenset(range(1, 7))): Fraction(1)}
    law = [Fraction(0)]
    for _ in range(turns):
        crossed, after = Fraction(0), {}
        for (square, held), chance in states.items():
            for number in held:
                share = chance / len(held)
                if square + number > board.squares:
                    crossed += share
                    continue
                rest = held - {number} or frozenset(range(1, 7))
                key = (land[square + number], rest)
                after[key] = after.get(key, Fraction(0)) + share
        law.append(crossed)
        states = after
    return law


@pytest.mark.parametrize("board", TINY, ids=lambda b: f"{b.squares}sq")
def test_postal_dp_matches_brute_force_enumeration_on_tiny_boards(board):
    law = _padded(postal(board, until=1e-12).length.probabilities, 31)
    brute = _brute_postal(board, 30)
    for t, exact in enumerate(brute):
        assert law[t] == pytest.approx(float(exact), abs=1e-13)


def _brute_die(board: Board, finish: str, rolls: int) -> list[Fraction]:
    n, land = board.squares, [int(x) for x in landing_table(board)]
    states, law = {0: Fraction(1)}, [Fraction(0)]
    for _ in range(rolls):
        won, after = Fraction(0), {}
        for square, chance in states.items():
            for roll in range(1, 7):
                target = square + roll
                if finish == "crossing" and target > n:
                    won += chance / 6
                    continue
                if target > n:
                    target = square if finish == "exact" else 2 * n - target
                end = land[target]
                if finish != "crossing" and end == n:
                    won += chance / 6
                    continue
                after[end] = after.get(end, Fraction(0)) + chance / 6
        law.append(won)
        states = after
    return law


@pytest.mark.parametrize("finish", ["exact", "bounce", "crossing"])
@pytest.mark.parametrize("board", TINY, ids=lambda b: f"{b.squares}sq")
def test_one_die_chain_matches_brute_force_enumeration_on_tiny_boards(board, finish):
    law = _padded(one_die(board, finish, until=1e-12).probabilities, 26)
    for t, exact in enumerate(_brute_die(board, finish, 25)):
        assert law[t] == pytest.approx(float(exact), abs=1e-13)


def _brute_classic_turn(board: Board, square: int, depth: int = 12) -> tuple[dict[int, Fraction], Fraction]:
    """One classic turn from `square`: where it ends and the chance it wins, sixes
    followed `depth` deep (6^-12 is far below the comparison's tolerance)."""
    n, land = board.squares, [int(x) for x in landing_table(board)]
    ends: dict[int, Fraction] = {}
    won = Fraction(0)
    for roll in range(1, 7):
        target = square + roll
        if target > n:
            target = 2 * n - target
        end = land[target]
        if end == n:
            won += Fraction(1, 6)
        elif roll < 6:
            ends[end] = ends.get(end, Fraction(0)) + Fraction(1, 6)
        elif depth:
            more, more_won = _brute_classic_turn(board, end, depth - 1)
            won += more_won / 6
            for q, c in more.items():
                ends[q] = ends.get(q, Fraction(0)) + c / 6
    return ends, won


@pytest.mark.parametrize("board", TINY[:2], ids=lambda b: f"{b.squares}sq")
def test_classic_chain_matches_brute_force_turns_on_tiny_boards(board):
    law = _padded(classic(board, until=1e-12).probabilities, 13)
    states, brute = {0: Fraction(1)}, [Fraction(0)]
    turns = {s: _brute_classic_turn(board, s) for s in range(board.squares + 1)}
    for _ in range(12):
        won, after = Fraction(0), {}
        for square, chance in states.items():
            ends, win = turns[square]
            won += chance * win
            for q, c in ends.items():
                after[q] = after.get(q, Fraction(0)) + chance * c
        brute.append(won)
        states = after
    for t, exact in enumerate(brute):
        assert law[t] == pytest.approx(float(exact), abs=1e-9)


def _brute_force_fewest(board: Board) -> int:
    """Breadth first over (square, numbers held), one turn at a time."""
    land = landing_table(board)
    frontier, seen = {(0, frozenset(range(1, 7)))}, set()
    for turn in itertools.count(1):
        after = set()
        for square, held in frontier:
            for number in held:
                if square + number > board.squares:
                    return turn
                state = (int(land[square + number]), held - {number} or frozenset(range(1, 7)))
                if state not in seen:
                    seen.add(state)
                    after.add(state)
        frontier = after
    raise AssertionError


@pytest.mark.parametrize("board", TINY, ids=lambda b: f"{b.squares}sq")
def test_fewest_turns_match_a_turn_by_turn_search(board):
    assert postal(board).fewest_turns == _brute_force_fewest(board)


# -- the command ------------------------------------------------------------------------


def test_analyze_json_for_one_file_is_one_object_and_for_several_a_list():
    runner = CliRunner()
    one = runner.invoke(board_group, ["analyze", str(BOARDS / "small.yaml"), "--json"])
    assert one.exit_code == 0, one.output
    assert json.loads(one.output)["squares"] == 30
    two = runner.invoke(board_group, ["analyze", str(BOARDS / "small.yaml"),
                                      str(BOARDS / "ziggurat.yaml"), "--json"])
    assert [r["squares"] for r in json.loads(two.output)] == [30, 48]


def test_analyze_shows_several_boards_side_by_side_and_plots_them(tmp_path):
    plot = tmp_path / "lengths.svg"
    result = CliRunner().invoke(board_group, ["analyze", str(BOARDS / "milton-bradley.yaml"),
                                              str(BOARDS / "small.yaml"), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert "Classic Hundred" in header and "The Garden Path" in header
    assert any(row.startswith("postal turns") and "36.42 (30/67)" in row for row in rows)
    text = plot.read_text()
    assert text.startswith("<svg") and "postal: expected 36.42" in text and "classic: expected 36.24" in text


def test_analyze_refuses_a_bad_board_with_its_problems_and_exit_1(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("squares: 10\nsnakes: [[3, 5]]\n")
    result = CliRunner().invoke(board_group, ["analyze", str(bad)])
    assert result.exit_code == 1
    assert "snake 3->5: head below tail" in result.output
    assert "Traceback" not in result.output


# -- invariants -------------------------------------------------------------------------


@st.composite
def boards(draw):
    """Any sound board of up to 40 squares, chains or not."""
    n = draw(st.integers(1, 40))
    chains = draw(st.booleans())
    items: list[tuple[str, int, int]] = []
    for _ in range(draw(st.integers(0, 8))):
        a, b = draw(st.integers(1, n)), draw(st.integers(1, n))
        if a == b:
            continue
        candidate = ("ladder", a, b) if a < b else ("snake", a, b)
        trial = items + [candidate]
        try:
            Board.build(n, chains=chains,
                                snakes=[(s, e) for k, s, e in trial if k == "snake"],
                                ladders=[(s, e) for k, s, e in trial if k == "ladder"])
        except BoardError:
            continue
        items = trial
    return Board.build(n, chains=chains, snakes=[(s, e) for k, s, e in items if k == "snake"],
                       ladders=[(s, e) for k, s, e in items if k == "ladder"])


@settings(max_examples=80, deadline=None)
@given(boards())
def test_any_board_is_analysed_consistently_or_refused_with_a_reason(board):
    """The expectation from the solve is the mean of the propagated law; percentiles are
    ordered; fewest turns never exceed the median; a refusal is an AnalysisError."""
    try:
        result = analyze(board, until=1e-12)
    except AnalysisError as error:
        assert "ever crosses" in str(error)
        return
    for law in (result.rulesets["postal"].length, result.rulesets["classic"].length, *result.one_die.values()):
        if law.expected is None:
            continue
        mean = sum(t * p for t, p in enumerate(law.probabilities))
        assert mean == pytest.approx(law.expected, rel=1e-8, abs=1e-8)
        assert law.median <= law.p90
    if result.rulesets["postal"].length.median is not None:
        assert 1 <= result.rulesets["postal"].fewest_turns <= result.rulesets["postal"].length.median


def test_postal_beyond_the_dense_limit_propagates_and_agrees_with_the_solve(milton_bradley, monkeypatch):
    """Beyond DENSE_LIMIT squares postal's visits are summed by propagation to 1e-13."""
    solved = postal(milton_bradley)
    trap = Board.build(60, ladders=[(5, 8)], snakes=[(42, 21)])
    solved_trap = postal(trap).length
    monkeypatch.setattr(chain_module, "DENSE_LIMIT", 10)
    summed = postal(milton_bradley)
    assert summed.length.expected == pytest.approx(solved.length.expected, abs=1e-9)
    assert summed.landed == pytest.approx(solved.landed, abs=1e-9)
    assert postal(trap).length.never == pytest.approx(solved_trap.never, abs=1e-12)


@functools.cache
def _brute_doubles_turn(board: Board, square: int, sixes: int = 0, depth: int = 12) -> tuple[tuple[tuple[int, Fraction], ...], Fraction]:
    """One doubles turn from `square` (docs/rules/doubles.md), written out independently: two dice
    move their sum with the bounce (4.1, mod 2N on a short board), a double that has not
    finished throws again, the third double six in a row is not moved and ends the turn;
    doubles followed `depth` deep."""
    n, land = board.squares, [int(x) for x in landing_table(board)]
    ends: dict[int, Fraction] = {}
    won = Fraction(0)
    for first in range(1, 7):
        for second in range(1, 7):
            chance = Fraction(1, 36)
            if first == second == 6 and sixes == 2:
                ends[square] = ends.get(square, Fraction(0)) + chance
                continue
            target = (square + first + second) % (2 * n)
            if target > n:
                target = 2 * n - target
            end = land[target]
            if end == n:
                won += chance
            elif first != second:
                ends[end] = ends.get(end, Fraction(0)) + chance
            elif depth:
                more, more_won = _brute_doubles_turn(board, end, sixes + 1 if first == 6 else 0, depth - 1)
                won += more_won * chance
                for q, c in more:
                    ends[q] = ends.get(q, Fraction(0)) + c * chance
    return tuple(sorted(ends.items())), won


@pytest.mark.parametrize("board", TINY[:2], ids=lambda b: f"{b.squares}sq")
def test_4_3_doubles_chain_matches_brute_force_turns_on_tiny_boards(board):
    law = _padded(doubles(board, until=1e-12).probabilities, 13)
    states, brute = {0: Fraction(1)}, [Fraction(0)]
    turns = {s: _brute_doubles_turn(board, s) for s in range(board.squares + 1)}
    for _ in range(12):
        won, after = Fraction(0), {}
        for square, chance in states.items():
            ends, win = turns[square]
            won += chance * win
            for q, c in ends:
                after[q] = after.get(q, Fraction(0)) + chance * c
        brute.append(won)
        states = after
    for t, exact in enumerate(brute):
        assert law[t] == pytest.approx(float(exact), abs=1e-9)


def test_4_3_doubles_figures_are_in_analyze_json():
    result = analyze(load_board(BOARDS / "milton-bradley.yaml")).to_json()
    assert set(result) >= {"squares", "postal", "one_die", "classic", "doubles"}
    assert result["doubles"]["expected_turns"] < result["classic"]["expected_turns"]  # two dice go further


# -- memory linear in the board ----------------------------------------------


def _random_board(squares: int, seed: int = 1) -> Board:
    """A board with a tenth of its squares' worth of snakes and ladders, each between two
    random squares, as the issue measured."""
    rng = random.Random(seed)
    ends = rng.sample(range(2, squares), 2 * (squares // 10))
    snakes, ladders = [], []
    for a, b in zip(ends[::2], ends[1::2], strict=True):
        (snakes.append((max(a, b), min(a, b))) if rng.random() < 0.5 else ladders.append((min(a, b), max(a, b))))
    return Board.build(squares, snakes=snakes, ladders=ladders, name=f"random-{squares}")


def _doubles_chain(board: Board) -> StepChain:
    return StepChain.build(board, landing_table(board), "bounce", doubles_throws())


def test_4_3_doubles_chain_stores_a_fixed_number_of_moves_per_square():
    """A doubles state is a square and the double sixes in a row, with the few moves of
    one throw out of it: twice the squares, twice the moves (the table of where a turn
    ends from each square, which it replaces, was N^2)."""
    small, big = (_doubles_chain(_random_board(n)).stored() for n in (1000, 2000))
    assert 1.8 < big / small < 2.2
    assert small < 40 * 1001  # a few dozen moves per square, whatever the board


def test_the_exact_solve_of_a_tangled_doubles_board_equals_a_dense_solve():
    """The sweep (module docstring) against numpy's dense solve of the same chain, on a
    board thick with chained snakes and ladders, every state kept."""
    board = Board.build(150, chains=True, snakes=[(140, 20), (20, 5), (120, 60), (99, 3), (149, 100), (60, 30)],
                        ladders=[(2, 90), (90, 130), (35, 145), (7, 33)])
    chain = _doubles_chain(board)
    start = int(chain.standing(0))
    keep = reachable_from(chain.size, chain.moves, start)
    moves = chain.moves.restricted(keep)
    size = int(keep.sum())
    system = np.eye(size)
    system[moves.dst, moves.src] -= moves.prob
    visits = np.linalg.solve(system, np.eye(size)[int(np.cumsum(keep)[start] - 1)])
    dense = visits @ chain.counts[keep]
    swept = sweep_solve(moves, int(np.cumsum(keep)[start] - 1), chain.counts[keep][None, :])[0]
    assert swept == pytest.approx(dense, rel=1e-12)
    assert doubles(board).expected == pytest.approx(dense, rel=1e-12)


def test_a_10000_square_board_is_solved_in_bounded_memory():
    """docs/rules/, The board's largest board, a tenth of it snakes and ladders (the issue's board,
    whose doubles analysis was killed at 1,000 squares over 20 GB): the doubles chain and
    its exact solve hold a few dozen MB, counted from their arrays; the propagation adds
    a few arrays of N numbers (benchmarks/analysis.py measures the whole command)."""
    chain = _doubles_chain(_random_board(10_000))
    assert chain.footprint() < 64 << 20


def test_a_board_whose_snakes_pile_over_one_square_is_refused_before_any_work(tmp_path, monkeypatch):
    """1,200 snakes over square 5,000, one inside the other: the exact solve would hold
    (3 x 1,200)^2 numbers, so gm board analyze refuses in one line before analysing."""
    board = Board.build(10_000, snakes=[(5001 + i, 5000 - i) for i in range(1200)])
    path = tmp_path / "tangled.yaml"
    path.write_text(board_yaml(board))

    def no_work(*args, **kwargs):
        raise AssertionError("analysed before refusing")

    monkeypatch.setattr(analysis_module, "one_die", no_work)
    monkeypatch.setattr(dicechains_module, "StepChain", no_work)
    result = CliRunner().invoke(board_group, ["analyze", str(path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: board: 1,200 snakes lie over square 5,000; an exact analysis takes at most 1,000 over one square"]


def test_analyze_ruleset_option_analyses_that_ruleset_alone(milton_bradley):
    """`gm board analyze --ruleset NAME` (repeatable): those rulesets' figures alone, the
    same as in the whole analysis, without one die; the default output keeps every key
    of CONTRACT.md's example."""
    path = str(BOARDS / "milton-bradley.yaml")
    runner = CliRunner()
    whole = json.loads(runner.invoke(board_group, ["analyze", path, "--json"]).output)
    assert set(whole) >= {"squares", "postal", "one_die", "classic"}
    alone = runner.invoke(board_group, ["analyze", path, "--json", "--ruleset", "doubles"])
    assert alone.exit_code == 0, alone.output
    assert json.loads(alone.output) == {"squares": 100, "doubles": whole["doubles"]}
    table = runner.invoke(board_group, ["analyze", path, "--ruleset", "classic", "--ruleset", "doubles"]).output
    assert "classic turns" in table and "doubles turns" in table
    assert "postal" not in table and "one die" not in table
    wrong = runner.invoke(board_group, ["analyze", path, "--ruleset", "advanced"])
    assert wrong.exit_code == 2
    # the list names installed plugins too (the example pig race, when installed)
    those = ", ".join(analysis_module.analysing_rulesets())
    assert {"classic", "doubles", "postal"} <= set(analysis_module.analysing_rulesets())
    assert f"advanced is not a ruleset that analyses boards (those that do: {those})" in wrong.output


@pytest.mark.parametrize("name", ["classic", "doubles"])
def test_the_designers_expected_length_is_the_analysis_expectation(name, milton_bradley):
    """`gm board design`'s `<ruleset>_expected_turns` targets solve the chain alone,
    without carrying the law: the same number as `gm board analyze`'s."""
    from gm.rules.registry import find_ruleset

    ruleset = find_ruleset(name)
    for board in (milton_bradley, _random_board(300)):
        assert ruleset.board_expected(board) == ruleset.board_figures(board, until=1e-3).length.expected
