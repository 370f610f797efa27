"""Pig race on a board for one player alone (`gm board analyze`'s `pig` figures, `gm board
design`'s `pig_expected_turns`), exact, on gm's chain engine (gm.boards.chain).

A player chooses every turn, so a length needs a policy; this one is the simplest a GM can
picture: **always ROLL n**, for the fixed n from 1 to `max_dice` (default options: 5) that
gives the fewest turns on average on this board (a tie goes to fewer dice). rules.md's
notes say so.

One period is one turn, and the state at a turn start is the square alone. ROLL n from
square p: with chance 1 - (5/6)^n a 1 shows and the piece stays on p; otherwise the n dice
each show 2..6 and the piece comes to p + their sum. Reaching or passing the last square N
finishes (no snake bites there); below N the snake or ladder of the square landed on is
taken (gm.rules.moving.landing, through gm's landing table), and a ladder up to N finishes
too. The expectation solves the chain exactly by gm's sweep over the squares (no N^2 matrix:
a board may have 10,000 squares); the law of the length is carried forward turn by turn
until less than `until` is still in play, for the chosen n alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gm.boards.analysis import UNTIL, Distribution, Stage, landing_table
from gm.boards.board import START, Board
from gm.boards.chain import can_finish_from, check_overlap, propagate, reachable_from, solve_kept

from .rules import DEFAULTS

__all__ = ["PigFigures", "TurnChain", "pig", "pig_expected_turns", "turn_chain"]

FACES_KEPT = (2, 3, 4, 5, 6)  # the faces that do not bust


@dataclass(frozen=True)
class TurnChain:
    """One turn of `always ROLL dice` from every square 0..N-1 at once: `moves` (the turn
    not finishing: a bust stays, a move lands), `finish[0, p]` the chance a turn from p
    finishes."""

    dice: int
    moves: Stage
    finish: np.ndarray

    @property
    def size(self) -> int:
        return self.finish.shape[1]

    def step(self, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.moves.apply(mass), self.finish @ mass

    def solve(self) -> tuple[float | None, float, tuple[int, ...], np.ndarray]:
        """E[T] (None when a piece can be caught for good), the chance of being caught,
        the squares a turn can start on where it is, and the squares that can still
        finish (1.0), where propagation waits for mass."""
        live = reachable_from(self.size, self.moves, START)
        good = can_finish_from(self.size, self.moves, self.finish[0] > 0)
        caught = live & ~good
        caught_on = tuple(int(q) for q in np.nonzero(caught)[0])
        if not good[START]:
            return None, 1.0, caught_on, good.astype(float)
        # every turn started counts one
        length, never = solve_kept(self.moves, START, live, good, np.ones(self.size))
        if caught_on:
            return None, never, caught_on, good.astype(float)
        return length, 0.0, (), good.astype(float)


def kept_sums(dice: int) -> np.ndarray:
    """P(no die shows 1 and the dice sum to s), by s: n faces 2..6 each 1/6; 1 - its total
    is the chance of going bust, 1 - (5/6)^n."""
    one = np.zeros(7)
    one[list(FACES_KEPT)] = 1 / 6
    sums = np.ones(1)
    for _ in range(dice):
        sums = np.convolve(sums, one)
    return sums


def turn_chain(board: Board, dice: int, land: np.ndarray | None = None) -> TurnChain:
    n = board.squares
    land = landing_table(board) if land is None else land
    squares = np.arange(n)
    sums = kept_sums(dice)
    finish = np.zeros((1, n))
    parts = [(squares, squares, np.full(n, 1 - sums.sum()))]  # bust: the piece stays
    for total in np.nonzero(sums)[0].tolist():
        reached = squares + total
        end = land[np.minimum(reached, n)]
        done = (reached >= n) | (end >= n)  # passing N, or a ladder up to it
        finish[0] += sums[total] * done
        parts.append((squares[~done], end[~done], np.full(int((~done).sum()), sums[total])))
    return TurnChain(dice, Stage.merged(parts, n), finish)


@dataclass(frozen=True)
class PigFigures:
    """The length under the chosen policy (`dice`), and each fixed n's expectation."""

    dice: int
    length: Distribution
    by_dice: dict[int, float | None] = field(compare=False)
    unit: str = "turns"

    @property
    def policy(self) -> str:
        return f"always ROLL {self.dice}"

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "dice": self.dice,
            **self.length.summary(self.unit),
            "expected_turns_by_dice": {str(d): None if e is None else round(e, 4) for d, e in self.by_dice.items()},
        }

    def rows(self) -> list[tuple[str, str]]:
        spread = "/".join("-" if e is None else f"{e:.2f}" for e in self.by_dice.values())
        return [("  policy (fewest turns)", self.policy),
                (f"  always ROLL 1..{max(self.by_dice)}", spread)]


def _solved(board: Board) -> tuple[dict[int, TurnChain], dict[int, tuple[Any, ...]], int]:
    land = landing_table(board)
    check_overlap(board, land)
    chains = {d: turn_chain(board, d, land) for d in range(1, DEFAULTS.max_dice + 1)}
    solved = {d: chain.solve() for d, chain in chains.items()}
    finite = {d: s[0] for d, s in solved.items() if s[0] is not None}
    if finite:
        least = min(finite.values())
        # the fewest dice within rounding of the least: ROLL 1 and ROLL 2 tie on a tiny board
        best = min(d for d, e in finite.items() if e <= least * (1 + 1e-9))
    else:  # every policy can be caught for good: the one caught least often
        best = min(solved, key=lambda d: (solved[d][1], d))
    return chains, solved, best


def pig_expected_turns(board: Board) -> float | None:
    """The expected turns under the chosen policy alone, for `gm board design`."""
    _, solved, best = _solved(board)
    return solved[best][0]


def pig(board: Board, *, until: float = UNTIL) -> PigFigures:
    """The exact figures of pig race for one player alone (module docstring)."""
    chains, solved, best = _solved(board)
    expected, never, caught_on, in_play = solved[best]
    start = np.zeros(board.squares)
    start[START] = 1.0
    law, tail = propagate(chains[best].step, start, in_play, until)
    return PigFigures(best, Distribution(law, expected, tail, never, caught_on), {d: s[0] for d, s in solved.items()})
