"""The options every dice ruleset has (docs/rules/classic.md, Options: close_after, max_turns), each
checked on reading (gm.rules.options)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..options import option

DIE = 6  # classic and doubles throw d6 (docs/rules/classic.md, docs/rules/doubles.md)
AT_LEAST_1 = "a whole number of at least 1"


@dataclass(frozen=True)
class DiceOptions:
    """The dice rulesets' options with their defaults (CONTRACT's campaign.yaml)."""

    close_after: int | Literal["all"] = option(1, minimum=1, expected=f"{AT_LEAST_1}, or all")
    max_turns: int = option(200, minimum=1, expected=AT_LEAST_1)

    def finishers_needed(self, players: int) -> int:
        """End (a): how many finishers end the campaign; `all` and a number above the
        number of players count as the number of players."""
        return players if self.close_after == "all" else min(self.close_after, players)  # type: ignore[type-var]
