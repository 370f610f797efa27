"""How a campaign that is over came to its end (`End`): by its rules, by the option
`max_turns`, or by the GM's `gm end` (gm.campaign.gm_end), read from its stored row.
`gm state --json`, `gm status`, the archive and the audit record all say it from here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..rules.base import rules_end


@dataclass(frozen=True)
class End:
    """How a campaign that is over came to its end: `by` the rules (`rules`), the option
    `max_turns`, or the GM's `gm end` (`gm`); `turn` the last turn played; `reason` the
    GM's words, or None."""

    by: str
    turn: int
    reason: str | None = None
    at: str | None = None  # when the GM ended it (UTC, ISO 8601); None for the rules' end

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "turn": self.turn, "reason": self.reason}


def end_of(row: dict[str, Any], setup: Any, state: Any) -> End | None:
    """How the campaign whose stored row is `row` ended in `state`; None while it runs."""
    if not state.over:
        return None
    stored = row.get("ended")
    if stored:
        data = json.loads(stored)
        return End(data["by"], data["turn"], data["reason"], data.get("at"))
    by, turn = rules_end(setup, state)
    return End(by, turn)


def how_it_ended(campaign: Any, state: Any = None) -> End | None:
    """How an opened campaign (gm.campaign.folder's Campaign, which imports this module)
    ended; None while it runs."""
    state = campaign.state() if state is None else state
    return end_of(campaign.row(), campaign.setup, state)
