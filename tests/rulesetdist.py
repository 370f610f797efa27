"""A ruleset package as a GM would install it: a real distribution, built and installed by
pip into a folder of its own (`pip install --no-deps --target`), whose `gm.rulesets` entry
point names a class derived from one of gm's. Put the folder on sys.path to have it
installed; take it off to have it missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{distribution}"
version = "{version}"

[project.entry-points."gm.rulesets"]
{entry_points}

[tool.setuptools]
packages = [{packages}]
"""
MODULE = """\
from {base_module} import {base}


class {cls}({base}):
    name = "{ruleset}"
"""


def install_ruleset(folder: Path, *, distribution: str, version: str, package: str, ruleset: str,
                    base: str = "gm.rules.postal:Postal", cls: str = "House") -> Path:
    """Build and install into `folder`/site a distribution declaring `ruleset` as
    `package:cls`, a subclass of `base` named `ruleset`; the folder to put on sys.path."""
    base_module, _, base_name = base.partition(":")
    return install_distribution(folder, distribution=distribution, version=version,
                                rulesets={ruleset: f"{package}:{cls}"},
                                modules={package: MODULE.format(base_module=base_module, base=base_name, cls=cls,
                                                                ruleset=ruleset)})


def install_distribution(folder: Path, *, distribution: str, version: str, rulesets: dict[str, str],
                         modules: dict[str, str]) -> Path:
    """Build and install into `folder`/site a distribution of the packages `modules`
    (name: the source of its __init__.py) declaring each of `rulesets` (name:
    "package:Class") under `gm.rulesets`; the folder to put on sys.path (or PYTHONPATH)."""
    source = folder / "src"
    for package, text in modules.items():
        (source / package).mkdir(parents=True)
        (source / package / "__init__.py").write_text(text)
    points = "\n".join(f'{name} = "{target}"' for name, target in rulesets.items())
    (source / "pyproject.toml").write_text(PYPROJECT.format(
        distribution=distribution, version=version, entry_points=points,
        packages=", ".join(f'"{package}"' for package in modules)))
    site = folder / "site"
    # gm's own venv builds it (no build isolation): no index is needed, and it takes a second
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(site), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip could not install {distribution}: {done.stderr or done.stdout}")
    return site


def forget(package: str) -> None:
    """Drop the package's modules, so that another test's copy of it is imported afresh."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
