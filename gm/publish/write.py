"""The published archive, phase two: render the pages `archive.build_site` made and write
only those whose bytes changed, each by an atomic rename, so a reader never sees half a
page and a weekly publish touches only the pages the turn changed.

A page whose inputs did not change is not even rendered: `.gm-publish.json` in the
archive's folder (MANIFEST) keeps, for each page written, a fingerprint of what it was
rendered from (its template, its context, and gm's own templates and code) and the size
and modification time its file had then. When the fingerprint and the file are still the
same, the page is left alone unrendered. Everything in a page's context is public (the
archive's input holds nothing hidden), so the fingerprints tell nothing that the pages do
not. A missing or unreadable manifest only means every page is rendered and compared.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ..boards.svg import isolated
from ..mail.mailout import ordinal
from ..resources import shipped
from .archive import Page, RevealedBoard, player_page


@dataclass(frozen=True)
class WriteReport:
    written: tuple[str, ...]
    unchanged: tuple[str, ...]


def template_candidates(name: str, rulesets: Sequence[str]) -> tuple[str, ...]:
    """Where the archive looks for the template `name`, first match wins: for a name under
    archive/, each ruleset's own copy (archive/<ruleset>/<rest>, most specific ruleset
    first), then the generic one (archive/<rest>). Templates are looked up so wherever
    they are named: a page, an {% extends %}, an {% include %}, an {% import %}."""
    head, slash, rest = name.partition("/")
    if head != "archive" or not slash:
        return (name,)
    return (*(f"archive/{ruleset}/{rest}" for ruleset in rulesets), name)


class RulesetLoader(jinja2.BaseLoader):
    """Loads each template from the first of its `template_candidates` that exists."""

    def __init__(self, inner: jinja2.BaseLoader, rulesets: tuple[str, ...]):
        self.inner = inner
        self.rulesets = rulesets

    def get_source(self, environment: jinja2.Environment, template: str):
        for candidate in template_candidates(template, self.rulesets):
            try:
                return self.inner.get_source(environment, candidate)
            except jinja2.TemplateNotFound:
                continue
        raise jinja2.TemplateNotFound(template)


@cache
def _environment(rulesets: tuple[str, ...] = ()) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=RulesetLoader(jinja2.FileSystemLoader(str(shipped("templates"))), rulesets),
        # every page escapes what it prints: player names come from people
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["square"] = lambda s: "Start" if s == 0 else str(s)
    env.filters["ordinal"] = ordinal
    # names people give (players, the campaign, boards) are isolated wherever they are
    # printed, so a right-to-left override in one (U+202E) cannot reverse the text around it:
    # <bdi> in the templates' HTML, this filter where no markup can go (<title>, SVG text)
    env.filters["isolate"] = isolated
    env.filters["canonical_html"] = canonical_html
    return env


def canonical_html(board: RevealedBoard) -> Markup:
    """A board's canonical text for a <pre>, its name in a <bdi> like every name: copied from
    the page it is still exactly the canonical text, as <bdi> adds no character."""
    name = json.dumps(board.name, ensure_ascii=False)[1:-1]  # as it stands in the text
    before, found, after = board.canonical.partition(f'"name":"{name}"')
    if not found or not name:
        return escape(board.canonical)
    return escape(before + '"name":"') + Markup("<bdi>{}</bdi>").format(name) + escape('"' + after)


def render_page(page: Page) -> bytes:
    if page.data is not None:
        return page.data
    if page.kind == "atom":
        from .feed import render_feed

        return render_feed(page.context, _environment(page.rulesets))
    assert page.template is not None
    return _environment(page.rulesets).get_template(page.template).render(page.context).encode("utf-8")


MANIFEST = ".gm-publish.json"


@cache
def renderer_key() -> str:
    """A fingerprint of everything but its context that a page's bytes depend on: the
    shipped templates, gm's own code (the filters, the views' properties the templates
    read) and the versions of the libraries that render."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    for root, pattern in ((shipped("templates"), "*"), (package, "*.py")):
        for path in sorted(p for p in root.rglob(pattern) if p.is_file()):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    for library in ("jinja2", "markupsafe", "markdown"):
        try:
            digest.update(f"{library}={metadata.version(library)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}=?\0".encode())
    return digest.hexdigest()


def _digest(value: Any, memo: dict[int, tuple[Any, bytes]], depth: int = 2) -> bytes:
    """A value's digest, kept in `memo` by identity. Short tuples, lists and dicts near the
    top are taken apart, so that a value two pages share (a turn in its page and in the
    feed) is pickled once; anything else is pickled whole."""
    known = memo.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    kind = type(value)
    if depth and kind in (tuple, list, dict) and len(value) > 64:
        depth = 0  # a long one is cheaper pickled whole
    if depth and kind in (tuple, list):
        digest = hashlib.sha256(b"sequence\0")
        for item in value:
            digest.update(_digest(item, memo, depth - 1))
    elif depth and kind is dict:
        digest = hashlib.sha256(b"mapping\0")
        for name, item in value.items():
            digest.update(hashlib.sha256(pickle.dumps(name, protocol=5)).digest())
            digest.update(_digest(item, memo, depth - 1))
    else:
        digest = hashlib.sha256(b"pickle\0" + pickle.dumps(value, protocol=5))
    result = digest.digest()
    memo[id(value)] = (value, result)
    return result


def page_key(page: Page, memo: dict[int, tuple[Any, bytes]] | None = None) -> str | None:
    """A fingerprint of what `page` is rendered from, or None when its context cannot be
    pickled (then it is always rendered). The same fingerprint means the same bytes: the
    context is taken whole, so only two equal contexts share one. `memo` keeps the digest
    of each value by identity within one publish: the pages share most of their context.
    Take every page's fingerprint before rendering any: a rendered page may fill in a
    cached_property of its context, which the next page's pickle would then hold."""
    memo = {} if memo is None else memo
    digest = hashlib.sha256(renderer_key().encode())
    digest.update(repr((page.path, page.template, page.kind, page.rulesets)).encode())
    if page.data is not None:
        digest.update(b"data\0" + page.data)
    try:
        for name in sorted(page.context):
            digest.update(name.encode() + b"\0" + _digest(page.context[name], memo))
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return digest.hexdigest()


def _read_manifest(out: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        pages = data["pages"] if data.get("version") == 1 else {}
        return {path: entry for path, entry in pages.items()
                if isinstance(entry, dict) and {"key", "size", "mtime_ns"} <= entry.keys()}
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return {}


def _file_stamp(target: Path) -> tuple[int, int] | None:
    try:
        stat = target.stat()
    except FileNotFoundError:
        return None
    return stat.st_size, stat.st_mtime_ns


def _replace(out: Path, target: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=out, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_site(pages: Iterable[Page], out: Path) -> WriteReport:
    """Write every page under `out`; a page whose file already holds the same bytes is
    left alone (its modification time too), and one whose inputs and file are as the
    manifest recorded is not rendered at all."""
    out.mkdir(parents=True, exist_ok=True)
    known = _read_manifest(out)
    manifest: dict[str, dict[str, Any]] = {}
    memo: dict[int, tuple[Any, bytes]] = {}
    written, unchanged = [], []
    pages = tuple(pages)
    keys = [page_key(page, memo) for page in pages]  # all before any page is rendered
    for page, key in zip(pages, keys, strict=True):
        target = out / page.path
        entry = known.get(page.path)
        stamp = _file_stamp(target)
        if key is not None and entry is not None and entry["key"] == key and \
                stamp == (entry["size"], entry["mtime_ns"]):
            manifest[page.path] = entry
            unchanged.append(page.path)
            continue
        data = render_page(page)
        try:
            same = stamp is not None and stamp[0] == len(data) and target.read_bytes() == data
        except FileNotFoundError:
            same = False
        if same:
            unchanged.append(page.path)
        else:
            _replace(out, target, data)
            written.append(page.path)
            stamp = _file_stamp(target)
        if key is not None and stamp is not None:
            manifest[page.path] = {"key": key, "size": stamp[0], "mtime_ns": stamp[1]}
    _replace(out, out / MANIFEST, json.dumps({"version": 1, "pages": manifest}, indent=0, sort_keys=True).encode())
    return WriteReport(tuple(written), tuple(unchanged))


def publish(campaign, out: Path | None = None) -> tuple[Path, WriteReport]:
    """Build and write a campaign's archive (default: DIR/archive)."""
    from .archive import build_site, load_archive

    out = out or campaign.folder / "archive"
    pages = build_site(load_archive(campaign))
    report = write_site(pages, out)
    # a seat handed on (gm player replace) is told on its new holder's page: the former
    # holder's own page would stand frozen at the turn it was last written
    kept = {page.path for page in pages}
    for former in campaign.seat_holders():
        stale = out / player_page(former)
        if stale.name not in kept:
            stale.unlink(missing_ok=True)
    return out, report
