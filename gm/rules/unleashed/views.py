"""What Unleashed players see (RULES.md 6.14). Everyone: the seats and who starts the
round; each go in order (cards played with the card covered and the choices as resolved,
every roll, every step of every move with the item or card that made it, actions,
crossings, cards drawn, NMR, skipped rolls); the board after the round (every top card,
every item, reversed or not, each pawn), hand sizes, the draw pile's size and the next
go's locks; setup picks. A player's own copy adds their hand, what they drew, their
skipped PLAY lines with the reason and their standing reactions.

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
from .cards import BLANK, is_movement, sent
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
from .items import KINDS, is_long
from .state import UnleashedState
from .svg import board_svg

__all__ = ["OwnView", "UnleashedOpening", "UnleashedTurn", "opening_view", "own_view", "public_turn", "symbol"]

# two characters a card, readable in a plain-text grid (the HTML and SVG add colour and the full name)
SYMBOLS = {BLANK: "..", "EXTRA-ROLL": "XR", "SWAP-PLAYERS": "SP", "MOVE-LADDER": "ML", "MOVE-SNAKE": "MS",
           "MOVE-ANY": "MA", "MOVE-2-LADDERS": "2L", "MOVE-2-SNAKES": "2S", "SWAP-CARDS": "SC", "REVERSE": "RV"}
NAMES = {BLANK: "blank", "EXTRA-ROLL": "extra roll", "SWAP-PLAYERS": "swap players", "MOVE-LADDER": "move a ladder",
         "MOVE-SNAKE": "move a snake", "MOVE-ANY": "move any item", "MOVE-2-LADDERS": "move two ladders",
         "MOVE-2-SNAKES": "move two snakes", "SWAP-CARDS": "swap two cards", "REVERSE": "reverse"}


def symbol(code: str) -> str:
    """A card's two-character symbol: `..` blank, `+2`, `-3`, `XR`, `F3` (forward 3), `B2`."""
    if is_movement(code):
        return code
    move = sent(code)
    if move:
        return f"{move[0][0]}{move[1]}"
    return SYMBOLS[code]


def card_name(code: str) -> str:
    if is_movement(code):
        return f"{'forward' if code[0] == '+' else 'back'} {code[1:]}"
    move = sent(code)
    if move:
        return f"send {move[0].lower()} {move[1]}"
    return NAMES[code]


def card_colour(code: str) -> str:
    """The seed's colours: blue blank, green forward, red back, purple action."""
    if code == BLANK:
        return "blue"
    if is_movement(code):
        return "green" if code[0] == "+" else "red"
    return "purple"


@dataclass(frozen=True)
class Cell:
    square: int
    card: str
    symbol: str
    colour: str
    name: str
    pawns: tuple[str, ...]  # player ids standing here
    ends: tuple[str, ...]  # item ends here, e.g. "S4 head"
    locked: bool


@dataclass(frozen=True)
class ItemLine:
    item: str
    kind: str  # snake, ladder, lamppost
    size: str  # short, long
    lower: int
    upper: int


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


def _named(player: str, names: Mapping[str, str]) -> Named:
    return Named(player, names.get(player, player))


def _pick_lines(events: Sequence[Any], names: Mapping[str, str]) -> tuple[PickLine, ...]:
    return tuple(PickLine(e.pick, _named(e.player, names) if e.player else None, e.item, KINDS[e.item[0]],
                          e.lower, e.upper, e.default) for e in events if isinstance(e, Picked))


def item_lines(state: UnleashedState) -> tuple[ItemLine, ...]:
    return tuple(ItemLine(item, KINDS[item[0]], "long" if is_long(item) else "short", low, high)
                 for item, (low, high) in sorted(state.items.items()))


def board_view(board_id: str, state: UnleashedState, names: Mapping[str, str]) -> BoardView:
    grid = state.grid
    ends: dict[int, list[str]] = {}
    for line in item_lines(state):
        low_word, high_word = {"snake": ("tail", "head"), "ladder": ("foot", "top"),
                               "lamppost": ("foot", "top")}[line.kind]
        ends.setdefault(line.lower, []).append(f"{line.item} {low_word}")
        ends.setdefault(line.upper, []).append(f"{line.item} {high_word}")
    standing: dict[int, list[str]] = {}
    for player in state.seats:
        pawn = state.pawns[player]
        if not pawn.finished:
            standing.setdefault(pawn.square, []).append(player)
    rows = []
    for level in range(grid.rows, 0, -1):
        first = (level - 1) * grid.columns + 1
        squares = sorted(range(first, first + grid.columns), key=grid.column)
        rows.append(tuple(
            Cell(s, state.cards[s - 1], symbol(state.cards[s - 1]), card_colour(state.cards[s - 1]),
                 card_name(state.cards[s - 1]), tuple(standing.get(s, ())), tuple(ends.get(s, ())),
                 s in state.locked_cards)
            for s in squares))
    pawns = tuple(PawnLine(p, names.get(p, p), i + 1, state.pawns[p].square, state.pawns[p].finished,
                           state.pawns[p].overshoot, state.pawns[p].placing, len(state.hands[p]))
                  for i, p in enumerate(state.seats))
    return BoardView(board_id, tuple(rows), item_lines(state), state.reversed, pawns, len(state.pile),
                     tuple(sorted(state.locked_cards)), tuple(sorted(state.locked_items)), grid.squares)


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
    skipped = tuple(SkippedLine(n, plays[n - 1].text() if n <= len(plays) else f"line {n}", reason)
                    for n, reason in mine.get("skipped", []))
    go = next((e for e in events if isinstance(e, GoBegun) and e.player == player), None)
    from .words import REACTIONS

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
        board=board_view(next(iter(setup.boards)), state, {p: p for p in state.seats}) if not events else None,
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



