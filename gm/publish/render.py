"""The published archive's pages rendered: the templates (templates/archive/, each
ruleset's own copy first), their filters, and the page bytes. Imported only by a publish
that has a page to render (gm.publish.write): one with nothing new imports no Jinja."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache

import jinja2
from markupsafe import Markup, escape

from ..boards.svg import isolated
from ..counts import ordinal
from ..resources import shipped
from .archive import Page, RevealedBoard


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
