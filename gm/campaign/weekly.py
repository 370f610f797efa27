"""`gm turn`: the GM's weekly command, run by hand or from cron. Ingest, resolve when due,
send, publish, each step reporting in one line. Every step is safe to rerun, so after a
failure the next run picks up where this one stopped, and a turn is never resolved twice:
once resolved, the next turn is not due until its own deadline or until every order is in
(in classic and doubles, where nobody has to write, only at its deadline)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import jinja2

from .. import clock
from ..errors import GmError
from ..templating import template_problem
from .deadlines import deadline_text
from .folder import Campaign
from .turns import OrderStatus, Resolution, awaited, order_statuses, refusal, resolve


@dataclass
class TurnRun:
    lines: list[str] = field(default_factory=list)
    resolved: bool = False
    refused: str | None = None  # why resolve refused (the GM must act)
    paused: bool = False  # resolved nothing because the campaign is paused (not a failure)


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
        # classic, doubles (RULES.md 4.5): nobody has to write, so no message makes the turn
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
    refused = refusal(campaign, state, statuses, force=_early(campaign, statuses))
    return f"refuses turn {state.turn}: {refused}" if refused else f"resolves turn {state.turn}"


def _early(campaign: Campaign, statuses: list[OrderStatus] | None = None) -> bool:
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


def run_turn(
    campaign: Campaign,
    *,
    force: bool = False,
    ingest: Callable[[Campaign], str],
    send: Callable[[Campaign], str],
    publish: Callable[[Campaign], str] | None = None,
) -> TurnRun:
    """One whole turn. Each step is passed in and returns its one-line summary, so the CLI
    can wrap steps in progress bars and the demo runs exactly the same path.

    A paused campaign still has its mail read and answered (each order with a refusal
    saying it is paused), its mail sent (the pause notices first of all) and its archive
    published; only the resolve step does nothing (CONTRACT.md: `gm turn` runs from cron,
    and a pause is no failure). --force resolves nothing while paused either."""
    run = TurnRun()
    with _template_stops(run, "ingest"):
        run.lines.append(ingest(campaign))
    if not campaign.started():
        # RULES.md 3.1: before gm start, cron's gm turn answers the sign-ups and publishes
        # the game's front page; there is nothing to resolve (and no failure in that)
        run.lines.append(f"resolve: {NOT_STARTED}")
    elif campaign.paused():
        run.paused = True
        run.lines.append(f"resolve: {PAUSED}" + (" (--force too)" if force else ""))
    else:
        with _template_stops(run, "resolve"):
            _resolve_step(campaign, run, force=force)
    with _template_stops(run, "send"):
        run.lines.append(send(campaign))
    if publish is not None:
        with _template_stops(run, "publish"):
            run.lines.append(publish(campaign))
    return run


@contextmanager
def _template_stops(run: TurnRun, step: str) -> Iterator[None]:
    """A template that fails (a ruleset's words: a filter it lacks, a name its context
    lacks) stops the turn in one line naming the template, the step and what the steps
    before it did (a resolve queues its reports in its own transaction: a failing one
    resolved nothing), so the GM knows whether the turn was resolved and sent."""
    try:
        yield
    except jinja2.TemplateError as error:
        done = "; ".join(run.lines) or "nothing"
        raise GmError(f"{step} stopped by {template_problem(error)}. Done before it: {done}. Fix the "
                      "template, then run gm turn again: it picks up where this stopped") from None


def _resolve_step(campaign: Campaign, run: TurnRun, *, force: bool) -> None:
    ready, why = due(campaign)
    if not (ready or (force and not campaign.state().over)):
        run.lines.append(f"resolve: not yet: {why}")
        return
    try:
        resolution = resolve(campaign, force=force or _early(campaign))
    except GmError as error:
        run.refused = str(error)
        run.lines.append(f"resolve: refused: {error}")
    else:
        run.resolved = True
        run.lines.append(resolved_summary(resolution))


def resolved_summary(resolution: Resolution) -> str:
    state = resolution.result.state
    first, last = resolution.turn, state.turn - 1
    turns = f"turns {first}-{last}" if last > first else f"turn {first}"
    tail = "the campaign is over" if state.over else f"next: turn {state.turn}"
    return f"resolve: {turns} resolved, reports queued; {tail}"
