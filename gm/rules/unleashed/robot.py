"""Unleashed's robots for `gm demo --ruleset unleashed` (docs/rules/unleashed.md).

Six robots on the 5 x 10 board. Each learns its hand only from its own mail (the welcome,
each report and each acknowledgement print it) and writes a real play list from it: a
card that sets back goes just ahead of the leader, where its roll may well land; one that
helps goes a roll ahead of its own pawn; an action card goes where nobody stands, with
its choices written out (a snake moved so that its head waits for the leader, two pawns
swapped when it is behind). Several lines per order, so that a line skipped at the go
(a square taken, a locked card) falls through to the next. In the setup turn each robot
lists a few placements; each keeps standing reactions. One forgets a turn (NMR: its go
is still played), one plays a card it does not hold, reads the refusal and orders again.
gm/demo/robots.py reads and writes their mail."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...demo.robots import DemoSetup, Robot, RobotConfused
from .cards import canonical_sorted, is_action, movement, read_code, sent
from .items import Grid, ends_ok_with, fits_reach, placements

__all__ = ["CAST", "DEMO", "UnleashedDemo", "UnleashedRobot"]

HAND = re.compile(r"^\W*(?:your )?hand(?: \(only you see it\))?: (.+)$", re.IGNORECASE | re.MULTILINE)
TYPICAL_ROLL = 7  # the commonest sum of two dice


@dataclass
class UnleashedRobot(Robot):
    """An Unleashed player: what it has read of its hand, and how it likes to play
    (`mood`: spoiler sets the leader back, runner helps itself, schemer moves items)."""

    mood: str = "runner"
    hand: list[str] = field(default_factory=list)
    reacted: bool = False

    def _read_hand(self, text: str) -> None:
        found = HAND.search(text)
        if found is None:
            return
        words = found.group(1).strip()
        if words.lower() == "empty":
            self.hand = []
            return
        codes = [read_code(word.strip()) for word in words.split(",")]
        if any(code is None for code in codes):
            raise RobotConfused(f"{self.id}: cannot read its hand in {words!r}")
        self.hand = [code for code in codes if code]

    def receive(self, letter: Any) -> None:
        super().receive(letter)
        self._read_hand(letter.text)

    # `public` (UnleashedDemo.public): the board part of `gm state --json` (cards, items,
    # pawns, locks) and whether this is the setup turn, all of which every player sees.

    def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
        board = public["board"]
        me = board["players"][self.id]
        if me["finished"] or public["over"]:
            return []
        lines = []
        if not self.reacted:
            self.reacted = True
            lines += ["REACT BACK LEADER", "REACT FORWARD LAST", "REACT SWAP-PLAYERS ME LEADER"]
        if public["setup"]:
            return lines + self.places(board)
        if turn == self.blunders and not self.refused:
            held = set(self.hand)
            missing = next(code for code in ("+9", "-9", "BACK-9", "FORWARD-9") if code not in held)
            return lines + [f"PLAY {missing} ON ME+{TYPICAL_ROLL}"]
        plays = self.plays(board)
        return lines + (plays or ["PLAY NONE"])

    def places(self, board: Mapping[str, Any]) -> list[str]:
        """A few placements for the setup list, each legal on the empty board."""
        grid = Grid(board["rows"], board["columns"])
        taken = board["items"]
        wanted = ["S5", "L2", "S2", "L5"] if self.mood != "runner" else ["L4", "L1", "S1", "P1"]
        lines = []
        for item in wanted:
            if item in taken:
                continue
            options = [(low, high) for low, high in placements(grid, item)
                       if ends_ok_with(taken, {item: (low, high)})]
            if options:
                low, high = self.rng.choice(options)
                lines.append(f"PLACE {item} {low} {high}")
        return lines

    def plays(self, board: Mapping[str, Any]) -> list[str]:
        players = board["players"]
        mine = players[self.id]["square"]
        others = {p: v["square"] for p, v in players.items() if p != self.id and not v["finished"]}
        leader_ahead = bool(others) and max(others.values()) > mine
        lines = []
        # the cards in canonical order first: a set's order changes with the hash seed
        for code in sorted(canonical_sorted(set(self.hand)), key=lambda c: self.rng.random()):
            step = movement(code)
            move = sent(code)
            if (step < 0 or (move and move[0] == "BACK")) and others:
                lines += [f"PLAY {code} ON LEADER+{k}" for k in (TYPICAL_ROLL, TYPICAL_ROLL - 1)]
            elif step > 0 or code == "EXTRA-ROLL":
                lines.append(f"PLAY {code} ON ME+{TYPICAL_ROLL - 2 if code != 'EXTRA-ROLL' else 1}")
            elif code == "SWAP-PLAYERS" and leader_ahead:
                lines.append("PLAY SWAP-PLAYERS ON ME+1 ME LEADER")
            elif code == "MOVE-SNAKE" and self.mood != "runner" and others:
                moved = self.snake_for_leader(board)
                if moved:
                    lines.append(f"PLAY MOVE-SNAKE ON ME+3 {moved}")
            elif code == "BLANK" and others:
                lines.append(f"PLAY BLANK ON LEADER+{TYPICAL_ROLL + 1}")
            elif is_action(code) and self.mood == "schemer":
                lines.append(f"PLAY {code} ON ME+2")
        return lines[:4]

    def snake_for_leader(self, board: Mapping[str, Any]) -> str | None:
        """A snake in play, not locked, moved so that its head lies a roll ahead of the
        leader, written as a triple; None when none fits."""
        grid = Grid(board["rows"], board["columns"])
        leader = max((v["square"] for p, v in board["players"].items() if p != self.id and not v["finished"]),
                     default=None)
        if leader is None:
            return None
        items = board["items"]
        target = leader + TYPICAL_ROLL
        for item in sorted(items):
            if not item.startswith("S") or item in board["locked_items"]:
                continue
            for low, high in placements(grid, item):
                if high == target and fits_reach(grid, item, low, high) and ends_ok_with(items, {item: (low, high)}):
                    return f"{item} {high} TO {low}"
        return None

    def slip(self, turn: int) -> str | None:
        if turn == self.blunders:
            return "plays a card it does not hold"
        return super().slip(turn)


CAST = (
    dict(id="ada", name="Ada Runner", style="plain", mood="runner"),
    dict(id="brian", name="Brian Spoiler", style="html", mood="spoiler"),
    dict(id="cleo", name="Cleo Schemer", style="phone", mood="schemer"),
    dict(id="dmitri", name="Dmitri Spoiler", style="reply", mood="spoiler"),
    dict(id="eve", name="Eve Runner", style="plain", mood="runner", misses=3),
    dict(id="felix", name="Felix Schemer", style="phone", mood="schemer", blunders=2),
)


class UnleashedDemo(DemoSetup):
    """The default 5 x 10 board for six, the items placed by the players in turn 1."""

    robot = UnleashedRobot
    cast = CAST
    boards: Mapping[str, str] = {}
    options = ("  setup: players             # turn 1: the robots place the snakes, ladders and lampposts\n"
               "  max_turns: 60               # a guard; the robots finish long before\n")
    heading = "Final placings (crossed pawns by overshoot, then the others by square):"

    def campaign_seed(self, seed: int) -> int:
        # docs/rules/unleashed.md, Fairness: seeds and commitments: a seed below 2^128 is refused
        return 2**128 + seed

    def public(self, campaign: Any) -> dict[str, Any]:
        data = campaign.state_json()
        (board,) = data["boards"].values()
        return {"board": board, "setup": data["setup"], "over": data["over"]}


DEMO = UnleashedDemo()
