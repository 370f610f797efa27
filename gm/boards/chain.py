"""The chain engine of board analysis (the method is gm.boards.analysis's docstring): an
absorbing Markov chain over the squares, its mass carried forward period by period, and its
expectation solved exactly by a sweep over the squares, with the limits that keep both
within the 10,000 squares a board may have (docs/campaign.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import GmError
from .figures import Distribution
from .model import START, Board
from .moving import landing

UNTIL = 1e-3  # propagation stops when less mass than this is still in play
MAX_PERIODS = 200_000  # a guard for pathological boards whose mass barely drains
DENSE_LIMIT = 3000  # a ruleset chain's squares; beyond, the solve's N^2 matrix gives way to propagation
EXACT = 1e-13  # the mass left in play when propagation stands in for the solve
MAX_OVERLAP = 1_000  # snakes over one square; the exact solve holds (3 x them)^2 numbers


class AnalysisError(GmError):
    """A board that cannot be analysed (for instance one nobody can ever cross)."""


def landing_table(board: Board) -> np.ndarray:
    """Where a piece that comes to each square 0..N ends after its snakes and ladders
    (docs/campaign.md, Board files: effects once per move; none of what a ruleset adds in play). No item
    starts where one of the other kind ends, so where a piece ends holds no item of its
    own: land[land[s]] == land[s]."""
    return np.array([landing(s, board.jumps)[0] for s in range(board.squares + 1)], dtype=np.int64)


@dataclass(frozen=True)
class Stage:
    """A sparse step of mass: `prob` of each entry goes from `src` to `dst`."""

    src: np.ndarray
    dst: np.ndarray
    prob: np.ndarray

    @classmethod
    def merged(cls, parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], size: int) -> Stage:
        """One stage from many pieces, repeated (src, dst) pairs summed so that each
        propagation touches a pair once."""
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
        parts = [empty, *parts]  # a board crossed within one period from anywhere has no moves
        src = np.concatenate([part[0] for part in parts])
        dst = np.concatenate([part[1] for part in parts])
        prob = np.concatenate([part[2] for part in parts])
        keys, inverse = np.unique(src * size + dst, return_inverse=True)
        return cls(keys // size, keys % size, np.bincount(inverse, weights=prob))

    def apply(self, mass: np.ndarray) -> np.ndarray:
        return np.bincount(self.dst, weights=mass[self.src] * self.prob, minlength=mass.size)

    def restricted(self, keep: np.ndarray) -> Stage:
        """The moves between the states `keep` marks, renumbered 0.. in the same order."""
        inside = keep[self.src] & keep[self.dst]
        number = np.cumsum(keep) - 1
        return Stage(number[self.src[inside]], number[self.dst[inside]], self.prob[inside])


def reachable_from(size: int, moves: Stage, start: int) -> np.ndarray:
    """The states a path of moves leads to from `start`."""
    return _search(size, moves.src, moves.dst, [start])


def can_finish_from(size: int, moves: Stage, finishing: np.ndarray) -> np.ndarray:
    """The states from which finishing has a positive chance: those a move can finish
    from, and backwards from them."""
    return _search(size, moves.dst, moves.src, np.nonzero(finishing)[0].tolist())


def _search(size: int, src: np.ndarray, dst: np.ndarray, starts: list[int]) -> np.ndarray:
    """Every state a path src -> dst leads to from `starts`: a search over adjacency
    lists, linear in the moves (a frontier of arrays would take a pass over every move
    for each step of the longest path, N^2 on a long board)."""
    order = np.argsort(src, kind="stable")
    bounds = np.searchsorted(src[order], np.arange(size + 1)).tolist()
    after = dst[order].tolist()
    seen = [False] * size
    for state in starts:
        seen[state] = True
    todo = list(starts)
    while todo:
        state = todo.pop()
        for nxt in after[bounds[state] : bounds[state + 1]]:
            if not seen[nxt]:
                seen[nxt] = True
                todo.append(nxt)
    return np.array(seen, dtype=bool)


def propagate(step: Callable[[np.ndarray], tuple[np.ndarray, Any]], start: np.ndarray,
               in_play: np.ndarray, until: float) -> tuple[np.ndarray, float]:
    """P(T = t) for t = 0, 1, ... while more than `until` of the mass is still in play
    (`in_play`: 1.0 where finishing is still possible), and the mass left over. `step`
    carries the mass over one period and says what finished at each of its steps."""
    mass, law = start, []
    for _ in range(MAX_PERIODS):
        mass, finished = step(mass)
        law.append(finished)
        if mass @ in_play < until:
            break
    return np.concatenate(([0.0], np.asarray(law).ravel())), float(mass.sum())


@dataclass(frozen=True)
class Solution:
    """What the chain's equations give: E[T] (None when infinite), the chance of never
    finishing, the squares that catch a piece for good at a period start, and (a ruleset's
    own chain) the expected period starts per square."""

    expected: float | None
    never: float
    caught_on: tuple[int, ...]
    visits: np.ndarray | None = None


def sweep_solve(moves: Stage, start: int, values: np.ndarray) -> np.ndarray:
    """values @ v, where v = e_start (I - Q)^-1 are the expected visits to each state of
    a chain whose every state can still finish (Q: `moves`, (src, dst) pairs unique).

    Gaussian elimination in the order of the states, which is the order of the squares:
    v[q] is the start's share plus what comes to q from states before it (forward
    moves: their rows are known) and from states after it (a snake or a bounce back: an
    unknown inflow, a column of its own). A row is kept, as numbers over the columns open
    at the time, only until the last state that moves on from it; a column is solved, and
    substituted everywhere, at the last state that moves back into it; `values` are summed
    as the sweep goes. So the memory is the rows kept times the columns open at once
    (the snakes over one square), never N^2, and each row is a handful of numpy calls."""
    size = values.shape[1]
    src, dst, prob = moves.src, moves.dst, moves.prob
    loop = src == dst
    stay = np.bincount(src[loop], weights=prob[loop], minlength=size).tolist()
    on, back = src < dst, src > dst
    by_dst = np.argsort(dst[on], kind="stable")
    on_src, on_prob = src[on][by_dst], prob[on][by_dst]
    into = np.searchsorted(dst[on][by_dst], np.arange(size + 1)).tolist()
    by_src = np.argsort(src[back], kind="stable")
    back_dst, back_prob = dst[back][by_src], prob[back][by_src]
    out_back = np.searchsorted(src[back][by_src], np.arange(size + 1)).tolist()
    last_back, last_use, height, width = spans_of(moves, size)
    columns = np.nonzero(last_back >= 0)[0]
    rows = np.zeros((max(height, 1), width + 1))  # the last column holds the constant term
    inflow = np.zeros((max(width, 1), width + 1))  # what has moved back into each column so far
    total = np.zeros((len(values), width + 1))
    row_of, column_of = np.full(size, -1), np.full(size, -1)
    free_rows, free_columns = list(range(height)), list(range(width))
    freed: dict[int, list[int]] = {}
    solved_at: dict[int, list[int]] = {}
    for column in columns.tolist():
        solved_at.setdefault(int(last_back[column]), []).append(column)
    is_column, last_use_l = (last_back >= 0).tolist(), last_use.tolist()
    for q in range(size):
        free_rows += freed.pop(q, [])
        lo, hi = into[q], into[q + 1]
        row = on_prob[lo:hi] @ rows[row_of[on_src[lo:hi]]] if hi > lo else np.zeros(width + 1)
        if q == start:
            row[width] += 1.0
        if is_column[q]:
            column_of[q] = free_columns.pop()
            row[column_of[q]] += 1.0
        if stay[q]:
            row /= 1.0 - stay[q]
        total += values[:, q, None] * row
        lo, hi = out_back[q], out_back[q + 1]
        if hi > lo:
            inflow[column_of[back_dst[lo:hi]]] += back_prob[lo:hi, None] * row
        if last_use_l[q] > q:
            row_of[q] = free_rows.pop()
            rows[row_of[q]] = row
            freed.setdefault(last_use_l[q] + 1, []).append(int(row_of[q]))
        for target in solved_at.get(q, ()):
            column = column_of[target]
            # the inflow is now complete and holds the column itself: solve, substitute
            solved = inflow[column] / (1.0 - inflow[column, column])
            solved[column] = 0.0
            for block in (rows, inflow, total):
                block += np.outer(block[:, column], solved)
                block[:, column] = 0.0
            inflow[column] = 0.0
            free_columns.append(column)
    return total[:, width]


def solve_kept(moves: Stage, start: int, live: np.ndarray, good: np.ndarray,
               cost: np.ndarray) -> tuple[float, float]:
    """The exact solve of a chain that may catch a piece for good, by sweep_solve over the
    states kept: those `live` (reachable from `start`) that are `good` (can still finish;
    `start` must be). Returns `cost` (what a visit to each state adds to the length) summed
    over the expected visits, E[T] when nothing catches a piece, and the chance of moving
    into a caught state (live, not good), where the length is infinite. A ruleset's own
    chain (a plugin's, or gm.boards.dicechains's) calls it rather than renumbering the
    states itself."""
    caught, keep = live & ~good, live & good
    src, prob = moves.src, moves.prob
    into = caught[moves.dst] & keep[src]
    # what each state adds to the length, and its chance of moving into a trap
    values = np.stack([cost, np.bincount(src[into], weights=prob[into], minlength=cost.size)])[:, keep]
    length, never = sweep_solve(moves.restricted(keep), int(np.cumsum(keep)[start] - 1), values)
    return float(length), float(never)


def spans_of(moves: Stage, size: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """For each state, the last state that moves back into it and the last state a
    forward move of it reaches (-1 for none): where the sweep solves its column and where
    it drops its row; and the most rows and columns the sweep holds at once."""
    src, dst = moves.src, moves.dst
    last_back, last_use = np.full(size, -1), np.full(size, -1)
    back, on = src > dst, src < dst
    np.maximum.at(last_back, dst[back], src[back])
    np.maximum.at(last_use, src[on], dst[on])
    columns, kept = np.nonzero(last_back >= 0)[0], np.nonzero(last_use >= 0)[0]
    return (last_back, last_use, _overlap(size, kept, last_use[kept])[0],
            _overlap(size, columns, last_back[columns])[0])


def _overlap(size: int, begin: np.ndarray, end: np.ndarray) -> tuple[int, int]:
    """The most of the intervals [begin, end] over one point, and the first such point."""
    if not begin.size:
        return 0, 0
    change = np.bincount(begin, minlength=size + 1) - np.bincount(end + 1, minlength=size + 2)[: size + 1]
    over = np.cumsum(change)
    return int(over.max()), int(over.argmax())


def check_size(board: Board) -> None:
    """Refuse, before any work, a board whose snakes lie over one another too thickly for
    the exact solve, whose memory and time grow with the square of the snakes over one
    square (MAX_OVERLAP; a random board of 10,000 squares with a thousand snakes and
    ladders has about 270)."""
    check_overlap(board, landing_table(board))


def check_overlap(board: Board, land: np.ndarray) -> None:
    heads = np.nonzero(land < np.arange(board.squares + 1))[0]
    over, square = _overlap(board.squares + 1, land[heads], heads)
    if over > MAX_OVERLAP:
        raise AnalysisError(f"{board.name or 'board'}: {over:,} snakes lie over square {square:,}; "
                            f"an exact analysis takes at most {MAX_OVERLAP:,} over one square")


@dataclass(frozen=True)
class Chain:
    """An absorbing chain over squares 0..size-1 seen once per period (module docstring),
    as a ruleset's periods of several turns are: `moves`, one period's moves of pieces still in play;
    `finish[j, p]`, the chance of finishing at step j+1 of a period started on p."""

    moves: Stage
    finish: np.ndarray

    @property
    def size(self) -> int:
        return self.finish.shape[1]

    @property
    def period(self) -> int:
        return self.finish.shape[0]

    def reachable(self) -> np.ndarray:
        """The squares a piece can stand on at a period start, from Start."""
        return reachable_from(self.size, self.moves, START)

    def can_finish(self) -> np.ndarray:
        """The squares from which finishing has a positive chance."""
        return can_finish_from(self.size, self.moves, self.finish.sum(axis=0) > 0)

    def expected(self) -> float | None:
        """E[T]; None when infinite."""
        return self.solve().expected

    def solve(self) -> Solution:
        """The expected period starts on each square reachable from Start that can still
        finish (G), v = e_Start (I - Q_GG)^-1, and from it E[T] = v . r (r: the steps a
        period started on each square counts). When a piece can be caught for good
        (reachable squares that cannot finish), E[T] is infinite and the chance of being
        caught is v . (Q_G->caught 1). Up to DENSE_LIMIT squares one dense solve (exact to
        rounding, whatever the board; N^2 memory: 8 MB at 1,000 squares, 72 MB at 3,000,
        and numpy's copy of it); beyond, the sum of the mass at every
        period start until less than EXACT of it is in play (linear memory)."""
        live, good = self.reachable(), self.can_finish()
        caught = live & ~good
        caught_on = tuple(int(q) for q in np.nonzero(caught)[0])
        if not good[START]:
            return Solution(None, 1.0, caught_on, np.zeros(self.size))
        src, dst, prob = self.moves.src, self.moves.dst, self.moves.prob
        states = np.nonzero(live & good)[0]
        if states.size <= DENSE_LIMIT:
            index = -np.ones(self.size, dtype=np.int64)
            index[states] = np.arange(states.size)
            keep = (index[src] >= 0) & (index[dst] >= 0)
            system = np.eye(states.size)
            # (src, dst) pairs are unique in a merged stage, so plain indexing adds each once
            system[index[src[keep]], index[dst[keep]]] -= prob[keep]
            start = np.zeros(states.size)
            start[index[START]] = 1.0
            visits = np.zeros(self.size)
            visits[states] = np.linalg.solve(system.T, start)
        else:
            visits = self._visits_by_propagation(live & good)
        if caught_on:
            into = caught[dst]
            chance = float(np.bincount(src[into], weights=prob[into], minlength=self.size) @ visits)
            return Solution(None, chance, caught_on, visits)
        steps = np.arange(1, self.period + 1)[:, None]
        stay = 1 - self.finish.sum(axis=0)
        # a period finishing at step j counts j; one that goes on counts the whole period
        counts = (steps * self.finish).sum(axis=0) + self.period * stay
        return Solution(float(visits @ counts), 0.0, (), visits)

    def _visits_by_propagation(self, good: np.ndarray) -> np.ndarray:
        """v as the sum of the mass at every period start, until less than EXACT of it is
        still in play among the squares that can finish."""
        mass = np.zeros(self.size)
        mass[START] = 1.0
        visits = np.zeros(self.size)
        weight = good.astype(float)
        for _ in range(MAX_PERIODS):
            mass = mass * weight  # caught mass is counted where it was caught, then dropped
            visits += mass
            mass = self.moves.apply(mass)
            if mass @ weight < EXACT:
                break
        return visits * weight

    def step(self, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One period: the mass after it, and what finished at each of its steps."""
        return self.moves.apply(mass), self.finish @ mass

    def distribution(self, until: float) -> tuple[Distribution, np.ndarray]:
        """The law of T and the expected period starts per square (before being caught,
        on a board that can catch a piece for good)."""
        start = np.zeros(self.size)
        start[START] = 1.0
        law, tail = propagate(self.step, start, self.can_finish().astype(float), until)
        solution = self.solve()
        assert solution.visits is not None
        return Distribution(law, solution.expected, tail, solution.never, solution.caught_on), \
            solution.visits
