"""Exact game-length analysis of a board for one player alone (`gm board analyze`,
CONTRACT.md): one d6 under three finishes, and each ruleset's own figures
(Ruleset.board_figures: the dice rulesets' lengths here, a ruleset's own chain in its
package). Nothing here is sampled.

Method. Every game here is an absorbing Markov chain over the squares 0..N, observed
once per *period*: one roll for a die, one turn (a go with its extra throws) for the dice
rulesets, or whatever a ruleset's chain says. For each period we build

* `moves`: the sparse transition (square at the start of a period -> square at the
  start of the next) with its probability, for pieces that did not finish;
* `finish[j, p]`: the chance that a period started on p finishes at its step j+1.

Then
* one dense solve over the squares reachable from Start (numpy.linalg.solve, exact to
  rounding) gives the expected number of period starts on each square,
  v = e_Start (I - Q)^-1, and from it the expected count E[T] = v . r, where r is what a
  period started on each square counts (j if it finishes at step j, else the period);
* the distribution P(T = t) comes from propagating the probability mass forward, period by
  period, until the mass still in play is below `until` (default 1e-3; 1e-12 in the tests
  that check the two against each other): every P(T = t) listed is exact, percentiles up to
  p99.9 read it, and the expectation never depends on where it stopped.

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

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from ..errors import GmError
from ..rules.moving import bounce, landing
from .board import START, Board

UNTIL = 1e-3  # propagation stops when less mass than this is still in play
MAX_PERIODS = 200_000  # a guard for pathological boards whose mass barely drains
DENSE_LIMIT = 3000  # squares; beyond, the solve's N^2 matrix gives way to propagation
EXACT = 1e-13  # the mass left in play when propagation stands in for the solve
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
    rulesets that analyse boards, by name) and one die under the three finishes."""

    board: Board
    rulesets: Mapping[str, Figures]
    one_die: Mapping[Finish, Distribution]

    def to_json(self) -> dict[str, Any]:
        """The CONTRACT.md form (plus what it allows: each ruleset's extra figures)."""
        return {
            "squares": self.board.squares,
            **{name: figures.to_json() for name, figures in self.rulesets.items()},
            "one_die": {finish: d.summary("rolls") for finish, d in self.one_die.items()},
        }


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


def analyze(board: Board, *, until: float = UNTIL) -> BoardAnalysis:
    """The whole exact analysis of one board (`until`: see `Distribution`)."""
    return BoardAnalysis(
        board=board,
        rulesets={name: r.board_figures(board, until=until) for name, r in analysing_rulesets().items()},
        one_die={finish: one_die(board, finish, until=until) for finish in FINISHES},
    )


# -- the chain engine -------------------------------------------------------------------


def landing_table(board: Board) -> np.ndarray:
    """Where a piece that comes to each square 0..N ends after its snakes and ladders
    (RULES.md 1, effects once per move; none of what a ruleset adds in play)."""
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
        keys = src * size + dst
        # a dense bincount sums fastest when the pairs nearly fill the square; else sort
        if size * size <= 1 << 24 and keys.size * 16 >= size * size:
            total = np.bincount(keys, weights=prob, minlength=size * size)
            keys = np.nonzero(total)[0]
            total = total[keys]
        else:
            keys, inverse = np.unique(keys, return_inverse=True)
            total = np.bincount(inverse, weights=prob)
        return cls(keys // size, keys % size, total)

    def apply(self, mass: np.ndarray) -> np.ndarray:
        return np.bincount(self.dst, weights=mass[self.src] * self.prob, minlength=mass.size)


@dataclass(frozen=True)
class _Solution:
    """What the chain's equations give: E[T] (None when infinite), the expected period
    starts per square, the chance of never finishing, and the squares that catch a piece
    for good at a period start."""

    expected: float | None
    visits: np.ndarray
    never: float
    caught_on: tuple[int, ...]


@dataclass(frozen=True)
class Chain:
    """An absorbing chain over squares 0..size-1 seen once per period (module docstring).

    `moves`: one period's moves of pieces still in play; `finish[j, p]`: the chance of
    finishing at step j+1 of a period started on p. `stages`, when given, are sparse
    factors whose product is `moves`: fewer entries to touch per period."""

    moves: Stage
    finish: np.ndarray
    stages: tuple[Stage, ...] = ()

    @property
    def size(self) -> int:
        return self.finish.shape[1]

    @property
    def period(self) -> int:
        return self.finish.shape[0]

    def reachable(self) -> np.ndarray:
        """The squares a piece can stand on at a period start, from Start."""
        src, dst = self.moves.src, self.moves.dst
        seen = np.zeros(self.size, dtype=bool)
        seen[START] = True
        frontier = seen.copy()
        while frontier.any():
            step = np.zeros(self.size, dtype=bool)
            step[dst[frontier[src]]] = True
            frontier = step & ~seen
            seen |= step
        return seen

    def can_finish(self) -> np.ndarray:
        """The squares from which finishing has a positive chance."""
        src, dst = self.moves.src, self.moves.dst
        good = self.finish.sum(axis=0) > 0
        while True:
            grown = good.copy()
            grown[src[good[dst]]] = True
            if grown.sum() == good.sum():
                return good
            good = grown

    def expected(self) -> float | None:
        """E[T]; None when infinite."""
        return self.solve().expected

    def solve(self) -> _Solution:
        """One dense solve over the squares reachable from Start that can still finish (G):
        the expected period starts on each, v = e_Start (I - Q_GG)^-1, and from it
        E[T] = v . r (r: the steps a period started on each square counts). When a piece
        can be caught for good (reachable squares that cannot finish), E[T] is infinite and
        the chance of being caught is v . (Q_G->caught 1)."""
        live, good = self.reachable(), self.can_finish()
        caught = live & ~good
        caught_on = tuple(int(q) for q in np.nonzero(caught)[0])
        if not good[START]:
            return _Solution(None, np.zeros(self.size), 1.0, caught_on)
        index = -np.ones(self.size, dtype=np.int64)
        states = np.nonzero(live & good)[0]
        index[states] = np.arange(states.size)
        src, dst, prob = self.moves.src, self.moves.dst, self.moves.prob
        keep = (index[src] >= 0) & (index[dst] >= 0)
        # (src, dst) pairs are unique in a merged stage, so plain indexing adds each once
        if states.size <= DENSE_LIMIT:
            system = np.eye(states.size)
            system[index[src[keep]], index[dst[keep]]] -= prob[keep]
            start = np.zeros(states.size)
            start[index[START]] = 1.0
            visits = np.zeros(self.size)
            visits[states] = np.linalg.solve(system.T, start)
        else:
            visits = self._visits_by_propagation(live & good)
        if caught_on:
            into = (index[src] >= 0) & caught[dst]
            chance = float(np.bincount(src[into], weights=prob[into], minlength=self.size) @ visits)
            return _Solution(None, visits, chance, caught_on)
        steps = np.arange(1, self.period + 1)[:, None]
        stay = 1 - self.finish.sum(axis=0)
        # a period finishing at step j counts j; one that goes on counts the whole period
        counts = (steps * self.finish).sum(axis=0) + self.period * stay
        return _Solution(float(visits @ counts), visits, 0.0, ())

    def _visits_by_propagation(self, good: np.ndarray) -> np.ndarray:
        """v as the sum of the mass at every period start, until less than EXACT of it is
        still in play among the squares that can finish: for boards too big for a dense
        solve (its matrix takes N^2 memory and N^3 time)."""
        stages = self.stages if sum(st.src.size for st in self.stages) < self.moves.src.size else ()
        stages = stages or (self.moves,)
        mass = np.zeros(self.size)
        mass[START] = 1.0
        visits = np.zeros(self.size)
        weight = good.astype(float)
        for _ in range(MAX_PERIODS):
            mass = mass * weight  # caught mass is counted where it was caught, then dropped
            visits += mass
            for stage in stages:
                mass = stage.apply(mass)
            if mass @ weight < EXACT:
                break
        return visits * weight

    def propagate(self, until: float) -> tuple[np.ndarray, float]:
        """P(T = t) for t = 0, 1, ... while more than `until` of the mass is still in play,
        and the mass left over."""
        in_play = self.can_finish().astype(float)  # mass that can never finish is not waited for
        stages = self.stages if sum(st.src.size for st in self.stages) < self.moves.src.size else ()
        stages = stages or (self.moves,)
        mass = np.zeros(self.size)
        mass[START] = 1.0
        law = [np.zeros(1)]
        for _ in range(MAX_PERIODS):
            law.append(self.finish @ mass)
            for stage in stages:
                mass = stage.apply(mass)
            if mass @ in_play < until:
                break
        return np.concatenate(law), float(mass.sum())

    def distribution(self, until: float) -> tuple[Distribution, np.ndarray]:
        """The law of T and the expected period starts per square (before being caught,
        on a board that can catch a piece for good)."""
        law, tail = self.propagate(until)
        solution = self.solve()
        return Distribution(law, solution.expected, tail, solution.never, solution.caught_on), \
            solution.visits


# -- one die ----------------------------------------------------------------------------


def _die_step(board: Board, land: np.ndarray, finish: Finish, roll: int) -> tuple[np.ndarray, np.ndarray]:
    """For one roll from every square 0..N: where the piece ends, and whether that won."""
    n = board.squares
    p = np.arange(n + 1)
    target = p + roll
    if finish == "crossing":
        won = target > n
        return np.where(won, p, land[np.minimum(target, n)]), won
    if finish == "exact":
        target = np.where(target > n, p, target)
    else:
        # bounce back from N; on a board shorter than a roll, off Start again (ping-pong)
        target = np.array([bounce(int(t), n) for t in target], dtype=np.int64)
    end = land[target]
    return end, end == n


def one_die(board: Board, finish: Finish, *, until: float = UNTIL) -> Distribution:
    """One d6, no extra roll on a six, counting rolls (CONTRACT.md `one_die`)."""
    land = landing_table(board)
    size = board.squares + 1
    parts, won = [], np.zeros(size)
    for roll in SIX:
        end, win = _die_step(board, land, finish, roll)
        won += win / 6
        go = np.nonzero(~win)[0]
        parts.append((go, end[go], np.full(go.size, 1 / 6)))
    return Chain(Stage.merged(parts, size), won[None, :]).distribution(until)[0]


def classic(board: Board, *, until: float = UNTIL) -> Distribution:
    """RULES.md 4 `classic`: bounce finish, and a six rolls again as long as sixes come;
    counting turns. A turn is a run of sixes (weight (1/6)^j after j of them, followed until
    below 1e-20, beyond any float's reach) and then a roll of 1-5; the chain keeps the two
    as separate sparse stages, far fewer entries than their product."""
    land = landing_table(board)
    size = board.squares + 1
    steps = {roll: _die_step(board, land, "bounce", roll) for roll in SIX}
    start = np.arange(size)
    where = start.copy()  # where each turn's run of sixes has brought the piece
    going = np.ones(size)  # the chance that run is still going (0 once a six has won)
    won = np.zeros(size)
    runs = []
    while going.max() > 1e-20:
        alive = going > 0
        runs.append((start[alive], where[alive], going[alive]))
        won += going / 6 * steps[6][1][where]
        going = np.where(steps[6][1][where], 0.0, going / 6)
        where = steps[6][0][where]
    run = Stage.merged(runs, size)
    rolls, after = [], np.zeros(size)  # after[q]: chance a roll of 1-5 from q wins
    for roll in SIX[:-1]:
        end, win = steps[roll]
        after += win / 6
        go = np.nonzero(~win)[0]
        rolls.append((go, end[go], np.full(go.size, 1 / 6)))
    roll = Stage.merged(rolls, size)
    won += np.bincount(run.src, weights=run.prob * after[run.dst], minlength=size)
    moves = Stage.merged([_product(run, roll, size)], size)
    return Chain(moves, won[None, :], (run, roll)).distribution(until)[0]


def _product(first: Stage, then: Stage, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of two stages one after the other (joined on the square between), for
    the expectation's solve, which needs the whole period's moves."""
    order = np.argsort(then.src, kind="stable")
    then_src, then_dst, then_prob = then.src[order], then.dst[order], then.prob[order]
    counts = np.bincount(then_src, minlength=size)
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
    repeat = counts[first.dst]
    begin = np.repeat(offsets[first.dst] - (np.cumsum(repeat) - repeat), repeat)
    index = np.arange(int(repeat.sum())) + begin
    src = np.repeat(first.src, repeat)
    prob = np.repeat(first.prob, repeat) * then_prob[index]
    return src, then_dst[index], prob


def doubles(board: Board, *, until: float = UNTIL) -> Distribution:
    """RULES.md 4.3 `doubles`: two d6 moving their sum with the bounce finish; a double
    that has not finished throws again, and the third double six in a row is not moved
    and ends the turn; counting turns. The go is followed throw by throw as sparse
    (start, square, double sixes in a row) mass, merged after each throw, until below
    1e-20 (a double is 1/6, so that is a few dozen throws)."""
    land = landing_table(board)
    size = board.squares + 1
    steps = {total: _die_step(board, land, "bounce", total) for total in range(2, 13)}
    src, where, sixes = np.arange(size), np.arange(size), np.zeros(size, dtype=np.int64)
    prob = np.ones(size)
    won = np.zeros(size)
    ends = []  # (start, end, prob) of turns that end without finishing
    while prob.size and prob.max() > 1e-20:
        going: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for first, second in itertools.product(SIX, SIX):
            p = prob / 36
            if first == second == 6:
                third = sixes == 2  # not moved: the turn ends where it stood
                ends.append((src[third], where[third], p[third]))
                keep = ~third
                s, w, k, p = src[keep], where[keep], sixes[keep], p[keep]
            else:
                s, w, k = src, where, sixes
            end, win = steps[first + second]
            e, finished = end[w], win[w]
            won += np.bincount(s[finished], weights=p[finished], minlength=size)
            on = ~finished
            if first == second:
                row = k[on] + 1 if first == 6 else np.zeros(int(on.sum()), dtype=np.int64)
                going.append((s[on], e[on], row, p[on]))
            else:
                ends.append((s[on], e[on], p[on]))
        if not going:
            break
        keys = np.concatenate([(g[0] * size + g[1]) * 3 + g[2] for g in going])
        keys, inverse = np.unique(keys, return_inverse=True)
        prob = np.bincount(inverse, weights=np.concatenate([g[3] for g in going]))
        src, where, sixes = keys // 3 // size, keys // 3 % size, keys % 3
    return Chain(Stage.merged(ends, size), won[None, :]).distribution(until)[0]
