"""Moving a piece, common to every ruleset (docs/rules/<ruleset>.md, The board) and to
`gm board analyze`: where a throw or number aims under each way of finishing, and the
effects a piece takes where it comes to, each at most once per move.

Items are passed in, never read from the board file, since `advanced` builds snakes and
ladders during play and `unleashed` moves them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

__all__ = ["Aim", "Finish", "Step", "aim", "bounce", "landing"]


class Finish(Enum):
    """How a piece leaves the board past its last square N."""

    CROSS = "crossing"  # finished once p + k > N; landing on N is not enough
    EXACT = "exact"  # a roll past N leaves the piece where it was; ending on N wins
    BOUNCE = "bounce"  # classic, doubles: a roll past N bounces back from N; ending on N wins


@dataclass(frozen=True)
class Aim:
    """Where a move of `k` from `p` goes before any effect: `square` (for a crossing,
    the square it left), whether it crossed (with its overshoot) or bounced."""

    square: int
    crossed: bool = False
    overshoot: int | None = None
    bounced: bool = False


def bounce(total: int, squares: int) -> int:
    """Back from N past N; on a board shorter than the throw, off Start too (docs/rules/classic.md,
    Moving and bouncing)."""
    span = 2 * squares
    t = total % span
    return span - t if t > squares else t


def aim(finish: Finish, start: int, k: int, squares: int) -> Aim:
    total = start + k
    if total <= squares:
        return Aim(total)
    if finish is Finish.CROSS:
        return Aim(start, crossed=True, overshoot=total - squares)
    if finish is Finish.EXACT:
        return Aim(start)
    return Aim(bounce(total, squares), bounced=True)


@dataclass(frozen=True)
class Step:
    """One square a move reached and what took it there (`number`, `roll`, `snake`,
    `ladder`, ...: each ruleset names its own)."""

    square: int
    via: str


def landing(
    square: int,
    jumps: Mapping[int, int],
    *,
    effects: Mapping[int, tuple[int, str]] | None = None,
) -> tuple[int, tuple[Step, ...]]:
    """Where a piece that comes to `square` ends, and the effects it took on the way.

    Effects apply one after another until a square with no effect, or with an effect already used in
    this move (docs/rules/<ruleset>.md, The board). `jumps` maps a snake's head or a ladder's foot
    to its other end. `effects` are the ruleset's own (square -> (where it sends a piece, what the
    step is called)); one supersedes a snake or ladder on its square."""
    steps: list[Step] = []
    used: set[int] = set()
    effects = effects or {}
    while square not in used:
        if square in effects:
            target, via = effects[square]
        elif square in jumps:
            target = jumps[square]
            via = "ladder" if target > square else "snake"
        else:
            break
        used.add(square)
        square = target
        steps.append(Step(square, via))
    return square, tuple(steps)
