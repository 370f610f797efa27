"""Where the files that ship with gm live: templates/, boards/ and docs/ beside the package
in a checkout, or inside the installed `gm.data` package from a wheel. A ruleset's own
files (its templates, rules page and boards, gm's or a plugin's) are found by
gm.ruleset_files, which looks here last."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path


@cache
def shipped(name: str) -> Path:
    """The folder `name` (templates or boards) of this installation."""
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    installed = Path(str(resources.files("gm.data") / name))
    if installed.is_dir():
        return installed
    raise FileNotFoundError(f"gm is installed without its {name}/ folder")
