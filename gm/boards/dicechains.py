"""The dice games as chains (docs/rules/classic.md, docs/rules/doubles.md): one die under each
finish, classic's six that throws again and doubles' doubles, a throw moving the mass of
every square at once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .chain import (
    UNTIL,
    Solution,
    Stage,
    can_finish_from,
    check_overlap,
    landing_table,
    propagate,
    reachable_from,
    solve_kept,
    spans_of,
)
from .figures import Distribution, Finish
from .model import START, Board

SIX = (1, 2, 3, 4, 5, 6)


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
        arrays, and the sweep's rows and columns (`sweep_solve`), counted over every state
        (the solve keeps only those reachable that can finish)."""
        height, width = spans_of(self.moves, self.size)[2:]
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

    def solve(self) -> tuple[Solution, np.ndarray]:
        """E[T] (None when a piece can be caught for good, with the chance of that and
        the squares a turn can start on where it is caught), and the squares a turn can
        start on that can still finish (1.0), where the propagation waits for mass."""
        start = int(self.standing(START))
        live = reachable_from(self.size, self.moves, start)
        good = can_finish_from(self.size, self.moves, self.finishes)
        n = self.size // (2 * self.layers) - 1
        in_play = good[self.standing(np.arange(n + 1))].astype(float)
        caught = live & ~good
        came, to = self.turns
        starts = np.union1d([start], to[live[came]])
        caught_on = tuple(int(s) for s in self.square(starts[caught[starts]]))
        if not good[start]:
            return Solution(None, 1.0, caught_on), in_play
        length, never = solve_kept(self.moves, start, live, good, self.counts)
        if caught_on:
            return Solution(None, never, caught_on), in_play
        return Solution(length, 0.0, ()), in_play


def _standing(square: Any, layer: int, layers: int) -> Any:
    return square * 2 * layers + (layers - 1 - layer)  # by square, higher layers first


def _taken(square: Any, layer: int, layers: int) -> Any:
    return square * 2 * layers + layers + (layers - 1 - layer)  # after the square's standing states


def _solved(board: Board, finish: Finish, throws: list[Throws]) -> tuple[Solution, np.ndarray]:
    land = landing_table(board)
    check_overlap(board, land)
    return StepChain.build(board, land, finish, throws).solve()


def classic_expected(board: Board) -> float | None:
    """`classic`'s expected turns alone, for the designer's target search: the exact
    solve without the law."""
    return _solved(board, "bounce", classic_throws())[0].expected


def doubles_expected(board: Board) -> float | None:
    """`doubles`'s expected turns alone (see `classic_expected`)."""
    return _solved(board, "bounce", doubles_throws())[0].expected


def _dice(board: Board, finish: Finish, throws: list[Throws],
          turn: Callable[[np.ndarray], tuple[np.ndarray, float]], until: float) -> Distribution:
    """The law of a dice game's length (propagated turn by turn by `turn`) and its
    expectation (solved throw by throw)."""
    solution, in_play = _solved(board, finish, throws)
    start = np.zeros(board.squares + 1)
    start[START] = 1.0
    law, tail = propagate(turn, start, in_play, until)
    return Distribution(law, solution.expected, tail, solution.never, solution.caught_on)


SIX_TOTALS = {roll: 1 / 6 for roll in SIX}


def one_die(board: Board, finish: Finish, *, until: float = UNTIL) -> Distribution:
    """One d6, no extra roll on a six, counting rolls (`one_die`, docs/campaign.md, Board analysis as JSON)."""
    n = board.squares
    throw = _Throw.of(n, _landing_index(n, landing_table(board), finish, 6), SIX_TOTALS, finish)
    return _dice(board, finish, [Throws(0, SIX_TOTALS)], throw.apply, until)


def classic_throws() -> list[Throws]:
    return [Throws(0, {6: 1 / 6}, ends=False), Throws(0, {roll: 1 / 6 for roll in SIX[:-1]})]


def classic(board: Board, *, until: float = UNTIL) -> Distribution:
    """`classic` (docs/rules/classic.md): bounce finish, and a six rolls again as long as sixes come;
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

    return _dice(board, "bounce", classic_throws(), turn, until)


DOUBLES = {2 * d: 1 / 36 for d in SIX[:-1]}  # a double one to five: throw again
NOT_DOUBLES = {total: sum(1 / 36 for a in SIX for b in SIX if a != b and a + b == total) for total in range(3, 12)}
DEPTH = 26  # throws followed in a doubles turn: going on has chance 6^-26 < 1e-20 beyond it


def doubles_throws() -> list[Throws]:
    throws = []
    for layer in range(3):
        throws += [Throws(layer, DOUBLES, 0, ends=False), Throws(layer, NOT_DOUBLES)]
        # a double six throws again, the third in a row is not moved and ends the turn
        throws.append(Throws(layer, {12: 1 / 36}, layer + 1, ends=False) if layer < 2 else Throws(layer, {0: 1 / 36}))
    return throws


def doubles(board: Board, *, until: float = UNTIL) -> Distribution:
    """`doubles` (docs/rules/doubles.md): two d6 moving their sum with the bounce finish; a double
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

    return _dice(board, "bounce", doubles_throws(), turn, until)
