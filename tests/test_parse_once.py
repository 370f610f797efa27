"""A campaign's YAML files are parsed once per content (issue 27): opening a campaign again
takes campaign.yaml and its boards as parsed from its store (gm.yamlfile.parsed_once),
while any change to a file's bytes is parsed anew and checked against the start as ever."""

from __future__ import annotations

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit
from commandkit import gm_command

from gm import yamlfile
from gm.campaign.folder import Campaign
from gm.errors import GmError


@pytest.fixture
def kit(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    yield kit
    kit.close()


def counting_parses(monkeypatch) -> list[str]:
    """The first line of every YAML text gm parses from now on."""
    parsed: list[str] = []
    original = yamlfile.parse

    def parse(text: str):
        parsed.append(text.partition("\n")[0])
        return original(text)

    monkeypatch.setattr(yamlfile, "parse", parse)
    return parsed


def opened_config(folder):
    campaign = Campaign.open(folder)
    try:
        return campaign.config
    finally:
        campaign.close()


def test_a_campaign_opened_again_parses_none_of_its_unchanged_files(kit, monkeypatch):
    kit.close()
    first = opened_config(kit.folder)
    parsed = counting_parses(monkeypatch)
    again = opened_config(kit.folder)
    assert parsed == []
    assert again == first


def test_a_changed_campaign_yaml_is_parsed_again_and_still_checked_against_the_start(kit, monkeypatch):
    kit.close()
    opened_config(kit.folder)
    path = kit.folder / "campaign.yaml"
    text = path.read_text(encoding="utf-8")
    parsed = counting_parses(monkeypatch)
    path.write_text("# a comment changes the bytes, not the campaign\n" + text, encoding="utf-8")
    assert opened_config(kit.folder).players == opened_config(kit.folder).players
    assert parsed == ["# a comment changes the bytes, not the campaign"]
    path.write_text(text.replace("alice@example.org", "alice@example.net"), encoding="utf-8")
    with pytest.raises(GmError, match="differs from what gm start fixed"):
        opened_config(kit.folder)


def test_the_store_keeps_only_the_contents_last_read(kit):
    kit.close()
    opened_config(kit.folder)
    path = kit.folder / "campaign.yaml"
    path.write_text("# edited\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    campaign = Campaign.open(kit.folder)
    try:
        kept = campaign.store.rows("select key from parsed_files")
    finally:
        campaign.close()
    assert len(kept) == 3  # campaign.yaml as edited and the kit's two board files, not the first campaign.yaml


def test_a_command_on_a_campaign_opened_before_imports_no_yaml_parser(kit):
    kit.close()
    opened_config(kit.folder)
    _, modules = gm_command("-C", str(kit.folder), "status")
    assert "yaml" not in modules
