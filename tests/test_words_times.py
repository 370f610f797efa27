"""Every mail states a time one way: the deadline in UTC, then the reader's own
time zone in brackets, `Tuesday 12 January 2027, 18:00 UTC (Tuesday 12 January 2027,
13:00 America/New_York (EST))`. Refusals used to put the local time first with no space
before the bracket. One macro (templates/mail/_when.txt) words it; the test reads the
welcome, ack, refusal (a bad line and a late one), reminder, deadline notice, report and
calendar entry of players in two zones."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
from campaignkit import PLAIN_PLAYERS, CampaignKit

from gm.campaign.schedule import move_deadline
from gm.campaign.turns import remind, resolve

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
_DAY = r"[A-Z][a-z]+day \d\d [A-Z][a-z]+ \d{4}, \d\d:\d\d"
UTC_TIME = re.compile(rf"({_DAY}) UTC")
LOCAL_TIME = re.compile(rf"({_DAY}) ([A-Za-z_]+/[A-Za-z_]+) \(([A-Z]{{3,5}})\)")
FORMAT = "%A %d %B %Y, %H:%M"


def stated_times(text: str) -> list[datetime]:
    """Every time `text` states in a reader's zone, each checked to be stated the one way:
    `<UTC time> (<the same moment in the zone>)`."""
    text = " ".join(text.split())  # a line break is a space
    assert ")(" not in text, text
    found = []
    for local in LOCAL_TIME.finditer(text):
        before = text[: local.start()]
        utc = UTC_TIME.search(before[-40:])
        assert utc is not None and before.endswith(utc.group(0) + " ("), f"not stated as UTC (local): {text}"
        assert text[local.end():].startswith(")"), text
        zone = ZoneInfo(local.group(2))
        at_utc = datetime.strptime(utc.group(1), FORMAT).replace(tzinfo=ZoneInfo("UTC"))
        at_local = datetime.strptime(local.group(1), FORMAT).replace(tzinfo=zone)
        assert at_utc == at_local and at_local.tzname() == local.group(3), (utc.group(0), local.group(0))
        found.append(at_utc)
    return found


def words_of(message) -> list[str]:
    """What a reader reads of a mail: its text part, its HTML part as text, the
    description of an attached calendar entry."""
    texts = [message.get_body(("plain",)).get_content()]
    page = message.get_body(("html",)).get_content()
    texts.append(html.unescape(re.sub(r"<[^>]+>", "", page)))
    for part in message.iter_attachments():
        if part.get_content_type() == "text/calendar":
            calendar = icalendar.Calendar.from_ical(part.get_content())
            texts += [str(event["description"]) for event in calendar.walk("VEVENT")]
    return texts


def test_every_mail_states_a_deadline_as_utc_then_the_readers_zone(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    with kit.campaign() as campaign:
        first = campaign.deadline()
    kit.at(first - timedelta(days=2))
    kit.order("dave", ["NUMBER 3"])  # an ack
    kit.order("dave", ["NUMBER 9"])  # a refusal that gives the deadline
    with kit.campaign() as campaign:
        remind(campaign)  # bob has sent nothing
        later = move_deadline(campaign, "+1d")  # everyone is told
    kit.at(later + timedelta(hours=1))
    kit.order("bob", ["NUMBER 2"])  # late: refused, saying the deadline it missed
    with kit.campaign() as campaign:
        resolve(campaign, force=True)  # reports with the next deadline and its calendar entry
        second = campaign.deadline()

    seen: dict[tuple[str, str], set[datetime]] = {}
    for message in kit.outbox():
        if message.player not in ("bob", "dave"):
            continue
        for text in words_of(message):
            seen.setdefault((message.kind, message.player), set()).update(stated_times(text))
    assert seen[("welcome", "dave")] == {first}
    assert seen[("ack", "dave")] == seen[("refusal", "dave")] == {first}
    assert seen[("reminder", "bob")] == {first}
    assert seen[("refusal", "bob")] == {later}  # "the deadline for turn 1 was ..."
    assert seen[("report", "bob")] == seen[("report", "dave")] == {second}
    notices = {kind for kind, player in seen if player == "dave"} - {"welcome", "ack", "refusal", "report"}
    assert notices and all(seen[(kind, "dave")] == {later} for kind in notices), seen
    # a reader with no zone of their own and a campaign in UTC: UTC alone, no brackets
    alice = [m for m in kit.outbox(player="alice") if m.kind == "report"][-1]
    assert not any(stated_times(text) for text in words_of(alice))
    assert f"Deadline: {second.strftime(FORMAT)} UTC\r\n" in alice.get_body(("plain",)).get_content()


def test_no_template_states_a_deadline_but_through_when():
    """The deadline's parts are read in templates/mail/_when.txt alone (subject lines use
    the short form, `deadline.short`, for the width of a mail app's list)."""
    found = []
    for path in sorted(TEMPLATES.rglob("*")):
        if not path.is_file() or path == TEMPLATES / "mail" / "_when.txt":
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(TEMPLATES)}:{n}" for n, line in enumerate(text.splitlines(), 1)
                  if re.search(r"deadline\.(?:utc|local)\b|\blocal or deadline\b", line)]
    assert found == []
