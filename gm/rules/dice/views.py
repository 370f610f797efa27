"""What everyone sees of a dice campaign (docs/rules/classic.md, What players see): everything, once
resolved. The order of play and every turn-0 throw; each throw's faces and route (bounce, snake,
ladder), extra throws and skipped throws with why; resignations, finishes and placings. The
templates under templates/mail/dice/ and templates/archive/dice/ word these views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...boards.moving import Step
from ..base import ArchiveStanding, Ruleset, Setup
from .events import CampaignOver, OpeningThrow, OrderOfPlay, Placed, Resigned, Thrown
from .state import DiceState


@dataclass(frozen=True)
class Named:
    id: str
    name: str


@dataclass(frozen=True)
class OpeningRound:
    """The turn-0 throws with one die index (`/1` everyone, `/2` those tied, ...)."""

    index: int
    throws: tuple[tuple[Named, str, int], ...]  # (player, dice key, face), in listing order


@dataclass(frozen=True)
class RollOff:
    """A round of the roll-off for first place: the highest face and who threw it (more
    than one: they threw again)."""

    index: int
    best: int
    highest: tuple[Named, ...]


@dataclass(frozen=True)
class OpeningView:
    """The order of play and why (docs/rules/<ruleset>.md): the roll-off's rounds, if any, each with
    who threw highest; the listing order (campaign.yaml's); whether the order of play is the listing
    order from the first player, wrapping round."""

    rounds: tuple[OpeningRound, ...]  # empty when the order of play needs no throw (doubles)
    order: tuple[Named, ...]
    listing: tuple[Named, ...] = ()
    roll_offs: tuple[RollOff, ...] = ()
    follows_listing: bool = True

    @property
    def first(self) -> Named | None:
        return self.order[0] if self.order else None


@dataclass(frozen=True)
class ThrowLine:
    """One throw as everyone may read it."""

    dice: tuple[int, ...]
    total: int
    start: int
    steps: tuple[Step, ...]  # the square the throw reached (via roll), then snakes and ladders
    end: int
    bounced: bool
    finished: bool
    again: bool
    skip: str | None  # needs-one, third-double-six

    @property
    def double(self) -> bool:
        return len(self.dice) == 2 and self.dice[0] == self.dice[1]


@dataclass(frozen=True)
class GoLine:
    """One player's go in the turn: every throw, in order."""

    player: str
    name: str
    start: int
    end: int
    throws: tuple[ThrowLine, ...]
    finished: bool
    placing: int | None


@dataclass(frozen=True)
class PieceLine:
    player: str
    name: str
    seat: int
    start: int
    end: int
    finished: bool
    finished_now: bool
    resigned: bool
    resigned_now: bool
    placing: int | None


@dataclass(frozen=True)
class PlacingLine:
    player: str
    name: str
    placing: int
    how: str  # finished, square, resigned


@dataclass(frozen=True)
class DiceTurn:
    """The public report of one resolved turn."""

    campaign: str
    title: str
    ruleset: str
    turns: tuple[int, ...]
    board: str
    squares: int
    resigned: tuple[Named, ...]  # this turn, before the first go
    goes: tuple[GoLine, ...]  # in order of play
    pieces: tuple[PieceLine, ...]  # every player, in order of play
    placed: tuple[PlacingLine, ...]  # placings made this turn, best first
    standings: tuple[ArchiveStanding, ...]
    over: bool
    end_reason: str | None  # close_after, in_play, max_turns
    winner: Named | None
    next_turn: int | None


def opening_view(setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> OpeningView:
    throws = [e for e in events if isinstance(e, OpeningThrow) and e.purpose == "order"]
    listing = {p: i for i, p in enumerate(setup.players)}
    rounds = []
    for index in sorted({t.index for t in throws}):
        these = sorted((t for t in throws if t.index == index), key=lambda t: listing[t.player])
        rounds.append(OpeningRound(index, tuple((_named(t.player, names), t.key, t.roll) for t in these)))
    order = next((e.order for e in events if isinstance(e, OrderOfPlay)), tuple(setup.players))
    players = list(setup.players)
    first = players.index(order[0]) if order and order[0] in listing else 0
    roll_offs = []
    for r in rounds:
        best = max(face for _, _, face in r.throws)
        roll_offs.append(RollOff(r.index, best, tuple(who for who, _, face in r.throws if face == best)))
    return OpeningView(tuple(rounds), tuple(_named(p, names) for p in order),
                       listing=tuple(_named(p, names) for p in players), roll_offs=tuple(roll_offs),
                       follows_listing=tuple(order) == tuple(players[first:] + players[:first]))


def public_turn(ruleset: Ruleset, setup: Setup, before: DiceState, after: DiceState, events: Sequence[Any],
                names: Mapping[str, str], campaign: str, title: str) -> DiceTurn:
    board_id, board = next(iter(setup.boards.items()))
    thrown: dict[str, list[Thrown]] = {}
    for event in events:
        if isinstance(event, Thrown):
            thrown.setdefault(event.player, []).append(event)
    goes = tuple(
        GoLine(p, names.get(p, p), throws[0].start, throws[-1].end,
               tuple(_throw_line(t) for t in throws), after.pieces[p].finished and not before.pieces[p].finished,
               after.pieces[p].placing)
        for p in after.order if (throws := thrown.get(p))
    )
    seats = {p: i + 1 for i, p in enumerate(after.order)}
    pieces = tuple(
        PieceLine(p, names.get(p, p), seats[p], before.pieces[p].square, after.pieces[p].square,
                  after.pieces[p].finished, after.pieces[p].finished and not before.pieces[p].finished,
                  after.pieces[p].resigned, after.pieces[p].resigned and not before.pieces[p].resigned,
                  after.pieces[p].placing)
        for p in after.order
    )
    placed = tuple(sorted((PlacingLine(e.player, names.get(e.player, e.player), e.placing, e.how)
                           for e in events if isinstance(e, Placed)), key=lambda line: line.placing))
    over = next((e for e in events if isinstance(e, CampaignOver)), None)
    return DiceTurn(
        campaign=campaign,
        title=title,
        ruleset=ruleset.name,
        turns=(before.turn,),
        board=board_id,
        squares=board.squares,
        resigned=tuple(_named(e.player, names) for e in events if isinstance(e, Resigned)),
        goes=goes,
        pieces=pieces,
        placed=placed,
        standings=ruleset.archive_standings(setup, after, names),
        over=after.over,
        end_reason=over.reason if over else None,
        winner=_named(after.winner, names) if after.over and after.winner else None,
        next_turn=None if after.over else after.turn,
    )


def _named(player: str, names: Mapping[str, str]) -> Named:
    return Named(player, names.get(player, player))


def _throw_line(t: Thrown) -> ThrowLine:
    return ThrowLine(t.dice, sum(t.dice), t.start, t.steps, t.end, t.bounced, t.finished, t.again, t.skip)
