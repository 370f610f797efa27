"""What a board analysis finds (`gm board analyze`, docs/campaign.md, Board analysis as JSON):
the exact distribution of a game's length with its expectation and percentiles, a ruleset's
figures, and the whole analysis of one board as text and JSON. How they are computed is
gm.boards.chain's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from .model import Board

Finish = Literal["exact", "bounce", "crossing"]
FINISHES: tuple[Finish, ...] = ("exact", "bounce", "crossing")


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
        """The smallest t with P(T <= t) >= x/100 (docs/campaign.md); None when never reached."""
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
        if self.caught_on:  # the JSON allows extra keys (docs/campaign.md): say why the length is unbounded
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
        """The JSON form of docs/campaign.md (plus what it allows: each ruleset's extra figures)."""
        result = {
            "squares": self.board.squares,
            **{name: figures.to_json() for name, figures in self.rulesets.items()},
            "one_die": {finish: d.summary("rolls") for finish, d in self.one_die.items()},
        }
        if not self.one_die:  # some rulesets alone were asked for
            del result["one_die"]
        return result
