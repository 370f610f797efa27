"""The Unleashed archive in a real browser, as tests/test_browser.py checks the other
rulesets': Debian's Chromium driven by playwright on a 390-pixel phone screen, over every
page of the six-robot demo (`gm demo --ruleset unleashed`), finished and revealed. No
console error, no script, no dialog, no broken link, no page wider than the screen; each
turn page draws the board; the revealed boards page shows the whole deal (docs/rules/unleashed.md, Cards and the deck,
6.14); no page says a hand's cards before the deal does."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from test_browser import PHONE, browser, chromium  # noqa: F401  (fixtures and the system browser)

from gm.campaign.folder import Campaign
from gm.demo.run import play

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The finished, revealed and published demo: (its archive folder, the deal, names)."""
    chromium()
    folder = tmp_path_factory.mktemp("unleashed-browser") / "derby"
    result = play(folder, ruleset="unleashed", echo=lambda line: None)
    assert result.archive is not None and result.turns >= 3
    opened = Campaign.open(folder)
    try:
        row = opened.store.one("select state_before from turns order by turn limit 1")
        dealt = opened.ruleset.load_state(json.loads(row["state_before"]))
        names = dict(opened.names())
        assert opened.row()["revealed_at"]
    finally:
        opened.close()
    return result.archive.parent, dealt, names


def pages_of(archive: Path) -> list[Path]:
    return sorted(archive.glob("*.html"))


def test_every_unleashed_archive_page_loads_cleanly_on_a_phone(demo, browser):  # noqa: F811
    archive, _, _ = demo
    context = browser.new_context(viewport=PHONE, java_script_enabled=True)
    problems: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    checked = []
    for path in pages_of(archive):
        page.goto(path.as_uri())
        name = path.name
        assert page.locator("script").count() == 0, f"{name} has a script"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{name} is {width} px wide, wider than a phone"
        assert page.locator("h1").count() == 1, name
        if name in ("index.html", "boards.html"):
            assert page.locator("svg").count() >= 1, f"{name} lacks its drawing"
        checked.append(name)
    context.close()
    assert not problems, problems
    assert {"index.html", "boards.html", "turn-001.html"} <= set(checked)
    assert len([n for n in checked if n.startswith("player-")]) == 6


def test_each_turn_page_draws_the_board_within_the_phone_screen(demo, browser):  # noqa: F811
    """6.14: after each round the whole board: the drawing is there, visible, no wider
    than the screen, and says every square's card."""
    archive, _, _ = demo
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    turns = sorted(archive.glob("turn-*.html"))
    assert len(turns) >= 3
    for path in turns:
        page.goto(path.as_uri())
        assert page.locator(".board-drawing svg").count() == 1, f"{path.name} has no board drawing"
        drawing, frame = page.locator(".board-drawing svg"), page.locator(".board-drawing")
        assert drawing.is_visible(), path.name
        # the drawing may be wider than the screen, in a box of the screen's width that
        # scrolls sideways (so its cards stay readable); the box itself never overflows
        box = frame.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (path.name, box)
        picture = drawing.bounding_box()
        assert picture is not None and picture["height"] > 0, path.name
        if picture["width"] > box["width"] + 1:
            assert frame.evaluate("e => getComputedStyle(e).overflowX") in ("auto", "scroll"), path.name
            assert frame.evaluate("e => e.scrollWidth") >= picture["width"] - 1, path.name
        assert drawing.locator("text").count() >= 50, f"{path.name}: the drawing names fewer than 50 squares"
        body = page.inner_text("body")
        assert "Draw pile" in body, path.name
        # turn 1 is the setup turn (setup: players): picks, no rolls; then rounds of goes
        assert ("Setup" in body and "rolls" not in body) if path == turns[0] else "rolls" in body, path.name
    context.close()


def test_the_revealed_boards_page_shows_the_deal(demo, browser):  # noqa: F811
    archive, dealt, names = demo
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto((archive / "boards.html").as_uri())
    assert page.locator("#deal").count() == 1
    body = page.inner_text("body")
    context.close()
    deal = body.split("The deal", 1)[1]
    for player in dealt.seats:
        assert f"{names[player]}: {', '.join(dealt.hands[player])}" in deal, player
    assert ", ".join(dealt.pile) in deal
    assert all(code in deal for code in set(dealt.cards))


def test_no_page_but_the_revealed_deal_lists_a_hand(demo, browser):  # noqa: F811
    """Hands are secret (6.14): only the deal, once revealed, names a hand's cards; the
    other pages give hand sizes."""
    archive, dealt, names = demo
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    for path in pages_of(archive):
        if path.name == "boards.html":
            continue
        page.goto(path.as_uri())
        body = page.inner_text("body")
        for player in dealt.seats:
            assert f"{names[player]}: {', '.join(dealt.hands[player])}" not in body, (path.name, player)
        assert "Your hand" not in body, path.name
    context.close()


def test_no_unleashed_archive_link_is_broken(demo, browser):  # noqa: F811
    archive, _, _ = demo
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    broken, links = [], 0
    for path in pages_of(archive):
        page.goto(path.as_uri())
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
        for href in hrefs:
            links += 1
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                broken.append(f"{path.name}: external link {href}")
                continue
            target = archive / unquote(parts.path) if parts.path else path
            if not target.is_file():
                broken.append(f"{path.name}: {href}")
                continue
            if parts.fragment and target.suffix == ".html" and f'id="{parts.fragment}"' not in target.read_text(
                    encoding="utf-8"):
                broken.append(f"{path.name}: {href} (no such anchor)")
    context.close()
    assert links > 20 and not broken, broken


def test_the_unleashed_archive_has_its_rules_page(demo, browser):  # noqa: F811
    """As every other ruleset's archive does (test_browser.py): docs/rules/unleashed.md,
    in the archive's frame, linked from the index."""
    archive, _, _ = demo
    assert (archive / "rules.html").is_file()
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto((archive / "index.html").as_uri())
    assert page.locator('a[href="rules.html"]').count() >= 1
    page.goto((archive / "rules.html").as_uri())
    assert "Unleashed" in page.inner_text("body")
    context.close()
