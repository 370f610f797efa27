"""Which rulesets exist (python-chess's `find_variant`): every one a distribution declares
under the entry point group `gm.rulesets` (gm's own five in gm's pyproject.toml, a GM's house
rules in their own package, without forking gm), and any registered at run time (the test
suite's toy ruleset). `origin` says which distribution, at which version, a ruleset came
from: what an auditor installs to replay a campaign (gm.campaign.proof)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from ..errors import GmError

if TYPE_CHECKING:
    from .base import Ruleset

__all__ = ["BUILT_IN", "DEFAULT", "ENTRY_POINT_GROUP", "RulesetUnavailable", "UnknownRuleset", "board_ruleset", "built_in",
           "find_ruleset", "known", "loadable", "note_left_out", "origin", "register", "ruleset_type", "unregister"]

ENTRY_POINT_GROUP = "gm.rulesets"
# gm's own, as gm's pyproject.toml declares them (name -> "module:Class", imported only when a
# campaign asks for it). Looked up before the entry points: reading those imports
# importlib.metadata and scans every installed distribution, ~20 ms that a command playing a
# built-in would pay for nothing; and what a checkout run without `pip install` plays.
BUILT_IN = {
    "postal": "gm.rules.postal:Postal",
    "classic": "gm.rules.classic:Classic",
    "doubles": "gm.rules.doubles:Doubles",
    "advanced": "gm.rules.advanced:Advanced",
    "unleashed": "gm.rules.unleashed:Unleashed",
}
DEFAULT = "postal"  # campaign.yaml without `ruleset:` plays docs/rules/postal.md
_registered: dict[str, type[Ruleset]] = {}


class RulesetUnavailable(GmError):
    """An installed ruleset whose package fails to load (broken, or needing what is not
    installed): a refusal naming it and its distribution, never an internal error of gm.
    Whatever the package raised (a SystemExit of its own too) is told on the one line."""

    def __init__(self, name: str, source: tuple[str, str] | None, error: BaseException):
        where = f" ({source[0]} {source[1]})" if source else ""
        super().__init__(f"the ruleset {name!r}{where} cannot be loaded: {_why(error)}")
        self.name = name


def _why(error: BaseException) -> str:
    # one line, whatever the package's message holds (a bare SystemExit: its name alone)
    said = " ".join(str(error).split())
    return f"{type(error).__name__}: {said}" if said else type(error).__name__


class UnknownRuleset(KeyError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown ruleset {self.name!r} (known: {', '.join(known())})"


def _installed() -> dict[str, tuple[str, tuple[str, str] | None]]:
    return _entry_points(tuple(sys.path))


@cache
def _entry_points(path: tuple[str, ...]) -> dict[str, tuple[str, tuple[str, str] | None]]:
    """name -> ("module:Class", (distribution, version)) of every installed ruleset, read once
    per search path: each template lookup asks for its ruleset, and scanning every installed
    package each time cost a resolve hundreds of scans; only a change of sys.path (a package
    put on it while gm runs) can add one. Of two distributions declaring one name, the first
    on sys.path wins, as it would for an import; a built-in name is gm's own."""
    # importlib.metadata only when a ruleset is not gm's own: importing it is a few ms of
    # every command, and scanning the installed packages more
    from importlib.metadata import entry_points

    found: dict[str, tuple[str, tuple[str, str] | None]] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found or BUILT_IN.get(point.name, point.value) != point.value:
            continue
        dist = point.dist
        found[point.name] = (point.value, (dist.name, dist.version) if dist is not None else None)
    return found


def known() -> list[str]:
    """Every ruleset name a campaign may use, sorted."""
    return sorted(set(BUILT_IN) | set(_installed()) | set(_registered))


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Make `cls` available by its `name` (usable as a class decorator)."""
    _registered[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    _registered.pop(name, None)


def built_in(name: str) -> Ruleset:
    """A fresh instance of gm's own ruleset `name` (a key of BUILT_IN), whatever is
    registered or installed under that name: what gm knows of its own games without
    importing any package."""
    return _load(BUILT_IN[name])()


_noted: set[str] = set()


def note_left_out(what: str, error: BaseException) -> None:
    """One line on stderr, once a process for `what`, saying a tool passes over something
    of an installed package that fails to load (its ruleset, its robots) and why."""
    if what in _noted:
        return
    _noted.add(what)
    reason = str(error) if isinstance(error, RulesetUnavailable) else f"{what} cannot be loaded: {_why(error)}"
    print(f"note: {reason}; left out", file=sys.stderr)


def loadable(names: Iterable[str] | None = None) -> Iterator[tuple[str, Ruleset]]:
    """Each of `names` (default: every known ruleset, by name) with a fresh instance, for
    the tools that list or try every ruleset (gm board analyze, gm board check and show
    without --ruleset, gm demo --help): the only callers that import every installed
    package; a campaign imports its own ruleset alone. One that fails to load
    is passed over with a one-line note on stderr (once a process), never a traceback nor
    the end of the tool: a broken package must not cost the GM the others."""
    for name in known() if names is None else names:
        try:
            ruleset = find_ruleset(name)
        except RulesetUnavailable as error:
            note_left_out(f"the ruleset {name!r}", error)
            continue
        except UnknownRuleset:
            continue
        yield name, ruleset


def board_ruleset(keys: Iterable[object]) -> str:
    """The ruleset a board file with these top-level keys is written for: the first (by
    name) whose own board keys (Ruleset.board_keys) it uses, else DEFAULT."""
    present = set(keys)
    for name, ruleset in loadable():
        if present & set(ruleset.board_keys):
            return name
    return DEFAULT


def find_ruleset(name: str) -> Ruleset:
    """A fresh instance of the ruleset called `name`; raises UnknownRuleset, or
    RulesetUnavailable for an installed one whose package fails to load."""
    cls = ruleset_type(name)
    if name in _registered or name in BUILT_IN:
        return cls()
    try:
        return cls()
    except KeyboardInterrupt:  # the GM's Ctrl-C, never the package's failure
        raise
    except BaseException as error:  # whatever another package's ruleset raises, SystemExit too
        raise RulesetUnavailable(name, _installed()[name][1], error) from error


def ruleset_type(name: str) -> type[Ruleset]:
    """The class of the ruleset called `name`, without making one (what a template lookup
    asks for every mail and page); raises as find_ruleset does. One registered at run time
    is asked of the registry each time, so a ruleset registered again is found anew."""
    if name in _registered:
        return _registered[name]
    target = BUILT_IN.get(name)
    if target is not None:
        return _load(target)
    installed = _installed().get(name)
    if installed is None:
        raise UnknownRuleset(name)
    try:
        return _load(installed[0])
    except KeyboardInterrupt:  # the GM's Ctrl-C, never the package's failure
        raise
    except BaseException as error:  # whatever another package's import raises, SystemExit too: its failure
        # to load, never the end of the command that asked (a campaign's ingest, gm board analyze)
        raise RulesetUnavailable(name, installed[1], error) from error


def _load(target: str) -> type[Ruleset]:
    module, _, attribute = target.partition(":")
    # sys.modules first: every template lookup asks for the ruleset, and import_module's own
    # checks cost five times the rest of the look-up once the module is imported. sys.modules
    # is the cache of the class: one of our own would outlive a package taken out of it to be
    # imported afresh from elsewhere (a test's copy, a GM's upgraded house rules)
    return getattr(sys.modules.get(module) or import_module(module), attribute)


def origin(name: str) -> tuple[str, str] | None:
    """(distribution, version) whose `gm.rulesets` entry point declares the ruleset `name`:
    ("gm", gm's version) for gm's own, even run from a checkout gm's metadata is absent
    from; None for one registered at run time (or a distribution without metadata); raises
    UnknownRuleset for a name nothing declares."""
    if name in _registered:
        return None
    installed = _installed().get(name)
    if installed is not None:
        return installed[1]
    if name in BUILT_IN:
        from .. import __version__

        return ("gm", __version__)
    raise UnknownRuleset(name)
