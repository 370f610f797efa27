"""Before the first round (docs/rules/unleashed.md, Cards and the deck; Setup; Rounds and goes;
Fairness: seeds and commitments): the seats, the deck shuffled and dealt onto the squares and into
hands, and the items set up, by the players' PLACE lists or by seeded default picks; and what a
player is shown of the setup turn's box."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ...errors import RulesError
from ..chance import Chance
from .cards import canonical_sorted, expanded, less
from .happenings import Picked
from .items import BOX, Grid, ends_ok_with, fits_reach, is_long, item_kind, oriented, placements
from .options import UnleashedOptions
from .state import UnleashedState

__all__ = ["SetupBox", "deal", "setup_box", "setup_picks", "shuffled"]

T = TypeVar("T")


def shuffled(items: Sequence[T], kind: str, chance: Chance) -> list[T]:
    """6.12's shuffle, turn 0: for i from M-1 down to 1, swap a[i] with a[j], j the
    choice with key i among 0..i."""
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = chance.pick(0, kind, str(i), range(i + 1))
        order[i], order[j] = order[j], order[i]
    return order


def deck_for(options: UnleashedOptions, fixed_cards: Sequence[str] | None) -> list[str]:
    """The cards to shuffle, in canonical order (6.2)."""
    cards = less(expanded(options.deck), options.removed)
    if fixed_cards is not None:
        cards = less(cards, Counter(fixed_cards))
    return cards


def shortfall(options: UnleashedOptions, squares: int, players: int, fixed_cards: Sequence[str] | None) -> int:
    """How many cards the deal lacks (0 when the deck suffices)."""
    needed = (0 if fixed_cards is not None else squares) + players * options.hand_size
    return max(0, needed - len(deck_for(options, fixed_cards)))


def deal(grid: Grid, seats: Sequence[str], options: UnleashedOptions, fixed_cards: Sequence[str] | None,
         chance: Chance) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """The squares' cards, the hands and the draw pile (top first)."""
    lacking = shortfall(options, grid.squares, len(seats), fixed_cards)
    if lacking:
        raise RulesError(f"the deck is {lacking} card{'s' if lacking != 1 else ''} short of the deal")
    pile = shuffled(deck_for(options, fixed_cards), "deck", chance)
    if fixed_cards is None:
        cards, pile = pile[:grid.squares], pile[grid.squares:]
    else:
        cards = list(fixed_cards)
    hands: dict[str, list[str]] = {p: [] for p in seats}
    for _ in range(options.hand_size):
        for player in seats:
            hands[player].append(pile.pop(0))
    return cards, {p: list(canonical_sorted(hand)) for p, hand in hands.items()}, pile


def legal_placements(grid: Grid, items: Mapping[str, Sequence[int]], candidates: Sequence[str]) -> list[tuple[str, int, int]]:
    """Every legal (item, lower, upper) for the items named, by item, lower, upper."""
    found = []
    for item in candidates:
        for low, high in placements(grid, item):
            if ends_ok_with(items, {item: (low, high)}):
                found.append((item, low, high))
    return found


def default_pick(state: UnleashedState, options: UnleashedOptions, turn: int, chance: Chance) -> tuple[str, int, int] | None:
    """6.4's default pick: the seeded choice among the legal placements of the boxed
    items of the kinds the mix still allows, else of any kind; None when there is none."""
    grid = state.grid
    boxed = [item for item in BOX if item not in state.items]
    limits = options.kind_limits
    in_play = {kind: sum(item_kind(i) == kind for i in state.items) for kind in "SLP"}
    wanted = [item for item in boxed if in_play[item_kind(item)] < limits[item_kind(item)]]
    found = legal_placements(grid, state.items, wanted) or legal_placements(grid, state.items, boxed)
    if not found:
        return None
    texts = [f"{item} {low} {high}" for item, low, high in found]
    chosen = chance.pick(turn, "setup", str(state.picks + 1), texts)
    return found[texts.index(chosen)]


def setup_picks(state: UnleashedState, options: UnleashedOptions, turn: int, chance: Chance,
                lists: Mapping[str, Sequence[tuple[str, int, int]]] | None, events: list[Any]) -> None:
    """Place items until `pieces` are in play (6.4): at turn 0 (setup: random) all by
    default picks; in the setup turn round the seats from the last down, each pick the
    first line of the player's PLACE list that is legal now, else a default pick."""
    grid = state.grid
    seats = state.seats
    remaining = {p: list(lines) for p, lines in (lists or {}).items()}
    while len(state.items) < options.piece_count:
        player = seats[len(seats) - 1 - state.picks % len(seats)] if lists is not None else None
        made = None
        for line in remaining.get(player, []) if player else []:
            item, a, b = line
            if item in state.items or not fits_reach(grid, item, a, b):
                continue
            low, high = oriented(grid, a, b)
            if ends_ok_with(state.items, {item: (low, high)}):
                made = (item, low, high)
                remaining[player].remove(line)
                break
        default = made is None
        if default:
            made = default_pick(state, options, turn, chance)
            if made is None:
                return
        item, low, high = made
        state.picks += 1
        state.items[item] = [low, high]
        events.append(Picked(state.picks, player, item, low, high, default))


@dataclass(frozen=True)
class SetupBox:
    """What the setup turn places (6.3, 6.4): how many items, how default picks share them,
    the items still in the box by size, and each size's reach shown from one square."""

    pieces: int
    mix: tuple[int, int, int]  # snakes, ladders, lampposts: default picks keep to these
    short: tuple[str, ...]
    long: tuple[str, ...]
    square: int  # 0: the board is too small for any item
    short_reach: tuple[int, ...]  # the squares a short item may join to `square`
    long_reach: tuple[int, ...]
    picks: int  # how many of the picks are this player's


def setup_box(options: UnleashedOptions, state: UnleashedState, player: str) -> SetupBox:
    grid = state.grid
    level = min(2, grid.rows)
    # a square mid-way along the second level, so that a short item reaches both ways
    square = next((s for s in range((level - 1) * grid.columns + 1, level * grid.columns + 1)
                   if grid.column(s) == (grid.columns - 1) // 2), 0)

    def reach(item: str) -> tuple[int, ...]:
        return tuple(t for t in range(1, grid.squares + 1) if fits_reach(grid, item, square, t))

    limits = options.kind_limits
    seats = len(state.seats)
    index = state.seats.index(player)
    boxed = [item for item in BOX if item not in state.items]
    return SetupBox(
        pieces=options.piece_count,
        mix=(limits.get("S", 0), limits.get("L", 0), limits.get("P", 0)),
        short=tuple(item for item in boxed if not is_long(item)),
        long=tuple(item for item in boxed if is_long(item)),
        square=square,
        short_reach=reach("S1") if square else (),
        long_reach=reach("S4") if square else (),
        # 6.4: the picks go round the seats from the last seat down
        picks=sum(1 for pick in range(state.picks, options.piece_count) if seats - 1 - pick % seats == index),
    )
