"""`gm turn`: the GM's weekly command, run by hand or from cron, and its steps. Ingest,
resolve when due, send, publish, each step reporting in one line. Every step is safe to
rerun, so after a failure the next run picks up where this one stopped, and a turn is never
resolved twice: once resolved, the next turn is not due until its own deadline or until
every order is in (where nobody has to write, only at its deadline). The demo plays every
turn through `run_turn` too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import jinja2

from ..campaign.delivery import SendReport, send
from ..campaign.due import NOT_STARTED, PAUSED, due, early
from ..campaign.folder import Campaign
from ..campaign.ingest import ingest_mail
from ..campaign.notify import notify_step
from ..campaign.turns import resolve, resolved_summary
from ..counts import count, one_or_many
from ..errors import GmError
from ..progress import Progress
from ..publish.write import publish
from ..rules.templating import template_problem


@dataclass
class TurnRun:
    lines: list[str] = field(default_factory=list)
    resolved: bool = False
    refused: str | None = None  # why resolve refused (the GM must act)
    paused: bool = False  # resolved nothing because the campaign is paused (not a failure)


def run_turn(campaign: Campaign, *, force: bool = False) -> TurnRun:
    """One whole turn: ingest, resolve when due, send, publish.

    A paused campaign still has its mail read and answered (each order with a refusal
    saying it is paused), its mail sent (the pause notices first of all) and its archive
    published; only the resolve step does nothing (`gm turn` runs from cron, and a pause is
    no failure). --force resolves nothing while paused either."""
    run = TurnRun()
    with _template_stops(run, "ingest"):
        run.lines.append(ingest_mail(campaign).summary())
    if not campaign.started():
        # before gm start, cron's gm turn answers the sign-ups and publishes the game's
        # front page (docs/campaign.md); there is nothing to resolve, and no failure in that
        run.lines.append(f"resolve: {NOT_STARTED}")
    elif campaign.paused():
        run.paused = True
        run.lines.append(f"resolve: {PAUSED}" + (" (--force too)" if force else ""))
    else:
        with _template_stops(run, "resolve"):
            _resolve_step(campaign, run, force=force)
    with _template_stops(run, "send"):
        run.lines.append(send_summary(run_send(campaign)))
    with _template_stops(run, "publish"):
        run.lines.append(publish_step(campaign))
    # after publishing, so a notification never names what the archive does not yet show
    notified = notify_step(campaign)
    if notified:
        run.lines.append(notified)
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
        resolution = resolve(campaign, force=force or early(campaign))
    except GmError as error:
        run.refused = str(error)
        run.lines.append(f"resolve: refused: {error}")
    else:
        run.resolved = True
        run.lines.append(resolved_summary(resolution))


def run_send(campaign: Campaign) -> SendReport:
    return send(campaign, progress=Progress("sending"))


def send_summary(report: SendReport) -> str:
    line = f"send: {report.sent} delivered"
    if report.temporary:
        line += (f", {report.temporary} kept for the next run "
                 f"({one_or_many(report.temporary, 'a temporary failure', 'temporary failures')})")
    if report.permanent:
        line += f", {len(report.permanent)} refused for good"
    return line


def publish_step(campaign: Campaign) -> str:
    where, report = publish(campaign)
    return (f"publish: {where / 'index.html'} ({count(len(report.written), 'page')} written, "
            f"{len(report.unchanged)} unchanged)")
