"""Every mail's HTML part on a phone (390 pixels, the real Chromium, as tests/test_browser.py
opens the archive): no sideways scrolling, text large enough to read, tables that fit, no
script. The mail comes from a real campaign of each ruleset that sends every kind
(test_mail_headers.every_kind_of_mail), its players with plain names; the hostile ones
are test_leaks.py's business."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import PHONE, browser  # noqa: F401  (the module's Chromium fixture)
from test_mail_headers import KINDS, html_of, sent_mail  # noqa: F401  (the mail fixture)

pytestmark = pytest.mark.browser

# the smallest text a phone reader should have to read; footnotes (the footer) may be 13px
SMALLEST_FONT = 13

MEASURE = """() => {
  const doc = document.documentElement;
  const sizes = [...document.querySelectorAll('body *')]
    .filter(e => e.innerText && e.innerText.trim() && e.children.length === 0)
    .map(e => parseFloat(getComputedStyle(e).fontSize));
  const tables = [...document.querySelectorAll('table, pre')]
    .filter(t => t.getBoundingClientRect().right > window.innerWidth + 0.5 || t.scrollWidth > t.clientWidth + 1)
    .map(t => t.outerHTML.slice(0, 120));
  return {scroll: doc.scrollWidth, smallest: Math.min(...sizes, 99), wide: tables};
}"""


def test_every_mail_reads_on_a_phone_without_scrolling_sideways(sent_mail, browser, tmp_path):  # noqa: F811
    ruleset, messages = sent_mail
    context = browser.new_context(viewport=PHONE, java_script_enabled=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    seen = set()
    for index, message in enumerate(messages):
        html = html_of(message)
        where = f"{ruleset} {message.template} ({message['Subject']})"
        path = Path(tmp_path / f"{index}.html")
        path.write_text(html, encoding="utf-8")
        page.goto(path.as_uri())
        assert page.locator("script").count() == 0, where
        measured = page.evaluate(MEASURE)
        assert measured["scroll"] <= PHONE["width"], (where, measured)
        assert measured["smallest"] >= SMALLEST_FONT, (where, measured)
        assert not measured["wide"], (where, measured["wide"])
        seen.add(message.template)
    context.close()
    assert not problems, problems
    # every kind that this ruleset sends was looked at (reminders are postal's alone; where
    # nobody writes, no vote moves a deadline)
    unsent = {"reminder"} | ({"deadline_extended"} if ruleset in ("classic", "doubles") else set())
    assert seen >= set(KINDS) - unsent, sorted(set(KINDS) - seen)


def test_the_help_mails_commands_fit_a_phone_line_by_line(sent_mail, browser, tmp_path):  # noqa: F811
    """The command table was a preformatted block whose columns wrapped into each other."""
    ruleset, messages = sent_mail
    help_mail = next(m for m in messages if m.template == "help")
    path = tmp_path / "help.html"
    path.write_text(html_of(help_mail), encoding="utf-8")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(path.as_uri())
    items = page.locator("li").all_inner_texts()
    context.close()
    assert any(item.startswith("PASSWORD <secret>") for item in items), items
    assert any(item.startswith("RESET") and "registered address" in item for item in items), items
