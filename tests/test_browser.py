"""The archive in a real browser: Debian's Chromium driven by playwright (the system browser,
no download), on a 390-pixel phone screen, over every page of a finished and revealed
campaign whose players have hostile names. No console error, no script at all (so none
from data), no dialog, no broken link or anchor, an SVG where one belongs, and no page
wider than the screen."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from campaignkit import CampaignKit

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


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    from gm.campaign.reveal import reveal
    from gm.publish.write import publish

    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(tmp_path_factory.mktemp("browser") / "c", setenv=patch.setenv)
        kit.play_to_end()
        with kit.campaign() as campaign:
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
    for path in pages_of(archive):
        page.goto(path.as_uri())
        name = path.name
        assert page.locator("script").count() == 0, f"{name} has a script"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], f"{name} is wider than a phone"
        assert page.locator("h1").count() == 1, name
        if name in ("index.html", "boards.html"):
            assert page.locator("svg").count() >= 2, f"{name} lacks its drawings"
        checked += 1
    context.close()
    assert checked >= 4 and not problems, problems


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
