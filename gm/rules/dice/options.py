"""The options RULES.md 4.1 gives every dice ruleset (close_after, max_turns) and
their reading from campaign.yaml, with each bad value's line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...errors import ProblemsError
from ...yamlfile import is_int

DIE = 6  # classic and doubles throw d6 (RULES.md 4.2, 4.3)


@dataclass(frozen=True)
class DiceOptions:
    """RULES.md 4.1 options with their defaults (CONTRACT's campaign.yaml)."""

    close_after: int | Literal["all"] = 1
    max_turns: int = 200

    def finishers_needed(self, players: int) -> int:
        """End (a): how many finishers end the campaign; `all` and a number above the
        number of players count as the number of players."""
        return players if self.close_after == "all" else min(self.close_after, players)  # type: ignore[type-var]


OPTION_CHECKS: dict[str, tuple[Any, str]] = {
    "close_after": (lambda v: v == "all" or (is_int(v) and v >= 1), "a whole number of at least 1, or all"),
    "max_turns": (lambda v: is_int(v) and v >= 1, "a whole number of at least 1"),
    "enter_on_one": (lambda v: isinstance(v, bool), "true or false"),
}


def parse_dice_options(raw: Mapping[str, Any], cls: type = DiceOptions) -> Any:
    """`cls` (a dataclass of options) from campaign.yaml's options; raises ProblemsError
    naming every bad value with its line. Keys that are not `cls`'s fields are left to
    the campaign layer, which refuses them as unknown (Ruleset.option_keys)."""
    line_of = getattr(raw, "line_of", lambda key: 0)
    fields = cls.__dataclass_fields__
    values, problems = {}, []
    for key, value in raw.items():
        if key not in fields:
            continue
        valid, expected = OPTION_CHECKS[key]
        if valid(value):
            values[key] = value
        else:
            problems.append(f"line {line_of(key)}: option {key} must be {expected}, not {value!r}")
    if problems:
        raise ProblemsError("options", problems)
    return cls(**values)
