"""What everyone may see of a pig race turn (nothing in it is secret): gm's generic turn
(each piece's squares before and after, the standings) and each player's go, read by
templates/mail/pig/_turn.* and templates/archive/pig/_turn_body.html."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gm.rules.base import ArchiveBoard, ArchiveStanding, ArchiveTurn
from gm.rules.moving import Step

from .rules import Moved, PigState

__all__ = ["Go", "PigReport", "report"]


@dataclass(frozen=True)
class Go:
    """One player's go as told: what they ordered, the faces thrown, whether a 1 made it
    bust, and the squares it reached (a snake or ladder after the move)."""

    player: str
    name: str
    order: str  # "roll" or "hold"
    asked: int
    dice: tuple[int, ...]
    bust: bool
    silent: bool
    start: int
    end: int
    steps: tuple[Step, ...]
    finished: bool
    placing: int | None


@dataclass(frozen=True)
class PigReport:
    """The turn report everyone reads: the generic fields (gm.mail.views.PublicView's)
    and the goes, in the order they were played."""

    campaign: str
    title: str
    turns: tuple[int, ...]
    boards: tuple[ArchiveBoard, ...]
    standings: tuple[ArchiveStanding, ...]
    over: bool
    next_turn: int | None
    goes: tuple[Go, ...]

    @property
    def busts(self) -> tuple[Go, ...]:
        return tuple(go for go in self.goes if go.bust)


def report(generic: ArchiveTurn, after: PigState, events: Sequence[Any], names: Mapping[str, str],
           campaign: str, title: str) -> PigReport:
    goes = tuple(
        Go(e.player, names.get(e.player, e.player), e.order, e.asked, tuple(e.dice), e.bust, e.silent, e.start,
           e.end, tuple(e.steps), e.finished, after.placings.get(e.player) if e.finished else None)
        for e in events if isinstance(e, Moved)
    )
    return PigReport(campaign, title, generic.turns, generic.boards, generic.standings, generic.over,
                     generic.next_turn, goes)
