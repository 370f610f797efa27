"""The dice games' robots for `gm demo --ruleset classic|doubles` (docs/rules/<ruleset>.md,
Commands).

Nobody needs to send an order: the GM throws everyone's dice at the deadline, so most
robots only read their mail. One resigns by mail; one mails RESIGN, reads the
acknowledgement and thinks better of it (RESIGN NONE, mid-week); one asks for HELP with
its password (to see its standing order); one mails RESIGN NONE with nothing to withdraw,
which is accepted and changes nothing. gm/demo/robots.py reads and writes their mail."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...counts import ordinal
from ...demo.robots import DemoSetup, Robot, RobotConfused

__all__ = ["CAST", "DEMO", "DiceDemo", "DiceRobot"]

# the standing order an acknowledgement or a help reply shows: "RESIGN: ..." or "nothing ..."
STANDING = re.compile(r"^Your order for turn \d+:\n\s*(\S.*)$", re.MULTILINE)


@dataclass
class DiceRobot(Robot):
    """A classic or doubles player, and what it has read: whether its RESIGN stands (its
    acknowledgement says), whether it is still in play (its report says)."""
    resigns: int | None = None  # the turn it mails RESIGN
    wavers: int | None = None  # the turn it mails RESIGN, then withdraws it once acknowledged
    asks_help: int | None = None  # the turn it mails HELP with its password
    checks: int | None = None  # the turn it mails RESIGN NONE, having nothing to withdraw
    # learnt from mail
    resigning: bool = False  # its last acknowledgement shows a RESIGN standing
    in_play: bool = True  # its last report still asks nothing of it
    helped: bool = False  # a help reply showed its standing order

    def read_ack(self, text: str) -> None:
        standing = STANDING.search(text)
        if not standing:
            raise RobotConfused(f"{self.id}: the acknowledgement does not show its standing order")
        self.resigning = standing.group(1).startswith("RESIGN:")

    def read_report(self, text: str) -> None:
        if re.search(r"\byou are no longer in play\b", text, re.IGNORECASE):
            self.in_play = False

    def read_help(self, text: str) -> None:
        self.helped = bool(STANDING.search(text))

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        if not self.in_play:
            return []
        if turn in (self.resigns, self.wavers):
            return ["RESIGN"]
        if turn == self.checks:
            return ["RESIGN NONE"]
        if turn == self.asks_help:
            return ["HELP"]
        return []

    def order_lines(self, turn: int, *, campaign: str, public: Mapping[str, Any]) -> list[str]:
        lines = super().order_lines(turn, campaign=campaign, public=public)
        if lines and lines[-1] == "HELP":
            # HELP with a TURN line would read as an order: ask without the guard
            lines = [line for line in lines if not line.startswith("TURN ")]
        return lines

    def slip(self, turn: int) -> str | None:
        if not self.in_play:
            return None
        if turn == self.resigns:
            return "resigns"
        if turn == self.wavers:
            return "resigns, then wavers"
        if turn == self.checks:
            return "makes sure no RESIGN stands for them"
        if turn == self.asks_help:
            return "asks for HELP"
        return super().slip(turn)

    def mid_week(self, turn: int) -> bool:
        return turn == self.wavers or super().mid_week(turn)

    def second_letter(self, turn: int, *, campaign: str, public: Mapping[str, Any]) -> tuple[list[str], str]:
        if turn == self.wavers and self.resigning:
            return (self.envelope(turn, campaign) + ["RESIGN NONE"],
                    "reads the acknowledgement, thinks better of it and mails RESIGN NONE")
        return super().second_letter(turn, campaign=campaign, public=public)


# Six robots in four ways of writing mail: two never write, four write once or twice.
CAST = (
    dict(id="ada", name="Ada Quitter", style="plain", resigns=3),
    dict(id="brian", name="Brian Waverer", style="html", wavers=2),
    dict(id="cleo", name="Cleo Curious", style="phone", asks_help=1),
    dict(id="dmitri", name="Dmitri Careful", style="reply", checks=1),
    dict(id="eve", name="Eve Silent", style="plain"),
    dict(id="felix", name="Felix Silent", style="phone"),
)


class DiceDemo(DemoSetup):
    """One sample board; the game ends once three robots have finished."""
    robot = DiceRobot
    cast = CAST
    boards = {"A": "ziggurat.yaml"}
    options = (
        "  close_after: 3\n"
        "  max_turns: 60               # a guard; the robots finish long before\n"
    )
    heading = "Final standings (finishers first, then by square):"

    def standings(self, campaign: Any) -> list[str]:

        data = campaign.state_json()
        (board,) = data["boards"].values()
        lines = []
        for line in campaign.ruleset.archive_standings(campaign.setup, campaign.state(), campaign.names()):
            piece, player = board["players"][line.player], data["players"][line.player]
            where = "finished" if piece["finished"] else f"square {piece['square']}"
            if player["resigned"]:
                where += ", resigned"
            lines.append(f"{ordinal(line.place) if line.place else '-':>4}  {line.name:<16} {where}")
        return lines


DEMO = DiceDemo()
