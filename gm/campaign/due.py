"""When a campaign's current turn is due: what it waits for (`due`), and what `gm turn`
would do with it now (`forecast`), in the one line `gm turn` and `gm status` both print."""

from __future__ import annotations

from .. import clock
from .deadlines import deadline_text
from .folder import Campaign
from .turns import OrderStatus, awaited, order_statuses, refusal

PAUSED = "the campaign is paused: nothing is resolved until gm resume [WHEN]"
NOT_STARTED = "the campaign has not started: sign-up by mail is answered; gm start when the players are in"


def due(campaign: Campaign, statuses: list[OrderStatus] | None = None) -> tuple[bool, str]:
    """Whether the current turn may be resolved now, and if not, what it waits for: one
    line for the GM, the same in `gm turn` and `gm status`."""
    state = campaign.state()
    if state.over:
        return False, "the campaign is over"
    if campaign.paused():
        return False, PAUSED
    deadline = campaign.deadline()
    if deadline is not None and clock.now() >= deadline:
        return True, ""
    statuses = order_statuses(campaign) if statuses is None else statuses
    when = deadline_text(deadline, campaign.config.timezone)
    shown = (when["local"] or when["utc"]) if when else "none set"
    if not campaign.ruleset.resolves_early:
        # a ruleset that does not resolve early: nobody has to write, so no message makes the turn
        # ready; say who wrote what all the same, since the GM is asked "did you get mine?"
        return False, (f"turn {state.turn} waits for its deadline, {shown} (nobody has to write in "
                       f"{campaign.ruleset.name}); {_written(campaign, statuses)}")
    missing = awaited(campaign, statuses)
    if not missing:
        return True, ""
    return False, f"turn {state.turn} waits for {', '.join(missing)}; deadline {shown}"


def forecast(campaign: Campaign, statuses: list[OrderStatus] | None = None) -> str:
    """What `gm turn` would do with the turn now, in its words: `resolves turn N`, `not
    yet: ...` (due's line) or `refuses turn N: ...` (resolve's refusal, when gm turn would
    exit 1). `gm status` prints it, so the two never disagree."""
    statuses = order_statuses(campaign) if statuses is None else statuses
    ready, why = due(campaign, statuses)
    if not ready:
        return f"not yet: {why}"
    state = campaign.state()
    refused = refusal(campaign, state, statuses, force=early(campaign, statuses))
    return f"refuses turn {state.turn}: {refused}" if refused else f"resolves turn {state.turn}"


def early(campaign: Campaign, statuses: list[OrderStatus] | None = None) -> bool:
    """Due before the deadline means every order is in: nothing left to guard."""
    return campaign.ruleset.resolves_early and not awaited(campaign, statuses)


def _written(campaign: Campaign, statuses: list[OrderStatus]) -> str:
    """Who has sent an accepted message this turn and what their order says, and who has not."""
    sent = [f"{s.player} (order #{s.receipt}: {campaign.ruleset.order_text(s.order)})"
            for s in statuses if s.receipt]
    silent = [s.player for s in statuses if not s.receipt and s.in_play]
    parts = [f"written: {', '.join(sent)}"] if sent else []
    if silent:
        parts.append(f"nothing from {', '.join(silent)}")
    return "; ".join(parts) or "nobody in play"
