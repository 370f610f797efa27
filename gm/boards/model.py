"""A board (docs/campaign.md, Board files) as a value: its squares and shape, snakes and
ladders, the limits on both, its geometry (levels, columns, the square below each square)
and the canonical text that commitments are made over (docs/campaign.md, Commitments).
Reading one from a board file is gm.boards.board's."""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..errors import BoardError
from ..yamlfile import is_int

CANONICAL_KEYS = ("chains", "ladders", "levels", "name", "offsets", "serpentine", "snakes", "squares")
START = 0
MAX_SQUARES = 10_000  # docs/campaign.md, Board files
MAX_OFFSET = MAX_SQUARES  # a level further out than the board is long is no real shape
MAX_SHARED_LISTED = 100  # items sharing squares listed before "more items share squares"


def item_limit(squares: int, chains: bool) -> int:
    """The most snakes and ladders `squares` squares hold: each takes two squares of its
    own, or, chained, one more square than the item before it."""
    return squares - 1 if chains else squares // 2


def too_many_items(count: int, squares: int | None, chains: bool) -> str | None:
    """Why `count` snakes and ladders are too many for the board (None when they fit);
    without a sound `squares`, for any board."""
    if squares is None:
        if count < MAX_SQUARES:
            return None
        return f"{count} snakes and ladders: no board holds more than {MAX_SQUARES - 1:,}"
    limit = item_limit(squares, chains)
    if count <= limit:
        return None
    return (f"{count} snakes and ladders on {squares} squares: a board holds at most {limit} "
            f"(each takes two squares of its own{', or one when chained' if chains else ''})")


def too_many_squares(squares: int) -> str | None:
    if squares > MAX_SQUARES:
        return f"squares: {squares} is more than a board may have (at most {MAX_SQUARES:,})"
    return None


def shown(value: Any) -> str:
    """A value as a problem quotes it: numbers, true/false and short lists of numbers as
    written, anything else by its kind only, so that no text of a file that is no board
    (a password file named by mistake) is ever echoed."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, list) and len(value) <= 12 and all(is_int(x) for x in value):
        return repr(list(value))
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return "a date" if hasattr(value, "year") else "a value of another kind"


def _listed(values: tuple[int, ...]) -> str:
    """A list of levels as a problem shows it: whole when short, else its length."""
    return str(list(values)) if len(values) <= 12 else f"[{values[0]}, ... {values[-1]}] ({len(values)} levels)"


def default_levels(squares: int) -> tuple[int, ...]:
    """Levels of 10, the top level holding the rest (docs/campaign.md, Board files)."""
    full, rest = divmod(squares, 10)
    return (10,) * full + ((rest,) if rest else ())


@dataclass(frozen=True)
class Board:
    """One board. Squares are 1..squares; 0 is Start, off the board."""

    squares: int
    levels: tuple[int, ...]
    offsets: tuple[int, ...]
    serpentine: bool = True
    snakes: tuple[tuple[int, int], ...] = ()
    ladders: tuple[tuple[int, int], ...] = ()
    chains: bool = False
    name: str = ""
    # a ruleset's own keys (Ruleset.board_keys: unleashed's cards and lampposts), each as
    # (key, JSON text), sorted; part of the canonical text only when present
    extra: tuple[tuple[str, str], ...] = ()

    def extra_value(self, key: str, default: Any = None) -> Any:
        for name, text in self.extra:
            if name == key:
                return json.loads(text)
        return default

    def with_extra(self, **values: Any) -> Board:
        """This board with the ruleset keys `values` (JSON-ready) set."""
        extra = dict(self.extra)
        extra.update({key: json.dumps(value, separators=(",", ":")) for key, value in values.items()})
        return dataclasses.replace(self, extra=tuple(sorted(extra.items())))

    @classmethod
    def build(
        cls,
        squares: int,
        *,
        levels: tuple[int, ...] | list[int] | None = None,
        offsets: tuple[int, ...] | list[int] | None = None,
        serpentine: bool = True,
        snakes: Any = (),
        ladders: Any = (),
        chains: bool = False,
        name: str = "",
    ) -> Board:
        """A validated board; raises BoardError listing every problem."""
        if not is_int(squares):
            raise BoardError(name or "board", [f"squares must be a whole number, not {shown(squares)}"])
        if too_many_squares(squares):  # before default_levels makes a level per 10 squares
            raise BoardError(name or "board", [too_many_squares(squares)])
        levels = tuple(levels) if levels is not None else default_levels(squares)
        offsets = tuple(offsets) if offsets is not None else (0,) * len(levels)
        board = cls(
            squares=squares,
            levels=levels,
            offsets=offsets,
            serpentine=serpentine,
            snakes=tuple(sorted(tuple(s) for s in snakes)),
            ladders=tuple(sorted(tuple(ladder) for ladder in ladders)),
            chains=chains,
            name=name,
        )
        problems = board.problems()
        if problems:
            raise BoardError(name or "board", problems)
        return board

    # -- validation -----------------------------------------------------------------

    def problems(self) -> list[str]:
        """Every way this board breaks the rules of boards (docs/campaign.md, Board files) (empty when it is sound)."""
        problems: list[str] = []
        n = self.squares
        items = [("snake", h, t) for h, t in self.snakes] + [("ladder", f, t) for f, t in self.ladders]
        if n < 1:
            problems.append(f"squares: {n} is not a positive number of squares")
        elif too_many_squares(n):
            return [too_many_squares(n)]  # nothing else of that size is looked at
        elif too_many_items(len(items), n, self.chains):
            return [too_many_items(len(items), n, self.chains)]  # before comparing them pairwise
        if any(length < 1 for length in self.levels):
            problems.append(f"shape: every level needs at least 1 square, got {_listed(self.levels)}")
        if sum(self.levels) != n:
            problems.append(f"shape: levels {_listed(self.levels)} hold {sum(self.levels)} squares, not {n}")
        if len(self.offsets) != len(self.levels):
            problems.append(
                f"shape: {len(self.offsets)} offsets for {len(self.levels)} levels"
            )
        if any(unicodedata.category(c) == "Cc" for c in self.name):
            # "\e]0;..." in a shared board would rewrite the GM's terminal (gm board show, verify)
            problems.append("name: must not hold control characters")
        far = [offset for offset in self.offsets if abs(offset) > MAX_OFFSET]
        if far:
            problems.append(f"shape: offset {far[0]} is further out than {MAX_OFFSET:,} columns")
        for kind, start, end in items:
            label = f"{kind} {start}->{end}"
            for square in (start, end):
                if not 1 <= square <= n:
                    problems.append(f"{label}: square {square} is outside 1..{n}")
            if kind == "snake" and start <= end:
                problems.append(f"{label}: head {'below' if start < end else 'on'} tail")
            if kind == "ladder" and start >= end:
                problems.append(f"{label}: top {'below' if end < start else 'on'} foot")
        # the items on each square, so that only items that do share a square are compared
        on_square: dict[int, list[int]] = {}
        for index, (_, start, end) in enumerate(items):
            for square in {start, end}:
                on_square.setdefault(square, []).append(index)
        listed = 0
        for i, (kind_a, start_a, end_a) in enumerate(items):
            others = sorted({j for square in (start_a, end_a) for j in on_square[square] if j > i})
            for kind_b, start_b, end_b in (items[j] for j in others):
                shared = {start_a, end_a} & {start_b, end_b}
                chained = self.chains and kind_a == kind_b and (start_a == end_b or start_b == end_a)
                only_chain_square = shared == ({start_a} if start_a == end_b else {start_b})
                if chained and only_chain_square:
                    continue
                if listed == MAX_SHARED_LISTED:
                    problems.append("more items share squares than are listed here")
                    return problems
                listed += 1
                squares = ", ".join(str(s) for s in sorted(shared))
                why = ""
                if kind_a == kind_b and (start_a == end_b or start_b == end_a) and not self.chains:
                    why = " (a chain needs chains: true)"
                elif kind_a != kind_b and (start_a == end_b or start_b == end_a):
                    why = " (a snake never chains with a ladder)"
                problems.append(
                    f"{kind_a} {start_a}->{end_a} and {kind_b} {start_b}->{end_b} share square {squares}{why}"
                )
        return problems

    # -- geometry ---------------------------------------------------------------------

    @cached_property
    def _first_square(self) -> tuple[int, ...]:
        """The number of the first square of each level (index 0 = level 1)."""
        firsts, first = [], 1
        for length in self.levels:
            firsts.append(first)
            first += length
        return tuple(firsts)

    @cached_property
    def _positions(self) -> dict[int, tuple[int, int]]:
        positions = {}
        for level_index, (first, length, offset) in enumerate(
            zip(self._first_square, self.levels, self.offsets, strict=True)
        ):
            rightward = not self.serpentine or level_index % 2 == 0
            for index in range(length):
                column = offset + (index if rightward else length - 1 - index)
                positions[first + index] = (level_index + 1, column)
        return positions

    @cached_property
    def _by_position(self) -> dict[tuple[int, int], int]:
        return {pos: square for square, pos in self._positions.items()}

    def level_of(self, square: int) -> int:
        """Level of a square, 1 at the bottom."""
        return self._positions[square][0]

    def column_of(self, square: int) -> int:
        return self._positions[square][1]

    def square_at(self, level: int, column: int) -> int | None:
        return self._by_position.get((level, column))

    def columns(self, level: int) -> tuple[int, int]:
        """The leftmost and rightmost column of a level."""
        offset = self.offsets[level - 1]
        return offset, offset + self.levels[level - 1] - 1

    def drop_target(self, square: int) -> int:
        """The square one level below `square` (docs/campaign.md, Board files: levels): same
        column, else that level's end nearest the column; below level 1, Start."""
        level, column = self._positions[square]
        if level == 1:
            return START
        low, high = self.columns(level - 1)
        target = self.square_at(level - 1, min(max(column, low), high))
        assert target is not None  # a level's squares fill its columns low..high
        return target

    @cached_property
    def jumps(self) -> dict[int, int]:
        """Snake heads and ladder feet, each to where it leads."""
        return dict(self.snakes) | dict(self.ladders)

    @cached_property
    def width(self) -> tuple[int, int]:
        """The leftmost and rightmost column over all levels."""
        spans = [self.columns(level) for level in range(1, len(self.levels) + 1)]
        return min(lo for lo, _ in spans), max(hi for _, hi in spans)

    # -- canonical text (docs/campaign.md, Commitments) ------------------------------------

    def canonical_object(self) -> dict[str, Any]:
        return {
            **{key: json.loads(text) for key, text in self.extra},
            "chains": self.chains,
            "ladders": [list(item) for item in sorted(self.ladders)],
            "levels": list(self.levels),
            "name": self.name,
            "offsets": list(self.offsets),
            "serpentine": self.serpentine,
            "snakes": [list(item) for item in sorted(self.snakes)],
            "squares": self.squares,
        }

    def canonical_text(self) -> str:
        return json.dumps(
            self.canonical_object(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )

    @classmethod
    def from_canonical(cls, text: str) -> Board:
        data = json.loads(text)
        extra = {key: value for key, value in data.items() if key not in CANONICAL_KEYS}
        return cls.build(
            data["squares"],
            levels=data["levels"],
            offsets=data["offsets"],
            serpentine=data["serpentine"],
            snakes=data["snakes"],
            ladders=data["ladders"],
            chains=data["chains"],
            name=data["name"],
        ).with_extra(**extra)
