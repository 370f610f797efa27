"""A player's standing order for a turn (RULES.md 2.4, 4.5): the order as it stands after
every message so far, its receipt number, and its view for the player's eyes (the ack,
refusal, help and reminder templates word it). Read by the desk, the turn and the GM's
commands alike."""

from __future__ import annotations

import json
from typing import Any

from .folder import Campaign


def standing_order(campaign: Campaign, turn: int, player: str) -> tuple[Any, int]:
    """The player's order for `turn` as it stands, and its receipt number (0: none)."""
    row = campaign.store.one(
        "select standing, receipt from orders where turn = ? and player = ? order by receipt desc limit 1",
        (turn, player),
    )
    if row is None:
        return campaign.ruleset.empty_order(), 0
    return campaign.ruleset.order_from_json(json.loads(row["standing"])), row["receipt"]


def order_view(campaign: Campaign, player: str, state: Any = None) -> dict[str, Any]:
    """A player's standing order for the current turn, for their eyes only (the ruleset
    words it for the ack, refusal, help and reminder templates)."""
    state = state if state is not None else campaign.state()
    order, receipt = standing_order(campaign, state.turn, player)
    view = campaign.ruleset.order_view(campaign.setup, state, player, order)
    return {"turn": state.turn, "receipt": receipt} | view
