"""Board files (docs/campaign.md, Board files): a board read from YAML, every problem named
with its line, and a file that is no board at all told so plainly. The board itself (shape,
snakes and ladders, geometry, the canonical text commitments are made over) is
gm.boards.model's."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from ..errors import BoardError
from ..yamlfile import LineDict, LineList, is_int, key_problems, quotable_key, read
from .model import (
    MAX_SQUARES,
    Board,
    default_levels,
    shown,
    too_many_items,
    too_many_squares,
)
from .model import START as START  # a ruleset package imports it from here (docs/plugins.md)

BOARD_KEYS = ("name", "squares", "shape", "snakes", "ladders", "chains")
SHAPE_KEYS = ("levels", "offsets", "serpentine")
NOT_A_BOARD = (
    "not a board file: a board is a YAML mapping with squares and optional name, shape, "
    "snakes, ladders, chains (docs/campaign.md)"
)


def _pairs(data: LineDict, key: str, problems: list[str], lines: dict[str, int]) -> list[tuple[int, int]]:
    """The [from, to] pairs under `key`, noting the line of each as `lines["snake 12->30"]`."""
    value = data.get(key, [])
    if value is None:
        return []
    singular = key[:-1]
    if not isinstance(value, list):
        problems.append(f"line {data.line_of(key)}: {key} must be a list of [from, to] pairs")
        return []
    pairs = []
    for index, item in enumerate(value):
        line = value.line_of(index) if isinstance(value, LineList) else data.line_of(key)
        if isinstance(item, list) and len(item) == 2 and all(is_int(x) for x in item):
            pairs.append((item[0], item[1]))
            lines.setdefault(f"{singular} {item[0]}->{item[1]}", line)
        else:
            problems.append(f"line {line}: {singular} {shown(item)} is not a [from, to] pair of squares")
    return pairs


def _int_list(container: LineDict, key: str, problems: list[str]) -> list[int] | None:
    value = container.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(is_int(x) for x in value):
        problems.append(f"line {container.line_of(key)}: shape {key} must be a list of whole numbers")
        return None
    return list(value)


def _bool(container: LineDict, key: str, default: bool, problems: list[str], where: str = "") -> bool:
    value = container.get(key, default)
    if not isinstance(value, bool):
        problems.append(f"line {container.line_of(key)}: {where}{key} must be true or false, not {shown(value)}")
        return default
    return value


def board_from_data(data: Any, source: str, extra_keys: tuple[str, ...] = (), chains: bool = False,
                    listed: bool = False) -> Board:
    """A Board from parsed YAML; raises BoardError naming every problem with its line.
    `extra_keys` are a ruleset's own keys, kept as written for it to judge; `chains` is
    the value of an absent `chains:`; `listed` keeps the snakes and ladders in the file's
    order too (extra key `listed`), for a ruleset whose item ids follow it. A plain mapping
    (parsed by any YAML reader, or built in a test) is read as well; its problems name no
    line, since its lines are unknown."""
    if isinstance(data, dict) and not isinstance(data, LineDict):
        return _board_from_plain(data, source, extra_keys, chains, listed)
    if not isinstance(data, LineDict) or (data and not any(_board_like(key) for key in list(data)[:20])):
        # not a word of it is quoted: the path may name any file, a password file too
        raise BoardError(source, [NOT_A_BOARD])
    problems = key_problems(data, BOARD_KEYS + tuple(extra_keys))
    squares = _squares(data, problems)
    name = _name(data, problems)
    levels, offsets, serpentine = _shape(data, problems)
    chains = _bool(data, "chains", chains, problems)
    sound_squares = is_int(squares) and 1 <= squares <= MAX_SQUARES
    count = sum(len(data[key]) for key in ("snakes", "ladders") if isinstance(data.get(key), list))
    crowded = too_many_items(count, squares if sound_squares else None, chains)
    if crowded:  # one line, before anything is done per item or per pair of items
        line = data.line_of("snakes" if isinstance(data.get("snakes"), list) else "ladders")
        raise BoardError(source, [*problems, f"line {line}: {crowded}"])
    item_lines: dict[str, int] = {}
    snakes = _pairs(data, "snakes", problems, item_lines)
    ladders = _pairs(data, "ladders", problems, item_lines)

    with_line = _with_line(data, item_lines)
    if not sound_squares:
        # without N, still judge what does not need it: directions and shared squares (on
        # the largest board, so that no item is outside it)
        probe = Board(MAX_SQUARES, (MAX_SQUARES,), (0,), True, tuple(sorted(snakes)), tuple(sorted(ladders)), chains)
        problems += [
            with_line(problem)
            for problem in probe.problems()
            if problem.startswith(("snake", "ladder")) and " outside " not in problem
        ]
        raise BoardError(source, problems)
    if levels is None:
        levels = list(default_levels(squares))
    if offsets is None:
        offsets = [0] * len(levels)
    board = Board(
        squares=squares,
        levels=tuple(levels),
        offsets=tuple(offsets),
        serpentine=serpentine,
        snakes=tuple(sorted(snakes)),
        ladders=tuple(sorted(ladders)),
        chains=chains,
        name=name,
    )
    problems += [with_line(problem) for problem in board.problems()]
    if problems:
        raise BoardError(source, problems)
    extra = {key: _plain(data[key]) for key in extra_keys if key in data}
    if listed:
        extra["listed"] = {"snakes": [list(p) for p in snakes], "ladders": [list(p) for p in ladders]}
    return board.with_extra(**extra)


def _squares(data: LineDict, problems: list[str]) -> Any:
    """The value of `squares`, with a problem added unless it is a size a board may have."""
    squares = data.get("squares")
    if squares is None:
        problems.append(f"line {data.line}: missing key 'squares'")
    elif not is_int(squares) or squares < 1:
        problems.append(f"line {data.line_of('squares')}: squares must be a positive whole number, not {shown(squares)}")
    elif too_many_squares(squares):
        problems.append(f"line {data.line_of('squares')}: {too_many_squares(squares)}")
    return squares


def _name(data: LineDict, problems: list[str]) -> str:
    """The board's name as text ("" when none)."""
    name = data.get("name", "")
    if name is None:
        return ""
    if isinstance(name, list | dict):
        problems.append(f"line {data.line_of('name')}: name must be text, not {shown(name)}")
        return ""
    return name if isinstance(name, str) else str(name)  # a bare number or date is still a readable title


def _shape(data: LineDict, problems: list[str]) -> tuple[list[int] | None, list[int] | None, bool]:
    """The shape's levels and offsets (None where not given) and whether it is serpentine."""
    shape = data.get("shape")
    if shape is None:
        return None, None, True
    if not isinstance(shape, LineDict):
        problems.append(f"line {data.line_of('shape')}: shape must be a mapping with levels")
        return None, None, True
    problems += key_problems(shape, SHAPE_KEYS, "shape")
    levels = _int_list(shape, "levels", problems)
    offsets = _int_list(shape, "offsets", problems)
    serpentine = _bool(shape, "serpentine", True, problems, "shape ")
    if "levels" not in shape and offsets is not None:
        problems.append(f"line {shape.line}: shape gives offsets but no levels")
    return levels, offsets, serpentine


def _with_line(data: LineDict, item_lines: dict[str, int]) -> Any:
    """A board problem prefixed with the line of the item, name or shape it is about."""
    shape = data.get("shape")

    def with_line(problem: str) -> str:
        label = " ".join(problem.split(" ", 2)[:2])  # "snake 12->30" starts every item problem
        line = item_lines.get(label.rstrip(":"))
        if line is None and problem.startswith("name:"):
            line = data.line_of("name")
        if line is None and problem.startswith("shape") and isinstance(shape, LineDict):
            line = shape.line_of("offsets" if " offsets for " in problem else "levels")
        return f"line {line}: {problem}" if line else problem

    return with_line


def _board_from_plain(data: dict[Any, Any], source: str, extra_keys: tuple[str, ...], chains: bool,
                      listed: bool) -> Board:
    """board_from_data of a mapping without line numbers: read as gm's own YAML at line 0,
    each problem told without the line it cannot know."""
    try:
        return board_from_data(_lined(data), source, extra_keys, chains, listed)
    except BoardError as error:
        raise BoardError(source, [p.removeprefix("line 0: ") for p in error.problems]) from None


def _lined(value: Any) -> Any:
    """A plain parsed mapping or list as gm's YAML gives it (LineDict, LineList), every line 0."""
    if isinstance(value, dict):
        return LineDict({key: _lined(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return LineList([_lined(item) for item in value])
    return value


def _plain(value: Any) -> Any:
    """A parsed YAML value as plain JSON-ready lists and dicts (dates and the like as text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _board_like(key: Any) -> bool:
    """A key a board has, or a typo of one (so `snkaes:` still gets "did you mean")."""
    return quotable_key(key) and bool(difflib.get_close_matches(key, BOARD_KEYS, n=1))


def load_board(path: str | Path) -> Board:
    """Read and validate a board file (docs/campaign.md); raises BoardError. A ruleset with
    board keys of its own reads its files with Ruleset.read_board."""
    return board_from_data(read(Path(path), BoardError), str(path))
