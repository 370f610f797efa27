"""One dice turn being resolved (docs/rules/classic.md): moves, bounces, finishes, resignations and
the end of the campaign, each recorded as an event."""

from __future__ import annotations

from typing import Any

from ...boards.moving import Finish, Step, aim, landing
from ..base import (
    Setup,
)
from ..ranking import competition_places
from .events import CampaignOver, Placed, Resigned, Thrown
from .options import DiceOptions
from .state import DicePiece, DiceState


class Race:
    """The pieces while one turn is resolved (mutable, private to `resolve`): moves,
    finishes, resignations and the end of the campaign, recording every event."""

    def __init__(self, setup: Setup, state: DiceState, turn: int):
        self.setup = setup
        self.board = next(iter(setup.boards.values()))
        self.turn = turn
        self.square = {p: piece.square for p, piece in state.pieces.items()}
        self.finished = {p: piece.finished for p, piece in state.pieces.items()}
        self.placing = {p: piece.placing for p, piece in state.pieces.items()}
        self.resigned = {p: piece.resigned for p, piece in state.pieces.items()}
        self.winner = state.winner
        self.over = False
        self.events: list[Any] = []
        self.log: list[Any] = []

    def in_play(self, player: str) -> bool:
        return not self.finished[player] and not self.resigned[player]

    def players_in_play(self) -> list[str]:
        return [p for p in self.setup.players if self.in_play(p)]

    def resign(self, player: str) -> None:
        self.resigned[player] = True
        event = Resigned(self.turn, player, self.square[player])
        self.events.append(event)
        self.log.append(event)

    def move(self, player: str, dice: tuple[int, ...], *, finish: Finish = Finish.BOUNCE) -> Thrown:
        """docs/rules/classic.md Moving and Finishing: the throw's sum from the piece's square,
        bounced back from N (and off Start on a short board), then its snakes and ladders; a move
        that ends on N finishes and is placed next. `again` is the go's to set."""
        start = self.square[player]
        target = aim(finish, start, sum(dice), self.board.squares)
        end, effects = landing(target.square, self.board.jumps)
        self.square[player] = end
        finished = end == self.board.squares
        throw = Thrown(self.turn, player, dice, start, (Step(target.square, "roll"), *effects), end,
                       bounced=target.bounced, finished=finished)
        if finished:
            self.finished[player] = True
            self.placing[player] = sum(1 for p in self.finished if self.finished[p])
            self.winner = self.winner or player
        return throw

    def not_moved(self, player: str, dice: tuple[int, ...], skip: str) -> Thrown:
        square = self.square[player]
        return Thrown(self.turn, player, dice, square, (), square, skip=skip)

    def record(self, throw: Thrown) -> None:
        self.events.append(throw)
        self.log.append(throw)
        if throw.finished:
            self.events.append(Placed(self.turn, throw.player, self.placing[throw.player], "finished"))

    def check_end(self, options: DiceOptions, *, last_of_turn: bool = False) -> bool:
        """End (docs/rules/classic.md): (a) enough finishers, (b) nobody or only one in play (with
        more than one player), (c) `max_turns` played (asked only at the end of the round)."""
        if self.over:
            return True
        players = len(self.setup.players)
        in_play = len(self.players_in_play())
        if sum(self.finished.values()) >= options.finishers_needed(players):
            reason = "close_after"
        elif in_play == 0 or (in_play == 1 and players > 1):
            reason = "in_play"
        elif last_of_turn and self.turn >= options.max_turns:
            reason = "max_turns"
        else:
            return False
        self.end(reason)
        return True

    def end(self, reason: str) -> None:
        """Place everyone not yet placed after the finishers: those still in play by
        square, then those who resigned, further first, competition ranking throughout."""
        placed = sum(1 for p in self.setup.players if self.placing[p] is not None)
        for how, group in (("square", False), ("resigned", True)):
            waiting = {p: -self.square[p] for p in self.setup.players
                       if self.placing[p] is None and self.resigned[p] == group}
            for player, place in competition_places(waiting, start=placed + 1).items():
                self.placing[player] = place
                self.events.append(Placed(self.turn, player, place, how))
            placed += len(waiting)
        self.over = True
        self.events.append(CampaignOver(self.turn, reason, self.winner))

    def state(self, before: DiceState) -> DiceState:
        return DiceState(
            turn=self.turn + 1,
            over=self.over,
            order=before.order,
            pieces={p: DicePiece(self.square[p], self.finished[p], self.placing[p], self.resigned[p])
                    for p in self.setup.players},
            winner=self.winner,
            opening=before.opening,
            log=tuple(self.log),
        )
