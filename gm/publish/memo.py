"""What a publish keeps for the next one, in the campaign's store (migration 008).

Each turn's summary (archive.TurnSummary) is kept under the digest of its stored record,
so a weekly publish derives only the new turn; each page written is kept under the digest
of what it shows, with its file's size and modification time, so a page whose digest is
unchanged and whose file nobody touched is not rendered again. A new gm, template or
page code changes every page's key (`code_digest`), and so does a change to the campaign's
ruleset's own templates or rules page (`campaign_code_digest`); a file changed or removed since is
rendered again; a publish that fails keeps nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from .. import __version__
from ..resources import shipped
from ..rules.files import rules_file, template_folders
from .archive_values import Page, TurnSummary, digest, summary_from_json, summary_to_json

CODE_SUFFIXES = (".html", ".txt", ".py", ".ics", ".md", ".svg", ".xml")


@cache
def code_digest() -> str:
    """This gm's version, templates and page code in one digest: any change to what draws a
    page makes every kept page stale. Each file's name and bytes, read with os.walk rather
    than pathlib (a publish reads some 200 files here: pathlib took 14 ms of it)."""
    hasher = hashlib.sha256(__version__.encode("utf-8"))
    for folder in (str(shipped("templates")), os.path.dirname(__file__)):
        _hash_folder(hasher, folder)
    return hasher.hexdigest()


def campaign_code_digest(rulesets: Iterable[str]) -> str:
    """`code_digest` plus what a campaign of the first of `rulesets` (a lineage) draws its
    pages with beyond gm: each ruleset's own template folder and the rules page
    (gm.rules.files), so editing a house ruleset's template or rules re-renders its kept
    pages. Read at each publish, never remembered: a plugin's files change while gm does not."""
    names = tuple(rulesets)
    hasher = hashlib.sha256(code_digest().encode("ascii"))
    gm_templates = shipped("templates")
    for folder in template_folders(names):
        if folder != gm_templates:  # gm's own are in code_digest
            _hash_part(hasher, str(folder).encode("utf-8"))
            _hash_folder(hasher, str(folder))
    rules = rules_file(names)
    if rules is not None:
        _hash_part(hasher, str(rules).encode("utf-8"))
        _hash_part(hasher, rules.read_bytes())
    return hasher.hexdigest()


def _hash_folder(hasher: Any, folder: str) -> None:
    """Each page-drawing file under `folder`: its name there and its bytes."""
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(CODE_SUFFIXES):
                path = os.path.join(root, name)
                with open(path, "rb") as stream:
                    data = stream.read()
                _hash_part(hasher, os.path.relpath(path, folder).encode("utf-8"))
                _hash_part(hasher, data)


def _hash_part(hasher: Any, part: bytes) -> None:
    hasher.update(len(part).to_bytes(8, "big"))
    hasher.update(part)


class Memo:
    def __init__(self, store: Any, out: Path, rulesets: Iterable[str]):
        """`rulesets`: the campaign's ruleset lineage (gm.rules.files.lineage), whose own
        templates and rules page are part of every page's key (campaign_code_digest); every
        memo of one campaign is given the same, so they key pages alike."""
        self.store = store
        rulesets = tuple(rulesets)
        self._code = campaign_code_digest(rulesets) if rulesets else code_digest()
        self.out = out
        self.key = str(out.resolve())
        self._folder = str(out)
        self._turns = {r["turn_index"]: r for r in store.rows("select * from archive_turns")}
        self._pages = {r["path"]: r for r in store.rows(
            "select path, digest, size, mtime_ns from archive_pages where out = ?", (self.key,))}
        self._new_turns: dict[int, tuple[str, str]] = {}
        self._new_pages: dict[str, tuple[str, int, int]] = {}

    def summary(self, index: int, turn_digest: str) -> TurnSummary | None:
        kept = self._turns.get(index)
        if kept is None or kept["digest"] != turn_digest:
            return None
        return summary_from_json(kept["summary"])

    def keep_summary(self, index: int, turn_digest: str, summary: TurnSummary) -> None:
        self._new_turns[index] = (turn_digest, summary_to_json(summary))

    def _page_key(self, page: Page) -> str:
        assert page.digest is not None
        return digest(self._code, page.digest)

    def fresh(self, page: Page) -> bool:
        """The page's file holds what it would be rendered to now (as far as kept)."""
        kept = self._pages.get(page.path)
        if page.digest is None or kept is None or kept["digest"] != self._page_key(page):
            return False
        try:
            # os.stat on a string: pathlib's was most of checking 500 pages
            stat = os.stat(os.path.join(self._folder, page.path))
        except OSError:
            return False
        return (stat.st_size, stat.st_mtime_ns) == (kept["size"], kept["mtime_ns"])

    def keep_page(self, page: Page) -> None:
        """The page's file now holds what `page` renders to."""
        if page.digest is not None:
            stat = os.stat(os.path.join(self._folder, page.path))
            self._new_pages[page.path] = (self._page_key(page), stat.st_size, stat.st_mtime_ns)

    def save(self, turns: int, paths: Iterable[str]) -> None:
        """Keep this publish's turns and pages, in one transaction: summaries of turns since
        undone, and pages no longer in the site, go."""
        paths = set(paths)
        with self.store.writing() as db:  # plain SQL: no sqlite-utils to import
            db.execute("delete from archive_turns where turn_index >= ?", (turns,))
            for index, (turn_digest, summary) in self._new_turns.items():
                db.execute("insert or replace into archive_turns values (?, ?, ?)", (index, turn_digest, summary))
            for path in self._pages.keys() - paths:
                db.execute("delete from archive_pages where out = ? and path = ?", (self.key, path))
            for path, (page_key, size, mtime_ns) in self._new_pages.items():
                db.execute("insert or replace into archive_pages values (?, ?, ?, ?, ?)",
                           (self.key, path, page_key, size, mtime_ns))
