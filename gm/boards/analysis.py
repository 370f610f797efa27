"""Exact game-length analysis of a board for one player alone (`gm board analyze`,
CONTRACT.md): one d6 under three finishes, and each ruleset's own figures
(Ruleset.board_figures: the dice rulesets' lengths here, a ruleset's own chain in its
package). Nothing here is sampled, and no array grows faster than the board: RULES.md 1
allows 10,000 squares.

Method. Every game here is an absorbing Markov chain over the squares 0..N, observed
once per *period*: one roll for a die, one turn (a go with its extra throws) for the dice
rulesets, or whatever a ruleset's chain says. Two things are asked of it.

* The distribution P(T = t): the probability mass is carried forward period by period
  until the mass still in play is below `until` (default 1e-3; 1e-12 in the tests that
  check the two against each other): every P(T = t) listed is exact, percentiles up to
  p99.9 read it, and the expectation never depends on where it stopped. A throw moves
  the mass of every square at once: shifted by each total (one convolution), then
  scattered through the landing table, a few passes over N numbers. Where a turn can end
  from each square is never tabled: with extra throws it is most of the board (N^2).
* The expectation E[T], and the chance of never finishing on a board that can catch a
  piece for good: the dice games are solved exactly throw by throw (`StepChain`), where
  a state is a square and, for doubles, the double sixes in a row so far, with the few
  moves of one throw out of each; the solve sweeps the states in the order of the
  squares (`_sweep`), its memory the snakes open over one square, not N^2. A ruleset's
  own chain (periods of several turns) gives the expected period starts on each square, v =
  e_Start (I - Q)^-1, and E[T] = v . r, r being what a period started on each square
  counts.

Landing follows RULES.md 1 through `gm.rules.moving.landing` (effects at most once per
move). Finishes: one die `exact` stays put on a roll past N and wins by ending a move on
N; `bounce` reflects a roll past N back from N (and, on a board shorter than a roll, off
Start again) and wins likewise; `crossing` finishes when p + k > N. `classic` is `bounce`
plus a six rolling again (RULES.md 4.2), `doubles` two dice with a double throwing again
and the third double six in a row not moved (RULES.md 4.3), both counted in turns.
A board where the piece can be caught forever (every way on leads back) has no finite
expected length: `expected` is then None and percentiles beyond the reachable mass too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from ..errors import GmError
from ..rules.moving import landing
from .board import START, Board

UNTIL = 1e-3  # propagation stops when less mass than this is still in play
MAX_PERIODS = 200_000  # a guard for pathological boards whose mass barely drains
DENSE_LIMIT = 3000  # a ruleset chain's squares; beyond, the solve's N^2 matrix gives way to propagation
EXACT = 1e-13  # the mass left in play when propagation stands in for the solve
MAX_OVERLAP = 1_000  # snakes over one square; the exact solve holds (3 x them)^2 numbers
SIX = (1, 2, 3, 4, 5, 6)
Finish = Literal["exact", "bounce", "crossing"]
FINISHES: tuple[Finish, ...] = ("exact", "bounce", "crossing")


class AnalysisError(GmError):
    """A board that cannot be analysed (for instance one nobody can ever cross)."""


# -- results ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Distribution:
    """The exact law of a game length T (turns or rolls) for one player alone.

    `probabilities[t]` is P(T = t), exact; the mass beyond the array (`tail`) is what was
    still in play when propagation stopped (below its `until`), plus the chance of never
    finishing on a board that can trap a piece. `expected` comes from the chain's equations,
    not from this array, so it does not depend on where the array stops."""

    probabilities: np.ndarray = field(repr=False, compare=False)
    expected: float | None
    tail: float
    never: float = 0.0  # the chance of never finishing (exact, from the chain's equations)
    caught_on: tuple[int, ...] = ()  # squares where a piece, at a period start, is caught for good

    def percentile(self, x: float) -> int | None:
        """The smallest t with P(T <= t) >= x/100 (CONTRACT.md); None when never reached."""
        cumulative = np.cumsum(self.probabilities)
        # summing in floating point can leave 0.5 as 0.49999999999999994: allow for it
        reached = np.nonzero(cumulative >= x / 100 - 1e-12)[0]
        return int(reached[0]) if reached.size else None

    @property
    def median(self) -> int | None:
        return self.percentile(50)

    @property
    def p90(self) -> int | None:
        return self.percentile(90)

    def summary(self, unit: str) -> dict[str, Any]:
        expected = None if self.expected is None else round(self.expected, 4)
        summary = {
            f"expected_{unit}": expected,
            f"median_{unit}": self.median,
            f"p90_{unit}": self.p90,
        }
        if self.caught_on:  # CONTRACT.md allows extra keys: say why the length is unbounded
            summary["never_finishes"] = round(self.never, 6)
            summary["caught_on"] = list(self.caught_on)
        return summary


class Figures(Protocol):
    """What one ruleset's analysis of a board gives (Ruleset.board_figures): the law of
    its game length for one player alone, its JSON for `gm board analyze --json`, and the
    rows it adds to the terminal table under its length."""

    length: Distribution
    unit: str

    def to_json(self) -> dict[str, Any]: ...

    def rows(self) -> list[tuple[str, str]]: ...


@dataclass(frozen=True)
class LengthFigures:
    """Figures that are the game length alone (the dice rulesets)."""

    length: Distribution
    unit: str = "turns"

    def to_json(self) -> dict[str, Any]:
        return self.length.summary(self.unit)

    def rows(self) -> list[tuple[str, str]]:
        return []


@dataclass(frozen=True)
class BoardAnalysis:
    """Everything `gm board analyze` reports about one board: each ruleset's figures (the
    rulesets that analyse boards, by name) and one die under the three finishes (none
    when some rulesets alone were asked for)."""

    board: Board
    rulesets: Mapping[str, Figures]
    one_die: Mapping[Finish, Distribution]

    def to_json(self) -> dict[str, Any]:
        """The CONTRACT.md form (plus what it allows: each ruleset's extra figures)."""
        result = {
            "squares": self.board.squares,
            **{name: figures.to_json() for name, figures in self.rulesets.items()},
            "one_die": {finish: d.summary("rolls") for finish, d in self.one_die.items()},
        }
        if not self.one_die:  # some rulesets alone were asked for
            del result["one_die"]
        return result


def analysing_rulesets() -> dict[str, Any]:
    """The rulesets that analyse boards (Ruleset.board_figures), by name, in the
    registry's order."""
    from ..rules.base import Ruleset
    from ..rules.registry import find_ruleset, known

    found = {}
    for name in known():
        ruleset = find_ruleset(name)
        if type(ruleset).board_figures is not Ruleset.board_figures:
            found[name] = ruleset
    return found


def analyze(board: Board, *, until: float = UNTIL, only: Sequence[str] = ()) -> BoardAnalysis:
    """The whole exact analysis of one board (`until`: see `Distribution`); with `only`,
    those rulesets alone (names of `analysing_rulesets`), without one die."""
    rulesets = analysing_rulesets()
    unknown = [name for name in only if name not in rulesets]
    if unknown:
        raise AnalysisError(f"{unknown[0]} does not analyse boards (those that do: {', '.join(rulesets)})")
    check_size(board)
    return BoardAnalysis(
        board=board,
        rulesets={name: r.board_figures(board, until=until) for name, r in rulesets.items()
                  if not only or name in only},
        one_die={} if only else {finish: one_die(board, finish, until=until) for finish in FINISHES},
    )


# -- the chain engine -------------------------------------------------------------------


def landing_table(board: Board) -> np.ndarray:
    """Where a piece that comes to each square 0..N ends after its snakes and ladders
    (RULES.md 1, effects once per move; none of what a ruleset adds in play). No item
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


def _reachable(size: int, moves: Stage, start: int) -> np.ndarray:
    """The states a path of moves leads to from `start`."""
    return _search(size, moves.src, moves.dst, [start])


def _can_finish(size: int, moves: Stage, finishing: np.ndarray) -> np.ndarray:
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


def _propagate(step: Callable[[np.ndarray], tuple[np.ndarray, Any]], start: np.ndarray,
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
class _Solution:
    """What the chain's equations give: E[T] (None when infinite), the chance of never
    finishing, the squares that catch a piece for good at a period start, and (a ruleset's
    own chain) the expected period starts per square."""

    expected: float | None
    never: float
    caught_on: tuple[int, ...]
    visits: np.ndarray | None = None


def _sweep(moves: Stage, start: int, values: np.ndarray) -> np.ndarray:
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
    last_back, last_use, height, width = _spans(moves, size)
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


def _spans(moves: Stage, size: int) -> tuple[np.ndarray, np.ndarray, int, int]:
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
    _check_overlap(board, landing_table(board))


def _check_overlap(board: Board, land: np.ndarray) -> None:
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
        return _reachable(self.size, self.moves, START)

    def can_finish(self) -> np.ndarray:
        """The squares from which finishing has a positive chance."""
        return _can_finish(self.size, self.moves, self.finish.sum(axis=0) > 0)

    def expected(self) -> float | None:
        """E[T]; None when infinite."""
        return self.solve().expected

    def solve(self) -> _Solution:
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
            return _Solution(None, 1.0, caught_on, np.zeros(self.size))
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
            return _Solution(None, chance, caught_on, visits)
        steps = np.arange(1, self.period + 1)[:, None]
        stay = 1 - self.finish.sum(axis=0)
        # a period finishing at step j counts j; one that goes on counts the whole period
        counts = (steps * self.finish).sum(axis=0) + self.period * stay
        return _Solution(float(visits @ counts), 0.0, (), visits)

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
        law, tail = _propagate(self.step, start, self.can_finish().astype(float), until)
        solution = self.solve()
        assert solution.visits is not None
        return Distribution(law, solution.expected, tail, solution.never, solution.caught_on), \
            solution.visits


# -- dice: a throw from every square at once ----------------------------------------------


def _aims(n: int, finish: Finish, reach: int) -> np.ndarray:
    """The square a move comes to, before any snake or ladder, from each position
    0..N+reach it aims at (square + total): past N, N+1 when that finishes (crossing),
    N+2 when the piece stays where it was (exact); bounce reflects back from N (and, on
    a board shorter than a roll, off Start again)."""
    aim = np.arange(n + reach + 1)
    if finish == "bounce":
        span = 2 * n
        return np.where(aim % span > n, span - aim % span, aim % span)
    return np.where(aim > n, n + 1 if finish == "crossing" else n + 2, aim)


def _landing_index(n: int, land: np.ndarray, finish: Finish, reach: int) -> np.ndarray:
    """Where a move aimed at each position 0..N+reach ends: a square 0..N, WIN (N+1)
    when it finishes, or N+2 when an exact finish's roll past N leaves the piece where
    it was (the throw adds that back: it depends on the square, not the position)."""
    aim = _aims(n, finish, reach)
    end = land[np.minimum(aim, n)]
    finished = (end == n) if finish != "crossing" else np.zeros(aim.size, dtype=bool)
    return np.where(aim > n, aim, np.where(finished, n + 1, end))


@dataclass(frozen=True)
class _Throw:
    """One throw from every square at once: the mass is shifted by each total (one
    convolution with `kernel`, the chance of each total), then scattered through the
    landing index: two passes over N numbers for the whole board."""

    kernel: np.ndarray
    index: np.ndarray
    stay: np.ndarray | None  # exact finish: the chance, on each square, of a roll past N

    @classmethod
    def of(cls, n: int, index: np.ndarray, totals: Mapping[int, float], finish: Finish) -> _Throw:
        kernel = np.zeros(max(totals) + 1)
        for total, chance in totals.items():
            kernel[total] = chance
        stay = None
        if finish == "exact":
            past = np.arange(n + 1)[:, None] + np.arange(kernel.size)[None, :] > n
            stay = (past * kernel).sum(axis=1)
        return cls(kernel, index[: n + kernel.size], stay)

    def apply(self, mass: np.ndarray) -> tuple[np.ndarray, float]:
        """The mass after the throw, without the pieces that finished, and their mass."""
        n = mass.size - 1
        out = np.bincount(self.index, weights=np.convolve(mass, self.kernel), minlength=n + 3)
        after = out[: n + 1]
        if self.stay is not None:
            after += self.stay * mass
        return after, float(out[n + 1])


@dataclass(frozen=True)
class Throws:
    """One way a throw goes from a state of `layer` (doubles: the double sixes in a row
    so far): each total moved with its chance (0: not moved, so no square is come to and
    no effect taken), into layer `to`, ending the turn or throwing again."""

    layer: int
    totals: Mapping[int, float]
    to: int = 0
    ends: bool = True


@dataclass(frozen=True)
class StepChain:
    """A dice game throw by throw, for the exact solve (module docstring). Its states are
    numbered by square, 2 * layers of them each: a piece standing there before a throw
    of each layer, and a move that came there and is taken on by its snake or ladder
    (one state per item, not one move per square before it: fewer rows to keep while
    the sweep passes under a long ladder). `counts`: what a throw from each state adds
    to the length (the chance it ends the turn, finishing or not); `finishes`: the states
    a throw can finish from; `turns`: (from, to) of the throws that end a turn."""

    moves: Stage
    counts: np.ndarray
    finishes: np.ndarray
    layers: int
    turns: tuple[np.ndarray, np.ndarray]

    @property
    def size(self) -> int:
        return self.counts.size

    def stored(self) -> int:
        """The moves the chain stores: a fixed number per square."""
        return int(self.moves.src.size)

    def footprint(self) -> int:
        """Bytes the chain and its exact solve hold at most: the moves and per-state
        arrays, and the sweep's rows and columns (`_sweep`), counted over every state
        (the solve keeps only those reachable that can finish)."""
        height, width = _spans(self.moves, self.size)[2:]
        arrays = (self.moves.src, self.moves.dst, self.moves.prob, self.counts, self.finishes, *self.turns)
        return sum(a.nbytes for a in arrays) + (height + width + 2) * (width + 1) * 8

    def square(self, state: np.ndarray | int) -> np.ndarray | int:
        return state // (2 * self.layers)

    def standing(self, square: np.ndarray | int, layer: int = 0) -> np.ndarray | int:
        """The state of a piece standing on `square` before a throw of `layer`."""
        return _standing(square, layer, self.layers)

    @classmethod
    def build(cls, board: Board, land: np.ndarray, finish: Finish, throws: list[Throws]) -> StepChain:
        n = board.squares
        layers = 1 + max(max(t.layer, t.to) for t in throws)
        squares = np.arange(n + 1)
        size = (n + 1) * 2 * layers
        reach = max(max(t.totals) for t in throws)
        aims, index = _aims(n, finish, reach), _landing_index(n, land, finish, reach)
        parts, taking = [], []
        counts, finishes = np.zeros(size), np.zeros(size, dtype=bool)
        turn_from, turn_to = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
        for throw in throws:
            here = _standing(squares, throw.layer, layers)
            for total, chance in throw.totals.items():
                come, end = squares, squares  # not moved: no square is come to
                if total:
                    # exact: a roll past N leaves the piece where it stands
                    come = np.where(aims[squares + total] == n + 2, squares, aims[squares + total])
                    end = np.where(index[squares + total] == n + 2, squares, index[squares + total])
                go = end <= n
                item = go & (end != come)
                parts.append((here[go], np.where(item, _taken(come, throw.to, layers),
                                                 _standing(end, throw.to, layers))[go], np.full(int(go.sum()), chance)))
                taking.append(np.stack([come[item], np.full(int(item.sum()), throw.to)]))
                counts[here] += chance * (~go | throw.ends)
                finishes[here[~go]] = True
                if throw.ends:
                    turn_from.append(here[go])
                    turn_to.append(_standing(end[go], throw.to, layers))
        items = np.unique(np.concatenate(taking, axis=1), axis=1)
        for layer in range(layers):
            come = items[0][items[1] == layer]
            parts.append((_taken(come, layer, layers), _standing(land[come], layer, layers), np.ones(come.size)))
        return cls(Stage.merged(parts, size), counts, finishes, layers,
                   (np.concatenate(turn_from), np.concatenate(turn_to)))

    def solve(self) -> tuple[_Solution, np.ndarray]:
        """E[T] (None when a piece can be caught for good, with the chance of that and
        the squares a turn can start on where it is caught), and the squares a turn can
        start on that can still finish (1.0), where the propagation waits for mass."""
        start = int(self.standing(START))
        live = _reachable(self.size, self.moves, start)
        good = _can_finish(self.size, self.moves, self.finishes)
        n = self.size // (2 * self.layers) - 1
        in_play = good[self.standing(np.arange(n + 1))].astype(float)
        caught = live & ~good
        came, to = self.turns
        starts = np.union1d([start], to[live[came]])
        caught_on = tuple(int(s) for s in self.square(starts[caught[starts]]))
        if not good[start]:
            return _Solution(None, 1.0, caught_on), in_play
        keep = live & good
        into = caught[self.moves.dst] & keep[self.moves.src]
        # what each state adds to the length, and its chance of moving into a trap
        values = np.stack([self.counts, np.bincount(self.moves.src[into], weights=self.moves.prob[into],
                                                    minlength=self.size)])[:, keep]
        start = int(np.cumsum(keep)[start] - 1)
        length, never = _sweep(self.moves.restricted(keep), start, values)
        if caught_on:
            return _Solution(None, float(never), caught_on), in_play
        return _Solution(float(length), 0.0, ()), in_play


def _standing(square: Any, layer: int, layers: int) -> Any:
    return square * 2 * layers + (layers - 1 - layer)  # by square, higher layers first


def _taken(square: Any, layer: int, layers: int) -> Any:
    return square * 2 * layers + layers + (layers - 1 - layer)  # after the square's standing states


def _solved(board: Board, finish: Finish, throws: list[Throws]) -> tuple[_Solution, np.ndarray]:
    land = landing_table(board)
    _check_overlap(board, land)
    return StepChain.build(board, land, finish, throws).solve()


def classic_expected(board: Board) -> float | None:
    """`classic`'s expected turns alone, for the designer's target search: the exact
    solve without the law."""
    return _solved(board, "bounce", _classic_throws())[0].expected


def doubles_expected(board: Board) -> float | None:
    """`doubles`'s expected turns alone (see `classic_expected`)."""
    return _solved(board, "bounce", _doubles_throws())[0].expected


def _dice(board: Board, finish: Finish, throws: list[Throws],
          turn: Callable[[np.ndarray], tuple[np.ndarray, float]], until: float) -> Distribution:
    """The law of a dice game's length (propagated turn by turn by `turn`) and its
    expectation (solved throw by throw)."""
    solution, in_play = _solved(board, finish, throws)
    start = np.zeros(board.squares + 1)
    start[START] = 1.0
    law, tail = _propagate(turn, start, in_play, until)
    return Distribution(law, solution.expected, tail, solution.never, solution.caught_on)


SIX_TOTALS = {roll: 1 / 6 for roll in SIX}


def one_die(board: Board, finish: Finish, *, until: float = UNTIL) -> Distribution:
    """One d6, no extra roll on a six, counting rolls (CONTRACT.md `one_die`)."""
    n = board.squares
    throw = _Throw.of(n, _landing_index(n, landing_table(board), finish, 6), SIX_TOTALS, finish)
    return _dice(board, finish, [Throws(0, SIX_TOTALS)], throw.apply, until)


def _classic_throws() -> list[Throws]:
    return [Throws(0, {6: 1 / 6}, ends=False), Throws(0, {roll: 1 / 6 for roll in SIX[:-1]})]


def classic(board: Board, *, until: float = UNTIL) -> Distribution:
    """RULES.md 4 `classic`: bounce finish, and a six rolls again as long as sixes come;
    counting turns. A turn is a run of sixes and then a roll of 1-5. Where a six takes a
    piece is one square for each square (a map f), so a run is the sum over j of
    6^-j f^j: with f, f^2, f^4, f^8 and f^16 made once, five passes give every run of up
    to 31 sixes, beyond any float's reach (6^-32 < 1e-24)."""
    n = board.squares
    index = _landing_index(n, landing_table(board), "bounce", 6)
    six = np.concatenate([index[6 : n + 7], [n + 2, n + 2]])  # a finish (N+1) is then dropped (N+2)
    runs = []
    for power in (1, 2, 4, 8, 16):
        runs.append((six, 6.0 ** -power))
        six = six[six]
    roll = _Throw.of(n, index, {r: 1 / 6 for r in SIX[:-1]}, "bounce")

    def turn(mass: np.ndarray) -> tuple[np.ndarray, float]:
        run = np.concatenate([mass, [0.0, 0.0]])
        for where, chance in runs:
            run += chance * np.bincount(where, weights=run, minlength=n + 3)
        after, won = roll.apply(run[: n + 1])
        return after, won + float(run[n + 1])

    return _dice(board, "bounce", _classic_throws(), turn, until)


DOUBLES = {2 * d: 1 / 36 for d in SIX[:-1]}  # a double one to five: throw again
NOT_DOUBLES = {total: sum(1 / 36 for a in SIX for b in SIX if a != b and a + b == total) for total in range(3, 12)}
DEPTH = 26  # throws followed in a doubles turn: going on has chance 6^-26 < 1e-20 beyond it


def _doubles_throws() -> list[Throws]:
    throws = []
    for layer in range(3):
        throws += [Throws(layer, DOUBLES, 0, ends=False), Throws(layer, NOT_DOUBLES)]
        # a double six throws again, the third in a row is not moved and ends the turn
        throws.append(Throws(layer, {12: 1 / 36}, layer + 1, ends=False) if layer < 2 else Throws(layer, {0: 1 / 36}))
    return throws


def doubles(board: Board, *, until: float = UNTIL) -> Distribution:
    """RULES.md 4.3 `doubles`: two d6 moving their sum with the bounce finish; a double
    that has not finished throws again, and the third double six in a row is not moved
    and ends the turn; counting turns. A turn is followed throw by throw over three
    layers of mass (the double sixes in a row so far), every square at once, for DEPTH
    throws: where a turn can end from one square is most of the board, so a table of
    them would be N^2; this is one scatter of 7N numbers a throw."""
    n, size = board.squares, board.squares + 1
    index = _landing_index(n, landing_table(board), "bounce", 12)
    win = 3 * size  # every finish goes to one slot
    squares = np.arange(size)

    def leading(total: int, layer: int) -> np.ndarray:
        where = index[squares + total]
        return np.where(where > n, win, where + layer * size)

    # where each of the five doubles below six, and a double six from layers 0 and 1, leads
    scatter = np.concatenate([*(leading(total, 0) for total in DOUBLES), leading(12, 1), leading(12, 2)])
    others = _Throw.of(n, index, NOT_DOUBLES, "bounce")
    weights = np.zeros((len(DOUBLES) + 2, size))
    every = np.zeros(size)  # the mass throwing, whatever its layer

    def turn(mass: np.ndarray) -> tuple[np.ndarray, float]:
        throwing = np.zeros((3, size))
        throwing[0] = mass
        thrown = np.zeros((3, size))
        won = 0.0
        for _ in range(DEPTH):
            thrown += throwing
            np.add(throwing[0], throwing[1], out=every)
            np.add(every, throwing[2], out=every)
            np.multiply(every, 1 / 36, out=weights[0])  # any double below six, from any layer
            weights[1 : len(DOUBLES)] = weights[0]
            np.multiply(throwing[:2], 1 / 36, out=weights[len(DOUBLES) :])
            out = np.bincount(scatter, weights=weights.ravel(), minlength=win + 1)
            won += out[win]
            throwing = out[:win].reshape(3, size)
        # the turn ends on any throw but a double, and on a third double six (not moved)
        after, ended = others.apply(thrown.sum(axis=0))
        return after + thrown[2] / 36, float(won) + ended

    return _dice(board, "bounce", _doubles_throws(), turn, until)
