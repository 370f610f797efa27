"""The advanced board drawn for mail as `gm board show` draws it (gm.boards.text), with the pieces
and every item marked, built ones too (docs/rules/advanced.md: whether a BUILD is legal depends on
steps between squares, which only the board's shape tells); too large a board is drawn around each
player's own piece instead."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from string import ascii_uppercase

from ...boards.model import START, Board
from ...boards.text import MARKS, Window, draw, item_marks, rows
from ..base import Setup
from ..dice.views import Named
from .building import items
from .events import Built

# The largest board drawn whole in mail: columns and levels. Wider or taller, a drawing
# would not read on a phone (nor in most mail at all); then each player's own part draws
# the board around their piece instead, which is all a BUILD needs.
MAIL_COLUMNS = 12
MAIL_LEVELS = 30
# a piece's mark where two or more pieces stand on one square
SEVERAL = "*"


@dataclass(frozen=True)
class PieceMark:
    """A piece in the drawing: its mark, whose it is, where it stands (0 Start)."""

    mark: str
    player: Named
    square: int
    in_end: bool


@dataclass(frozen=True)
class DrawnCell:
    """One square of the drawing: its number, the marks of the item ends on it, the
    mark of the pieces on it ("" none)."""

    square: int
    item: str
    pieces: str


@dataclass(frozen=True)
class BoardDrawing:
    """The board as `gm board show` draws it, every item (built ones too) and piece
    marked: `lines` for the text part, `rows` (the same cells, top level first, None
    where a level has no square in that column) for the HTML part; `whole` false when
    it is the board around one square only."""

    lines: tuple[str, ...]
    rows: tuple[tuple[int, tuple[DrawnCell | None, ...]], ...]
    pieces: tuple[PieceMark, ...]
    whole: bool
    several: str = SEVERAL
    marks: tuple[tuple[str, str], ...] = tuple(MARKS.items())

    @property
    def width(self) -> int:
        """The longest line, in characters: what a reader's screen must hold."""
        return max((len(line) for line in self.lines), default=0)

    @property
    def on_board(self) -> tuple[PieceMark, ...]:
        return tuple(p for p in self.pieces if not p.in_end and p.square != START)

    @property
    def on_start(self) -> tuple[PieceMark, ...]:
        return tuple(p for p in self.pieces if not p.in_end and p.square == START)

    @property
    def in_end(self) -> tuple[PieceMark, ...]:
        return tuple(p for p in self.pieces if p.in_end)


def fits_mail(board: Board) -> bool:
    """Whether mail draws the whole board (MAIL_COLUMNS, MAIL_LEVELS)."""
    left, right = board.width
    return right - left + 1 <= MAIL_COLUMNS and len(board.levels) <= MAIL_LEVELS


def piece_marks(players: Sequence[str]) -> dict[str, str]:
    """Each player's mark in the drawing: the first letter of their id, upper case, that
    no player listed before has and that is not an item's mark (S, L), else the next
    such letter of the id, else the first free letter; with more players than letters,
    every piece is marked SEVERAL and the list under the drawing says whose is where."""
    reserved = {m for m in MARKS.values() if m.isupper()}
    if len(players) > 26 - len(reserved):
        return {p: SEVERAL for p in players}
    used: set[str] = set()
    marks = {}
    for player in players:
        letters = [c.upper() for c in player if c.isascii() and c.isalpha()] + list(ascii_uppercase)
        mark = next(c for c in letters if c not in used and c not in reserved)
        used.add(mark)
        marks[player] = mark
    return marks


def drawing(setup: Setup, squares: Mapping[str, int], ended: Mapping[str, bool], built: Sequence[Built],
            names: Mapping[str, str], window: Window | None = None) -> BoardDrawing:
    """The board with every item in play and every piece on it, whole or `window`."""
    board = with_items(setup, built)
    ends = item_marks(board)
    marks = piece_marks(setup.players)
    standing: dict[int, list[str]] = {}
    for player in setup.players:
        if not ended[player] and squares[player] != START:
            standing.setdefault(squares[player], []).append(player)
    pieces = {square: marks[here[0]] if len(here) == 1 else SEVERAL for square, here in standing.items()}
    both = {square: ends.get(square, "") + pieces.get(square, "") for square in ends.keys() | pieces.keys()}
    cells = tuple(
        (level, tuple(None if square is None else DrawnCell(square, ends.get(square, ""), pieces.get(square, ""))
                      for square in row))
        for level, row in rows(board, window))
    return BoardDrawing(
        lines=tuple(draw(board, both, window)),
        rows=cells,
        pieces=tuple(PieceMark(marks[p], Named(p, names.get(p, p)), squares[p], ended[p]) for p in setup.players),
        whole=window is None,
    )


def with_items(setup: Setup, built: Sequence[Built]) -> Board:
    """The campaign's board with every item in play on it, built ones too."""
    board = next(iter(setup.boards.values()))
    snakes, ladders = items(board, built)
    return dataclasses.replace(board, snakes=tuple(snakes), ladders=tuple(ladders))
