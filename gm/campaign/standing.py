"""A player's standing order for a turn (docs/rules/, Orders, the deadline and missed
turns): the order as it stands after every message so far, its receipt number, its view
for the player's eyes (the ack, refusal, help and reminder templates word it), and a
message's commands merged into it with every problem the ruleset finds, line by line.
Read by the desk, the turn and the GM's commands alike."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..rules.problem import Problem
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


def merged_order(campaign: Campaign, state: Any, player: str, standing: Any,
                 commands: Sequence[Any]) -> tuple[Any, list[Problem]]:
    """Every problem the ruleset finds with the message's commands (merge, each on its
    line) and with the order they make (order_problems), even when other lines have
    problems of their own: the reply says every problem found, line by line
    (docs/rules/, Replies). Returns the merged order with them.

    order_problems judges a whole order and knows no lines, so each command is also
    merged alone into the standing order: what order_problems says of that order, and
    not of the standing one, is that command's problem, told on its line (advanced:
    a BUILD from Start). What it says of the whole order beyond that is kept without
    a line; what merge said already is not said twice."""
    ruleset, setup = campaign.ruleset, campaign.setup
    merged, found = ruleset.merge(setup, state, player, standing, commands)
    found = list(found)

    def among(why: Problem, problems: list[Problem]) -> bool:
        return any(why.code == old.code and why.facts == old.facts for old in problems)

    before = ruleset.order_problems(setup, state, player, standing)
    for command in commands:
        alone, refused = ruleset.merge(setup, state, player, standing, (command,))
        if refused:
            continue  # merge told it on its line
        for why in ruleset.order_problems(setup, state, player, alone):
            if not among(why, before) and not among(why, found):
                found.append(why.on_line(command.line))
    for why in ruleset.order_problems(setup, state, player, merged):
        if not among(why, found):
            found.append(why)
    return merged, found
