"""What `pip install gm` gives a user: gm's wheel, built by `python -m build` from the
project's own files, installed into a fresh virtual environment and run from a folder
outside the checkout, has the templates, boards and docs its commands need, says its
version and runs as `python -m gm` too. One wheel and one environment for the module."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gm import __version__

ROOT = Path(__file__).resolve().parent.parent
# what the wheel is built from: pyproject's packages and the `gm.data` package (".": the
# templates, boards and docs folders); copied out so the build leaves nothing in the checkout
SOURCES = ("pyproject.toml", "README.md", "gm", "templates", "boards", "docs")


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GM_CAMPAIGN")}
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh environment's bin folder, a folder outside the checkout to run in)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(path, source / name)
    run(sys.executable, "-m", "build", "--wheel", "--outdir", base / "dist", source, cwd=base)
    (wheel,) = (base / "dist").glob("gm-*.whl")
    assert wheel.name.startswith(f"gm-{__version__}-")
    run(sys.executable, "-m", "venv", base / "venv", cwd=base)
    bin_dir = base / "venv" / "bin"
    run(bin_dir / "python", "-m", "pip", "install", "-q", wheel, cwd=base)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return bin_dir, elsewhere


def test_the_installed_gm_says_the_release_it_is(installed):
    bin_dir, elsewhere = installed
    assert run(bin_dir / "gm", "--version", cwd=elsewhere).stdout.split()[-1] == __version__
    assert run(bin_dir / "python", "-m", "gm", "--version", cwd=elsewhere).stdout.split()[-1] == __version__


def test_the_installed_gm_runs_from_its_own_files_not_the_checkout(installed):
    bin_dir, elsewhere = installed
    where = run(bin_dir / "python", "-c", "import gm, gm.resources as r; print(gm.__file__); print(r.shipped('templates'))",
                cwd=elsewhere).stdout.split()
    assert all("site-packages" in line for line in where), where


def test_the_installed_gm_plays_a_whole_demo_with_its_rules_pages(installed):
    bin_dir, elsewhere = installed
    out = run(bin_dir / "gm", "demo", "unleashed-demo", "--ruleset", "unleashed", "--quiet", cwd=elsewhere).stdout
    assert "is over after" in out
    archive = elsewhere / "unleashed-demo" / "archive"
    assert (archive / "index.html").is_file() and (archive / "rules.html").is_file() and (archive / "audit.json").is_file()
    assert run(bin_dir / "gm", "audit", archive, cwd=elsewhere).stdout.startswith("ok:")


def test_the_installed_gm_writes_a_starter_campaign_with_its_board(installed):
    bin_dir, elsewhere = installed
    run(bin_dir / "python", "-m", "gm", "campaign", "new", "spring", "--ruleset", "postal", cwd=elsewhere)
    assert (elsewhere / "spring" / "campaign.yaml").is_file()
    assert list((elsewhere / "spring" / "boards").glob("*.yaml"))


def test_pyproject_tells_a_user_what_gm_is():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dynamic"] == ["version"] and "version" not in project
    for key in ("description", "license", "readme", "classifiers", "urls", "requires-python"):
        assert project.get(key), key
    assert "build" in " ".join(project["optional-dependencies"]["test"])
