"""What the replay of an audit record made against what the record holds: each random draw
recomputed by the seed's formula (docs/audit.md) and each state, the first difference named
by its turn, board and player."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..rules.chance import Draw, pick_index
from .checks import Difference


def draws(turn: int, recorded: Sequence[Mapping[str, Any]], made: Sequence[Draw], seed: int) -> Difference | None:
    """Each recorded draw recomputed by docs/audit.md's formula, then against the replay's."""
    for number, data in enumerate(recorded, 1):
        draw = Draw.from_json(data)
        index = pick_index(seed, draw.turn, draw.kind, draw.key, len(draw.candidates))
        if index != draw.index:
            return Difference(turn, f"draw {number} ({draw.kind} {draw.key}): its index by the seed formula", None,
                              _player_of(draw.key), index, draw.index)
    for number, (data, draw) in enumerate(zip(recorded, made, strict=False), 1):
        mine = draw.to_json()
        theirs = json.loads(json.dumps(data))
        if json.loads(json.dumps(mine)) != theirs:
            return Difference(turn, f"draw {number}", None, _player_of(draw.key),
                              f"{draw.kind} {draw.key} -> {draw.value!r}", _draw_text(theirs))
    if len(recorded) != len(made):
        return Difference(turn, "the number of draws", None, None, len(made), len(recorded))
    return None


def _draw_text(data: Mapping[str, Any]) -> str:
    try:
        return f"{data['kind']} {data['key']} -> {data['candidates'][data['index']]!r}"
    except (KeyError, IndexError, TypeError):
        return repr(data)


def _player_of(key: str) -> str | None:
    head = key.split("/")[0]
    return head if head and not head.isdigit() else None


def states(turn: int | None, expected: Any, found: Any) -> Difference | None:
    """The first place where two `gm state --json` objects differ."""
    for path, mine, theirs in differences(json.loads(json.dumps(expected)), found, ()):
        board = player = None
        if len(path) >= 2 and path[0] == "boards":
            board = path[1]
            if len(path) >= 4 and path[2] == "players":
                player = path[3]
        elif len(path) >= 2 and path[0] == "players":
            player = path[1]
        return Difference(turn, "state " + ".".join(str(p) for p in path), board, player, mine, theirs)
    return None


def differences(mine: Any, theirs: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in list(mine) + [k for k in theirs if k not in mine]:
            if key not in mine or key not in theirs:
                yield (*path, key), mine.get(key, "(absent)"), theirs.get(key, "(absent)")
            else:
                yield from differences(mine[key], theirs[key], (*path, key))
    elif isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            yield from differences(a, b, (*path, index))
    elif mine != theirs:
        yield path, mine, theirs
