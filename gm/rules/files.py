"""A ruleset's own files, found the same way for gm's rulesets and a plugin's: its name and
those it derives from (`lineage`), its template folders, its rules page and its boards.

A ruleset names its files by class attributes (gm.rules.base): `templates` (a folder laid
out like gm's templates/), `rules_page` (its rules in Markdown) and `boards_folder`
(searched before gm's boards/). Each is optional: a ruleset without one has gm's, for
itself or for the ruleset it derives from (a GM's house rules read as their parent's).

What depends only on a ruleset's class is worked out once per class: a template lookup
asks for it for every mail and page. The class itself is asked of the registry each time
(a dictionary look-up), so a ruleset registered again is never answered for its old class.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from ..resources import shipped
from .registry import UnknownRuleset, ruleset_type


def ruleset_class(name: str) -> type | None:
    """The class of the ruleset called `name`, or None for a name no ruleset has."""
    try:
        return ruleset_type(name)
    except UnknownRuleset:
        return None


def _folder_name(name: object) -> bool:
    # a name is a folder of templates: nothing that could leave templates/<area>/
    return isinstance(name, str) and bool(name) and name.replace("-", "").replace("_", "").isalnum()


class _Declared(NamedTuple):
    """What a ruleset class's own classes declare, most specific first."""

    lineage: tuple[str, ...]  # their folder-safe names, once each
    folders: tuple[Path, ...]  # their `templates` folders, once each
    classes: tuple[tuple[str, type], ...]  # each name with the class that declares it, the first one


@cache
def _declared(cls: type) -> _Declared:
    # one walk of the classes per ruleset class: a template lookup asks for every mail and page
    names: list[str] = []
    folders: list[Path] = []
    classes: dict[str, type] = {}
    for klass in cls.__mro__:
        name = klass.__dict__.get("name")
        if isinstance(name, str):
            classes.setdefault(name, klass)
        if _folder_name(name) and name not in names:
            names.append(name)
        folder = klass.__dict__.get("templates")
        if isinstance(folder, str | Path) and Path(folder) not in folders:
            folders.append(Path(folder))
    return _Declared(tuple(names), tuple(folders), tuple(classes.items()))


def class_lineage(cls: type) -> tuple[str, ...]:
    """The ruleset's name, then the names of those it derives from (by its classes' own
    `name`, most specific first)."""
    return _declared(cls).lineage


def lineage(ruleset: str | Any) -> tuple[str, ...]:
    """The ruleset's name then the names of the rulesets it derives from: a GM's house
    rules derived from a built-in ruleset are worded and shown as it is wherever they have
    nothing of their own. Takes a name (an unknown one is its own lineage) or a ruleset."""
    if not isinstance(ruleset, str):
        return class_lineage(type(ruleset))
    cls = ruleset_class(ruleset)
    return class_lineage(cls) if cls is not None else (ruleset,)


def template_folders(rulesets: Iterable[str]) -> tuple[Path, ...]:
    """Where the templates of a campaign of the first of `rulesets` (a lineage) are looked
    for: each ruleset's own `templates` folder, most specific first, then gm's templates/."""
    names = tuple(rulesets)
    # the classes the first one derives from before the registry: a name of its lineage is
    # its own ancestor's, never another installed package's that happens to share the name
    classes = _classes_by_name(names)
    folders: list[Path] = []
    for name in names:
        cls = classes.get(name)
        folders.extend(_declared(cls).folders if cls is not None else ())
    # gm's own rulesets name gm's templates/ as their folder: each folder is searched once
    return tuple(dict.fromkeys((*folders, shipped("templates"))))


def _classes_by_name(rulesets: tuple[str, ...]) -> dict[str, type]:
    """Each name of a lineage with the class that declares it: those of the first one's
    class first (a parent need not be registered to be derived from), then the registry."""
    first = ruleset_class(rulesets[0]) if rulesets else None
    found = dict(_declared(first).classes) if first is not None else {}
    for name in rulesets:
        if name not in found:
            cls = ruleset_class(name)
            if cls is not None:
                found[name] = cls
    return found


def rules_file(rulesets: Iterable[str]) -> Path | None:
    """The rules in Markdown of the first of `rulesets` (a lineage) that has them: its own
    `rules_page`, else gm's docs/rules/<name>.md; None when none has rules. The archive's
    rules page, the rules attached to help and welcome mail, and what `gm campaign new`
    and `gm reveal` point the GM to."""
    names = tuple(rulesets)
    classes = _classes_by_name(names)
    try:
        docs: Path | None = shipped("docs") / "rules"
    except FileNotFoundError:
        docs = None
    for name in names:
        cls = classes.get(name)
        own = cls.__dict__.get("rules_page") if cls is not None else None
        if isinstance(own, str | Path) and Path(own).is_file():
            return Path(own)
        if docs is not None and _folder_name(name) and (docs / f"{name}.md").is_file():
            return docs / f"{name}.md"
    return None


def rules_label(page: Path) -> str:
    """How a message names a rules page: `docs/rules/<name>.md` for one gm ships (as its
    docs name it), a ruleset's own page by its path."""
    try:
        docs = shipped("docs") / "rules"
    except FileNotFoundError:
        return str(page)
    return f"docs/rules/{page.name}" if page.parent == docs else str(page)


def ruleset_board(ruleset: Any, filename: str) -> Path:
    """The board file `filename` (a ruleset's `starter_board`, a demo's boards): from the
    ruleset's own `boards_folder` when it has the file, else gm's boards/."""
    own = getattr(ruleset, "boards_folder", None)
    if own is not None and (Path(own) / filename).is_file():
        return Path(own) / filename
    return shipped("boards") / filename
