"""Robots for `gm demo --ruleset longjump`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gm.demo.robots import DemoSetup, Robot


@dataclass
class LongJumpRobot(Robot):
    reach: int = 7  # the jump asked while far from the end (7: 21 throws in 36 make it)

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        (board,) = public.values()  # gm state --json's boards: public to every player
        mine = board["players"][self.id]
        if board["closed"] or mine["finished"]:
            return []
        left = board["squares"] - mine["square"]
        return [f"JUMP {max(2, min(self.reach, left))}"]


class LongJumpDemo(DemoSetup):
    robot = LongJumpRobot
    cast = (
        dict(id="ann", name="Ann Daring", style="plain", reach=8),
        dict(id="ben", name="Ben Steady", style="html", reach=6),
        dict(id="cat", name="Cat Phone", style="phone", misses=2),
        dict(id="dan", name="Dan Reply", style="reply", reach=5, blunders=3),
    )
    boards = {"A": "long-jump-pit.yaml"}  # from the ruleset's boards_folder
    options = "  max_turns: 40\n  max_jump: 12\n"
    title = "The Robot Long Jump"


DEMO = LongJumpDemo()
