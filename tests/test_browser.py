"""The archive in a real browser: Debian's Chromium driven by playwright (the system browser,
no download), on a 390-pixel phone screen, over every page of a finished and revealed
campaign of each ruleset (postal, classic, doubles, advanced with a team of two) whose
players have hostile names. No console error, no script at all (so none from data), no
dialog, no broken link or anchor, an SVG where one belongs, and no page wider than the
screen."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from campaignkit import BOARDS, CampaignKit

CHROMIUM = Path("/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.browser


def chromium() -> Path:
    """The system Chromium. Missing: skipped on a developer's machine, installed (Debian's
    `chromium` package) or failed under CI, where a skipped browser test would hide a break."""
    if CHROMIUM.exists():
        return CHROMIUM
    if not os.environ.get("CI"):
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium); set CI=1 to require it")
    if shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], check=False,
                       env=os.environ | {"DEBIAN_FRONTEND": "noninteractive"}, timeout=600)
    if not CHROMIUM.exists():
        pytest.fail("CI is set and /usr/bin/chromium is missing: install Debian's chromium package")
    return CHROMIUM


def dice_orders(kit: CampaignKit, state: Any, turn: int) -> dict[str, list[str]]:
    """Classic and doubles: nobody must write; dave resigns in turn 3 (placed last)."""
    return {"dave": ["RESIGN"]} if turn == 3 else {}


def advanced_orders(kit: CampaignKit, state: Any, turn: int) -> dict[str, list[str]]:
    """Advanced: mostly MOVE, dave silent now and then (an NMR move), and builds of snakes
    and ladders a square or two down, so that some are built and others fail."""
    orders = {}
    for index, player in enumerate(p.id for p in kit.players):
        if state.ended[player] or (player == "dave" and turn % 4 == 2):
            continue
        square = state.squares[player]
        if square >= 3 and (turn + index) % 3 == 0:
            item = "SNAKE" if (turn + index) % 2 else "LADDER"
            orders[player] = [f"BUILD {item} {square - 1 - turn % 2}"]
        else:
            orders[player] = ["MOVE"]
    return orders


# The browser runs over a finished, revealed archive of each ruleset, on the board `gm
# campaign new` gives it (Ruleset.starter_board), its players with hostile names.
RULESETS: dict[str, dict[str, Any]] = {
    "postal": {},  # CampaignKit's own campaign: two boards, NUMBER and TRAPDOOR orders
    "classic": {"options": {"close_after": 2, "max_turns": 80}, "orders": dice_orders},
    "doubles": {"options": {"close_after": "all", "max_turns": 80}, "orders": dice_orders},
    "advanced": {"options": {"max_turns": 80}, "teams": {"bob": "red", "carol": "red"},
                 "orders": advanced_orders},
}


def play_by_the_rules(kit: CampaignKit, orders_for: Callable[[CampaignKit, Any, int], dict[str, list[str]]],
                      turns: int | None = None) -> None:
    """Each turn the orders go through the order desk a day before the deadline, and the GM
    resolves an hour after it, to the end (or for `turns` turns)."""
    from gm.campaign.turns import resolve

    for played in range(100):
        state = kit.state()
        if state.over or played == turns:
            return
        with kit.campaign() as campaign:
            deadline = campaign.deadline()
        kit.at(deadline - timedelta(days=1))
        for player, lines in orders_for(kit, state, state.turn).items():
            kit.log.append(kit.order(player, lines))
        kit.at(deadline + timedelta(hours=1))
        with kit.campaign() as campaign:
            resolve(campaign, force=True)
    raise AssertionError("the campaign did not end")


def finished_campaign(folder: Path, ruleset: str, setenv: Callable[[str, str], None],
                      turns: int | None = None) -> CampaignKit:
    """A campaign of `ruleset` played to the end, or for `turns` turns only."""
    if ruleset == "postal":
        kit = CampaignKit.create(folder, setenv=setenv)
        if turns is None:
            kit.play_to_end()
        for _ in range(turns or 0):
            kit.play_turn()
        return kit
    from gm.rules import registry

    spec = RULESETS[ruleset]
    kit = CampaignKit.create(folder, setenv=setenv, start=False, seed=2**128 + 2027,
                             campaign_id=f"kit-{ruleset}", options=spec["options"])
    config = yaml.safe_load((folder / "campaign.yaml").read_text(encoding="utf-8"))
    config["ruleset"] = ruleset
    config["boards"] = {"A": str(BOARDS / registry.find_ruleset(ruleset).starter_board)}
    for player in config["players"]:
        if player["id"] in spec.get("teams", {}):
            player["team"] = spec["teams"][player["id"]]
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                                          encoding="utf-8")
    kit.start()
    play_by_the_rules(kit, spec["orders"], turns)
    return kit


@pytest.fixture(scope="module", params=sorted(RULESETS))
def archive(request, tmp_path_factory) -> Path:
    from gm.campaign.reveal import reveal
    from gm.publish.write import publish

    with pytest.MonkeyPatch.context() as patch:
        kit = finished_campaign(tmp_path_factory.mktemp(f"browser-{request.param}") / "c", request.param,
                                patch.setenv)
        with kit.campaign() as campaign:
            assert campaign.state().over
            reveal(campaign)
            out, _ = publish(campaign)
        kit.close()
    return out


@pytest.fixture(scope="module")
def browser():
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(executable),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        yield launched
        launched.close()


def pages_of(archive: Path) -> list[Path]:
    return sorted(archive.glob("*.html"))


def test_every_archive_page_loads_cleanly_on_a_phone(archive, browser):
    context = browser.new_context(viewport=PHONE, java_script_enabled=True)
    problems: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    checked = 0
    boards = len(yaml.safe_load((archive.parent / "campaign.yaml").read_text(encoding="utf-8"))["boards"])
    for path in pages_of(archive):
        page.goto(path.as_uri())
        name = path.name
        assert page.locator("script").count() == 0, f"{name} has a script"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], f"{name} is wider than a phone"
        assert page.locator("h1").count() == 1, name
        if name in ("index.html", "boards.html"):  # a race chart, a board drawing, per board
            assert page.locator("svg").count() >= boards, f"{name} lacks its drawings"
        checked += 1
    context.close()
    assert checked >= 4 and not problems, problems
    # the rules page (docs/rules/<ruleset>.md in the archive's frame) is among the pages read
    assert (archive / "rules.html") in pages_of(archive)


def test_no_archive_link_is_broken(archive, browser):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    broken = []
    for path in pages_of(archive):
        page.goto(path.as_uri())
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
        for href in hrefs:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                broken.append(f"{path.name}: external link {href}")  # the archive stands alone
                continue
            target = archive / unquote(parts.path) if parts.path else path
            if not target.is_file():
                broken.append(f"{path.name}: {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                page_ids = target.read_text(encoding="utf-8")
                if f'id="{parts.fragment}"' not in page_ids:
                    broken.append(f"{path.name}: {href} (no such anchor)")
    context.close()
    assert not broken, broken


def test_archive_reads_without_javascript(archive, browser):
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto((archive / "index.html").as_uri())
    assert page.locator("table").count() >= 2
    assert page.get_by_text("Final standings").count() >= 1
    context.close()


def test_hostile_names_are_shown_as_text(archive, browser):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto((archive / "index.html").as_uri())
    body = page.inner_text("body")
    assert "<script>alert('alice')</script>" in body
    assert "{{ 7*7 }} {% raw %}Dave" in body
    assert page.locator("img").count() == 0
    context.close()


def test_turn_pages_tell_each_rulesets_play(archive, browser, request):
    """What the turn pages say, as a reader sees it: every throw (dice, advanced), the
    resignation (classic, doubles), the builds (advanced)."""
    ruleset = request.node.callspec.params["archive"]
    if ruleset == "postal":
        pytest.skip("postal throws no dice: its turn pages are pinned by test_archive.py's golden archive")
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    texts = []
    for path in sorted(archive.glob("turn-*.html")):
        page.goto(path.as_uri())
        texts.append(page.inner_text("body"))
    context.close()
    assert texts and "threw" in texts[0]
    if ruleset == "advanced":
        assert any("builds a snake" in t for t in texts) and any("builds a ladder" in t for t in texts)
    else:
        assert "resigned" in texts[2]  # dave's RESIGN in turn 3
