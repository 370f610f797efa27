"""`gm end` (CONTRACT.md): the GM ends a running campaign after its last resolved turn, as
if `max_turns` had been reached there (each ruleset's placings for a campaign cut short,
Ruleset.end). One transaction stores the ended state and a record of the end (the turn it
ended after, by whom, the reason, its events), logs it in the `admin` table and queues the
final results to every player and observer, with the reason. `gm reveal` may follow.

How a campaign ended, whoever ended it, is gm.campaign.campaign_end's."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import Any

from .. import clock
from ..counts import count
from ..errors import GmError
from ..mail.views import EndView
from .admin import log_admin
from .folder import Campaign
from .holders import holder_aliases, stored_events_as_now, stored_state_as_now
from .proof import proof_view
from .store import dumps
from .turns import queue_results

__all__ = ["END_KIND", "REASON_LIMIT", "end_campaign"]

# the outbox kind of the final results `gm end` queues (a resolve's are reports)
END_KIND = "final"
# a reason is one line of a mail: longer than this is a letter, which the GM can send
REASON_LIMIT = 500
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def end_campaign(campaign: Campaign, reason: str | None = None) -> tuple[int, Any]:
    """End the campaign after its last resolved turn (`gm end`); returns that turn and the
    ended state. Refused, changing nothing, before turn 1 was resolved, once the campaign
    is over, or when the ruleset cannot end a campaign early."""
    reason = _reason(reason)
    state = campaign.state()
    if state.over:
        raise GmError("the campaign is over already" + ("; gm reveal may follow" if not campaign.row()["revealed_at"]
                                                        else ""))
    last = campaign.store.one("select * from turns order by turn desc limit 1")
    if last is None:
        raise GmError(f"no turn has been resolved yet: a campaign ends after a turn it played "
                      f"(gm resolve plays turn {state.turn})")
    ruleset, setup = campaign.ruleset, campaign.setup
    outcome = ruleset.end(setup, state)  # a RulesError is a refusal in one line
    ended = outcome.state
    turn = state.turn - 1
    now = clock.now()
    record = {"by": "gm", "turn": turn, "reason": reason, "at": clock.iso(now),
              "events": [asdict(e) for e in outcome.events]}
    before, events, orders = _last_turn(campaign, last)
    events = (*events, *outcome.events)
    names = campaign.names()
    view = ruleset.public_view(setup, before, ended, events, names, campaign.config.id,
                               campaign.config.title)
    receipts = json.loads(last.get("receipts") or "null")
    # docs/audit.md: the final mail shows the last resolve's record hash and receipts, and the
    # end's link (queue_results), which binds this end's reason; anyone replays the ended
    # state from the last one (Ruleset.end)
    # every id that held a seat, by seat: the receipts (stored sorted by id) listed seat by seat
    seats = [h["player"] for h in campaign.holders()]
    proof = proof_view(last["turn"], last.get("record_hash"), receipts, names, seats)
    with campaign.store.transaction() as db:
        db["campaign"].update(campaign.config.id, {
            "state": dumps(ruleset.dump_state(ended)), "ended": dumps(record), "deadline": None, "paused": 0})
        log_admin(db, now, turn, "end", None, {"turn": turn, "reason": reason})
        queue_results(campaign, db, now, after=ended, events=events, view=view, orders=orders, turn=turn,
                      proof=proof, receipts=receipts, kind=END_KIND, ended=EndView(turn, reason))
    return turn, ended


def _reason(text: str | None) -> str | None:
    """The GM's reason as one line of mail: runs of spaces and line breaks made one space;
    refused when it holds other control characters or is too long to be a line."""
    if text is None:
        return None
    line = " ".join(text.split())
    if _CONTROLS.search(line):
        raise GmError("the reason holds control characters; write it as plain text")
    if len(line) > REASON_LIMIT:
        raise GmError(f"the reason is {count(len(line), 'character')} long; keep it to {REASON_LIMIT} "
                      "(one line of the final mail)")
    return line or None


def _last_turn(campaign: Campaign, row: dict[str, Any]) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """The last resolved turn as its final results tell it: the state before it, its events
    and the orders played, each keyed by the seats' holders now (a seat may have changed
    hands since: gm player replace)."""
    ruleset = campaign.ruleset
    aliases = holder_aliases(campaign)
    before = stored_state_as_now(ruleset, row["state_before"], aliases)
    events = stored_events_as_now(ruleset, row["events"], aliases)
    orders = {aliases.get(p, p): ruleset.order_from_json(o) for p, o in json.loads(row["orders"]).items()}
    return before, events, orders
