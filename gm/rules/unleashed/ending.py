"""The end of an Unleashed campaign (docs/rules/unleashed.md, Winning and placings): every pawn
placed, finished ones by overshoot, the others by square, and the winners named."""

from __future__ import annotations

from typing import Any

from ..ranking import competition_places
from .happenings import Ended
from .state import UnleashedState

__all__ = ["GameOver", "end_campaign", "placings"]


class GameOver(Exception):
    """A pawn crossed under `finish: first`: nothing more happens (6.10)."""


def end_campaign(state: UnleashedState, events: list[Any]) -> None:
    """6.10: the campaign ends on `state` (a pawn crossed, `max_turns`, or the GM's `gm
    end`): every pawn placed, the winners named, the board closed."""
    for player, place in placings(state).items():
        state.pawns[player].placing = place
    state.winners = [p for p in state.seats if state.pawns[p].finished and state.pawns[p].placing == 1]
    state.over = True
    events.append(Ended(tuple(state.winners), tuple((p, state.pawns[p].placing) for p in state.seats)))


def placings(state: UnleashedState) -> dict[str, int]:
    """6.10: finished pawns by overshoot, larger first; then the others by square,
    further first; equals share (competition ranking)."""
    pawns = state.pawns
    finished = {p: -pawns[p].overshoot for p in state.seats if pawns[p].finished}
    others = {p: -pawns[p].square for p in state.seats if not pawns[p].finished}
    return competition_places(finished) | competition_places(others, start=len(finished) + 1)
