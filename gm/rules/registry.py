"""Which rulesets exist (python-chess's `find_variant`): gm's own, any installed by other
packages under the entry point group `gm.rulesets` (a GM's house rules, without forking
gm), and any registered at run time (the test suite's toy ruleset)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Ruleset

__all__ = ["DEFAULT", "ENTRY_POINT_GROUP", "UnknownRuleset", "board_ruleset", "find_ruleset", "known", "register",
           "unregister"]

ENTRY_POINT_GROUP = "gm.rulesets"
# name -> "module:Class"; imported only when a campaign asks for it
BUILT_IN = {
    "postal": "gm.rules.postal:Postal",
    "classic": "gm.rules.classic:Classic",
    "doubles": "gm.rules.doubles:Doubles",
    "advanced": "gm.rules.advanced:Advanced",
    "unleashed": "gm.rules.unleashed:Unleashed",
}
DEFAULT = "postal"  # campaign.yaml without `ruleset:` plays RULES.md 2
_registered: dict[str, type[Ruleset]] = {}


class UnknownRuleset(KeyError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown ruleset {self.name!r} (known: {', '.join(known())})"


def _installed() -> dict[str, str]:
    return _entry_points(tuple(sys.path))


@cache
def _entry_points(path: tuple[str, ...]) -> dict[str, str]:
    """The installed rulesets, read once per search path: each template lookup asks for its
    ruleset, and scanning every installed package each time cost a resolve hundreds of
    scans; only a change of sys.path (a package put on it while gm runs) can add one."""
    # importlib.metadata only when a ruleset is not gm's own: importing it is a few ms of
    # every command, and scanning the installed packages more
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def known() -> list[str]:
    """Every ruleset name a campaign may use, sorted."""
    return sorted(set(BUILT_IN) | set(_installed()) | set(_registered))


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Make `cls` available by its `name` (usable as a class decorator)."""
    _registered[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    _registered.pop(name, None)


def board_ruleset(keys: Iterable[object]) -> str:
    """The ruleset a board file with these top-level keys is written for: the first (by
    name) whose own board keys (Ruleset.board_keys) it uses, else DEFAULT."""
    present = set(keys)
    for name in known():
        try:
            if present & set(find_ruleset(name).board_keys):
                return name
        except Exception:  # noqa: BLE001 - an installed plug-in that fails to load says nothing of the file
            continue
    return DEFAULT


def find_ruleset(name: str) -> Ruleset:
    """A fresh instance of the ruleset called `name`; raises UnknownRuleset."""
    if name in _registered:
        return _registered[name]()
    target = BUILT_IN.get(name) or _installed().get(name)
    if target is None:
        raise UnknownRuleset(name)
    module, _, attribute = target.partition(":")
    return getattr(import_module(module), attribute)()
