"""campaign.yaml is read and checked against the start every time a campaign is opened: a
change that leaves the campaign as it was (a comment) opens it as before, a change to what
gm start fixed is refused."""

from __future__ import annotations

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit

from gm.campaign.folder import Campaign
from gm.errors import GmError


@pytest.fixture
def kit(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    yield kit
    kit.close()


def opened_config(folder):
    campaign = Campaign.open(folder)
    try:
        return campaign.config
    finally:
        campaign.close()


def test_a_changed_campaign_yaml_is_parsed_again_and_still_checked_against_the_start(kit):
    kit.close()
    first = opened_config(kit.folder)
    path = kit.folder / "campaign.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text("# a comment changes the bytes, not the campaign\n" + text, encoding="utf-8")
    assert opened_config(kit.folder).players == first.players
    path.write_text(text.replace("alice@example.org", "alice@example.net"), encoding="utf-8")
    with pytest.raises(GmError, match="differs from what gm start fixed"):
        opened_config(kit.folder)
