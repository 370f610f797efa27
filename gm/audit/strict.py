"""What a gm-audit/3 record must also be (docs/audit.md, A record of the wrong shape), beyond
the types gm.audit.shape checks: an end whose keys are of their types, player keys for players
only, every option of the ruleset, `max_turns` of at most 10,000 and a seed written canonically.
A record that breaks one is refused naming the key (exit 1); a seed over 100 digits or with
leading zeros is over a limit (exit 3)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .source import RecordRefused, RecordUnreadable

__all__ = ["MAX_TURNS", "check_options", "check_strict"]

MAX_TURNS = 10_000
_CANONICAL_SEED = re.compile(r"0|[1-9][0-9]{0,99}")
_END = {"by": (str,), "turn": (int, type(None)), "reason": (str, type(None)), "record_hash": (str, type(None))}


def check_strict(record: Mapping[str, Any]) -> None:
    """RecordUnreadable for a seed string over the limits, RecordRefused for the first key
    of another shape; nothing for a record of the right one."""
    value = record.get("seed", {}).get("value") if isinstance(record.get("seed"), Mapping) else None
    if isinstance(value, str) and not _CANONICAL_SEED.fullmatch(value):
        raise RecordUnreadable("seed.value: over a limit: a seed is written with at most 100 digits and no "
                               f"leading zero (found {len(value)} characters)")
    end = record.get("end")
    if isinstance(end, Mapping):
        for key, kinds in _END.items():
            if key not in end and key == "record_hash":
                continue
            if key not in end or isinstance(end[key], bool) or not isinstance(end[key], kinds):
                raise RecordRefused(f"the record's shape: end.{key}: of another type than docs/audit.md gives")
    players = record.get("players")
    keys = record.get("player_keys")
    if isinstance(keys, Mapping) and isinstance(players, list):
        for player in keys:
            if player not in players:
                raise RecordRefused(f"the record's shape: player_keys.{player}: names no player")
    options = record.get("options")
    if isinstance(options, Mapping):
        turns = options.get("max_turns")
        if isinstance(turns, int) and not isinstance(turns, bool) and turns > MAX_TURNS:
            raise RecordRefused(f"the record's shape: options.max_turns: over {MAX_TURNS:,}")


def check_options(record: Mapping[str, Any], played: Mapping[str, Any]) -> None:
    """RecordRefused when the record's options miss one the ruleset plays with (`played`: the
    options as the ruleset writes them, defaults filled in)."""
    missing = sorted(set(played) - set(record["options"]))
    if missing:
        raise RecordRefused(f"the record's shape: options.{missing[0]}: missing (the options as played are "
                            "written whole)")
