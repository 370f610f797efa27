"""Absences and extension votes by mail (docs/rules/postal.md and docs/rules/classic.md,
Absences and extension votes; docs/campaign.md absence: and extend:). Driven by mail
through the CLI on the started three-player postal campaign of campaignfixtures (ann,
ben, cat; first deadline 2027-01-03 18:00 UTC, a week a turn) and on a classic one."""

from __future__ import annotations

import json

from handoverkit import outbox_of
from test_admin import text

from gm.campaign.folder import Campaign

NOW = "2027-01-01T10:00:00Z"
DATE = "Fri, 01 Jan 2027 10:00:00 +0000"


def send(campaign, player, lines, now=NOW, date=DATE):
    campaign("ingest", str(campaign.order(player, lines, date=date)), now=now)
    return outbox_of(campaign.folder, to=f"{player}@example.org")[-1]


def deadline(campaign) -> str:
    opened = Campaign.open(campaign.folder)
    try:
        return opened.row()["deadline"]
    finally:
        opened.close()


def test_absence_in_standing_mode_is_recorded_and_moves_no_deadline(campaign):
    reply = send(campaign, "ann", "ABSENCE 2027-01-02 2027-01-05\n")
    assert "Absence recorded: from 2027-01-02 to 2027-01-05 (4 days" in text(reply)
    assert "Deadlines do not move" in text(reply)
    assert deadline(campaign) == "2027-01-03T18:00:00Z"
    shown = json.loads(campaign("state", "--json", now=NOW))
    assert shown["absences"] == [{"player": "ann", "from": "2027-01-02", "until": "2027-01-05",
                                  "declared_at": "2027-01-01T10:00:00Z"}]
