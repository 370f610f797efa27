"""feed.xml as a feed reader parses it: feedgen writes it (gm.publish.feed) from the words of
templates/archive/_feed.txt, and whatever those words hold (markup, quotes, ampersands,
bidirectional controls, emoji) comes back as the same text on one line; ids, links and
dates are the published turns' own, newest first. Text XML cannot hold at all (what is left
once the words are on one line) is refused, not written."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from markupsafe import escape

from gm.publish.feed import feed_id, render_feed

ATOM = "{http://www.w3.org/2005/Atom}"
WHEN = ("2027-01-08T00:00:00Z", "2027-01-15T06:30:00Z", "2027-02-01T23:59:59Z")
HOSTILE = ("Turn 3: ⁨<script>alert('x')</script>⁩ & \"Bob\" > Carol ]]>", "Zoë 🐍 & ladders ≥ 3 \x7f\x85",
           "a 'quoted' \"name\" & <b>bold</b>", "")

# the feed's words as the archive's templates give them: escaped, as every template prints
WORDS = SimpleNamespace(
    feed_title=lambda site: escape(site["title"]),
    feed_subtitle=lambda site: escape(site["subtitle"]),
    entry_title=lambda site, entry: escape(entry["title"]),
    entry_summary=lambda site, entry: escape(entry["summary"]),
)
ENV = SimpleNamespace(get_template=lambda name: SimpleNamespace(module=WORDS))


def moment(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def one_line(text: str) -> str:
    return " ".join(text.split())


def written(base: str, title: str, subtitle: str, entries: list[dict]) -> ET.Element:
    context = {"archive_url": base, "campaign": "c", "seed_commitment": "s", "title": title,
               "subtitle": subtitle, "entries": entries, "started_at": WHEN[0], "ended": None}
    root = ET.fromstring(render_feed(context, ENV))
    assert root.tag == f"{ATOM}feed"
    return root


def turn_entries(base: str, count: int) -> list[dict]:
    return [{"page": f"turn-{n:03d}.html", "resolved_at": WHEN[n], "title": HOSTILE[n % 3] or "Turn",
             "summary": HOSTILE[(n + 1) % len(HOSTILE)]} for n in range(count)]


@pytest.mark.parametrize("base", ["", "https://example.org/spring-2027/", "https://example.org/a&b=\"c\"<d>/"])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_feed_holds_each_turns_id_title_link_dates_and_summary_newest_first(base, count):
    entries = turn_entries(base, count)
    for title, subtitle in ((HOSTILE[0], HOSTILE[1]), ("plain", ""), (HOSTILE[2], HOSTILE[2])):
        feed = written(base, title, subtitle, entries)
        assert feed.findtext(f"{ATOM}id") == (base + "feed.xml" if base else feed_id("c", "s"))
        assert feed.findtext(f"{ATOM}title") == one_line(title)
        assert (feed.findtext(f"{ATOM}subtitle") or "") == one_line(subtitle)
        assert moment_of(feed) == moment(entries[-1]["resolved_at"] if entries else WHEN[0])
        assert [(link.get("rel"), link.get("href")) for link in feed.findall(f"{ATOM}link")] == \
            [("self", base + "feed.xml"), ("alternate", base + "index.html")]
        written_entries = feed.findall(f"{ATOM}entry")
        assert len(written_entries) == count
        for entry, made in zip(written_entries, reversed(entries), strict=True):
            assert entry.findtext(f"{ATOM}id") == (base + made["page"] if base else feed_id("c", "s", made["page"]))
            assert entry.findtext(f"{ATOM}title") == one_line(made["title"])
            assert [link.get("href") for link in entry.findall(f"{ATOM}link")] == [base + made["page"]]
            assert moment_of(entry) == moment_of(entry, "published") == moment(made["resolved_at"])
            assert (entry.findtext(f"{ATOM}summary") or "") == one_line(made["summary"])


def moment_of(element: ET.Element, name: str = "updated") -> datetime:
    return datetime.fromisoformat(element.findtext(f"{ATOM}{name}"))


@pytest.mark.parametrize("bad", ["a NUL \x00 byte", "a bell \x07", "a backspace \x08", "a lone surrogate \ud800",
                                 "not a character \ufffe", "nor \uffff"])
def test_text_xml_cannot_hold_is_refused(bad):
    with pytest.raises(ValueError):
        written("", bad, "", [])
    with pytest.raises(ValueError):
        written("", "t", "", [{**turn_entries("", 1)[0], "summary": bad}])


def test_a_feed_or_entry_without_a_title_is_refused():
    with pytest.raises(ValueError):
        written("", "", "", [])
    with pytest.raises(ValueError):
        written("", "t", "", [{**turn_entries("", 1)[0], "title": ""}])
