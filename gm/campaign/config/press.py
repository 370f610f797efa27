"""campaign.yaml `press:` (docs/campaign.md; docs/rules/, Order mail: Press): how players
write to each other through the GM. Fixed at start: the mode is part of the game every
player joined."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ...yamlfile import LineDict, is_int, key_problems

MODES = ("none", "white", "grey", "public")
PUBLISH = ("public", "none")
PRESS_KEYS = ("mode", "max_bytes", "max_per_day", "max_recipients_per_day", "digest_above", "observers", "publish")


@dataclass(frozen=True)
class PressSettings:
    mode: str = "none"  # every campaign made before press plays without it
    max_bytes: int = 8192  # of text per block
    max_per_day: int = 20  # blocks a player a UTC day
    max_recipients_per_day: int = 200  # recipients a player a UTC day
    digest_above: int = 50  # players: above, ALL press goes into the turn report
    observers: bool = True  # observers get ALL press
    publish: str = "public"  # ALL press on the archive's turn pages

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _whole(value: Any, least: int) -> bool:
    return is_int(value) and value >= least


def read_press(data: Any, problems: list[str]) -> PressSettings:
    """The `press:` block of campaign.yaml (a LineDict), its problems added to `problems`."""
    raw = data.get("press")
    if raw is None:
        return PressSettings()
    where = data.line_of("press")
    if not isinstance(raw, LineDict):
        problems.append(f"line {where}: press must be a mapping, such as press: {{mode: grey}}")
        return PressSettings()
    problems += key_problems(raw, PRESS_KEYS, "press")
    default = PressSettings()
    values = {}
    checks = {"mode": (lambda v: v in MODES, "one of " + ", ".join(MODES)),
              "max_bytes": (lambda v: _whole(v, 1), "a whole number of at least 1"),
              "max_per_day": (lambda v: _whole(v, 0), "a whole number"),
              "max_recipients_per_day": (lambda v: _whole(v, 0), "a whole number"),
              "digest_above": (lambda v: _whole(v, 0), "a whole number"),
              "observers": (lambda v: isinstance(v, bool), "true or false"),
              "publish": (lambda v: v in PUBLISH, "public or none")}
    for key, (check, expected) in checks.items():
        value = raw.get(key, getattr(default, key))
        if not check(value):
            problems.append(f"line {raw.line_of(key)}: press {key} must be {expected}, not {value!r}")
            value = getattr(default, key)
        values[key] = value
    return PressSettings(**values)
