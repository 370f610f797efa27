"""Where the files that ship with gm live: templates/ and boards/ beside the package in a
checkout, or inside the installed `gm.data` package from a wheel."""

from __future__ import annotations

from collections.abc import Iterable
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


def rules_file(rulesets: Iterable[str]) -> Path | None:
    """docs/rules/<name>.md of the first of `rulesets` gm ships rules for (a house ruleset
    has those of the one it derives from), or None: the archive's rules page and the rules
    attached to help and welcome mail."""
    try:
        folder = shipped("docs") / "rules"
    except FileNotFoundError:
        return None
    return next((folder / f"{name}.md" for name in rulesets if (folder / f"{name}.md").is_file()), None)
