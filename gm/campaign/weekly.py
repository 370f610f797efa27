"""`gm turn`: the GM's weekly command. Ingest, resolve when due, send, publish, each step
reporting in one line. Every step is safe to rerun, so after a failure the next run picks
up where this one stopped, and a turn is never resolved twice: once resolved, the next
turn is not due until its own deadline or until every order is in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .. import clock
from ..errors import GmError
from .campaign import Campaign, deadline_text
from .turns import Resolution, awaited, resolve


@dataclass
class TurnRun:
    lines: list[str] = field(default_factory=list)
    resolved: bool = False
    refused: str | None = None  # why resolve refused (the GM must act)


def due(campaign: Campaign) -> tuple[bool, str]:
    """Whether the current turn may be resolved now, and if not, why not."""
    state = campaign.state()
    if state.over:
        return False, "the campaign is over"
    deadline = campaign.deadline()
    if deadline is not None and clock.now() >= deadline:
        return True, ""
    missing = awaited(campaign)
    if not missing:
        return True, ""
    when = deadline_text(deadline, campaign.config.timezone)
    shown = (when["local"] or when["utc"]) if when else "none set"
    return False, f"turn {state.turn} waits for {', '.join(missing)}; deadline {shown}"


def run_turn(
    campaign: Campaign,
    *,
    force: bool = False,
    ingest: Callable[[Campaign], str],
    send: Callable[[Campaign], str],
    publish: Callable[[Campaign], str] | None = None,
) -> TurnRun:
    """One whole turn. Each step is passed in and returns its one-line summary, so the CLI
    can wrap steps in progress bars and the demo runs exactly the same path."""
    if campaign.paused():
        # CONTRACT.md: a paused campaign refuses `gm turn` whole; `gm ingest` and `gm send`
        # still answer the mail that comes meanwhile, with a refusal saying it is paused
        raise GmError("the campaign is paused: nothing is resolved until gm resume [WHEN] "
                      "(gm ingest and gm send still answer mail meanwhile)")
    run = TurnRun()
    run.lines.append(ingest(campaign))
    ready, why = due(campaign)
    if ready or (force and not campaign.state().over):
        try:
            # due before the deadline means every order is in: nothing left to guard
            early = not awaited(campaign)
            resolution = resolve(campaign, force=force or early)
        except GmError as error:
            run.refused = str(error)
            run.lines.append(f"resolve: refused: {error}")
        else:
            run.resolved = True
            run.lines.append(resolved_summary(resolution))
    else:
        run.lines.append(f"resolve: not yet: {why}")
    run.lines.append(send(campaign))
    if publish is not None:
        run.lines.append(publish(campaign))
    return run


def resolved_summary(resolution: Resolution) -> str:
    state = resolution.result.state
    first, last = resolution.turn, state.turn - 1
    turns = f"turns {first}-{last}" if last > first else f"turn {first}"
    tail = "the campaign is over" if state.over else f"next: turn {state.turn}"
    return f"resolve: {turns} resolved, reports queued; {tail}"
