"""The GM's commands on a running campaign's time (docs/campaign.md; `gm pause`, `gm resume`,
`gm deadline`): each checks first and refuses with one line, changing nothing; otherwise it
makes its change, logs it in the `admin` table and tells everyone still in the game and
every observer, in one transaction."""

from __future__ import annotations

from datetime import datetime

from .. import clock
from ..errors import GmError
from .admin import log_admin, open_state, tell_everyone
from .deadlines import deadline_text, next_deadline
from .folder import Campaign


def pause(campaign: Campaign) -> None:
    """Nothing resolves and every order is refused until `resume`."""
    state = open_state(campaign)
    if campaign.paused():
        raise GmError("the campaign is already paused (gm resume goes on)")
    now = clock.now()
    with campaign.store.transaction() as db:
        db["campaign"].update(campaign.config.id, {"paused": 1})
        log_admin(db, now, state.turn, "pause", None, {"deadline": campaign.row()["deadline"]})
        tell_everyone(campaign, db, now, "admin_paused", {"turn": state.turn}, deadline=None)


def resume(campaign: Campaign, when: str | None = None) -> datetime:
    """The campaign goes on with a new deadline (default: `turn_days` from now)."""
    state = open_state(campaign)
    if not campaign.paused():
        raise GmError("the campaign is not paused")
    now = clock.now()
    deadline = (clock.parse_local(when, campaign.config.timezone, now) if when
                else next_deadline(campaign.config, now))
    if deadline <= now:
        raise GmError(f"the deadline {_shown(campaign, deadline)} has passed already")
    with campaign.store.transaction() as db:
        db["campaign"].update(campaign.config.id, {"paused": 0, "deadline": clock.iso(deadline)})
        log_admin(db, now, state.turn, "resume", None, {"deadline": clock.iso(deadline)})
        offered = campaign.ruleset.offered_now(campaign.setup, state)
        tell_everyone(campaign, db, now, "admin_resumed", {"turn": state.turn, "commands": offered},
                       deadline=deadline)
    return deadline


def move_deadline(campaign: Campaign, when: str, *, earlier: bool = False) -> datetime:
    """The current turn's deadline moves to `when`: `+3d` counts from the current
    deadline, so extending never shortens it; a deadline earlier than the current one
    needs `earlier`. Everyone still in the game and every observer is told."""
    state = open_state(campaign)
    if campaign.paused():
        raise GmError("the campaign is paused: gm resume WHEN sets the deadline")
    now = clock.now()
    current = campaign.deadline() or now
    deadline = clock.parse_local(when, campaign.config.timezone, current)
    if deadline == current:
        raise GmError(f"the deadline is {_shown(campaign, deadline)} already")
    if deadline <= now:
        raise GmError(f"{_shown(campaign, deadline)} has passed already")
    if deadline < current and not earlier:
        raise GmError(f"{_shown(campaign, deadline)} is earlier than the current deadline "
                      f"{_shown(campaign, current)}; use --earlier to shorten the turn")
    with campaign.store.transaction() as db:
        db["campaign"].update(campaign.config.id, {"deadline": clock.iso(deadline)})
        log_admin(db, now, state.turn, "deadline", None, {"old": clock.iso(current), "new": clock.iso(deadline)})
        tell_everyone(campaign, db, now, "admin_deadline",
                       {"turn": state.turn, "earlier": deadline < current}, deadline=deadline)
    return deadline


def _shown(campaign: Campaign, when: datetime) -> str:
    text = deadline_text(when, campaign.config.timezone)
    assert text is not None
    return text["local"] or text["utc"]  # type: ignore[return-value]
