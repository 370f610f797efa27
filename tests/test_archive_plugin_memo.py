"""A publish keeps pages under a key of the code that draws them (gm.publish.memo).
A house ruleset's own templates and rules page draw its pages too: editing them must make
its kept pages stale, exactly as a change to gm's own templates does."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_ruleset_files import ARCHIVE_MARK, play_toy_campaign, toy_files
from toyrules import Step

from gm.campaign.folder import Campaign
from gm.cli import cli
from gm.publish.archive import build_site
from gm.publish.archive_load import load_archive
from gm.publish.memo import Memo, campaign_code_digest, code_digest
from gm.rules import registry
from gm.rules.files import lineage


@pytest.fixture
def toy_package(tmp_path):
    """The toy ruleset `toysteps` with its own templates and rules page, registered as a
    plugin would be; yields its package folder."""
    package = tmp_path / "toysteps_pkg"
    files = toy_files(package)
    registry.register(type("ToySteps", (Step,), {"name": "toysteps", "starter_board": "toy-lane.yaml", **files}))
    yield package
    registry.unregister("toysteps")


def publish(folder) -> str:
    result = CliRunner().invoke(cli, ["-C", str(folder), "publish"], env={"GM_NOW": "2027-03-01T00:00:00Z"})
    assert result.exit_code == 0, result.output
    return result.output


def test_editing_a_plugins_archive_template_re_renders_its_kept_turn_pages(toy_package, tmp_path):
    folder = tmp_path / "toy"
    play_toy_campaign(folder)  # published once: every page kept under its key
    page = folder / "archive" / "turn-001.html"
    assert ARCHIVE_MARK in page.read_text()
    template = toy_package / "templates" / "archive" / "toysteps" / "_turn_body.html"
    template.write_text('<p class="toy-edited-body">Turn {{ label }}, told anew.</p>\n')
    publish(folder)
    assert "toy-edited-body" in page.read_text()
    assert ARCHIVE_MARK not in page.read_text()


def test_editing_a_plugins_rules_page_re_renders_the_archives_rules_page(toy_package, tmp_path):
    folder = tmp_path / "toy"
    play_toy_campaign(folder)
    (toy_package / "rules.md").write_text("# Toy Steps, second edition\n\nStep up to four squares.\n")
    publish(folder)
    assert "second edition" in (folder / "archive" / "rules.html").read_text()


def test_a_plugins_templates_and_rules_are_part_of_its_campaigns_code_digest(toy_package):
    rulesets = lineage("toysteps")
    before, postal = campaign_code_digest(rulesets), campaign_code_digest(lineage("postal"))
    assert before != code_digest()
    (toy_package / "templates" / "mail" / "toysteps" / "_turn.txt").write_text("{# edited #}\n")
    after_template = campaign_code_digest(rulesets)
    (toy_package / "rules.md").write_text("# Toy Steps\n\nEdited.\n")
    after_rules = campaign_code_digest(rulesets)
    assert len({before, after_template, after_rules}) == 3
    # a plugin's files key its own campaigns' pages, no other ruleset's
    assert campaign_code_digest(lineage("postal")) == postal


def test_a_memo_opened_with_its_campaigns_lineage_keys_pages_as_the_publish_did(toy_package, tmp_path):
    # benchmarks and tools open a campaign's memo with its ruleset's lineage, as gm publish
    # does: the pages gm publish just kept (a plugin's templates in their key) are fresh to it
    folder = tmp_path / "toy"
    play_toy_campaign(folder)
    campaign = Campaign.open(folder)
    try:
        memo = Memo(campaign.store, folder / "archive", lineage(campaign.ruleset))
        pages = [page for page in build_site(load_archive(campaign, memo)) if page.digest is not None]
        assert pages and all(memo.fresh(page) for page in pages)
    finally:
        campaign.close()
