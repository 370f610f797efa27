"""Pig race's robots for `gm demo --ruleset pig`: six players with different appetites for
risk. Each learns where its piece stands, and whether its last ROLL went bust, from its
own turn report, and writes `ROLL <n>` or `HOLD`; the board's size and who has finished
are public (`gm state --json`, which every report shows). gm.demo.robots reads and writes
their mail."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gm.demo.robots import DemoSetup, Robot, RobotConfused

__all__ = ["CAST", "DEMO", "PigDemo", "PigRobot"]


@dataclass
class PigRobot(Robot):
    """A pig racer: `appetite` is the dice it rolls when calm; `shaken` robots roll one die
    fewer after each setback (a bust, or a snake) and one more after a clean move, back up
    to their appetite; `holds_within` makes it HOLD once that close to the last square."""

    appetite: int = 3
    shaken: bool = False
    holds_within: int = 0
    # learnt from its reports
    square: int = 0
    finished: bool = False
    nerve: int | None = None  # the dice it rolls now (None: its appetite)

    def read_report(self, text: str) -> None:
        # its own line of the board ("- Ada Hog: 12 -> 20" or "... -> finished"), the same
        # in gm's generic report and in pig race's own
        mine = re.search(rf"^- {re.escape(self.name)}: (?:(\S+) -> )?(\S+?)(?:,|$)", text, re.MULTILINE)
        if not mine:
            raise RobotConfused(f"{self.id}: the report does not say where its piece stands")
        was, now = mine.group(1), mine.group(2)
        if now == "finished":
            self.finished = True
            return
        start, end = _square(was) if was else self.square, _square(now)
        calm = self.nerve if self.nerve is not None else self.appetite
        if self.shaken:
            self.nerve = max(1, calm - 1) if end <= start else min(self.appetite, calm + 1)
        self.square = end

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        (board,) = public.values()
        if self.finished or board["closed"] or board["players"][self.id]["finished"]:
            return []
        dice = self.nerve if self.nerve is not None else self.appetite
        order = "HOLD" if board["squares"] - self.square <= self.holds_within else f"ROLL {dice}"
        if turn == self.blunders and not self.refused:
            return [f"ROLL {dice}", "HOLD"]  # both in one message: refused, then corrected
        return [order]

    def slip(self, turn: int) -> str | None:
        if turn == self.blunders:
            return "writes ROLL and HOLD in one message"
        return super().slip(turn)


def _square(word: str) -> int:
    return 0 if word == "Start" else int(word)


# Six robots from reckless to timid, in four ways of writing mail, with the usual slips.
CAST = (
    dict(id="ada", name="Ada Hog", style="plain", appetite=5),
    dict(id="brian", name="Brian Steady", style="html", appetite=2),
    dict(id="cleo", name="Cleo Careful", style="phone", appetite=1, holds_within=3),
    dict(id="dmitri", name="Dmitri Shaken", style="reply", appetite=4, shaken=True),
    dict(id="eve", name="Eve Forgetful", style="plain", appetite=3, misses=3),
    dict(id="felix", name="Felix Finisher", style="phone", appetite=3, holds_within=5, blunders=2),
)


class PigDemo(DemoSetup):
    """The starter board; the race ends when every robot has finished, or at turn 40."""

    robot = PigRobot
    cast = CAST
    boards = {"A": "pig-sty.yaml"}
    options = (
        "  max_turns: 40               # then the pieces still racing are placed by square\n"
        "  max_dice: 5\n"
    )
    title = "The Robot Pig Race"
    heading = "Final standings (by finishing turn, then by square):"


DEMO = PigDemo()
