"""Where a ruleset came from. The game text commits to the distribution and
version a campaign's ruleset came from, the audit record names them (`ruleset_version`,
`ruleset_distribution`), and `gm audit` of an archive whose ruleset is not installed says
what to install; with another version installed it says which was played and which replayed.
The ruleset here is a real distribution, built and installed by pip (tests/rulesetdist.py)."""

from __future__ import annotations

import json
import shutil
from importlib.metadata import version

import pytest
from campaignkit import CampaignKit
from click.testing import CliRunner
from rulesetdist import forget, install_ruleset

from gm.audit.checks import Difference
from gm.audit.replay import Replayed, audit, load_record
from gm.audit.source import AUDIT_FILE
from gm.campaign.proof import distribution_of, install_line, ruleset_origin, ruleset_version
from gm.cli import cli
from gm.rules.postal import Postal

HOUSE = {"distribution": "gm-house-postal", "package": "house_postal", "ruleset": "housepostal"}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A campaign of `housepostal` (gm-house-postal 0.3.0, pip-installed) played to its end and
    revealed: its archive folder, and where the distribution is installed."""
    base = tmp_path_factory.mktemp("origin")
    site = install_ruleset(base / "plugin", version="0.3.0", **HOUSE)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        kit = CampaignKit.create(base / "c", setenv=patch.setenv, start=False)
        config = kit.folder / "campaign.yaml"
        config.write_text(config.read_text().replace("ruleset: postal", "ruleset: housepostal"))
        kit.start()
        kit.play_to_end()
        result = CliRunner().invoke(cli, ["-C", str(kit.folder), "reveal"])
        kit.close()
        assert result.exit_code == 0, result.output
    forget("house_postal")
    return kit.folder / "archive", site


def gm_audit(archive):
    return CliRunner().invoke(cli, ["audit", str(archive)])


def test_origin_a_built_in_comes_from_gm_and_its_game_text_says_so_as_before():
    assert ruleset_origin(Postal()) == ("gm", version("gm"))
    assert ruleset_version(Postal()) == f"gm {version('gm')}"  # the game text of every campaign so far


def test_origin_the_game_text_commits_to_the_distribution_the_ruleset_came_from(played):
    record = load_record(str(played[0]))
    assert record["ruleset"] == "housepostal"
    assert json.loads(record["game"]["text"])["ruleset_version"] == "gm-house-postal 0.3.0"


def test_origin_the_audit_record_names_the_distribution_and_its_version(played):
    record = load_record(str(played[0]))
    assert record["ruleset_version"] == "gm-house-postal 0.3.0"
    assert record["ruleset_distribution"] == {"name": "gm-house-postal", "version": "0.3.0"}


def test_origin_an_archive_replays_exactly_with_its_distribution_installed(played, monkeypatch):
    archive, site = played
    monkeypatch.syspath_prepend(str(site))
    try:
        result = gm_audit(archive)
    finally:
        forget("house_postal")
    assert result.exit_code == 0, result.output
    assert "replays exactly" in result.output and "is installed" not in result.output


def test_origin_gm_audit_without_the_ruleset_says_in_one_line_what_to_install(played):
    result = gm_audit(played[0])
    assert result.exit_code == 3
    assert result.output.startswith("Error: unknown ruleset 'housepostal'")
    assert ("the campaign was played with gm-house-postal 0.3.0: install it with "
            "pip install 'gm-house-postal==0.3.0', then audit again") in result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output


def test_origin_gm_audit_with_another_version_installed_says_which_was_played_and_which_replayed(
        played, tmp_path, monkeypatch):
    site = install_ruleset(tmp_path, version="0.4.0", **HOUSE)
    monkeypatch.syspath_prepend(str(site))
    try:
        result = gm_audit(played[0])
    finally:
        forget("house_postal")
    assert result.exit_code == 0, result.output
    assert ("the campaign was played with gm-house-postal 0.3.0; gm-house-postal 0.4.0 is installed and replayed "
            "it (pip install 'gm-house-postal==0.3.0' replays it with the rules played)") in " ".join(result.output.split())


def test_origin_a_record_whose_distribution_is_not_its_ruleset_version_is_a_finding(played, monkeypatch):
    record = load_record(str(played[0]))
    record["ruleset_distribution"] = {"name": "gm-house-postal", "version": "9.9"}
    monkeypatch.syspath_prepend(str(played[1]))
    try:
        found = audit(record)
    finally:
        forget("house_postal")
    assert isinstance(found, Difference) and found.what.startswith("ruleset_distribution")
    assert found.expected == {"name": "gm-house-postal", "version": "0.3.0"}


def test_origin_a_record_of_gm_audit_2_written_before_the_distribution_was_named_replays(played, monkeypatch):
    record = load_record(str(played[0]))
    del record["ruleset_distribution"]
    monkeypatch.syspath_prepend(str(played[1]))
    try:
        assert isinstance(audit(record), Replayed)
    finally:
        forget("house_postal")


def test_origin_a_record_naming_no_installable_distribution_puts_no_command_on_the_line(played, tmp_path):
    """A forged record must not put a quote or `;` on an auditor's command line."""
    copy = tmp_path / "archive"
    shutil.copytree(played[0], copy)
    record = json.loads((copy / AUDIT_FILE).read_text())
    record["ruleset_version"] = "x';touch${IFS}owned;' 1.0"
    (copy / AUDIT_FILE).write_text(json.dumps(record))
    result = gm_audit(copy)
    assert result.exit_code == 3 and "unknown ruleset 'housepostal'" in result.output
    assert "pip install" not in result.output


def test_origin_the_install_line_of_a_ruleset_no_distribution_declared_names_no_version():
    assert distribution_of("house unknown") == {"name": "house", "version": None}
    assert install_line(distribution_of("house unknown")) == "pip install 'house'"
    assert install_line(distribution_of("gm-pig-race 0.1.0")) == "pip install 'gm-pig-race==0.1.0'"
