"""A board design file read (docs/design-format.md): its shape, its placement rules (by
square number, by layout or at random) and its target length, each problem named with its
line. Placing the items and meeting the target is gm.analysis.design's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..boards.board import board_from_data
from ..boards.model import Board
from ..errors import BoardError, ProblemsError
from ..rules.registry import DEFAULT
from ..yamlfile import LineDict, LineList, is_int, key_problems, read
from .analyze import analysing_rulesets

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
