"""Reading back the events a ruleset stored (`dataclasses.asdict` of what `start` and
`resolve` gave): every ruleset's events are frozen dataclasses told apart by `kind`, with
tuples where JSON has lists and `gm.rules.moving.Step`s in `steps`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .moving import Step

__all__ = ["event_reader"]


def event_reader(*classes: type) -> Callable[[Mapping[str, Any]], Any]:
    """`read(data)` for these event classes, each found by its `kind` field's default."""
    types = {cls.__dataclass_fields__["kind"].default: cls for cls in classes}

    def read(data: Mapping[str, Any]) -> Any:
        return types[data["kind"]](**{key: _from_json(key, value) for key, value in data.items()})

    return read


def _from_json(key: str, value: Any) -> Any:
    if not isinstance(value, list | tuple):  # a list from JSON, a tuple from asdict itself
        return value
    if key == "steps":
        return tuple(Step(**step) for step in value)
    return tuple(_from_json("", item) for item in value)
