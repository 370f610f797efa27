"""The ruleset registry: gm's own rulesets, rulesets other packages install under the
entry point group `gm.rulesets`, and a clear refusal of an unknown name."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner
from rulesetdist import forget, install_ruleset

from gm.campaign.config.reading import load_config
from gm.cli import cli
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
    """each template lookup asks for its ruleset; scanning every installed
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


# -- gm's own rulesets and a package's, found the same way ---------------------------


@pytest.fixture(scope="module")
def house_site(tmp_path_factory):
    """gm-house-postal 0.3.0, installed by pip into a folder of its own: ruleset `housepostal`,
    a Postal whose package has no robot module (Postal's robots play it)."""
    return install_ruleset(tmp_path_factory.mktemp("house"), distribution="gm-house-postal", version="0.3.0",
                           package="house_postal", ruleset="housepostal")


def test_registry_gm_declares_its_own_rulesets_as_entry_points_like_any_package():
    """BUILT_IN is the look-up before the entry points are read (and the checkout's
    fallback): it must say exactly what gm's pyproject.toml declares."""
    from importlib.metadata import distribution

    declared = {p.name: p.value for p in distribution("gm").entry_points if p.group == registry.ENTRY_POINT_GROUP}
    assert declared == registry.BUILT_IN


def test_registry_origin_of_a_built_in_is_gm_at_its_installed_version():
    from importlib.metadata import version

    assert registry.origin("postal") == ("gm", version("gm"))
    assert registry.origin("unleashed") == ("gm", version("gm"))


def test_registry_a_ruleset_registered_at_run_time_has_no_origin():
    from toyrules import Step

    registry.register(Step)
    try:
        assert registry.origin("step") is None
    finally:
        registry.unregister("step")
    with pytest.raises(registry.UnknownRuleset):
        registry.origin("step")


def test_registry_a_built_in_is_found_without_reading_the_installed_packages():
    """Reading the entry points costs every command ~20 ms (importlib.metadata and a scan of
    every installed distribution): a campaign of gm's own never pays it."""
    import subprocess

    code = ("import sys\nfrom gm.rules.registry import find_ruleset\nfind_ruleset('postal')\n"
            "print('importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_registry_a_distribution_installed_by_pip_is_found_by_one_scan_with_its_origin(house_site, monkeypatch):
    import importlib.metadata

    scans = []
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: scans.append(kw) or real(**kw))
    monkeypatch.syspath_prepend(str(house_site))
    try:
        assert "housepostal" in registry.known()
        first, second = registry.find_ruleset("housepostal"), registry.find_ruleset("housepostal")
        assert type(first).__module__ == "house_postal" and isinstance(second, Postal)
        assert registry.origin("housepostal") == ("gm-house-postal", "0.3.0")
        assert registry.origin("postal")[0] == "gm"
        assert len(scans) == 1
    finally:
        forget("house_postal")


def test_registry_a_distribution_taken_off_sys_path_is_no_longer_known(house_site, monkeypatch):
    with monkeypatch.context() as patch:
        patch.syspath_prepend(str(house_site))
        assert registry.origin("housepostal") == ("gm-house-postal", "0.3.0")
    forget("house_postal")
    assert "housepostal" not in registry.known()
    with pytest.raises(registry.UnknownRuleset):
        registry.find_ruleset("housepostal")


# -- gm demo plays what the registry knows --------------------------------------------------


def test_demo_offers_an_installed_ruleset_that_has_robots(house_site, monkeypatch):
    from gm.demo.run import rulesets

    assert rulesets()[:5] == ("postal", "classic", "doubles", "advanced", "unleashed")
    monkeypatch.syspath_prepend(str(house_site))
    try:
        result = CliRunner().invoke(cli, ["demo", "--help"])
        assert result.exit_code == 0
        assert "|housepostal" in result.output.replace("\n", "").replace(" ", "")
    finally:
        forget("house_postal")


def test_demo_refuses_a_known_ruleset_without_robots_in_one_line(tmp_path):
    from toyrules import Step

    registry.register(Step)
    try:
        result = CliRunner().invoke(cli, ["demo", str(tmp_path / "toy"), "--ruleset", "step"])
    finally:
        registry.unregister("step")
    assert result.exit_code == 1
    assert result.output.startswith("Error: the step ruleset has no robots for gm demo (it plays postal, classic")
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "toy").exists()


@pytest.fixture
def broken_site(tmp_path, monkeypatch):
    """gm-broken 0.1 on sys.path (a dist-info folder, as pip leaves one): its entry point
    names a module that raises when imported, as a package with a bug or a missing
    dependency does."""
    (tmp_path / "broken_ruleset.py").write_text("raise RuntimeError('oops in the plugin')\n")
    info = tmp_path / "gm_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gm-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gm.rulesets]\nbroken = broken_ruleset:Broken\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_noted", set())  # each test's tool notes it afresh
    yield
    sys.modules.pop("broken_ruleset", None)


def test_registry_an_installed_ruleset_that_fails_to_load_is_refused_in_one_line_naming_its_package(
        broken_site, tmp_path):
    assert "broken" in registry.known()
    with pytest.raises(registry.RulesetUnavailable) as error:
        registry.find_ruleset("broken")
    assert str(error.value) == ("the ruleset 'broken' (gm-broken 0.1) cannot be loaded: "
                                "RuntimeError: oops in the plugin")
    result = CliRunner().invoke(cli, ["campaign", "new", str(tmp_path / "camp"), "--ruleset", "broken"])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: {error.value}"
    assert not (tmp_path / "camp").exists()


def test_registry_a_broken_installed_ruleset_stops_no_other_ruleset(broken_site, tmp_path):
    """One package that fails to load must not stop a GM's board analysis, demo or campaign
    of another ruleset: the tool passes over it with a one-line note on stderr."""
    from gm.resources import shipped

    note = ("note: the ruleset 'broken' (gm-broken 0.1) cannot be loaded: RuntimeError: oops in the plugin; "
            "left out")
    board = str(shipped("boards") / "milton-bradley.yaml")
    analysed = CliRunner().invoke(cli, ["board", "analyze", board, "--json"])
    assert analysed.exit_code == 0, analysed.output
    assert "postal" in analysed.stdout and "broken" not in analysed.stdout
    assert analysed.stderr.splitlines() == [note]
    registry._noted.clear()
    demo = CliRunner().invoke(cli, ["demo", "--help"])
    assert demo.exit_code == 0 and "postal" in demo.stdout and "broken" not in demo.stdout
    assert demo.stderr.splitlines() == [note]
    assert registry.board_ruleset(["squares"]) == registry.DEFAULT
