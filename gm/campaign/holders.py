"""A stored state or event told under the seats' current holders: a seat may have changed
hands since it was stored (gm player replace). Read by the final results of `gm end` and by
the archive."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def as_now(ruleset: Any, state: Any, aliases: Mapping[str, str]) -> Any:
    """A stored state keyed by the seats' current holders (Ruleset.rename_player)."""
    for old, now in aliases.items():
        state = ruleset.rename_player(state, old, now)
    return state


def ids_as_now(value: Any, aliases: Mapping[str, str]) -> Any:
    """A stored event's JSON with every former holder's id (as a value or a key) replaced
    by the seat's current holder's."""
    if not aliases:
        return value
    if isinstance(value, str):
        return aliases.get(value, value)
    if isinstance(value, list):
        return [ids_as_now(v, aliases) for v in value]
    if isinstance(value, dict):
        return {aliases.get(k, k): ids_as_now(v, aliases) for k, v in value.items()}
    return value
