"""Advanced's options (RULES.md 4.1's max_turns) and their reading from campaign.yaml."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..dice import parse_dice_options


@dataclass(frozen=True)
class AdvancedOptions:
    max_turns: int = 200


def parse_advanced_options(raw: Mapping[str, Any]) -> AdvancedOptions:
    """Options from campaign.yaml (RULES.md 4.1's checks); raises ProblemsError naming
    each bad one with its line."""
    return parse_dice_options(raw, AdvancedOptions)
