"""Board design by rules (`gm board design`): a design file names a shape and a list of
placement rules, by square number, by layout or at random, and optionally a target length
that the designer meets by search. The format is documented in docs/design-format.md.

A design is deterministic: the same file always gives the same board, because every random
choice draws from `random.Random(f"{seed}:{try}:{rule}")` (str seeds hash the same on every
platform and Python version)."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from ..boards.model import Board
from ..errors import BoardError
from ..rules.registry import DEFAULT, find_ruleset
from .designfile import (
    DEFAULT_TRIES,
    Design,
    DesignError,
    DesignSpec,
    Kind,
    NoRoom,
    Rule,
)

# -- placing items ----------------------------------------------------------------------

Item = tuple[Kind, int, int]  # kind, start (head or foot), end (tail or top)


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))


def selected_squares(shape: Board, select: tuple[str, Any]) -> list[int]:
    """The squares a selector picks, ascending."""
    n = shape.squares
    key, value = select
    levels = range(1, len(shape.levels) + 1)
    firsts = [sum(shape.levels[: level - 1]) + 1 for level in levels]
    lasts = [first + length - 1 for first, length in zip(firsts, shape.levels, strict=True)]
    picked = {
        "multiples": lambda: range(value, n + 1, value),
        "primes": lambda: (s for s in range(2, n + 1) if _is_prime(s)),
        "squares": lambda: (k * k for k in range(1, int(n**0.5) + 1)),
        "list": lambda: value,
        "level-firsts": lambda: firsts,
        "level-lasts": lambda: lasts,
        "level-ends": lambda: firsts + lasts,
        "column": lambda: (s for s in range(1, n + 1) if shape.column_of(s) == value),
    }[key]()
    return sorted(set(picked))


def end_square(shape: Board, kind: Kind, start: int, to: tuple[str, int]) -> int | None:
    """Where an item starting on `start` ends, or None when that is off the board. By
    levels: the same column, or that level's end nearest to it (as a piece dropped a level would land)."""
    how, k = to
    sign = 1 if kind == "ladder" else -1
    if how == "squares":
        end = start + sign * k
        return end if 1 <= end <= shape.squares else None
    level = shape.level_of(start) + sign * k
    if not 1 <= level <= len(shape.levels):
        return None
    low, high = shape.columns(level)
    return shape.square_at(level, min(max(shape.column_of(start), low), high))


def clash(item: Item, placed: list[Item], chains: bool) -> Item | None:
    """The first placed item that `item` may not stand beside (docs/campaign.md, Board files), or None."""
    kind, start, end = item
    for other in placed:
        other_kind, other_start, other_end = other
        shared = {start, end} & {other_start, other_end}
        if not shared:
            continue
        chain_square = start if start == other_end else other_start if other_start == end else None
        if chains and kind == other_kind and chain_square is not None and shared == {chain_square}:
            continue
        return other
    return None


def _describe(item: Item) -> str:
    return f"{item[0]} {item[1]}->{item[2]}"


def _rule_items(shape: Board, rule: Rule, placed: list[Item], chains: bool,
                problems: list[str], notes: list[str]) -> None:
    """Place a selector rule's items after `placed`, noting what it had to leave out."""
    off: list[int] = []
    skipped: list[str] = []
    assert rule.select is not None and rule.to is not None
    for start in selected_squares(shape, rule.select):
        if rule.between and not rule.between[0] <= start <= rule.between[1]:
            continue
        if not 1 <= start <= shape.squares:
            problems.append(f"{rule.label}: square {start} is not on the board (1..{shape.squares})")
            continue
        end = end_square(shape, rule.kind, start, rule.to)
        if end is None:
            off.append(start)
            continue
        item = (rule.kind, start, end)
        other = clash(item, placed, chains)
        if other is None:
            placed.append(item)
        elif rule.clash == "skip":
            skipped.append(_describe(item))
        else:
            problems.append(f"{rule.label}: {_describe(item)} clashes with {_describe(other)} "
                            "(add clash: skip to leave such items out)")
    if off:
        notes.append(f"{rule.label}: no {rule.kind} from {', '.join(map(str, off))}: "
                     "its end would be off the board")
    if skipped:
        notes.append(f"{rule.label}: left out for clashes: {', '.join(skipped)}")


def _random_items(shape: Board, rule: Rule, placed: list[Item], rng: random.Random,
                  problems: list[str]) -> None:
    """Draw a random rule's items uniformly among every free (start, end) pair, one by one."""
    spec = rule.random
    assert spec is not None
    n = shape.squares
    count = rng.randint(*spec.count)
    used = np.zeros(n + 2, dtype=bool)
    for _, start, end in placed:
        used[start] = used[end] = True
    low, high = spec.free_first + 1, n - spec.free_last  # the squares items may touch
    used[: max(low, 0)] = True
    used[max(high + 1, 0):] = True
    room = int((~used).sum())
    if 2 * count > room:  # every item needs two squares of its own
        # with a fixed count no other draw can help; with a range, a smaller count might
        error = NoRoom if spec.count[0] < count else DesignError
        raise error("design", [f"{rule.label}: {count} {rule.kind}s need {2 * count} squares "
                               f"of their own, but only {room} are free"])
    lengths = np.arange(spec.shortest, min(spec.longest, n) + 1)
    starts = np.arange(1, n + 1)
    sign = 1 if rule.kind == "ladder" else -1
    for made in range(count):
        ends = starts[:, None] + sign * lengths[None, :]
        inside = (ends >= 1) & (ends <= n)
        free = inside & ~used[starts][:, None] & ~used[np.clip(ends, 0, n + 1)]
        rows, cols = np.nonzero(free)
        if rows.size == 0:
            longest = "any length" if spec.longest >= n else f"{spec.longest}"
            problems.append(
                f"{rule.label}: room for only {made} of {count} {rule.kind}s of "
                f"{spec.shortest}..{longest} squares on squares {low}..{high} with no square used "
                "twice")
            return
        pick = rng.randrange(rows.size)
        start, end = int(starts[rows[pick]]), int(ends[rows[pick], cols[pick]])
        placed.append((rule.kind, start, end))
        used[start] = used[end] = True


def _layout(spec: DesignSpec, attempt: int) -> tuple[Board, list[str]]:
    """The board of one try; raises DesignError when the rules cannot all be met."""
    shape = spec.shape
    placed: list[Item] = []
    problems: list[str] = []
    notes: list[str] = []
    for rule in spec.rules:
        if rule.random is None:
            _rule_items(shape, rule, placed, shape.chains, problems, notes)
    if problems:  # the same on every try: no use searching on
        raise DesignError(spec.source, problems)
    for rule in spec.rules:
        if rule.random is not None:
            rng = random.Random(f"{spec.seed}:{attempt}:{rule.number}")
            try:
                _random_items(shape, rule, placed, rng, problems)
            except DesignError as error:
                raise type(error)(spec.source, error.problems) from None
    if problems:
        raise NoRoom(spec.source, problems)
    try:
        board = Board.build(
            shape.squares, levels=shape.levels, offsets=shape.offsets,
            serpentine=shape.serpentine, chains=shape.chains, name=shape.name,
            snakes=[(s, e) for kind, s, e in placed if kind == "snake"],
            ladders=[(s, e) for kind, s, e in placed if kind == "ladder"],
        )
    except BoardError as error:  # a rule placed something the board rules refuse
        raise DesignError(spec.source, error.problems) from None
    return board, notes


def _within(value: float | None, bounds: tuple[float, float] | None) -> bool:
    return bounds is None or (value is not None and bounds[0] <= value <= bounds[1])


def build_design(spec: DesignSpec) -> Design:
    """The board the design asks for: the rules applied, and with a target, the first try
    (tries 0, 1, 2, ... re-draw every random rule) whose expected lengths meet it. Random
    items are drawn one at a time among the pairs still free, so one try can run out of room
    where another would not: such tries are passed over."""
    target = spec.target
    has_random = any(rule.random for rule in spec.rules)
    tries = (target.tries if target else DEFAULT_TRIES) if has_random else 1
    best: tuple[float, int, dict[str, float | None]] | None = None
    no_room: NoRoom | None = None
    for attempt in range(tries):
        try:
            board, notes = _layout(spec, attempt)
        except NoRoom as error:  # random draws placed greedily may fit on another try
            no_room = error
            continue
        lengths = target.lengths if target else {}
        expected = {name: find_ruleset(name).board_expected(board) for name in lengths}
        if all(_within(expected[name], bounds) for name, bounds in lengths.items()):
            if DEFAULT not in expected:  # for the header: it was not searched on
                expected[DEFAULT] = find_ruleset(DEFAULT).board_expected(board)
            return Design(board, spec.seed, attempt + 1, tuple(notes), expected)
        miss = sum(_miss(expected[name], bounds) for name, bounds in lengths.items())
        if best is None or miss < best[0]:
            best = (miss, attempt + 1, expected)
    if best is None:
        assert no_room is not None
        raise DesignError(spec.source, [f"{p} (the last of {tries} tries)" if "room" in p else p
                                        for p in no_room.problems])
    assert target is not None
    asked = []
    for name, bounds in target.lengths.items():
        asked.append(f"expected {name} length {_span(bounds)} turns")
    closest = ", ".join(
        f"{what} {value:.2f}" if value is not None else f"{what} never ends"
        for what, value in best[2].items()
    )
    why = (f"no random rule leaves anything to search, and the rules give {closest}" if not has_random
           else f"no board in {tries} tries met it (closest: {closest}, try {best[1]}); widen the "
                "target, raise tries or change the rules")
    raise DesignError(spec.source, [f"target {' and '.join(asked)}: {why}"])


def _miss(value: float | None, bounds: tuple[float, float] | None) -> float:
    if bounds is None:
        return 0.0
    if value is None:
        return float("inf")
    return max(bounds[0] - value, value - bounds[1], 0.0)


def _span(bounds: tuple[float, float]) -> str:
    return f"{bounds[0]:g}" if bounds[0] == bounds[1] else f"{bounds[0]:g}..{bounds[1]:g}"


# -- writing the board ------------------------------------------------------------------


def board_yaml(board: Board, *, header: list[str] = ()) -> str:
    """A board file (docs/campaign.md) for `board`, in the style of boards/*.yaml."""

    def pairs(items: tuple[tuple[int, int], ...]) -> str:
        return "[" + ", ".join(f"[{a}, {b}]" for a, b in items) + "]"

    lines = [f"# {line}" for line in header]
    lines.append(f"name: {json.dumps(board.name, ensure_ascii=False)}")
    lines.append(f"squares: {board.squares}")
    lines.append("shape:")
    lines.append(f"  levels: {list(board.levels)}")
    lines.append(f"  offsets: {list(board.offsets)}")
    lines.append(f"  serpentine: {'true' if board.serpentine else 'false'}")
    if board.chains:
        lines.append("chains: true")
    lines.append(f"ladders: {pairs(board.ladders)}")
    lines.append(f"snakes: {pairs(board.snakes)}")
    return "\n".join(lines) + "\n"


def design_header(design: Design, source: str) -> list[str]:
    """The comment lines a designed board file starts with: where it came from."""
    lines = [f"Designed by `gm board design {source}` (seed {design.seed}, try {design.tries})."]
    first = design.expected.get(DEFAULT)
    if first is not None:
        lines.append(f"Expected {DEFAULT} length {first:.2f} turns "
                     "(gm board analyze for the rest).")
    else:
        lines.append(f"Warning: a {DEFAULT} game here may never end: a piece can be caught for good "
                     "(gm board analyze shows where).")
    lines += [f"Expected {name} length {value:.2f} turns." for name, value in design.expected.items()
              if name != DEFAULT and value is not None]
    lines += [f"Note: {note}" for note in design.notes]
    return lines
