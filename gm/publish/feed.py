"""The archive's Atom feed (feed.xml): one entry per published turn, so spectators can follow
the campaign in a feed reader, and before the start one per sign-up event. Built from the
same public input as the pages (`archive.build_site` gives it a Page of kind "atom"); its
words come from templates/archive/_feed.txt; feedgen writes the XML.

Its bytes depend only on the published turns: every date in it is a turn's resolution time
(or the campaign's start), never the time of publishing, so a publish with no new turn
leaves feed.xml alone like any other page.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import jinja2
from feedgen.feed import FeedGenerator
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


def _add(feed: FeedGenerator, entry_id: str, title: str, link: str, at: str | None, summary: str) -> None:
    """One entry, newest first as feed readers list them, published and updated at `at`."""
    entry = feed.add_entry(order="prepend")
    entry.id(entry_id)
    entry.title(title)
    entry.link(href=link, rel="alternate", type="text/html")
    entry.updated(_moment(at))
    entry.published(_moment(at))
    entry.summary(summary)


def _generator(context: Mapping[str, Any], words: Any, subtitle: Any, name: str) -> tuple[FeedGenerator, str]:
    """The feed itself, before its entries, and the archive's address ("" when none is
    set; else ending with "/": pages are relative to it, docs/campaign.md). `name` names a
    feed with no address of its own (feed_id)."""
    base = context["archive_url"] or ""
    feed = FeedGenerator()
    feed.id(base + "feed.xml" if base else feed_id(context["campaign"], name))
    feed.title(_text(words.feed_title, context))
    feed.subtitle(_text(subtitle, context))
    feed.link(href=base + "feed.xml", rel="self", type="application/atom+xml")
    feed.link(href=base + "index.html", rel="alternate", type="text/html")
    feed.generator("gm")
    feed.language("en")
    return feed, base


def render_feed(context: Mapping[str, Any], env: jinja2.Environment) -> bytes:
    """feed.xml from the feed page's context (built by archive.build_site)."""
    words = env.get_template("archive/_feed.txt").module
    fg, base = _generator(context, words, words.feed_subtitle, context["seed_commitment"])
    entries = context["entries"]
    fg.updated(_moment(entries[-1]["resolved_at"] if entries else context["started_at"]))
    for entry in entries:
        _add(fg, base + entry["page"] if base else
         feed_id(context["campaign"], context["seed_commitment"], entry["page"]),
         _text(words.entry_title, context, entry), base + entry["page"], entry["resolved_at"],
         _text(words.entry_summary, context, entry))
    ended = context.get("ended")
    if ended is not None:
        # the GM's end (gm end) follows the last turn: feed readers learn the campaign is
        # over, and why, though no turn says so
        _add(fg, base + "index.html#standings" if base else
         feed_id(context["campaign"], context["seed_commitment"], "end"),
         _text(words.end_title, context, ended), base + "index.html#standings", ended.at,
         _text(words.end_summary, context, ended))
        fg.updated(_moment(ended.at))
    return fg.atom_str(pretty=True)


def render_signup_feed(context: Mapping[str, Any], env: jinja2.Environment) -> bytes:
    """feed.xml before the start (sign-up, docs/campaign.md): when sign-up opened, and
    closed, as its entries; its words from templates/archive/_feed.txt like the turns' feed."""
    words = env.get_template("archive/_feed.txt").module
    fg, base = _generator(context, words, words.signup_subtitle, "signup")
    entries = context["entries"]
    fg.updated(_moment(entries[-1]["at"] if entries else None))
    for number, entry in enumerate(entries):
        _add(fg, f"{base}index.html#signup-{number}" if base else
         feed_id(context["campaign"], "signup", str(number), entry["event"], entry["at"]),
         _text(words.signup_entry_title, context, entry), base + "index.html", entry["at"],
         _text(words.signup_entry_summary, context, entry))
    return fg.atom_str(pretty=True)

