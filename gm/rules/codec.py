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

A type's reader is made once and kept (`_reader`): a state is read for every command,
and a campaign's may hold thousands of players.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["from_json", "to_json"]

_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping, typing.Mapping)
_SETS = (frozenset, set, collections.abc.Set, collections.abc.MutableSet)
_SEQUENCES = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_PLAIN = frozenset((str, int, bool, float, type(None)))

Reader = Callable[[Any], Any]
_EXACT = {int: int, str: str, bool: bool}


def to_json(value: Any) -> Any:
    """`value` as JSON-ready data: a dataclass as an object of its fields."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    writer = _WRITERS.get(kind)
    if writer is None:
        writer = _WRITERS[kind] = _writer(kind)
    return writer(value)


_WRITERS: dict[type, Callable[[Any], Any]] = {}  # each type's writer, made once


def _writer(kind: type) -> Callable[[Any], Any]:
    """The function that writes a value of type `kind`."""
    if kind is dict:
        return lambda value: {key if type(key) is str else str(key): item if type(item) in _PLAIN else to_json(item)
                              for key, item in value.items()}
    if kind is tuple or kind is list:
        return lambda value: [item if type(item) in _PLAIN else to_json(item) for item in value]
    if dataclasses.is_dataclass(kind):
        return _dataclass_writer(kind)
    if issubclass(kind, collections.abc.Mapping):
        return lambda value: {key if isinstance(key, str) else str(key): to_json(item) for key, item in value.items()}
    if issubclass(kind, frozenset | set):
        return _set
    if issubclass(kind, tuple | list | range):
        return lambda value: [to_json(item) for item in value]
    return _same


def _set(value: Any) -> Any:
    items = [to_json(item) for item in value]
    try:  # a set has no order; sorted, the same set always writes the same JSON
        return sorted(items)
    except TypeError:
        return items


def _dataclass_writer(kind: type) -> Callable[[Any], Any]:
    """A dataclass written as an object of its fields, or as the row of its init fields
    (`json_row`); a field whose hint is simple (int, str, bool, float, or one of those or
    None) is taken as it is, without a call: a state holds one piece per player and board."""
    row = bool(getattr(kind, "json_row", False))
    names = [f.name for f in dataclasses.fields(kind) if f.init or not row]
    try:
        hints = typing.get_type_hints(kind)
    except (NameError, TypeError):
        hints = {}
    parts = [f"v.{name}" if _check(hints.get(name), "x") is not None or hints.get(name) is float
             else f"J(v.{name})" for name in names]
    if row:
        source = "lambda v: [" + ", ".join(parts) + "]"
    else:
        source = "lambda v: {" + ", ".join(f"{name!r}: {part}" for name, part in zip(names, parts, strict=True)) + "}"
    return eval(source, {"J": to_json})  # noqa: S307 - source made above from field names only


def from_json(kind: Any, data: Any) -> Any:
    """`data` (as `to_json` wrote it) read as `kind`, a type or type hint."""
    return _reader(kind)(data)


def _same(data: Any) -> Any:
    return data


@cache
def _reader(kind: Any) -> Reader:
    """The function that reads data written by `to_json` as `kind`, made once per kind."""
    if kind is Any or kind is object:
        return _same
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Union or origin is types.UnionType:
        return _union(kind, args)
    if origin is typing.Literal:
        return _same
    if origin is tuple:
        return _tuple(kind, args)
    if origin in _MAPPINGS:
        return _mapping(kind, *(args if args else (str, Any)))
    if origin in _SETS:
        item = _reader(args[0] if args else Any)
        return lambda data: frozenset(item(x) for x in _expect(data, list | tuple | set | frozenset, kind))
    if origin in _SEQUENCES:
        item = _reader(args[0] if args else Any)
        return lambda data: [item(x) for x in _expect(data, list | tuple, kind)]
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _dataclass(kind)
    return _plain(kind)


def _union(kind: Any, args: tuple[Any, ...]) -> Reader:
    optional = type(None) in args
    readers = [_reader(arg) for arg in args if arg is not type(None)]
    if optional and len(readers) == 1:
        only = readers[0]
        return lambda data: None if data is None else only(data)

    def read(data: Any) -> Any:
        if data is None and optional:
            return None
        last: Exception | None = None
        for reader in readers:
            try:
                return reader(data)
            except (TypeError, ValueError, KeyError) as error:
                last = error
        raise ValueError(f"{data!r} is none of {kind}") from last

    return read


def _tuple(kind: Any, args: tuple[Any, ...]) -> Reader:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _reader(args[0])
        if item is _same:
            return lambda data: tuple(_expect(data, list | tuple, kind))
        exact = _EXACT.get(args[0])
        if exact is not None:  # a tuple of whole numbers or words: checked without a call per item
            def plain_items(data: Any) -> Any:
                if type(data) is list and all(type(x) is exact for x in data):
                    return tuple(data)
                return tuple([item(x) for x in _expect(data, list | tuple, kind)])
            return plain_items
        return lambda data: tuple([item(x) for x in _expect(data, list | tuple, kind)])
    if not args:
        return lambda data: tuple(_expect(data, list | tuple, kind))
    readers = [_reader(arg) for arg in args]
    return lambda data: tuple([r(x) for r, x in zip(readers, _expect(data, list | tuple, kind), strict=True)])


def _mapping(kind: Any, key: Any, value: Any) -> Reader:
    item = _reader(value)
    if key is int:
        return lambda data: {int(k): item(v) for k, v in _expect(data, collections.abc.Mapping, kind).items()}
    return lambda data: {k: item(v) for k, v in _expect(data, collections.abc.Mapping, kind).items()}


def _plain(kind: Any) -> Reader:
    if kind is int:
        def whole(data: Any) -> Any:
            if type(data) is not int and (not isinstance(data, int) or isinstance(data, bool)):
                raise ValueError(f"{data!r} is not a whole number")
            return data
        return whole
    if kind is float:
        def number(data: Any) -> Any:
            if isinstance(data, int) and not isinstance(data, bool):
                return float(data)
            if not isinstance(data, float):
                raise ValueError(f"{data!r} is not a float")
            return data
        return number
    if kind in (str, bool):
        def plain(data: Any) -> Any:
            if not isinstance(data, kind):
                raise ValueError(f"{data!r} is not a {kind.__name__}")
            return data
        return plain
    if kind in (tuple, list):
        return lambda data: kind(data)
    if kind in (frozenset, set):
        return lambda data: frozenset(data)
    return _same


def _expect(data: Any, types: Any, kind: Any) -> Any:
    if not isinstance(data, types):
        raise ValueError(f"{data!r} is no {kind}")
    return data


def _dataclass(kind: type) -> Reader:
    """A dataclass read from its object of fields, or from its row (`json_row`)."""
    hints = typing.get_type_hints(kind)
    init = [f for f in dataclasses.fields(kind) if f.init]
    fields = [(f.name, _reader(hints.get(f.name, Any))) for f in init]
    if getattr(kind, "json_row", False):
        def row(data: Any) -> Any:
            _expect(data, list | tuple, kind)
            if len(data) > len(fields):
                raise ValueError(f"{data!r} has more values than a {kind.__name__} has fields")
            return kind(*[reader(item) for (_, reader), item in zip(fields, data, strict=False)])
        return _fast_row(kind, [hints.get(f.name, Any) for f in init], row)
    told = _kind_of(kind)

    def read(data: Any) -> Any:
        _expect(data, collections.abc.Mapping, kind)
        if told is not None and data.get("kind", told) != told:
            raise ValueError(f"a {kind.__name__} is of kind {told!r}, not {data.get('kind')!r}")
        return kind(**{name: reader(data[name]) for name, reader in fields if name in data})

    return read


def _check(hint: Any, value: str) -> str | None:
    """A Python test that `value` (an expression) is JSON of `hint` as it is read, for
    the simple hints (int, str, bool and those or None); None for any other."""
    exact = _EXACT.get(hint)
    if exact is not None:
        return f"type({value}) is {exact.__name__}"
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        other = args[0] if args[1] is type(None) else args[1]
        if other in _EXACT:
            return f"({value} is None or type({value}) is {other.__name__})"
    return None


def _fast_row(kind: type, hints: list[Any], slow: Reader) -> Reader:
    """For a row of simple fields (a piece: [square, finished, placing]), a reader that
    checks the whole row in one expression and falls back to `slow` (which says what is
    wrong) when it fails: a state holds one row per player and board."""
    checks = [_check(hint, f"d[{i}]") for i, hint in enumerate(hints)]
    if any(check is None for check in checks):
        return slow
    test = " and ".join(checks) or "True"
    source = f"lambda d: K(*d) if type(d) is list and len(d) == {len(hints)} and {test} else slow(d)"
    return eval(source, {"K": kind, "slow": slow})  # noqa: S307 - source made above from type names only


def _kind_of(cls: type) -> Any:
    """The default of the dataclass's `kind` field (an event's name), or None."""
    for f in dataclasses.fields(cls):
        if f.name == "kind" and isinstance(f.default, str):
            return f.default
    return None
