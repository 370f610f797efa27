"""What Unleashed players see (docs/rules/unleashed.md, What players see). Everyone: the seats and
who starts the round; each go in order (cards played with the card covered and the choices as
resolved, every roll, every step of every move with the item or card that made it, actions,
crossings, cards drawn, NMR, skipped rolls); the board after the round (every top card, every item,
reversed or not, each pawn), hand sizes, the draw pile's size and the next go's locks; setup picks.
A player's own copy adds their hand, what they drew, their skipped PLAY lines with the reason and
their standing reactions.

Each view is built from the public events and the parts of the state everyone may see:
the public view types have no field that could hold a hand, a line number or a reaction,
and the own view is made for its one reader. The words are in templates/mail/unleashed/
and templates/archive/unleashed/."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base import ArchiveBoard, ArchivePicture, ArchivePiece, ArchiveStanding, Setup
from ..dice.views import Named
from .cards import canonical_sorted, card_colour, card_name, symbol
from .deal import SetupBox, setup_box
from .happenings import (
    Acted,
    Crossed,
    Drew,
    GoBegun,
    NoRoll,
    Picked,
    Played,
    Rolled,
    RoundBegun,
    Seated,
    Stepped,
)
from .items import KINDS
from .options import options_of
from .ready import ready_order
from .state import ItemLine, UnleashedState, item_lines
from .svg import board_svg
from .words import REACTIONS

__all__ = ["OwnView", "UnleashedOpening", "UnleashedTurn", "opening_view", "own_view", "public_turn"]

# The plain grid's marks under a card, in the ids and numbers orders use: `S4>13` a pawn
# that lands here travels S4 to 13; `S4<27` the other end of S4, reached from 27; `@2` the
# pawn of seat 2. A card placed in the last go is locked: its number is followed by LOCK.
ITEM_ENTRY, ITEM_EXIT, PAWN_MARK, LOCK = ">", "<", "@", "*"


@dataclass(frozen=True)
class Cell:
    square: int
    card: str
    symbol: str
    colour: str
    name: str
    locked: bool
    # what the plain grid writes under the card: the item ends here (ITEM_ENTRY, ITEM_EXIT)
    # and the pawns (PAWN_MARK), each its own line
    marks: tuple[str, ...]


@dataclass(frozen=True)
class PawnLine:
    player: str
    name: str
    seat: int
    square: int
    finished: bool
    overshoot: int | None
    placing: int | None
    hand_size: int


@dataclass(frozen=True)
class BoardView:
    """The board as everyone sees it after a turn: rows top level first, each in the
    columns it is drawn in; every item; the pawns in seat order."""
    board: str
    rows: tuple[tuple[Cell, ...], ...]
    items: tuple[ItemLine, ...]
    reversed: bool
    pawns: tuple[PawnLine, ...]
    draw_pile: int
    locked_cards: tuple[int, ...]
    locked_items: tuple[str, ...]
    squares: int
    width: int  # of a cell of the plain grid, the space after it included
    legend: tuple[tuple[str, str], ...]  # (symbol, code) of each card symbol shown that is not its code

    @property
    def marked(self) -> dict[str, tuple[str, int]]:
        """The first mark of each sort the plain grid shows ("entry", "exit", "pawn",
        "lock") and its square: the legend explains the marks by these."""
        found: dict[str, tuple[str, int]] = {}
        for row in self.rows:
            for cell in row:
                if cell.locked:
                    found.setdefault("lock", (f"{cell.square}{LOCK}{cell.symbol}", cell.square))
                for mark in cell.marks:
                    sort = "entry" if ITEM_ENTRY in mark else "exit" if ITEM_EXIT in mark else "pawn"
                    found.setdefault(sort, (mark, cell.square))
        return found


@dataclass(frozen=True)
class GoView:
    player: str
    name: str
    seat: int
    nmr: bool
    locked_cards: tuple[int, ...]
    locked_items: tuple[str, ...]
    happenings: tuple[Any, ...]  # Played, Acted, Rolled, Stepped, Crossed, Drew, NoRoll, in order
    names: Mapping[str, str] = field(default_factory=dict)  # the names shown for the pawns it moves


@dataclass(frozen=True)
class PickLine:
    pick: int
    player: Named | None
    item: str
    kind: str
    lower: int
    upper: int
    default: bool


@dataclass(frozen=True)
class UnleashedTurn:
    """One resolved turn as everyone sees it."""
    campaign: str
    title: str
    turns: tuple[int, ...]
    round: int | None  # None: the setup turn
    seats: tuple[Named, ...]
    starter: Named | None
    names: Mapping[str, str]
    picks: tuple[PickLine, ...]
    goes: tuple[GoView, ...]
    board: BoardView
    boards: tuple[ArchiveBoard, ...]  # the generic shape (race charts, GM report)
    standings: tuple[ArchiveStanding, ...]
    over: bool
    winners: tuple[Named, ...]
    next_turn: int | None
    svg: str

    @property
    def any_nmr(self) -> bool:
        return any(go.nmr for go in self.goes)


@dataclass(frozen=True)
class UnleashedOpening:
    """The start as everyone sees it: the seats, how the items are set up, the board."""
    seats: tuple[Named, ...]
    setup: str  # players, random, board
    picks: tuple[PickLine, ...]
    rows: int
    columns: int
    hand_size: int


@dataclass(frozen=True)
class SkippedLine:
    number: int
    text: str
    reason: str
    why: tuple[str, ...] = ()  # for "choices": why they were not legal and which (play.refuse)


@dataclass(frozen=True)
class OwnView:
    """What only the addressee sees (6.14): hand, cards drawn, skipped lines with the
    reason, standing reactions; and the generic shape's `in_play` and `facts`."""
    player: str
    name: str
    in_play: bool
    seat: int
    square: int
    finished: bool
    hand: tuple[str, ...]
    drew: tuple[str, ...]
    skipped: tuple[SkippedLine, ...]
    reactions: tuple[tuple[str, tuple[str, ...]], ...]
    nmr: bool
    setup_turn: bool  # the next turn is the setup turn
    board: BoardView | None = None  # the public board now, for mail between reports (welcome)
    facts: tuple[tuple[str, Any], ...] = ()
    # a ready order for the next turn, built from this player's hand (PLAY lines) or from
    # the items in the box (PLACE lines, the setup turn): an example to edit, each line
    # accepted as it stands; empty when the player sends no more orders
    ready: tuple[str, ...] = ()
    box: SetupBox | None = None  # the setup turn's items, when the next turn is the setup turn


def _named(player: str, names: Mapping[str, str]) -> Named:
    return Named(player, names.get(player, player))


def _pick_lines(events: Sequence[Any], names: Mapping[str, str]) -> tuple[PickLine, ...]:
    return tuple(PickLine(e.pick, _named(e.player, names) if e.player else None, e.item, KINDS[e.item[0]],
                          e.lower, e.upper, e.default) for e in events if isinstance(e, Picked))


def _item_marks(items: Sequence[ItemLine]) -> dict[int, list[str]]:
    """Square -> its item marks, the ends a pawn enters by first (the ones that act)."""
    entries: dict[int, list[str]] = {}
    exits: dict[int, list[str]] = {}
    for line in items:
        entries.setdefault(line.source, []).append(f"{line.item}{ITEM_ENTRY}{line.target}")
        ends = entries if line.both_ways else exits
        mark = ITEM_ENTRY if line.both_ways else ITEM_EXIT
        ends.setdefault(line.target, []).append(f"{line.item}{mark}{line.source}")
    return {s: entries.get(s, []) + exits.get(s, []) for s in entries.keys() | exits.keys()}


def _pawn_marks(seats: Sequence[int], room: int) -> tuple[str, ...]:
    """The pawns on a square, `@1@3` for seats 1 and 3, as few lines as fit `room`."""
    lines: list[str] = []
    for seat in seats:
        mark = f"{PAWN_MARK}{seat}"
        if lines and len(lines[-1] + mark) <= room:
            lines[-1] += mark
        else:
            lines.append(mark)
    return tuple(lines)


def board_view(board_id: str, state: UnleashedState, names: Mapping[str, str]) -> BoardView:
    grid = state.grid
    items = item_lines(state)
    marks = _item_marks(items)
    standing: dict[int, list[int]] = {}
    for seat, player in enumerate(state.seats, 1):
        pawn = state.pawns[player]
        if not pawn.finished:
            standing.setdefault(pawn.square, []).append(seat)
    digits = len(str(grid.squares))
    rows = []
    for level in range(grid.rows, 0, -1):
        first = (level - 1) * grid.columns + 1
        squares = sorted(range(first, first + grid.columns), key=grid.column)
        rows.append(tuple(
            Cell(s, state.cards[s - 1], symbol(state.cards[s - 1]), card_colour(state.cards[s - 1]),
                 card_name(state.cards[s - 1]), s in state.locked_cards,
                 tuple(marks.get(s, ())) + _pawn_marks(standing.get(s, ()), digits + 3))
            for s in squares))
    # a cell is the square's number (right-aligned), a space or LOCK, the symbol; every
    # mark fits under it, and one space parts it from the next
    width = max([digits + 3, *(len(m) for row in rows for cell in row for m in cell.marks)]) + 1
    shown = {cell.card for row in rows for cell in row}
    legend = tuple((symbol(code), code) for code in canonical_sorted(shown) if symbol(code) != code)
    pawns = tuple(PawnLine(p, names.get(p, p), i + 1, state.pawns[p].square, state.pawns[p].finished,
                           state.pawns[p].overshoot, state.pawns[p].placing, len(state.hands[p]))
                  for i, p in enumerate(state.seats))
    return BoardView(board_id, tuple(rows), items, state.reversed, pawns, len(state.pile),
                     tuple(sorted(state.locked_cards)), tuple(sorted(state.locked_items)), grid.squares,
                     width, legend)


def _goes(state: UnleashedState, events: Sequence[Any], names: Mapping[str, str]) -> tuple[GoView, ...]:
    goes: list[GoView] = []
    current: GoBegun | None = None
    happenings: list[Any] = []

    def close() -> None:
        if current is not None:
            goes.append(GoView(current.player, names.get(current.player, current.player),
                               state.seats.index(current.player) + 1, current.nmr, current.locked_cards,
                               current.locked_items, tuple(happenings), names))

    for event in events:
        if isinstance(event, GoBegun):
            close()
            current, happenings = event, []
        elif isinstance(event, Played | Acted | Rolled | Stepped | Crossed | Drew | NoRoll):
            happenings.append(event)
    close()
    return tuple(goes)


def standings(setup: Setup, state: UnleashedState, names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
    lines = [ArchiveStanding(p, names.get(p, p), (state.pawns[p].placing,),
                             state.pawns[p].placing if state.over else None,
                             state.pawns[p].placing if state.over else None) for p in setup.players]
    return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0)))


def public_turn(setup: Setup, before: UnleashedState, after: UnleashedState, events: Sequence[Any],
                names: Mapping[str, str], campaign: str, title: str) -> UnleashedTurn:
    board_id = next(iter(setup.boards))
    begun = next((e for e in events if isinstance(e, RoundBegun)), None)
    goes = _goes(after, events, names)
    go_of = {go.player: go for go in goes}
    pieces = tuple(
        ArchivePiece(p, names.get(p, p), before.pawns[p].square, after.pawns[p].square, after.pawns[p].finished,
                     after.pawns[p].finished and not before.pawns[p].finished, after.pawns[p].placing,
                     go_of.get(p))  # the player's own go, for their archive page
        for p in setup.players)
    view = board_view(board_id, after, names)
    return UnleashedTurn(
        campaign=campaign,
        title=title,
        turns=(before.turn,),
        round=begun.round if begun else None,
        seats=tuple(_named(p, names) for p in after.seats),
        starter=_named(begun.order[0], names) if begun and begun.order else None,
        names=dict(names),
        picks=_pick_lines(events, names),
        goes=goes,
        board=view,
        boards=(ArchiveBoard(board_id, after.grid.squares, after.over, after.over and not before.over, pieces),),
        standings=standings(setup, after, names),
        over=after.over,
        winners=tuple(_named(p, names) for p in after.winners),
        next_turn=None if after.over else after.turn,
        svg=board_svg(view, f"Turn {before.turn}"),
    )


def opening_view(setup: Setup, events: Sequence[Any], names: Mapping[str, str], mode: str,
                 rows: int, columns: int, hand_size: int) -> UnleashedOpening:
    seated = next((e for e in events if isinstance(e, Seated)), None)
    seats = tuple(_named(p, names) for p in (seated.seats if seated else setup.players))
    return UnleashedOpening(seats, mode, _pick_lines(events, names), rows, columns, hand_size)


def own_view(setup: Setup, player: str, name: str, state: UnleashedState, events: Sequence[Any],
             order: Any) -> OwnView:
    mine = state.private.get(player, {})
    plays = list(order.plays or ()) if order is not None else []
    why = mine.get("choices", {})
    skipped = tuple(SkippedLine(n, plays[n - 1].text() if n <= len(plays) else f"line {n}", reason,
                                tuple(why.get(str(n), ())))
                    for n, reason in mine.get("skipped", []))
    go = next((e for e in events if isinstance(e, GoBegun) and e.player == player), None)

    reactions = state.reactions.get(player, {})
    return OwnView(
        player=player,
        name=name,
        in_play=state.in_play(player),
        seat=state.seats.index(player) + 1,
        square=state.pawns[player].square,
        finished=state.pawns[player].finished,
        hand=tuple(state.hands[player]),
        drew=tuple(mine.get("drew", ())),
        skipped=skipped,
        reactions=tuple((a, tuple(reactions[a])) for a in REACTIONS if reactions.get(a)),
        nmr=bool(go and go.nmr),
        setup_turn=state.setup,
        board=board_view(next(iter(setup.boards)), state, setup.names) if not events else None,
        ready=ready_order(setup, state, player),
        box=setup_box(options_of(setup), state, player) if state.setup else None,
    )


def deal_view(first: UnleashedState, names: Mapping[str, str]) -> dict[str, Any]:
    """The whole deal, for the archive once the campaign is revealed: the squares' cards,
    every hand as dealt and the draw pile, top first."""
    return {
        "cards": [(i + 1, code, symbol(code), card_colour(code)) for i, code in enumerate(first.cards)],
        "hands": [(names.get(p, p), list(first.hands[p])) for p in first.seats],
        "pile": list(first.pile),
    }


def board_picture(setup: Setup, state: UnleashedState, names: Mapping[str, str]) -> ArchivePicture:
    board_id = next(iter(setup.boards))
    view = board_view(board_id, state, names)
    return ArchivePicture(board_id, board_svg(view, "The board now"), view)


