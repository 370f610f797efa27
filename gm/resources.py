"""Where the files that ship with gm live: templates/, boards/ and docs/ beside the package
in a checkout, or inside the installed `gm.data` package from a wheel. A ruleset's own
files (its templates, rules page and boards, gm's or a plugin's) are found by
gm.rules.files, which looks here last."""

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


def shipped_file(folder: str, *parts: str) -> str | None:
    """A file or folder of gm's `folder` (a rules page, the boards folder) as gm's own rulesets name
    their files in their class attributes, exactly as a plugin names its own; None when this
    installation lacks it (an installation made without gm's docs/ folder)."""
    try:
        path = shipped(folder).joinpath(*parts)
    except FileNotFoundError:
        return None
    return str(path) if path.exists() else None
