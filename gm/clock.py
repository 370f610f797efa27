"""The one place gm asks what time it is. The environment variable GM_NOW (ISO 8601) makes
every command take a chosen moment for the present, so that tests, the demo and a GM
replaying a campaign run turns at chosen moments instead of waiting for real weeks to
pass (docs/commands.md says what it changes and what it does not)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import GmError


def parse_time(text: str) -> datetime:
    """An ISO 8601 time; a time without a zone is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise GmError(f"not a date and time: {text!r} (write e.g. 2027-03-28T18:00+01:00)") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


_fixed: list[datetime] = []


def now() -> datetime:
    if _fixed:
        return _fixed[-1]
    fixed = os.environ.get("GM_NOW")
    if not fixed:
        return datetime.now(UTC)
    try:
        return parse_time(fixed)
    except GmError:
        # said as what it is: the GM's command named no time, the environment did
        raise GmError(f"GM_NOW is not a date and time: {fixed!r} (write e.g. 2027-03-28T18:00Z, "
                      "or unset it to use the clock)") from None


@contextlib.contextmanager
def frozen(moment: datetime) -> Iterator[None]:
    """Run a block at a chosen moment (the demo's weeks pass in a second)."""
    _fixed.append(moment)
    try:
        yield
    finally:
        _fixed.pop()


def utc_day(now: datetime) -> str:
    """The calendar day in UTC of `now` (YYYY-MM-DD): the day the caps, failed password
    checks and press limits count in."""
    return now.astimezone(UTC).date().isoformat()


def iso(moment: datetime) -> str:
    """UTC, to the second, as stored in the database."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def days_later(moment: datetime, days: float, zone: str) -> datetime:
    """`days` after `moment`. A whole number of days is counted on the clock of `zone`, so a
    deadline keeps its local time across a clock change (Monday 09:00 in London is Monday
    09:00 the week after summer time starts, 08:00 UTC instead of 09:00); a fraction of a
    day (`turn_days: 3.5`) is counted in hours, 84 of them, and moves on the local clock
    when the clocks change. A local time the change skips (01:30 on the morning the clocks
    go forward) is taken as the moment an hour later on the new clock."""
    if float(days) != int(days):
        return moment + timedelta(days=days)
    # an aware datetime plus a timedelta moves its wall-clock time; the offset is then the
    # zone's at the new time
    local = moment.astimezone(ZoneInfo(zone)) + timedelta(days=int(days))
    return local.astimezone(UTC)


def parse_local(text: str, zone: str, now: datetime) -> datetime:
    """A time as a GM writes it: `2027-03-28 18:00` in `zone` unless it names its own,
    or `+3d` / `+12h` from now (`+3d` keeps the local time in `zone`: days_later)."""
    text = str(text).strip()
    if text.startswith("+") and text[-1:] in ("d", "h") and text[1:-1].replace(".", "", 1).isdigit():
        amount = float(text[1:-1])
        return days_later(now, amount, zone) if text[-1] == "d" else now + timedelta(hours=amount)
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise GmError(f"not a date and time: {text!r} (write 2027-03-28 18:00, or +7d, or +12h)") from None
    return value if value.tzinfo else value.replace(tzinfo=ZoneInfo(zone))


# docs/campaign.md, Time zones: a time zone is an IANA name with a region, `Europe/London` or
# `America/Argentina/Buenos_Aires`: its area is one of IANA's continents and oceans. Not
# `localtime` or `Factory` (what the machine happens to hold, or no zone at all), not a
# bare offset (`Etc/GMT+2` means UTC-2) and not a legacy name (`EST5EDT`, `US/Eastern`).
# `UTC` and `Etc/UTC`, which gm writes itself (`gm init`) and campaigns use, stay.
ZONE_AREAS = frozenset({"Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
                        "Indian", "Pacific"})
ZONES_WITHOUT_REGION = frozenset({"UTC", "Etc/UTC"})
ZONE_EXAMPLE = "an IANA time zone with a region, such as Europe/London or America/New_York, or UTC"


def is_zone(name: object) -> bool:
    """Whether `name` is a time zone gm accepts (ZONE_AREAS) and this machine knows."""
    if not isinstance(name, str):
        return False
    area, slash, _ = name.partition("/")
    if name not in ZONES_WITHOUT_REGION and not (slash and area in ZONE_AREAS):
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
