"""The deadline as an iCalendar (.ics) file, attached to reports and reminders so a player
can put it in their calendar with one tap. Made with the `icalendar` library: folding,
escaping and line endings are its business, not ours."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

import icalendar

PRODID = "-//gm//Snakes and Ladders by email//EN"
ALARM_BEFORE = timedelta(hours=12)


def deadline_ics(
    *,
    uid: str,
    summary: str,
    description: str,
    deadline: datetime,
    stamp: datetime,
    sequence: int = 0,
) -> bytes:
    """One event at the deadline (a quarter of an hour long, so calendars show it) with a
    reminder half a day before. The same `uid` for the same turn lets a later mail (a
    reminder, a moved deadline) update the entry instead of adding a second one.

    A turn's reports differ only in their UID (and the deadline in the player's zone):
    the rest is built once and the UID line, folded by icalendar alone, put in its place
    (tests/test_reports.py checks the bytes against a whole build)."""
    shared = _calendar(_UID, summary, description, deadline, stamp, sequence)
    return shared.replace(_uid_line(_UID), _uid_line(uid), 1)


_UID = "gm-uid-placeholder"


def _uid_line(uid: str) -> bytes:
    event = icalendar.Event()
    event.add("uid", uid)
    return event.to_ical().removeprefix(b"BEGIN:VEVENT\r\n").removesuffix(b"END:VEVENT\r\n")


@lru_cache(maxsize=64)
def _calendar(uid: str, summary: str, description: str, deadline: datetime, stamp: datetime, sequence: int) -> bytes:
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", "PUBLISH")
    event = icalendar.Event()
    event.add("uid", uid)
    event.add("dtstamp", stamp)
    event.add("sequence", sequence)
    event.add("dtstart", deadline)
    event.add("dtend", deadline + timedelta(minutes=15))
    event.add("summary", summary)
    event.add("description", description)
    event.add("transp", "TRANSPARENT")
    alarm = icalendar.Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", summary)
    alarm.add("trigger", -ALARM_BEFORE)
    event.add_component(alarm)
    calendar.add_component(event)
    return calendar.to_ical()
