"""Where the files that ship with gm live: templates/ and boards/ beside the package in a
checkout, or inside the installed `gm.data` package from a wheel."""

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
