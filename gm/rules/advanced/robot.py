"""The advanced game's robots for `gm demo --ruleset advanced` (docs/rules/advanced.md, Commands).

Three teams of two race over the seed's board (boards/advanced.yaml) with their own dice.
Most robots MOVE every turn; the builders BUILD from their square down to a square one
step away (so any throw of 2 or more reaches it) when it helps: a spoiler builds a snake
whose head is its square when a rival is close behind (likely to land there), a helper a
ladder whose top is its square when a teammate is behind (its foot a level lower). Which
squares lie one step down a builder reads off its last report, as a player would (the
squares its own part lists for a BUILD). One robot forgets a turn (no order: a MOVE is
played, marked NMR); one orders a ladder up from its square, which gm refuses on
receipt, reads the refusal and orders again. gm/demo/robots.py reads and writes their
mail."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...counts import ordinal
from ...demo.robots import DemoSetup, Robot

__all__ = ["CAST", "DEMO", "AdvancedDemo", "AdvancedRobot"]

BUILDS = ("snake", "ladder")
CLOSE_BEHIND = 12  # a rival this close behind may well land on the spoiler's square
# the report's list of the squares a BUILD could end on, one step from the player's square
ONE_STEP = re.compile(r"^\s*1 step \([^)]*\): ([\d, ]+)$", re.MULTILINE)


@dataclass
class AdvancedRobot(Robot):
    """An advanced player: its team, what it builds (`builds`: snake, ladder or nothing)
    and at most how many items; and what it has read: that its piece is in End (its
    report says), and the reasons of its last refusal."""
    team: str | None = None
    builds: str | None = None
    most: int = 3  # the items it builds at most: each makes the next harder
    # learnt from mail
    in_end: bool = False
    refusal: str = ""
    one_step: tuple[int, ...] = ()  # where a BUILD from its square could end, one step down

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.builds not in (None, *BUILDS):
            raise ValueError(f"robot {self.id}: builds one of {BUILDS} or nothing")

    def read_report(self, text: str) -> None:
        if re.search(r"\byour piece is in End\b", text, re.IGNORECASE):
            self.in_end = True
        found = ONE_STEP.search(text)
        self.one_step = tuple(int(square) for square in found.group(1).split(", ")) if found else ()

    def read_refusal(self, text: str) -> None:
        self.refusal = text

    # `public` (AdvancedDemo.public): the board part of `gm state --json` (squares, every
    # snake and ladder, built ones too, each piece), each player's public die, team and
    # builds, all of which every player may see; which squares lie a step apart the robot
    # reads off its report, as a player does.

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        board = public["board"]
        me = board["players"][self.id]
        if self.in_end or me["finished"]:
            return []  # a player in End has no go
        square = me["square"]
        if turn == self.blunders and not self.refused:
            # the slip: a ladder going up from its square, as if it were the ladder's foot
            return [f"BUILD LADDER {square + 3}"]
        build = self.build(public, square)
        return [build] if build else ["MOVE"]

    def build(self, public: Mapping[str, Any], square: int) -> str | None:
        """A build worth trying from `square` this turn, or None (then it moves)."""
        board, players = public["board"], public["players"]
        if self.builds is None or not self.one_step or players[self.id]["builds"] >= self.most:
            return None
        others = [(players[p]["team"], piece["square"]) for p, piece in board["players"].items()
                  if p != self.id and not piece["finished"]]
        if self.builds == "snake":
            wanted = any(team != self.team and square - CLOSE_BEHIND <= at < square for team, at in others)
        else:
            wanted = any(team == self.team and at < square - 1 for team, at in others)
        if not wanted or self.rng.random() < 0.4:  # not every time: it must race too
            return None
        return f"BUILD {self.builds.upper()} {min(self.one_step)}"  # the longest snake or ladder within a step

    def slip(self, turn: int) -> str | None:
        if turn == self.blunders:
            return "orders a ladder up from its square"
        return super().slip(turn)


# Six robots, three teams of two, in four ways of writing mail.
CAST = (
    dict(id="ada", name="Ada Runner", style="plain", team="red"),
    dict(id="brian", name="Brian Spoiler", style="html", team="red", builds="snake"),
    dict(id="cleo", name="Cleo Runner", style="phone", team="blue"),
    dict(id="dmitri", name="Dmitri Helper", style="reply", team="blue", builds="ladder"),
    dict(id="eve", name="Eve Runner", style="plain", team="green", misses=4),
    dict(id="felix", name="Felix Builder", style="phone", team="green", builds="ladder", blunders=3),
)


class AdvancedDemo(DemoSetup):
    """The seed's board, three teams; the first team all in End wins."""
    robot = AdvancedRobot
    cast = CAST
    boards = {"A": "advanced.yaml"}
    options = "  max_turns: 80               # a guard; the robots finish long before\n"
    player_keys = ("team",)
    heading = "Final standings (the first team all in End wins, the others by their laggard):"

    def campaign_seed(self, seed: int) -> int:
        # docs/rules/advanced.md, Fairness: seeds and commitments: advanced refuses a seed below
        # 2^128
        return 2**128 + seed

    def public(self, campaign: Any) -> dict[str, Any]:
        data = campaign.state_json()
        (board,) = data["boards"].values()
        players = {p: {key: value[key] for key in ("die", "team", "builds")} for p, value in data["players"].items()}
        return {"board": board, "players": players}

    def standings(self, campaign: Any) -> list[str]:

        data = campaign.state_json()
        (board,) = data["boards"].values()
        lines = []
        for line in campaign.ruleset.archive_standings(campaign.setup, campaign.state(), campaign.names()):
            piece, team = board["players"][line.player], data["players"][line.player]["team"]
            where = "in End" if piece["finished"] else f"square {piece['square']}"
            won = " (won)" if data["winner"] == team else ""
            lines.append(f"{ordinal(line.place) if line.place else '-':>4}  {line.name:<16} team {team}{won}: {where}")
        return lines


DEMO = AdvancedDemo()
