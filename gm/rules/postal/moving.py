"""The boards while one postal turn is resolved (docs/rules/postal.md, Crossing the finish and
placings): landings with the elected trapdoor, crossing, closing a board and placing the pieces left
on it."""

from __future__ import annotations

from collections.abc import Iterable

from ...boards.model import Board
from ...boards.moving import Step, landing
from ..ranking import competition_places
from .events import BoardClosed, Placed
from .state import BoardState, Piece


class BoardInPlay:
    """A board's pieces while a turn is being resolved (mutable, private to resolve)."""

    def __init__(self, board_id: str, board: Board, state: BoardState):
        self.id = board_id
        self.board = board
        self.closed = state.closed
        self.trapdoor = state.trapdoor
        self.square = {p: piece.square for p, piece in state.pieces.items()}
        self.finished = {p: piece.finished for p, piece in state.pieces.items()}
        self.placing = {p: piece.placing for p, piece in state.pieces.items()}
        self._landings: dict[int, tuple[int, tuple[Step, ...]]] = {}
        self._routes: dict[int, tuple[int, tuple[Step, ...]]] = {}

    def land(self, square: int) -> tuple[int, tuple[Step, ...]]:
        # the trapdoor is fixed for the whole turn, so each square's outcome is computed once
        if square not in self._landings:
            trapdoor = {} if self.trapdoor is None else {
                self.trapdoor: (self.board.drop_target(self.trapdoor), "trapdoor")}
            self._landings[square] = landing(square, self.board.jumps, effects=trapdoor)
        return self._landings[square]

    def route(self, square: int) -> tuple[int, tuple[Step, ...]]:
        """Like `land`, with the step onto `square` by the number first (a move's steps)."""
        found = self._routes.get(square)
        if found is None:
            end, effects = self.land(square)
            found = self._routes[square] = (end, (Step(square, "number"), *effects))
        return found

    def crossed(self) -> int:
        return sum(self.finished.values())

    def close(self, turn: int, reason: str, events: list) -> None:
        """Close the board, placing every piece that has not crossed by square reached."""
        crossed = self.crossed()
        waiting = {p: -self.square[p] for p, done in self.finished.items() if not done}
        for player, place in competition_places(waiting).items():
            self.placing[player] = crossed + place
            events.append(Placed(turn, self.id, player, crossed + place, False))
        self.closed = True
        events.append(BoardClosed(turn, self.id, reason))  # type: ignore[arg-type]

    def frozen(self, trapdoor: int | None) -> BoardState:
        return BoardState(
            closed=self.closed,
            trapdoor=None if self.closed else trapdoor,
            pieces={
                p: Piece(self.square[p], self.finished[p], self.placing[p]) for p in self.square
            },
        )


def close_at_max_turns(boards: Iterable[BoardInPlay], turn: int, events: list) -> None:
    """docs/rules/postal.md, Crossing the finish and placings: `max_turns` closes every board still
    open at the end of `turn` (and so does the GM's `gm end`, Postal.end), placing the pieces by
    square reached."""
    for board in boards:
        if not board.closed:
            board.close(turn, "max_turns", events)
