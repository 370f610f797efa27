"""The one template lookup: mail, calendar texts and the archive find every template, and
every part a template names, by the same rule, for gm's rulesets and a plugin's alike.

A campaign's templates are looked up along its ruleset's `lineage` (the ruleset, then those
it derives from) in its `template_folders` (each ruleset's own `templates` folder, then
gm's templates/). A name `<area>/<rest>` (area mail, archive or calendar) is found at the
first of `<area>/<r>/<rest>` for r in the lineage, then `<area>/<rest>`, each tried in
every folder in turn. So a template names a part plainly (`{% import "mail/_turn.txt" %}`)
and gets the ruleset's own copy where it has one.

Three names are taken as written (each still tried in every folder):
* one that already names a ruleset of the lineage (`mail/unleashed/_turn.txt`);
* `generic:<area>/<rest>`: the generic part itself, never a ruleset's copy (an admin
  mail's deadline lines are everyone's, whatever `_order.txt` a ruleset has);
* a ruleset's copy naming the part it replaces (`mail/dice/observer.html` extends
  `mail/observer.html`) gets the next one along the lineage, as a subclass calls super().
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jinja2

from .files import lineage, ruleset_class, template_folders

AREAS = ("mail", "archive", "calendar")
GENERIC = "generic:"
# a name looked up past its first candidates: "<name>|from:<index>" (the super() rule)
_FROM = "|from:"
# what gm's generic words call the game when the ruleset names none (Ruleset.game_name)
GAME = "Snakes and Ladders"


def candidates(name: str, rulesets: Sequence[str]) -> tuple[str, ...]:
    """Where the template `name` is looked for, first match wins (in each folder)."""
    if name.startswith(GENERIC):
        return (name[len(GENERIC):],)
    area, slash, rest = name.partition("/")
    if area not in AREAS or not slash:
        return (name,)
    first, inner, _ = rest.partition("/")
    if inner and first in rulesets:
        return (name,)
    return (*(f"{area}/{ruleset}/{rest}" for ruleset in rulesets), name)


class TemplateLoader(jinja2.BaseLoader):
    """Loads each template from the first of its `candidates` found in `folders` (each a
    jinja2 loader: a folder's FileSystemLoader), candidates before folders."""

    def __init__(self, folders: Sequence[jinja2.BaseLoader], rulesets: tuple[str, ...]):
        self.folders = tuple(folders)
        self.rulesets = rulesets
        # each name loaded -> where it was found: (candidate index, folder index, file name)
        self.found: dict[str, tuple[int, int, str]] = {}

    def places(self, name: str) -> list[tuple[int, str]]:
        """(folder index, file name) in the order they are tried."""
        base, _, start = name.partition(_FROM)
        tried = [(f, c) for c in candidates(base, self.rulesets) for f in range(len(self.folders))]
        return tried[int(start):] if start else tried

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str | None, Any]:
        start = template.partition(_FROM)[2]
        offset = int(start) if start else 0
        for index, (folder, name) in enumerate(self.places(template), offset):
            try:
                source, path, uptodate = self.folders[folder].get_source(environment, name)
            except jinja2.TemplateNotFound:
                continue
            self.found[template] = (index, folder, name)
            return source, path, uptodate
        raise jinja2.TemplateNotFound(template)

    def locate(self, environment: jinja2.Environment, name: str) -> str:
        """The file name `name` is found at (`mail/dice/report.txt` for `mail/report.txt`
        in a classic campaign), to be loaded as written. A folder's file is looked for with
        a stat, not read: this is asked for every mail rendered."""
        for folder, candidate in self.places(name):
            if self._has(environment, self.folders[folder], candidate):
                return candidate
        raise jinja2.TemplateNotFound(name)

    @staticmethod
    def _has(environment: jinja2.Environment, loader: jinja2.BaseLoader, name: str) -> bool:
        if isinstance(loader, jinja2.FileSystemLoader):
            pieces = jinja2.loaders.split_template_path(name)
            return any(os.path.isfile(os.path.join(str(root), *pieces)) for root in loader.searchpath)
        try:
            loader.get_source(environment, name)
        except jinja2.TemplateNotFound:
            return False
        return True

    def after(self, template: str, parent: str) -> str:
        """`template` as named by `parent`: looked up past the parent's own file when the
        parent is one of its candidates (a ruleset's copy naming the part it replaces)."""
        where = self.found.get(parent)
        if where is None:
            return template
        _, folder, name = where
        base = template.partition(_FROM)[0]
        tried = self.places(base)
        if (folder, name) not in tried:
            return template
        return f"{base}{_FROM}{tried.index((folder, name)) + 1}"


class Environment(jinja2.Environment):
    """A jinja2 environment whose TemplateLoader resolves names relative to the template
    naming them (the super() rule)."""

    def join_path(self, template: str, parent: str) -> str:
        loader = self.loader
        if isinstance(loader, TemplateLoader):
            return loader.after(template, parent)
        return template


def folder_loaders(folders: Sequence[Path | str]) -> tuple[jinja2.BaseLoader, ...]:
    return tuple(jinja2.FileSystemLoader(str(folder)) for folder in folders)


def ruleset_templates(ruleset: str | None) -> tuple[tuple[str, ...], tuple[Path, ...]]:
    """(lineage, template folders) of the ruleset called `ruleset`; None: no ruleset (gm's
    generic templates only)."""
    if not ruleset:
        return (), template_folders(())
    names = lineage(ruleset)
    return names, template_folders(names)


def environment(rulesets: tuple[str, ...], folders: tuple[Path, ...], configure: Callable[[Environment], None],
                **options: Any) -> Environment:
    """An environment for one lineage and its folders; `configure` adds filters and
    globals. Callers cache it by (lineage, folders, their own kind)."""
    env = Environment(loader=TemplateLoader(folder_loaders(folders), rulesets), **options)
    # the game the generic words name ("a game of Snakes and Ladders by email"): the ruleset's own
    env.globals["game_name"] = getattr(ruleset_class(rulesets[0]), "game_name", GAME) if rulesets else GAME
    configure(env)
    return env


def template_problem(error: jinja2.TemplateError) -> str:
    """`error` in one line naming the template file and line it is in: `the template
    .../archive/goose/turn.html, line 3: no filter named 'mailto'`. A template that does
    not compile names itself; an error while rendering is found in the traceback, whose
    frames Jinja gives the template's file and line."""
    where, line = None, None
    if isinstance(error, jinja2.TemplateSyntaxError):
        where, line = error.filename or error.name, error.lineno
    else:
        for frame in reversed(traceback.extract_tb(error.__traceback__)):
            if frame.filename.endswith((".html", ".txt", ".xml", ".svg")):
                where, line = frame.filename, frame.lineno
                break
    message = error.message if isinstance(error, jinja2.TemplateSyntaxError) else str(error)
    what = " ".join(str(message or type(error).__name__).split())
    if where is None:
        return f"a template: {what}"
    return f"the template {where}" + (f", line {line}" if line else "") + f": {what}"
