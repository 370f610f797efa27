"""The shape of an audit record (docs/audit.md), checked in one pass before the replay
reads any of it: every key the page lists is present and each value is of the type the
page gives. A record of another shape cannot be replayed at all: RecordMalformed (`gm
audit` exits 3, "could not be checked"), named by the first key found wrong, `turns[2].receipts.alice: expected an object, found a string`. Only types are
checked here; what the values say is the replay's to judge. What a turn's orders and
states hold is the ruleset's: an order must be an object and a state is compared whole."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .checks import SILENT
from .source import FORMAT, RecordMalformed, RecordRefused
from .strict import check_strict

__all__ = ["check_shape", "key_path"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,39}")


def key_path(path: str, key: str | int) -> str:
    """`path` and one key more, as a reader writes it: `turns[2].receipts.alice`; a key
    that is no plain word is quoted (and cut: the record is the GM's)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _NAME.fullmatch(key):
        return f"{path}.{key}" if path else key
    quoted = json.dumps(key if len(key) <= 40 else key[:37] + "...", ensure_ascii=True)
    return f"{path}[{quoted}]"


def found(value: Any) -> str:
    """What a JSON value is, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


class Shape:
    """What a value must be: `wanted` in words, `problem` the first key found wrong."""

    wanted: str

    def problem(self, value: Any, path: str) -> str | None:
        raise NotImplementedError

    def outer(self, value: Any) -> bool:
        """Whether `value` is of the wanted kind at its top (a list, an object...)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Kind(Shape):
    """A value of one JSON kind, tested by `test`."""

    wanted: str
    test: Callable[[Any], bool]

    def problem(self, value: Any, path: str) -> str | None:
        return None if self.test(value) else f"{path}: expected {self.wanted}, found {found(value)}"

    def outer(self, value: Any) -> bool:
        return bool(self.test(value))


ANY = Kind("anything", lambda v: True)
STRING = Kind("a string", lambda v: isinstance(v, str))
WHOLE = Kind("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
TRUTH = Kind("true or false", lambda v: isinstance(v, bool))
OBJECT = Kind("an object", lambda v: isinstance(v, dict))
# a seed of gm-audit/2 (docs/audit.md: a 128-bit number in JSON is rounded by JavaScript's
# and Go's default readers)
DIGITS = Kind("a string of decimal digits", lambda v: isinstance(v, str) and re.fullmatch(r"[0-9]{1,100}", v))


@dataclass(frozen=True)
class Maybe(Shape):
    """null or `shape`."""

    shape: Shape

    @property
    def wanted(self) -> str:  # type: ignore[override]
        return f"{self.shape.wanted} or null"

    def problem(self, value: Any, path: str) -> str | None:
        if value is None:
            return None
        if not self.shape.outer(value):
            return f"{path}: expected {self.wanted}, found {found(value)}"
        return self.shape.problem(value, path)

    def outer(self, value: Any) -> bool:
        return value is None or self.shape.outer(value)


@dataclass(frozen=True)
class ListOf(Shape):
    item: Shape
    least: int = 0

    @property
    def wanted(self) -> str:  # type: ignore[override]
        return "a non-empty list" if self.least else "a list"

    def problem(self, value: Any, path: str) -> str | None:
        if not self.outer(value):
            return f"{path}: expected {self.wanted}, found {'an empty list' if value == [] else found(value)}"
        for index, item in enumerate(value):
            wrong = self.item.problem(item, key_path(path, index))
            if wrong:
                return wrong
        return None

    def outer(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) >= self.least


class _Object(Shape):
    wanted = "an object"

    def outer(self, value: Any) -> bool:
        return isinstance(value, dict)


@dataclass(frozen=True)
class MapOf(_Object):
    """An object whose keys are ids (a player's, a board's) and values all `value`."""

    value: Shape

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return f"{path}: expected an object, found {found(value)}"
        for key, item in value.items():
            wrong = self.value.problem(item, key_path(path, key))
            if wrong:
                return wrong
        return None


@dataclass(frozen=True)
class Obj(_Object):
    """An object with `keys` (each must be there) and `optional` keys; any other key is
    left alone, for a later format's."""

    keys: Mapping[str, Shape]
    optional: Mapping[str, Shape] = field(default_factory=dict)

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return f"{path or 'the record'}: expected an object, found {found(value)}"
        for key, shape in self.keys.items():
            if key not in value:
                return f"{key_path(path, key)}: missing (expected {shape.wanted})"
            wrong = shape.problem(value[key], key_path(path, key))
            if wrong:
                return wrong
        for key, shape in self.optional.items():
            if key in value:
                wrong = shape.problem(value[key], key_path(path, key))
                if wrong:
                    return wrong
        return None


DRAW = Obj({"turn": WHOLE, "kind": STRING, "key": STRING, "candidates": ListOf(ANY, least=1), "index": WHOLE})
HOLDER = Obj({"player": STRING, "from_turn": WHOLE, "until_turn": Maybe(WHOLE), "dropped_turn": Maybe(WHOLE)})
RECEIPT = Maybe(Obj({"player": STRING, "count": Maybe(WHOLE), "receipt": STRING}))


def _record(proof: bool) -> Obj:
    """The shape of format gm-audit/2 (`proof`) or gm-audit/1, which has no proof's keys."""
    proof_turn = {"receipts": Maybe(MapOf(RECEIPT)), SILENT: ListOf(STRING), "dropped": ListOf(STRING),
                  "record_hash": Maybe(STRING)}
    turn = {"turn": WHOLE, "players": ListOf(STRING), "orders": MapOf(OBJECT), "draws": ListOf(DRAW),
            "state": OBJECT}
    keys: dict[str, Shape] = {
        "ruleset": STRING,
        "seed": Obj({"value": DIGITS if proof else WHOLE, "salt": STRING, "commitment": STRING}),
        "boards": ListOf(Obj({"id": STRING, "canonical": STRING, "commitment": Maybe(STRING)},
                             {"salt": Maybe(STRING), "from_seed": TRUTH})),
        "options": OBJECT,
        "players": ListOf(STRING),
        "opening": Obj({"draws": ListOf(DRAW), "state": OBJECT}, {"players": ListOf(STRING)}),
        "turns": ListOf(Obj(turn | proof_turn) if proof else Obj(turn, proof_turn)),
    }
    proof_keys: dict[str, Shape] = {
        "campaign": STRING,
        "ruleset_version": STRING,
        "game": Maybe(Obj({"text": STRING, "commitment": STRING})),
        "player_keys": MapOf(OBJECT),
        "end": Maybe(Obj({"by": STRING, "turn": Maybe(WHOLE), "reason": Maybe(STRING), "state": Maybe(OBJECT)})),
    }
    optional: dict[str, Shape] = {
        "ruleset_distribution": Obj({"name": STRING, "version": Maybe(STRING)}),
        "seats": ListOf(ListOf(HOLDER)),
    }
    return Obj(keys | proof_keys, optional) if proof else Obj(keys, optional | proof_keys)


def _record_3() -> Obj:
    """gm-audit/3: /2 with the players' entropy (docs/audit.md, What the GM cannot choose)."""
    two = _record(proof=True)
    return Obj({**two.keys, "entropy": MapOf(STRING)}, two.optional)


_SHAPES = {"gm-audit/1": _record(proof=False), "gm-audit/2": _record(proof=True), FORMAT: _record_3()}


def check_shape(record: Mapping[str, Any]) -> None:
    """RecordMalformed naming the first key of `record` (of a format gm reads) that is
    missing or of another type than docs/audit.md gives."""
    if record["format"] == FORMAT:
        check_strict(record)  # the seed's limits before its type: a seed too long is over a limit
    wrong = _SHAPES[record["format"]].problem(record, "")
    if wrong:
        refused = RecordRefused if record["format"] == FORMAT else RecordMalformed
        raise refused(f"the record's shape: {wrong}")
