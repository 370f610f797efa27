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
{ruleset} = "{package}:{cls}"

[tool.setuptools]
packages = ["{package}"]
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
    source = folder / "src"
    (source / package).mkdir(parents=True)
    (source / "pyproject.toml").write_text(PYPROJECT.format(distribution=distribution, version=version,
                                                            ruleset=ruleset, package=package, cls=cls))
    base_module, _, base_name = base.partition(":")
    (source / package / "__init__.py").write_text(MODULE.format(base_module=base_module, base=base_name, cls=cls,
                                                                ruleset=ruleset))
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
