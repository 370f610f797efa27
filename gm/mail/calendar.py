"""The deadline as an iCalendar (.ics) file, so a player can put it in their calendar with
one tap. Made with the `icalendar` library: folding, escaping and line endings are its
business, not ours.

Who gets one (meets_deadline): a player who still has the deadline to meet, in the mails
that set or tell it: the welcome (gm start, and a seat's new holder), each turn's report,
a reminder, and the GM's notices that move it (`gm deadline`, `gm resume`). A player who
resigned, was dropped or has finished everything gets none, nor does anyone once the
campaign is over; observers never do (they have nothing to send). Replies to an order
(acknowledgements, refusals, help) carry none: they do not change the deadline, and the
entry the last such mail made still holds. One event per player and turn (the same UID):
each later file replaces it, its SEQUENCE counting the GM's moves of that deadline."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

import icalendar

from .mailout import render_text

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


def meets_deadline(ruleset: Any, setup: Any, state: Any, player: str, dropped: Collection[str] = ()) -> bool:
    """Whether `player` still has a deadline to meet, so a mail telling it carries the
    calendar file: the campaign goes on and the player is in play (the ruleset's word: not
    finished, resigned or out) and not dropped (gm player drop)."""
    return not state.over and player not in dropped and ruleset.in_play(setup, state, player)


Attachment = tuple[bytes, str, str, str]


def file_name(attachments: list[Attachment]) -> str | None:
    """The attached calendar file's name, for the mail's words (its `calendar`), or None."""
    return attachments[0][3] if attachments else None


def deadline_attachment(context: Mapping[str, Any], *, player: str, turn: int, deadline: datetime | None,
                        now: datetime, sequence: int = 0) -> list[Attachment]:
    """The deadline of `turn` for `player` as an .ics attachment, [] when there is none.
    `context` is the mail's own (campaign, title, ruleset, gm_address and the deadline as
    the player reads it): the calendar's words come from `calendar/<ruleset>/deadline.txt`,
    else `calendar/deadline.txt`. The UID is the same for the player and turn in every mail,
    so a later file updates the entry an earlier one made."""
    if deadline is None:
        return []
    campaign = context["campaign"]
    summary, description = render_text("calendar/deadline.txt", {**context, "next_turn": turn})
    domain = str(context["gm_address"]).rpartition("@")[2] or "gm.invalid"
    data = deadline_ics(uid=f"{campaign}-turn-{turn}-{player}@{domain}", summary=summary,
                        description=description, deadline=deadline, stamp=now, sequence=sequence)
    return [(data, "text", "calendar", f"{campaign}-turn-{turn}-deadline.ics")]
