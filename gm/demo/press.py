"""`gm demo --press`: a grey press game (docs/rules/, Order mail: Press), in which the robots
write a little press beside their orders in the first turns, so the demo's archive shows
public press (and, by its absence there, that private press stays private)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PRESS_YAML = "press: {mode: grey}           # players write to each other through the GM\n"


def press_lines(robots: Sequence[Any], index: int, turn: int) -> list[str]:
    """The press block robot `index` adds to its order of `turn`, if any."""
    if len(robots) < 3:
        return []
    said = {
        (1, 0): ["PRESS TO ALL", "Good luck, everyone. May the ladders be kind.", "ENDPRESS"],
        (1, 1): [f"PRESS TO {robots[2].id}", "Shall we make a plan together? Between us only.", "ENDPRESS"],
        (2, 2): ["PRESS TO ALL ANONYMOUS", "Someone is climbing rather fast. Just saying.", "ENDPRESS"],
    }
    return said.get((turn, index), [])
