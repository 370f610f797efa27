"""What players of the postal game may see (docs/rules/postal.md, What players see), as types that
have no field for anything else.

Player templates (templates/mail/postal/) receive only these views. Numbers, routes,
snakes, ladders, shapes and board names are not in them, so no template can leak them,
however it is written. The GM's report gets the full events separately.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..base import Setup
from .events import NumberPlayed
from .options import SHARED
from .state import PostalOrder, PostalState, aggregates, hands_to_number


@dataclass(frozen=True)
class PieceLine:
    """One player's piece on one board for one turn: start and end only."""

    player: str
    name: str
    start: int
    end: int
    finished: bool
    finished_now: bool
    placing: int | None
    nmr: bool


@dataclass(frozen=True)
class BoardLine:
    board: str  # the board's id (A, B...): public, players nominate trapdoors with it
    squares: int
    closed: bool
    closed_now: bool
    trapdoor_next: int | None
    pieces: tuple[PieceLine, ...]

    @cached_property
    def leaders(self) -> tuple[PieceLine, ...]:
        """The pieces furthest on (finished ones by placing first), LEADERS of them: what a
        report too long to list everyone shows in its body (the rest are attached)."""
        ranked = sorted(self.pieces, key=lambda p: (not p.finished, p.placing or 0, -p.end))
        return tuple(ranked[:LEADERS])


# pieces per board, and standings, a report shows in its body when it attaches the rest
LEADERS = 5
TOP_STANDINGS = 10


@dataclass(frozen=True)
class StandingLine:
    player: str
    name: str
    placings: tuple[int | None, ...]  # per board, in board order
    aggregate: int | None
    place: int | None


@dataclass(frozen=True)
class PublicTurn:
    """The turn report everyone may read."""

    campaign: str
    title: str
    turns: tuple[int, ...]  # (5,) or (5, 6) for a double turn
    boards: tuple[BoardLine, ...]
    board_ids: tuple[str, ...]
    standings: tuple[StandingLine, ...]
    over: bool
    next_turn: int | None
    announce_trapdoors: bool

    @cached_property
    def any_nmr(self) -> bool:
        return any(p.nmr for b in self.boards for p in b.pieces)

    @cached_property
    def lines_of(self) -> Mapping[str, tuple[PieceLine, ...]]:
        """Each player's pieces, one per board in board order: a copy's own lines, found
        without reading every player's (which made a turn cost players squared)."""
        return {p.player: pieces for pieces in zip(*(b.pieces for b in self.boards), strict=True)
                for p in pieces[:1]}

    @cached_property
    def standing_of(self) -> Mapping[str, StandingLine]:
        return {s.player: s for s in self.standings}

    @cached_property
    def top_standings(self) -> tuple[StandingLine, ...]:
        """The first of the standings with a placing on some board: before anyone has
        one, the standings are only the campaign's order, nothing to show."""
        return tuple(s for s in self.standings if any(p is not None for p in s.placings))[:TOP_STANDINGS]


@dataclass(frozen=True)
class OwnHand:
    board: str | None  # None under shared numbers
    played: int | None
    nmr: bool
    left: tuple[int, ...]
    choose: bool = False  # next turn needs a number from this hand (it moves, not forced)


@dataclass(frozen=True)
class ReadyOrder:
    """One order a player may send for the next turn: a number they hold on one hand.
    The templates turn it into a `mailto:` link and a block to copy."""

    turn: int
    board: str | None  # None under shared numbers
    number: int


@dataclass(frozen=True)
class OwnFacts:
    """What only the addressed player knows: their numbers and nominations, and the
    orders ready for them to send next turn."""

    player: str
    name: str
    hands: tuple[OwnHand, ...]
    nominations: tuple[tuple[str, int], ...]
    ready: tuple[ReadyOrder, ...] = ()


def standings(setup: Setup, state: PostalState, names: Mapping[str, str]) -> tuple[StandingLine, ...]:
    """Placings so far and, once every board has placed a player, their aggregate."""
    summed = aggregates(setup.players, state)
    lines = [StandingLine(p, names.get(p, p), tuple(state.boards[b].pieces[p].placing for b in setup.boards),
                          *summed[p])
             for p in setup.players]
    # placed players first by place, the rest in campaign order
    return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0)))


def public_turn(
    *,
    setup: Setup,
    campaign: str,
    title: str,
    before: PostalState,
    after: PostalState,
    events: Sequence[Any],
    names: Mapping[str, str],
) -> PublicTurn:
    nmr_players = {e.player for e in events if isinstance(e, NumberPlayed) and e.source == "nmr"}
    boards = []
    for board_id in setup.boards:
        b0, b1 = before.boards[board_id], after.boards[board_id]
        pieces = tuple(
            PieceLine(
                player=p,
                name=names.get(p, p),
                start=b0.pieces[p].square,
                end=b1.pieces[p].square,
                finished=b1.pieces[p].finished,
                finished_now=b1.pieces[p].finished and not b0.pieces[p].finished,
                placing=b1.pieces[p].placing,
                nmr=p in nmr_players,
            )
            for p in setup.players
        )
        boards.append(
            BoardLine(
                board=board_id,
                squares=setup.boards[board_id].squares,
                closed=b1.closed,
                closed_now=b1.closed and not b0.closed,
                trapdoor_next=b1.trapdoor if setup.options.announce_trapdoors else None,
                pieces=pieces,
            )
        )
    turns = tuple(range(before.turn, after.turn))
    return PublicTurn(
        campaign=campaign,
        title=title,
        turns=turns,
        boards=tuple(boards),
        board_ids=tuple(setup.boards),
        standings=standings(setup, after, names),
        over=after.over,
        next_turn=None if after.over else after.turn,
        announce_trapdoors=setup.options.announce_trapdoors,
    )


def own_facts(
    *,
    setup: Setup,
    player: str,
    name: str,
    state: PostalState,
    events: Sequence[Any] = (),
    order: PostalOrder | None = None,
) -> OwnFacts:
    """A player's own numbers (played this turn, if any, and still held), nominations,
    and a ready order for each number they may send next turn."""
    played: dict[str, tuple[int, bool]] = {}
    for event in numbers_played(events).get(player, ()):
        if event.hand not in played:
            played[event.hand] = (event.number, event.source == "nmr")
    hands = []
    needed = set() if state.over else set(hands_to_number(setup.options, state, player))
    for hand, left in state.hands[player].items():
        number, nmr = played.get(hand, (None, False))
        hands.append(
            OwnHand(None if hand == SHARED else hand, number, nmr, tuple(left), hand in needed)
        )
    nominations = tuple(sorted((order.trapdoors if order else {}).items()))
    ready = ready_orders(None if state.over else state.turn, [(h.board, h.left) for h in hands if h.choose])
    return OwnFacts(player, name, tuple(hands), nominations, ready)


_last_played: list[Any] = [None, {}]  # the events last asked about, and their index


def numbers_played(events: Sequence[Any]) -> Mapping[str, list[NumberPlayed]]:
    """The turn's NumberPlayed events by player, indexed once per turn's events: every
    player's copy asks, and reading all events for each made a turn cost players squared."""
    if _last_played[0] is not events:
        index: dict[str, list[NumberPlayed]] = {}
        for event in events:
            if isinstance(event, NumberPlayed):
                index.setdefault(event.player, []).append(event)
        _last_played[:] = [events, index]
    return _last_played[1]


def ready_orders(turn: int | None, hands: Sequence[tuple[str | None, Sequence[int]]]) -> tuple[ReadyOrder, ...]:
    """A ready order for each number still held on each hand that needs one."""
    if turn is None:
        return ()
    return tuple(ReadyOrder(turn, board, n) for board, held in hands for n in held)
