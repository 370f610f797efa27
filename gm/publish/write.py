"""The published archive, phase two: render the pages `archive.build_site` made and write
only those whose bytes changed, each by an atomic rename, so a reader never sees half a
page and a weekly publish touches only the pages the turn changed."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from ..boards.svg import isolated
from ..counts import ordinal
from ..resources import shipped
from .archive import Page, RevealedBoard, player_page
from .memo import Memo


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


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The archive's templates compiled once for every publish, as Python keeps .pyc files:
    compiling them was a tenth of a second of each publish that renders a page (issue 27).
    Jinja's own cache, in a folder of the temporary directory it makes private to the user
    (it refuses one anyone else could write to); each template's entry is checked against
    its source, so an edited template is compiled again."""
    try:
        return jinja2.FileSystemBytecodeCache(pattern="gm-archive-%s.cache")
    except (OSError, RuntimeError):  # no private folder to be had: compile every time
        return None


@cache
def _environment(rulesets: tuple[str, ...] = ()) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=RulesetLoader(jinja2.FileSystemLoader(str(shipped("templates"))), rulesets),
        bytecode_cache=_bytecode_cache(),
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

        return render_feed(page.made_context(), _environment(page.rulesets))
    if page.kind == "signup-atom":
        from .feed import render_signup_feed

        return render_signup_feed(page.made_context(), _environment(page.rulesets))
    assert page.template is not None
    return _environment(page.rulesets).get_template(page.template).render(page.made_context()).encode("utf-8")


def write_site(pages: Iterable[Page], out: Path, memo: Memo | None = None) -> WriteReport:
    """Write every page under `out`; a page whose file already holds the same bytes is
    left alone (its modification time too), and one the memo knows to be so is not even
    rendered."""
    out.mkdir(parents=True, exist_ok=True)
    written, unchanged = [], []
    for page in pages:
        if memo is not None and memo.fresh(page):
            unchanged.append(page.path)
            continue
        data = render_page(page)
        target = out / page.path
        try:
            same = target.read_bytes() == data
        except FileNotFoundError:
            same = False
        if same:
            unchanged.append(page.path)
            if memo is not None:
                memo.keep_page(page)
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
        if memo is not None:
            memo.keep_page(page)
    return WriteReport(tuple(written), tuple(unchanged))


def publish(campaign, out: Path | None = None) -> tuple[Path, WriteReport]:
    """Build and write a campaign's archive (default: DIR/archive); before the start, the
    game's front page for those joining by mail (RULES.md 3.1)."""
    from .archive import build_site, load_archive

    out = out or campaign.folder / "archive"
    if not campaign.started() and campaign.config.signup is not None:
        from ..campaign.signup import refresh
        from .signup import load_signup, signup_site

        refresh(campaign)  # campaign.yaml as it is now: the page tells it
        return out, write_site(signup_site(load_signup(campaign)), out)
    memo = Memo(campaign.store, out)
    data = load_archive(campaign, memo)
    pages = build_site(data)
    report = write_site(pages, out, memo)
    memo.save(len(data.summaries), (page.path for page in pages))
    # a seat handed on (gm player replace) is told on its new holder's page: the former
    # holder's own page would stand frozen at the turn it was last written
    kept = {page.path for page in pages}
    for former in campaign.seat_holders():
        stale = out / player_page(former)
        if stale.name not in kept:
            stale.unlink(missing_ok=True)
    # a campaign the GM ended (gm end) leaves the page named for the turn that was open,
    # which no turn will ever fill: it must not go on saying that turn is open
    if data.over:
        for stale in out.glob("turn-*.html"):
            if stale.name not in kept:
                stale.unlink(missing_ok=True)
    return out, report
