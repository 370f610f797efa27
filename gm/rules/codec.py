"""JSON for a ruleset's dataclasses: the default state, order, event and options codec.

A ruleset whose state, orders and events are (frozen) dataclasses gets `dump_state`,
`load_state`, `order_to_json`, `order_from_json` and `event_from_json` from this module:
`to_json` writes any value made of dataclasses, mappings with string keys, tuples, lists,
frozensets, int, str, bool, float and None; `from_json(type, data)` reads it back by the
dataclass's type hints (typing.get_type_hints), including `X | None`, nested
dataclasses, `tuple[X, ...]`, fixed tuples, `Mapping[str, X]` (or int keys, which JSON
writes as strings), `frozenset[X]` and `Any` (taken as it is).

Two declarations keep a stored form that is not a plain object of fields:

* a dataclass with `json_row = True` (a ClassVar) is written as the list of its fields'
  values, in field order, and read back from it (a piece stored as `[square, finished,
  placing]`);
* a dataclass whose `kind` field has a default (an event) is read only from data of that
  `kind`, so `A | B` and `tuple[A | B, ...]` read each item as the class it names.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import types
import typing
from functools import cache
from typing import Any

__all__ = ["from_json", "to_json"]

_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping, typing.Mapping)
_SETS = (frozenset, set, collections.abc.Set, collections.abc.MutableSet)
_SEQUENCES = (list, collections.abc.Sequence, collections.abc.MutableSequence)


def to_json(value: Any) -> Any:
    """`value` as JSON-ready data: a dataclass as an object of its fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if getattr(value, "json_row", False):
            return [to_json(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init]
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, collections.abc.Mapping):
        return {key if isinstance(key, str) else str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, frozenset | set):
        items = [to_json(item) for item in value]
        try:  # a set has no order; sorted, the same set always writes the same JSON
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, tuple | list | range):
        return [to_json(item) for item in value]
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json(kind: Any, data: Any) -> Any:
    """`data` (as `to_json` wrote it) read as `kind`, a type or type hint."""
    if kind is Any or kind is object:
        return data
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Union or origin is types.UnionType:
        if data is None and type(None) in args:
            return None
        last: Exception | None = None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return from_json(arg, data)
            except (TypeError, ValueError, KeyError) as error:
                last = error
        raise ValueError(f"{data!r} is none of {kind}") from last
    if origin is typing.Literal:
        return data
    if origin is tuple:
        _expect(data, list | tuple, kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], item) for item in data)
        if not args:
            return tuple(data)
        return tuple(from_json(arg, item) for arg, item in zip(args, data, strict=True))
    if origin in _MAPPINGS:
        _expect(data, collections.abc.Mapping, kind)
        key, value = args if args else (str, Any)
        return {_key(key, k): from_json(value, v) for k, v in data.items()}
    if origin in _SETS:
        _expect(data, list | tuple | set | frozenset, kind)
        return frozenset(from_json(args[0] if args else Any, item) for item in data)
    if origin in _SEQUENCES:
        _expect(data, list | tuple, kind)
        return [from_json(args[0] if args else Any, item) for item in data]
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _dataclass(kind, data)
    if kind is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if kind in (tuple, list):
        return kind(data)
    if kind in (frozenset, set):
        return frozenset(data)
    if isinstance(kind, type) and kind in (int, str, bool, float) and not isinstance(data, kind):
        raise ValueError(f"{data!r} is not a {kind.__name__}")
    if kind is int and isinstance(data, bool):
        raise ValueError(f"{data!r} is not a whole number")
    return data


def _expect(data: Any, types: Any, kind: Any) -> None:
    if not isinstance(data, types):
        raise ValueError(f"{data!r} is no {kind}")


def _dataclass(kind: type, data: Any) -> Any:
    """A dataclass read from its object of fields, or from its row (`json_row`)."""
    fields = [f for f in dataclasses.fields(kind) if f.init]
    hints = _hints(kind)
    if getattr(kind, "json_row", False):
        _expect(data, list | tuple, kind)
        if len(data) > len(fields):
            raise ValueError(f"{data!r} has more values than a {kind.__name__} has fields")
        return kind(*(from_json(hints.get(f.name, Any), item) for f, item in zip(fields, data, strict=False)))
    _expect(data, collections.abc.Mapping, kind)
    told = _kind_of(kind)
    if told is not None and data.get("kind", told) != told:
        raise ValueError(f"a {kind.__name__} is of kind {told!r}, not {data.get('kind')!r}")
    return kind(**{f.name: from_json(hints.get(f.name, Any), data[f.name]) for f in fields if f.name in data})


@cache
def _kind_of(cls: type) -> Any:
    """The default of the dataclass's `kind` field (an event's name), or None."""
    for f in dataclasses.fields(cls):
        if f.name == "kind" and isinstance(f.default, str):
            return f.default
    return None


def _key(kind: Any, key: str) -> Any:
    """A mapping key as written by JSON (always a string) read back as `kind`."""
    if kind is int and isinstance(key, str):
        return int(key)
    return key
