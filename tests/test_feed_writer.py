"""feed.xml is written by gm.publish.feed itself, byte for byte as feedgen 1.0 wrote it
through lxml (issue 27: a feed published before must not change, and importing feedgen
and lxml was 12 ms of every weekly publish). feedgen stays the reference here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit
from commandkit import gm_command
from feedgen.feed import FeedGenerator

from gm.publish.feed import _Feed

WHEN = ("2027-01-08T00:00:00Z", "2027-01-15T06:30:00Z", "2027-02-01T23:59:59Z")
HOSTILE = ("Turn 3: ⁨<script>alert('x')</script>⁩ & \"Bob\" > Carol ]]>", "Zoë 🐍 & ladders ≥ 3 \x7f\x85",
           "a 'quoted' \"name\" & <b>bold</b>", "")


def moment(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def by_feedgen(base: str, feed_id: str, title: str, subtitle: str, updated: str,
               entries: list[tuple[str, str, str, str, str]]) -> bytes:
    """The feed as gm wrote it with feedgen until issue 27 (the same calls, in order)."""
    fg = FeedGenerator()
    fg.id(feed_id)
    fg.title(title)
    fg.subtitle(subtitle)
    fg.link(href=base + "feed.xml", rel="self", type="application/atom+xml")
    fg.link(href=base + "index.html", rel="alternate", type="text/html")
    fg.generator("gm")
    fg.language("en")
    fg.updated(moment(updated))
    for entry_id, entry_title, link, at, summary in entries:
        fe = fg.add_entry(order="prepend")
        fe.id(entry_id)
        fe.title(entry_title)
        fe.link(href=link, rel="alternate", type="text/html")
        fe.updated(moment(at))
        fe.published(moment(at))
        fe.summary(summary)
    return fg.atom_str(pretty=True)


def by_gm(base: str, feed_id: str, title: str, subtitle: str, updated: str,
          entries: list[tuple[str, str, str, str, str]]) -> bytes:
    feed = _Feed(feed_id, title, subtitle, base, moment(updated))
    for entry in entries:
        feed.add(*entry)
    return feed.atom()


@pytest.mark.parametrize("base", ["", "https://example.org/spring-2027/", "https://example.org/a&b=\"c\"<d>/"])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_feed_is_written_byte_for_byte_as_feedgen_wrote_it(base, count):
    entries = [(f"urn:uuid:{n}" if not base else f"{base}turn-{n:03d}.html", HOSTILE[n % 3] or "Turn",
                f"{base}turn-{n:03d}.html", WHEN[n], HOSTILE[(n + 1) % len(HOSTILE)]) for n in range(count)]
    for title, subtitle in ((HOSTILE[0], HOSTILE[1]), ("plain", ""), (HOSTILE[2], HOSTILE[2])):
        made = (base, base + "feed.xml" if base else "urn:uuid:feed", title, subtitle, WHEN[-1], entries)
        assert by_gm(*made) == by_feedgen(*made)


@pytest.mark.parametrize("bad", ["a NUL \x00 byte", "a bell \x07", "a form feed \x0c", "a lone surrogate \ud800",
                                 "not a character \ufffe", "nor \uffff"])
def test_text_xml_cannot_hold_is_refused_as_feedgen_refused_it(bad):
    made = ("", "urn:uuid:feed", bad, "", WHEN[0], [])
    with pytest.raises(ValueError):
        by_feedgen(*made)
    with pytest.raises(ValueError):
        by_gm(*made)


def test_a_feed_or_entry_without_a_title_is_refused_as_feedgen_refused_it():
    for made in (("", "urn:uuid:feed", "", "", WHEN[0], []),
                 ("", "urn:uuid:feed", "t", "", WHEN[0], [("urn:uuid:1", "", "turn-001.html", WHEN[0], "s")])):
        with pytest.raises(ValueError):
            by_feedgen(*made)
        with pytest.raises(ValueError):
            by_gm(*made)


def test_gm_publish_writes_the_feed_without_importing_feedgen_or_lxml(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    kit.play_turn()
    kit.close()
    _, modules = gm_command("-C", str(kit.folder), "publish")
    imported = {name.partition(".")[0] for name in modules}
    assert b"<entry>" in (kit.folder / "archive" / "feed.xml").read_bytes()
    assert not imported & {"feedgen", "lxml"}
