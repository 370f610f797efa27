"""The archive's Atom feed (feed.xml): one entry per published turn, so spectators can follow
the campaign in a feed reader. Built from the same public input as the pages
(`archive.build_site` gives it a Page of kind "atom"); its words come from
templates/archive/_feed.txt.

Its bytes depend only on the published turns: every date in it is a turn's resolution time
(or the campaign's start), never the time of publishing, so a publish with no new turn
leaves feed.xml alone like any other page.

The XML is written here, byte for byte as feedgen 1.0 wrote it through lxml (pretty
printed, feedgen's order of elements, its entry links with an href alone), so a feed
published before is not rewritten: importing feedgen and lxml was 12 ms of every publish
that wrote the feed (issue 27). tests/test_feed_writer.py holds it to feedgen's bytes.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import jinja2
from markupsafe import Markup

EPOCH = "1970-01-01T00:00:00Z"  # a campaign assembled without a start time (tests)


def _moment(text: str | None) -> datetime:
    return datetime.strptime(text or EPOCH, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def feed_id(campaign: str, seed_commitment: str, *parts: str) -> str:
    """A permanent id with no address of its own: the campaign's id and seed commitment
    name it uniquely, and a name-based UUID keeps it the same on every publish."""
    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, ":".join(("gm", campaign, seed_commitment, *parts))))


def _text(macro: Any, *args: Any) -> str:
    # the archive's templates escape what they print; feedgen escapes again, so the
    # words go to it as the plain text they stand for, on one line
    return " ".join(Markup(macro(*args)).unescape().split())


# what XML 1.0 cannot hold at all: lxml refused such text with a ValueError, and so does this
# (named as they are, not as the complement of what XML allows: that class took 8 ms to compile)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_IN_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_IN_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;",
                               "\r": "&#13;", "\t": "&#9;"})


def _xml(text: str, table: dict[int, str]) -> str:
    if _NOT_XML.search(text):
        raise ValueError("All strings must be XML compatible: Unicode or ASCII, no NULL bytes or control characters")
    return text.translate(table)


def _element(name: str, text: str | None, indent: str = "  ") -> str:
    """One element of text, as libxml2 writes it (`<name/>` when it has none)."""
    return f"{indent}<{name}/>\n" if not text else f"{indent}<{name}>{_xml(text, _IN_TEXT)}</{name}>\n"


def _link(href: str, indent: str, *attributes: tuple[str, str]) -> str:
    written = "".join(f' {key}="{_xml(value, _IN_ATTRIBUTE)}"' for key, value in (("href", href), *attributes))
    return f"{indent}<link{written}/>\n"


@dataclass
class _Entry:
    id: str
    title: str
    link: str
    at: datetime
    summary: str

    def xml(self) -> str:
        if not (self.id and self.title):
            raise ValueError("Required fields not set")
        # feedgen 1.0 wrote an entry's link with its href alone (its rel and type were lost)
        return ("  <entry>\n" + _element("id", self.id, "    ") + _element("title", self.title, "    ")
                + _element("updated", self.at.isoformat(), "    ") + _link(self.link, "    ")
                + _element("summary", self.summary, "    ") + _element("published", self.at.isoformat(), "    ")
                + "  </entry>\n")


@dataclass
class _Feed:
    """An Atom feed with feedgen's elements, in its order; entries newest first."""

    id: str
    title: str
    subtitle: str
    base: str  # the archive's address: "" or ending with "/"
    updated: datetime | None = None
    entries: list[_Entry] = field(default_factory=list)

    def add(self, entry_id: str, title: str, link: str, at: Any, summary: str) -> None:
        """One entry, newest first as feed readers list them, published and updated at `at`."""
        self.entries.insert(0, _Entry(entry_id, title, link, _moment(at), summary))

    def atom(self) -> bytes:
        if not (self.id and self.title and self.updated):
            raise ValueError("Required fields not set")
        head = ('<?xml version=\'1.0\' encoding=\'UTF-8\'?>\n'
                '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">\n'
                + _element("id", self.id) + _element("title", self.title)
                + _element("updated", self.updated.isoformat())
                + _link(self.base + "feed.xml", "  ", ("rel", "self"), ("type", "application/atom+xml"))
                + _link(self.base + "index.html", "  ", ("rel", "alternate"), ("type", "text/html"))
                + _element("generator", "gm") + (_element("subtitle", self.subtitle) if self.subtitle else ""))
        return (head + "".join(entry.xml() for entry in self.entries) + "</feed>\n").encode("utf-8")


def _generator(context: Mapping[str, Any], words: Any, subtitle: Any, name: str) -> tuple[_Feed, str]:
    """The feed itself, before its entries, and the archive's address ("" when none is
    set; else ending with "/", config.py: pages are relative to it). `name` names a feed
    with no address of its own (feed_id)."""
    base = context["archive_url"] or ""
    return _Feed(base + "feed.xml" if base else feed_id(context["campaign"], name),
                 _text(words.feed_title, context), _text(subtitle, context), base), base


def render_feed(context: Mapping[str, Any], env: jinja2.Environment) -> bytes:
    """feed.xml from the feed page's context (built by archive.build_site)."""
    words = env.get_template("archive/_feed.txt").module
    fg, base = _generator(context, words, words.feed_subtitle, context["seed_commitment"])
    entries = context["entries"]
    fg.updated = _moment(entries[-1]["resolved_at"] if entries else context["started_at"])
    for entry in entries:
        fg.add(base + entry["page"] if base else
               feed_id(context["campaign"], context["seed_commitment"], entry["page"]),
               _text(words.entry_title, context, entry), base + entry["page"], entry["resolved_at"],
               _text(words.entry_summary, context, entry))
    ended = context.get("ended")
    if ended is not None:
        # the GM's end (gm end) follows the last turn: feed readers learn the campaign is
        # over, and why, though no turn says so
        fg.add(base + "index.html#standings" if base else
               feed_id(context["campaign"], context["seed_commitment"], "end"),
               _text(words.end_title, context, ended), base + "index.html#standings", ended.at,
               _text(words.end_summary, context, ended))
        fg.updated = _moment(ended.at)
    return fg.atom()


def render_signup_feed(context: Mapping[str, Any], env: jinja2.Environment) -> bytes:
    """feed.xml before the start (RULES.md 3.1): when sign-up opened, and closed, as its
    entries; its words from templates/archive/_feed.txt like the turns' feed."""
    words = env.get_template("archive/_feed.txt").module
    fg, base = _generator(context, words, words.signup_subtitle, "signup")
    entries = context["entries"]
    fg.updated = _moment(entries[-1]["at"] if entries else None)
    for number, entry in enumerate(entries):
        fg.add(f"{base}index.html#signup-{number}" if base else
               feed_id(context["campaign"], "signup", str(number), entry["event"], entry["at"]),
               _text(words.signup_entry_title, context, entry), base + "index.html", entry["at"],
               _text(words.signup_entry_summary, context, entry))
    return fg.atom()

