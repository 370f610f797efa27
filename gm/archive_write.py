"""The published archive, phase two: render the pages `archive.build_site` made and write
only those whose bytes changed, each by an atomic rename, so a reader never sees half a
page and a weekly publish touches only the pages the turn changed."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from .archive import Page, RevealedBoard
from .boardsvg import isolated
from .mailout import ordinal
from .resources import shipped


@dataclass(frozen=True)
class WriteReport:
    written: tuple[str, ...]
    unchanged: tuple[str, ...]


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(shipped("templates"))),
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
    assert page.template is not None
    return _environment().get_template(page.template).render(page.context).encode("utf-8")


def write_site(pages: Iterable[Page], out: Path) -> WriteReport:
    """Write every page under `out`; a page whose file already holds the same bytes is
    left alone (its modification time too)."""
    out.mkdir(parents=True, exist_ok=True)
    written, unchanged = [], []
    for page in pages:
        data = render_page(page)
        target = out / page.path
        try:
            same = target.read_bytes() == data
        except FileNotFoundError:
            same = False
        if same:
            unchanged.append(page.path)
            continue
        handle, temporary = tempfile.mkstemp(dir=out, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        written.append(page.path)
    return WriteReport(tuple(written), tuple(unchanged))


def publish(campaign, out: Path | None = None) -> tuple[Path, WriteReport]:
    """Build and write a campaign's archive (default: DIR/archive)."""
    from .archive import build_site, load_archive

    out = out or campaign.folder / "archive"
    return out, write_site(build_site(load_archive(campaign)), out)
