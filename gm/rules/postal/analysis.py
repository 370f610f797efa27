"""The postal game on a board for one player alone (docs/rules/postal.md, Numbers; Crossing the
finish and placings): `gm board analyze`'s `postal` figures and the designer's
`postal_expected_turns` (Postal.board_figures, Postal.board_expected), on the exact chain engine of
gm.boards.analysis.

A cycle of six turns is the chain's period. The true state is (square, numbers held), but
a player who picks uniformly among the numbers held plays every order of 1..6 with the
same chance 1/720 (1/6 * 1/5 * ... * 1/1), and a fresh set is issued exactly at the start
of each cycle; so at cycle starts the state is the square alone, and the cycle's effect is
the average over the 720 orders. For every square at once we walk the cycle turn by turn
over the sets of numbers played so far (64 of them; the order within a set no longer
matters), as numpy arrays, which gives the cycle's moves and `finish[j, p]`, the chance
that a cycle started on p crosses at its turn j+1. Squares
landed on are the expected cycle starts on each square times what a cycle started there
lands on. The trapdoor is left out: it is voted in play. A piece crosses when p + k > N.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...boards.chain import UNTIL, AnalysisError, Chain, Stage, landing_table
from ...boards.dicechains import SIX
from ...boards.figures import Distribution
from ...boards.model import START, Board

__all__ = ["PostalAnalysis", "fewest_postal", "postal", "postal_expected_turns"]


@dataclass(frozen=True)
class PostalAnalysis:
    """docs/rules/postal.md, Numbers/2.3 for a player who picks uniformly among the numbers still
    held.

    `landed[s]`: expected number of times per game a number brings the piece to square s
    (before any snake or ladder there); `ended[s]`: expected number of turns that end on s
    (after them)."""

    fewest_turns: int
    fewest_sequence: tuple[int, ...]
    length: Distribution
    landed: np.ndarray = field(repr=False, compare=False)
    ended: np.ndarray = field(repr=False, compare=False)

    def most_landed(self, count: int = 10) -> list[tuple[int, float]]:
        """The `count` squares numbers bring a piece to most often, most first."""
        return _top(self.landed, count)

    def most_ended(self, count: int = 10) -> list[tuple[int, float]]:
        """The `count` squares turns end on most often, most first."""
        return _top(self.ended, count)

    unit = "turns"

    def to_json(self) -> dict[str, Any]:
        """CONTRACT.md's `postal` (plus the landing figures, which it allows)."""
        return {
            "fewest_turns": self.fewest_turns,
            "fewest_sequence": list(self.fewest_sequence),
            **self.length.summary("turns"),
            "most_landed": [[s, round(v, 4)] for s, v in self.most_landed()],
            "most_ended": [[s, round(v, 4)] for s, v in self.most_ended()],
        }

    def rows(self) -> list[tuple[str, str]]:
        """Its rows of `gm board analyze`'s table, under its length."""
        return [
            ("  fewest turns", str(self.fewest_turns)),
            ("  one way", " ".join(map(str, self.fewest_sequence))),
            ("  landed on most", ", ".join(str(s) for s, _ in self.most_landed()[:5])),
            ("  turns end most on", ", ".join(str(s) for s, _ in self.most_ended()[:5])),
        ]


def _top(counts: np.ndarray, count: int) -> list[tuple[int, float]]:
    # squares that tie (to well within what is shown) come in order, whatever the rounding
    order = sorted(range(1, len(counts)), key=lambda s: (-round(float(counts[s]), 9), s))
    return [(s, float(counts[s])) for s in order[:count] if counts[s] > 0]


def _merged(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, square, chance) pieces with each (start, square) once, its chances summed."""
    start = np.concatenate([part[0] for part in parts])
    key, inverse = np.unique(start * size + np.concatenate([part[1] for part in parts]), return_inverse=True)
    return key // size, key % size, np.bincount(inverse, weights=np.concatenate([part[2] for part in parts]))


def _walk_cycle(n: int, land: np.ndarray, visits: np.ndarray | None = None):
    """Walk one cycle from every square 0..n at once, turn by turn, over the sets of
    numbers played so far (64 of them): where the piece stands and with what chance, as
    (start, square, chance) entries, merged per set, since what follows depends on the
    set and the square alone, not on the order that led there. Each number still held is
    played next with chance 1/(numbers held). Without an item in the way every order of a
    set ends on the same square, so a set holds about one entry per start: the walk is
    linear in the board.

    Returns `finish[j, p]` and the cycle's moves as (src, dst, prob) pieces; given the
    expected cycle starts per square (`visits`), also the expected number of times a number
    brings the piece to each square (`landed`)."""
    size = n + 1
    finish = np.zeros((6, size))
    landed = np.zeros(size)
    squares = np.arange(size)
    played = {0: (squares, squares, np.ones(size))}  # the numbers played (bits) -> entries
    for turn in range(6):
        share = 1.0 / (6 - turn)
        after: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        for numbers, (start, square, chance) in played.items():
            for number in SIX:
                bit = 1 << number
                if numbers & bit:
                    continue
                target = square + number
                crossed = target > n
                finish[turn] += np.bincount(start[crossed], weights=chance[crossed], minlength=size) * share
                go = ~crossed
                if visits is not None:
                    landed += np.bincount(target[go], weights=visits[start[go]] * chance[go] * share, minlength=size)
                after.setdefault(numbers | bit, []).append((start[go], land[target[go]], chance[go] * share))
        played = {numbers: _merged(parts, size) for numbers, parts in after.items()}
    return finish, [played[sum(1 << number for number in SIX)]], landed


def _postal_chain(board: Board, land: np.ndarray) -> Chain:
    finish, ends, _ = _walk_cycle(board.squares, land)
    return Chain(Stage.merged(ends, board.squares + 1), finish)


def postal_expected_turns(board: Board) -> float | None:
    """Only the expected postal length: what the designer's target search needs."""
    return _postal_chain(board, landing_table(board)).expected()


def postal(board: Board, *, until: float = UNTIL) -> PostalAnalysis:
    """The postal game for one player alone (docs/rules/postal.md, Numbers; Crossing the finish and
    placings; no trapdoor)."""
    land = landing_table(board)
    chain = _postal_chain(board, land)
    length, visits = chain.distribution(until)
    # a second walk weighs each landing by how often its cycle start is visited
    _, _, landed = _walk_cycle(board.squares, land, visits)
    ended = np.bincount(land, weights=landed, minlength=board.squares + 1)
    turns, sequence = fewest_postal(board, chain, land)
    return PostalAnalysis(turns, sequence, length, landed, ended)


def _play(board: Board, land: np.ndarray, square: int, numbers: tuple[int, ...]) -> int:
    """Where a sequence of numbers takes a piece from `square`; -(turn) when it crosses."""
    for turn, number in enumerate(numbers, 1):
        if square + number > board.squares:
            return -turn
        square = int(land[square + number])
    return square


def fewest_postal(board: Board, chain: Chain, land: np.ndarray) -> tuple[int, tuple[int, ...]]:
    """The fewest turns to cross and one sequence of numbers that does it.

    Breadth first over cycles: the squares first reachable at each cycle start, until one
    of them can finish within the cycle; then the route back, each cycle's numbers being
    the first order (lexicographically) that makes that step."""
    can_cross = chain.finish > 0  # [turn, square]
    parent = {START: None}
    frontier = [START]
    while frontier:
        crossing = [(int(np.argmax(can_cross[:, p])), p) for p in frontier if can_cross[:, p].any()]
        if crossing:
            turn, square = min(crossing)
            break
        nxt = []
        in_frontier = np.zeros(chain.size, dtype=bool)
        in_frontier[frontier] = True
        mask = in_frontier[chain.moves.src]
        for p, q in sorted(zip(chain.moves.src[mask].tolist(), chain.moves.dst[mask].tolist(), strict=True)):
            if q not in parent:
                parent[q] = p
                nxt.append(q)
        frontier = sorted(nxt)
    else:
        raise AnalysisError(f"{board.name or 'board'}: no sequence of numbers ever crosses it")
    orders = list(itertools.permutations(SIX))
    last = next(o[: turn + 1] for o in orders if _play(board, land, square, o[: turn + 1]) == -(turn + 1))
    route = [last]
    while parent[square] is not None:
        before = parent[square]
        route.append(next(o for o in orders if _play(board, land, before, o) == square))
        square = before
    sequence = tuple(x for part in reversed(route) for x in part)
    return len(sequence), sequence
