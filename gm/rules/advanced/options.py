"""Advanced's options (docs/rules/advanced.md, Options: max_turns), checked on reading
(gm.rules.options)."""

from __future__ import annotations

from dataclasses import dataclass

from ..dice.options import AT_LEAST_1
from ..options import option


@dataclass(frozen=True)
class AdvancedOptions:
    max_turns: int = option(200, minimum=1, expected=AT_LEAST_1)
