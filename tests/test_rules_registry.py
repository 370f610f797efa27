"""The ruleset registry: gm's own rulesets, rulesets other packages install under the
entry point group `gm.rulesets`, and a clear refusal of an unknown name."""

from __future__ import annotations

import sys

import pytest

from gm.campaign.config import load_config
from gm.errors import ConfigError
from gm.rules import registry
from gm.rules.postal import Postal


def test_registry_finds_postal_and_lists_it_as_known():
    assert isinstance(registry.find_ruleset("postal"), Postal)
    assert "postal" in registry.known()


def test_registry_an_unknown_ruleset_is_refused_with_the_known_ones(tmp_path):
    (tmp_path / "b.yaml").write_text("squares: 10\n")
    (tmp_path / "campaign.yaml").write_text(
        "id: x\nruleset: chess\nboards: {A: b.yaml}\nplayers:\n  - {id: ann, name: Ann, email: ann@example.org}\n")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path)
    known = ", ".join(sorted(registry.known()))
    assert {"postal", "classic", "doubles", "advanced"} <= set(registry.known())
    assert f"line 2: unknown ruleset 'chess' (known: {known})" in error.value.problems


def test_registry_a_ruleset_installed_by_another_package_is_found_by_its_entry_point(tmp_path, monkeypatch):
    """A real distribution on sys.path (a dist-info folder with entry_points.txt), as pip
    would install a GM's house-rules package."""
    (tmp_path / "houserules.py").write_text(
        "from gm.rules.postal import Postal\n\nclass House(Postal):\n    name = 'house'\n")
    info = tmp_path / "houserules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: houserules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[gm.rulesets]\nhouse = houserules:House\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "house" in registry.known()
    assert type(registry.find_ruleset("house")).__name__ == "House"
    sys.modules.pop("houserules", None)


def test_registry_reads_the_installed_packages_once_per_process_not_per_template(tmp_path, monkeypatch):
    """Issue 26/27: each template lookup asks for its ruleset; scanning every installed
    package each time made a resolve hundreds of scans."""
    import importlib.metadata

    from campaignkit import CampaignKit

    scans = []
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: scans.append(kw) or real(**kw))
    registry._entry_points.cache_clear()
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    kit.play_turn()
    kit.play_turn()
    assert kit.state().turn == 3
    assert len(scans) <= 1
