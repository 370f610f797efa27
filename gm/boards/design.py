"""Board design by rules (`gm board design`): a design file names a shape and a list of
placement rules, by square number, by layout or at random, and optionally a target length
that the designer meets by search. The format is documented in docs/design-format.md.

A design is deterministic: the same file always gives the same board, because every random
choice draws from `random.Random(f"{seed}:{try}:{rule}")` (str seeds hash the same on every
platform and Python version)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import BoardError, ProblemsError
from ..rules.registry import DEFAULT, find_ruleset
from ..yamlfile import LineDict, LineList, is_int, key_problems, read
from .analysis import analysing_rulesets
from .board import Board, board_from_data

Kind = Literal["snake", "ladder"]
SHAPE_PART = ("name", "squares", "shape", "chains")  # read as a board file reads them
DESIGN_KEYS = ("name", "squares", "shape", "chains", "seed", "rules", "target")
RULE_KEYS = ("place", "from", "to", "between", "clash", "random")
RANDOM_KEYS = ("count", "shortest", "longest", "keep_free")
TARGET_SUFFIX = "_expected_turns"  # target `<ruleset>_expected_turns: [low, high]`


def target_keys() -> tuple[str, ...]:
    """A design target's keys: a length for each ruleset that analyses boards, and tries."""
    return (*(name + TARGET_SUFFIX for name in analysing_rulesets()), "tries")
WORD_SELECTORS = ("primes", "squares", "level-firsts", "level-lasts", "level-ends")
VALUE_SELECTORS = ("multiples", "list", "column")
DEFAULT_TRIES = 200


class DesignError(ProblemsError):
    """A design file with problems, or a design that cannot be met; every reason listed."""


class NoRoom(DesignError):
    """A random rule found no free place for all its items in one try (another may)."""


# -- the design, parsed -----------------------------------------------------------------


@dataclass(frozen=True)
class RandomPlacement:
    """`count` items (a range: drawn afresh per try) of `shortest`..`longest` squares,
    touching none of the first `free_first` and last `free_last` squares, no square twice."""

    count: tuple[int, int]
    shortest: int
    longest: int
    free_first: int = 0
    free_last: int = 0


@dataclass(frozen=True)
class Rule:
    """One placement rule: items of `kind` starting (snake head, ladder foot) on the squares
    `select` picks, ending `to` away; or `random` placement."""

    number: int  # 1-based position in the file, for messages
    line: int
    kind: Kind
    select: tuple[str, Any] | None = None
    to: tuple[str, int] | None = None
    between: tuple[int, int] | None = None
    clash: Literal["error", "skip"] = "error"
    random: RandomPlacement | None = None

    @property
    def label(self) -> str:
        return f"rule {self.number} (line {self.line})"


@dataclass(frozen=True)
class Target:
    """Inclusive ranges the expected lengths must fall in; None when not asked for."""

    lengths: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # ruleset -> range
    tries: int = DEFAULT_TRIES


@dataclass(frozen=True)
class DesignSpec:
    """A parsed design file; `shape` is the empty board that gives the geometry."""

    shape: Board
    seed: int
    rules: tuple[Rule, ...]
    target: Target | None
    source: str = "design"


@dataclass(frozen=True)
class Design:
    """The board a design gave, which try of the search gave it, and notes on the items
    the rules could not place (ends off the board, clashes skipped on request)."""

    board: Board
    seed: int
    tries: int
    notes: tuple[str, ...]
    # the expected length under each ruleset searched on, and the default ruleset's (for
    # the header), in that order; None: a piece can be caught for good
    expected: Mapping[str, float | None]


def _positive(value: Any) -> bool:
    return is_int(value) and value >= 1


def _range(value: Any, whole: bool) -> tuple[Any, Any] | None:
    """A [low, high] pair (or one number for both) of non-negative numbers, low <= high."""
    ok = (lambda x: is_int(x) and x >= 0) if whole else (
        lambda x: isinstance(x, int | float) and not isinstance(x, bool) and x >= 0)
    if ok(value):
        return value, value
    if isinstance(value, list) and len(value) == 2 and all(ok(x) for x in value) and value[0] <= value[1]:
        return value[0], value[1]
    return None


def _parse_select(value: Any, line: int, problems: list[str]) -> tuple[str, Any] | None:
    what = (f"line {line}: from must be one of {', '.join(WORD_SELECTORS)}, or a mapping "
            f"with one of {', '.join(VALUE_SELECTORS)}")
    if isinstance(value, str):
        if value in WORD_SELECTORS:
            return value, None
        problems.append(f"{what}, not {value!r}")
        return None
    if not isinstance(value, LineDict) or len(value) != 1:
        problems.append(f"{what}, not {value!r}")
        return None
    problems_before = len(problems)
    problems += key_problems(value, VALUE_SELECTORS, "from")
    if len(problems) > problems_before:
        return None
    key, given = next(iter(value.items()))
    if key == "list":
        if not isinstance(given, list) or not all(_positive(x) for x in given):
            problems.append(f"line {value.line_of(key)}: from list must be a list of squares")
            return None
        return key, tuple(given)
    if key == "multiples" and not _positive(given):
        problems.append(f"line {value.line_of(key)}: from multiples must be a whole number of at least 1")
        return None
    if key == "column" and not is_int(given):
        problems.append(f"line {value.line_of(key)}: from column must be a whole number")
        return None
    return key, given


def _parse_to(value: Any, line: int, problems: list[str]) -> tuple[str, int] | None:
    if (isinstance(value, LineDict) and len(value) == 1 and next(iter(value)) in ("squares", "levels")
            and _positive(next(iter(value.values())))):
        key, given = next(iter(value.items()))
        return key, given
    if isinstance(value, LineDict):
        problems += key_problems(value, ("squares", "levels"), "to")
    problems.append(f"line {line}: to must be {{squares: k}} or {{levels: k}} with k at least 1, "
                    f"not {value!r}")
    return None


def _parse_random(value: Any, line: int, problems: list[str]) -> RandomPlacement | None:
    if not isinstance(value, LineDict):
        problems.append(f"line {line}: random must be a mapping with count, shortest, longest")
        return None
    before = len(problems)
    problems += key_problems(value, RANDOM_KEYS, "random")
    count = _range(value.get("count"), whole=True)
    if count is None:
        problems.append(f"line {value.line_of('count')}: random count must be a whole number or "
                        f"a [low, high] range, not {value.get('count')!r}")
    shortest, longest = value.get("shortest", 1), value.get("longest")
    if not _positive(shortest):
        problems.append(f"line {value.line_of('shortest')}: random shortest must be a whole number "
                        f"of at least 1, not {shortest!r}")
    if longest is not None and not _positive(longest):
        problems.append(f"line {value.line_of('longest')}: random longest must be a whole number "
                        f"of at least 1, not {longest!r}")
    elif _positive(shortest) and longest is not None and longest < shortest:
        problems.append(f"line {value.line_of('longest')}: random longest {longest} is below "
                        f"shortest {shortest}")
    free = value.get("keep_free", 0)
    first = last = 0
    if is_int(free) and free >= 0:
        first = last = free
    elif isinstance(free, LineDict):
        problems += key_problems(free, ("first", "last"), "keep_free")
        first, last = free.get("first", 0), free.get("last", 0)
        if not (is_int(first) and first >= 0 and is_int(last) and last >= 0):
            problems.append(f"line {free.line}: keep_free first and last must be whole numbers")
    else:
        problems.append(f"line {value.line_of('keep_free')}: keep_free must be a whole number or "
                        f"{{first: k, last: k}}, not {free!r}")
    if len(problems) > before:
        return None
    return RandomPlacement(count, shortest, longest if longest is not None else 10**9, first, last)


def _parse_rule(number: int, item: Any, line: int, problems: list[str]) -> Rule | None:
    if not isinstance(item, LineDict):
        problems.append(f"line {line}: rule {number} must be a mapping with place and from/to or random")
        return None
    before = len(problems)
    problems += key_problems(item, RULE_KEYS, f"rule {number}")
    place = item.get("place")
    kinds = {"snakes": "snake", "ladders": "ladder", "snake": "snake", "ladder": "ladder"}
    if place not in kinds:
        where = item.line_of("place") if "place" in item else item.line
        problems.append(f"line {where}: rule {number}: place must be snakes or ladders, not {place!r}")
    select = to = placement = between = None
    if "random" in item:
        if "from" in item or "to" in item or "between" in item:
            problems.append(f"line {item.line_of('random')}: rule {number}: random placement takes "
                            "no from, to or between")
        placement = _parse_random(item["random"], item.line_of("random"), problems)
    else:
        if "from" not in item or "to" not in item:
            problems.append(f"line {item.line}: rule {number} needs from and to, or random")
        if "from" in item:
            select = _parse_select(item["from"], item.line_of("from"), problems)
        if "to" in item:
            to = _parse_to(item["to"], item.line_of("to"), problems)
        if "between" in item:
            between = _range(item["between"], whole=True)
            if between is None:
                problems.append(f"line {item.line_of('between')}: rule {number}: between must be "
                                f"[lowest, highest] squares, not {item['between']!r}")
    clash = item.get("clash", "error")
    if clash not in ("error", "skip"):
        problems.append(f"line {item.line_of('clash')}: rule {number}: clash must be error or skip, "
                        f"not {clash!r}")
    # name the rule in every problem found inside it
    for index in range(before, len(problems)):
        where, _, what = problems[index].partition(": ")
        if not what.startswith(f"rule {number}"):
            problems[index] = f"{where}: rule {number}: {what}"
    if len(problems) > before:
        return None
    return Rule(number, line, kinds[place], select, to, between, clash, placement)


def _parse_target(value: Any, line: int, problems: list[str]) -> Target | None:
    if not isinstance(value, LineDict):
        problems.append(f"line {line}: target must be a mapping, e.g. {{{DEFAULT}{TARGET_SUFFIX}: [30, 40]}}")
        return None
    before = len(problems)
    keys = target_keys()
    problems += key_problems(value, keys, "target")
    ranges = {}
    for key in keys[:-1]:
        if key in value:
            ranges[key] = _range(value[key], whole=False)
            if ranges[key] is None:
                problems.append(f"line {value.line_of(key)}: target {key} must be [low, high] "
                                f"turns, not {value[key]!r}")
    if not ranges and len(problems) == before:
        problems.append(f"line {line}: target names no length ({' or '.join(keys[:-1])})")
    tries = value.get("tries", DEFAULT_TRIES)
    if not _positive(tries):
        problems.append(f"line {value.line_of('tries')}: target tries must be a whole number of at "
                        f"least 1, not {tries!r}")
    if len(problems) > before:
        return None
    return Target({key.removesuffix(TARGET_SUFFIX): bounds for key, bounds in ranges.items()}, tries)


def design_from_data(data: Any, source: str) -> DesignSpec:
    """A DesignSpec from parsed YAML; raises DesignError naming every problem with its line."""
    if not isinstance(data, LineDict):
        raise DesignError(source, ["a design file is a YAML mapping with squares and rules"])
    problems = key_problems(data, DESIGN_KEYS)
    # the board's own keys are read exactly as a board file reads them
    board_part = LineDict({k: v for k, v in data.items() if k in SHAPE_PART})
    board_part.line = data.line
    board_part.lines = {k: data.line_of(k) for k in board_part}
    shape = None
    try:
        shape = board_from_data(board_part, source)
    except BoardError as error:
        problems += error.problems
    seed = data.get("seed", 0)
    if not is_int(seed):
        problems.append(f"line {data.line_of('seed')}: seed must be a whole number, not {seed!r}")
    rules: list[Rule] = []
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        where = data.line_of("rules") if "rules" in data else data.line
        problems.append(f"line {where}: rules must be a list of placement rules")
    else:
        for index, item in enumerate(raw_rules):
            line = raw_rules.line_of(index) if isinstance(raw_rules, LineList) else data.line_of("rules")
            rule = _parse_rule(index + 1, item, line, problems)
            if rule is not None:
                rules.append(rule)
    target = None
    if data.get("target") is not None:
        target = _parse_target(data["target"], data.line_of("target"), problems)
    if problems or shape is None:
        raise DesignError(source, problems)
    return DesignSpec(shape, seed, tuple(rules), target, source)


def load_design(path: str | Path) -> DesignSpec:
    """Read a design file; raises DesignError listing every problem with its line."""
    return design_from_data(read(Path(path), DesignError), str(path))


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
    """The first placed item that `item` may not stand beside (RULES.md 1), or None."""
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
    """A board file (CONTRACT.md) for `board`, in the style of boards/*.yaml."""

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
