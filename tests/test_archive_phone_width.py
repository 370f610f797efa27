"""The archive's board drawings fit a phone: at 390 px a board was a 460-px strip
that scrolled sideways inside the page. Now each drawing scales with the page, by its
viewBox, as `gm board draw` output does. In the real Chromium (as tests/test_browser.py),
on the boards page and every turn page of each ruleset: the page does not scroll
sideways, nothing in it does, and every drawing lies within the screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_browser import PHONE, browser, chromium, finished_campaign  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

# What a reader could scroll sideways: the page itself, and any box inside it.
MEASURE = """() => ({
  page: document.scrollingElement.scrollWidth,
  screen: window.innerWidth,
  scrolling: [...document.querySelectorAll('body *')]
    .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.tagName.toLowerCase()}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`),
  drawings: [...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect())
    .filter(r => r.width > 20).map(r => [Math.floor(r.left), Math.ceil(r.right)]),
  boards: document.querySelectorAll('.board-drawing svg').length,
})"""


@pytest.fixture(scope="module", params=["postal", "classic", "doubles", "advanced", "unleashed"])
def archive(request, tmp_path_factory) -> Path:
    """A published archive of the ruleset: postal to its end and revealed (its boards are
    drawn only then), the dice games after two turns, unleashed's robot demo."""
    chromium()
    folder = tmp_path_factory.mktemp(f"phone-{request.param}") / "c"
    if request.param == "unleashed":
        from gm.demo.run import play

        return play(folder, ruleset="unleashed", echo=lambda line: None).archive.parent
    from gm.campaign.reveal import reveal
    from gm.publish.write import publish

    with pytest.MonkeyPatch.context() as patch:
        kit = finished_campaign(folder, request.param, patch.setenv, None if request.param == "postal" else 2)
        with kit.campaign() as campaign:
            if campaign.state().over:
                reveal(campaign)
            out, _ = publish(campaign)
        kit.close()
    return out


def test_board_drawings_fit_a_phone_without_scrolling_sideways(archive, browser):  # noqa: F811
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    turns = sorted(archive.glob("turn-*.html"))
    assert turns, "no turn page"
    drawn = 0
    for path in [archive / "boards.html", *turns]:
        page.goto(path.as_uri())
        seen = page.evaluate(MEASURE)
        assert seen["page"] <= seen["screen"], f"{path.name}: the page is {seen['page']} px wide"
        assert seen["scrolling"] == [], f"{path.name} scrolls sideways: {seen['scrolling']}"
        assert all(left >= 0 and right <= seen["screen"] for left, right in seen["drawings"]), (path.name, seen)
        drawn += seen["boards"]
    context.close()
    assert drawn >= 1, "no board drawing was measured"


def test_the_drawing_scales_by_its_viewbox():
    """`gm board draw`'s picture and the archive's are the same drawing: a viewBox, and a
    style that lets the page shrink it."""
    from gm.boards.board import load_board
    from gm.boards.svg import board_svg

    svg = board_svg(load_board(Path(__file__).resolve().parent.parent / "boards" / "milton-bradley.yaml"))
    assert 'viewBox="0 0 ' in svg and "max-width:100%" in svg
    css = (Path(__file__).resolve().parent.parent / "templates" / "archive" / "_base.html").read_text()
    rules = re.findall(r"\.board-drawing[^{]*\{([^}]*)\}", css)
    assert rules and not any("min-width" in r or "overflow" in r for r in rules), rules
