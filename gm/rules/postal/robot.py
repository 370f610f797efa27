"""The postal game's robots for `gm demo` (docs/rules/postal.md): each picks a number by a simple
strategy from the numbers it still holds (which only its own report tells it), and the plotters
nominate a trapdoor just ahead of the leader. gm/demo/robots.py reads and writes their mail; this
module says what they order, and the demo campaign they play."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...counts import ordinal
from ...demo.robots import DemoSetup, Robot, RobotConfused
from .views import standings

__all__ = ["CAST", "DEMO", "PostalDemo", "PostalRobot"]

STRATEGIES = ("random", "greedy", "cautious")
FULL_SET = (1, 2, 3, 4, 5, 6)
TRAP_AHEAD = 3  # plotters nominate this many squares ahead of the leader: a likely landing


@dataclass
class PostalRobot(Robot):
    """A postal player: how it picks its number, whether it plots trapdoors, and the
    numbers it still holds (learnt from its reports; the welcome mail says 1 to 6)."""
    strategy: str = "random"
    plotter: bool = False  # nominates a trapdoor ahead of the leader with the other plotters
    held: tuple[int, ...] = FULL_SET

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.strategy not in STRATEGIES:
            raise ValueError(f"robot {self.id}: strategy one of {STRATEGIES}")

    def read_report(self, text: str) -> None:
        # the numbers still held come from the player's own report, never from the GM's
        # `gm state --json` (which shows everyone's): if reports stop saying them, this fails
        held = re.search(r"\byou (?:now )?hold (\d(?:, \d)*)", text)
        if not held:
            raise RobotConfused(f"{self.id}: the report does not say which numbers are left")
        self.held = tuple(int(n) for n in held.group(1).split(", "))

    # `public` is the "boards" part of `gm state --json` (CONTRACT.md): squares, finished
    # pieces, closed boards, all of which every report shows. Robots take these public facts
    # from the JSON a player's helper would read, because the report's wording is written for
    # people and changes; their own numbers and password they still learn from their mail.

    def moving(self, public: Mapping[str, Any]) -> bool:
        """Whether a number is still needed: some open board where it has not finished."""
        return any(
            not board["closed"] and not board["players"][self.id]["finished"]
            for board in public.values()
        )

    def pick(self) -> int:
        if self.strategy == "greedy":
            return max(self.held)
        if self.strategy == "cautious":
            return min(self.held)
        return self.rng.choice(self.held)

    def targets(self, public: Mapping[str, Any]) -> dict[str, int]:
        """Per open board, the square just ahead of the leading piece still racing. Every
        plotter reads the same public state, so they agree without talking to each other."""
        targets = {}
        for board_id, board in public.items():
            racing = [p["square"] for p in board["players"].values() if not p["finished"]]
            if board["closed"] or not racing:
                continue
            targets[board_id] = min(board["squares"], max(racing) + TRAP_AHEAD)
        return targets

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        lines = []
        if self.moving(public):
            number = self.pick()
            if turn == self.blunders and not self.refused:
                # the classic slip: a number already played this cycle, so no longer held
                number = next((n for n in FULL_SET if n not in self.held), 7)
            lines.append(f"NUMBER {number}")
        if self.plotter and turn % 2 == 0:
            lines += [f"TRAPDOOR {b} {square}" for b, square in sorted(self.targets(public).items())]
        return lines

    def slip(self, turn: int) -> str | None:
        if turn == self.blunders:
            return "plays a number already used"
        return super().slip(turn)


# Six robots: three strategies, four ways of writing mail, and the usual human slips.
CAST = (
    dict(id="ada", name="Ada Random", strategy="random", style="plain", plotter=True),
    dict(id="brian", name="Brian Greedy", strategy="greedy", style="html"),
    dict(id="cleo", name="Cleo Cautious", strategy="cautious", style="phone", plotter=True),
    dict(id="dmitri", name="Dmitri Random", strategy="random", style="reply", plotter=True),
    dict(id="eve", name="Eve Greedy", strategy="greedy", style="plain", misses=3),
    dict(id="felix", name="Felix Cautious", strategy="cautious", style="phone", plotter=True,
         blunders=2),
)


class PostalDemo(DemoSetup):
    """Two sample boards, trapdoors from three nominations, an NMR played at random."""
    robot = PostalRobot
    cast = CAST
    boards = {"A": "small.yaml", "B": "ziggurat.yaml"}
    options = (
        "  close_after: 3\n"
        "  trapdoor_threshold: 3\n"
        "  nmr: random\n"
        "  max_turns: 60               # a guard; the robots finish long before\n"
    )
    heading = "Final standings (aggregate of placings, lowest wins):"

    def standings(self, campaign: Any) -> list[str]:

        board_ids = list(campaign.config.boards)
        lines = []
        for line in standings(campaign.setup, campaign.state(), campaign.names()):
            placings = "  ".join(f"{b}: {ordinal(p):>4}" for b, p in zip(board_ids, line.placings, strict=True))
            lines.append(f"{ordinal(line.place):>4}  {line.name:<16} {placings}   aggregate {line.aggregate}")
        return lines


DEMO = PostalDemo()
