"""A campaign's deadlines: the next one, and one as mail and the terminal show it."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from .. import clock

if TYPE_CHECKING:
    from .config.values import CampaignConfig


def next_deadline(config: CampaignConfig, after: datetime) -> datetime:
    """`turn_days` after `after`, whole days counted in the campaign's time zone, so that a
    weekly deadline stays at the hour its players know when the clocks change (docs/campaign.md
    `turn_days`)."""
    return clock.days_later(after, config.turn_days, config.timezone)


def deadline_text(deadline: datetime | None, zone: str | None = None) -> dict[str, str | None] | None:
    """A deadline in UTC and, when given, in a zone: for mail and the terminal."""
    if deadline is None:
        return None
    utc = deadline.astimezone(ZoneInfo("UTC"))
    result = {"utc": utc.strftime("%A %d %B %Y, %H:%M UTC"), "iso": clock.iso(deadline), "local": None}
    if zone and zone != "UTC":
        local = deadline.astimezone(ZoneInfo(zone))
        result["local"] = local.strftime(f"%A %d %B %Y, %H:%M {zone} (%Z)")
    return result
