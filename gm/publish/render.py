"""The published archive's pages rendered: the templates (templates/archive/, each
ruleset's own copy first, from its own `templates` folder or gm's: gm.rules.templating), their
filters, and the page bytes (the feed's from gm.publish.feed)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from ..boards.svg import isolated
from ..counts import ordinal
from ..rules.files import template_folders
from ..rules.templating import environment
from .archive_values import Page, RevealedBoard
from .feed import render_feed, render_signup_feed


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The archive's templates compiled once for every publish, as Python keeps .pyc files:
    compiling them was a tenth of a second of each publish that renders a page.
    Jinja's own cache, in a folder of the temporary directory it makes private to the user
    (it refuses one anyone else could write to); each template's entry is checked against
    its source, so an edited template is compiled again."""
    try:
        return jinja2.FileSystemBytecodeCache(pattern="gm-archive-%s.cache")
    except (OSError, RuntimeError):  # no private folder to be had: compile every time
        return None


def _environment(rulesets: tuple[str, ...] = ()) -> jinja2.Environment:
    """The archive's environment for a campaign of the first of `rulesets` (a lineage): its
    templates looked up in each ruleset's own folder, then gm's (gm.rules.templating)."""
    return _made_environment(tuple(rulesets), template_folders(rulesets))


@cache
def _made_environment(rulesets: tuple[str, ...], folders: tuple[Path, ...]) -> jinja2.Environment:
    return environment(
        rulesets, folders, _configure,
        bytecode_cache=_bytecode_cache(),
        # every page escapes what it prints: player names come from people
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _configure(env: jinja2.Environment) -> None:
    env.filters["square"] = lambda s: "Start" if s == 0 else str(s)
    env.filters["ordinal"] = ordinal
    # names people give (players, the campaign, boards) are isolated wherever they are
    # printed, so a right-to-left override in one (U+202E) cannot reverse the text around it:
    # <bdi> in the templates' HTML, this filter where no markup can go (<title>, SVG text)
    env.filters["isolate"] = isolated
    env.filters["canonical_html"] = canonical_html


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
        return render_feed(page.made_context(), _environment(page.rulesets))
    if page.kind == "signup-atom":
        return render_signup_feed(page.made_context(), _environment(page.rulesets))
    assert page.template is not None
    return _environment(page.rulesets).get_template(page.template).render(page.made_context()).encode("utf-8")
