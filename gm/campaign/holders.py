"""A stored state or event told under the seats' current holders: a seat may have changed
hands since it was stored (gm player replace). Read by the final results of `gm end` and by
the archive."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def holder_aliases(campaign: Any) -> dict[str, str]:
    """Every id that held a seat and holds it no more -> the seat's holder now
    (Campaign.seat_holders): what as_now and ids_as_now rename."""
    return {old: now for old, now in campaign.seat_holders().items() if old != now}


def stored_state_as_now(ruleset: Any, text: str, aliases: Mapping[str, str]) -> Any:
    """A state as the turns table stores it (JSON text), loaded and told as_now."""
    return as_now(ruleset, ruleset.load_state(json.loads(text)), aliases)


def stored_events_as_now(ruleset: Any, text: str, aliases: Mapping[str, str]) -> tuple[Any, ...]:
    """A turn's events as the turns table stores them (JSON text), each told ids_as_now."""
    return tuple(ruleset.event_from_json(ids_as_now(e, aliases)) for e in json.loads(text))


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
