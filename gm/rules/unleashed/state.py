"""The state of an Unleashed campaign between turns (docs/rules/unleashed.md, CONTRACT's state
fields): the board's cards and items, the pawns, hands, draw pile, locks, the standing reactions,
what each player alone learnt in the last turn, and who held a seat before. The rules core works on
a copy (`copy()`), so a resolve never changes the state it was given."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .items import KINDS, Grid, is_long

__all__ = ["Pawn", "UnleashedState"]


@dataclass
class Pawn:
    square: int = 0  # for a finished pawn, the last square it stood on before crossing
    finished: bool = False
    overshoot: int | None = None
    placing: int | None = None


@dataclass
class UnleashedState:
    turn: int
    rows: int
    columns: int
    seats: list[str]  # seat 1 first
    cards: list[str]  # the top card of squares 1..N
    pile: list[str]  # the draw pile, top first (secret)
    hands: dict[str, list[str]]  # canonical order (each player's secret)
    pawns: dict[str, Pawn]
    items: dict[str, list[int]] = field(default_factory=dict)  # id -> [lower, upper], in play
    setup: bool = False  # the next turn is the setup turn (6.4)
    reversed: bool = False
    locked_cards: list[int] = field(default_factory=list)
    locked_items: list[str] = field(default_factory=list)
    # player -> action -> the standing choices, each its canonical text (secret)
    reactions: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # player -> what they alone learnt in the last turn resolved: drew, skipped [[n, reason]]
    private: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    picks: int = 0  # setup picks made (6.12's key)
    over: bool = False
    winners: list[str] = field(default_factory=list)
    # every id that held a seat before (gm player replace) -> the seat's holder now: orders and
    # reactions are kept as sent and such an id in them is read as the holder
    # (docs/rules/unleashed.md, Fairness: seeds and commitments)
    former: dict[str, str] = field(default_factory=dict)

    @property
    def grid(self) -> Grid:
        return Grid(self.rows, self.columns)

    def in_play(self, player: str) -> bool:
        return not self.over and not self.pawns[player].finished

    def copy(self) -> UnleashedState:
        return copy.deepcopy(self)


@dataclass(frozen=True)
class ItemLine:
    """An item in play; `source` and `target` the way a pawn travels it now (a snake down,
    a ladder up, the other way while the board is reversed; a lamppost both ways)."""

    item: str
    kind: str  # snake, ladder, lamppost
    size: str  # short, long
    lower: int
    upper: int
    source: int
    target: int
    both_ways: bool


def item_lines(state: UnleashedState) -> tuple[ItemLine, ...]:
    lines = []
    for item, (low, high) in sorted(state.items.items()):
        # 6.7: a snake is entered at its head and a ladder at its foot; reversed, the
        # other way round (6.8); a lamppost at either end
        down = (item[0] == "S") != state.reversed
        source, target = (high, low) if down and item[0] != "P" else (low, high)
        lines.append(ItemLine(item, KINDS[item[0]], "long" if is_long(item) else "short", low, high,
                              source, target, item[0] == "P"))
    return tuple(lines)
