"""docs/rules/, Joining by mail: before the start, `gm publish` writes the game's front page (title,
ruleset, rules, how to join with the exact lines and a one-tap mailto: link, the names of
those in, the places left) and a feed that says when sign-up opens and closes."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from campaignkit import HOSTILE_PLAYERS
from signupkit import SignupGame


@pytest.fixture
def made(tmp_path, monkeypatch) -> SignupGame:
    return SignupGame.create(tmp_path / "spring", monkeypatch,
                             signup={"max_players": 5, "closes": "2027-03-08 18:00"},
                             players=[{"id": "zed", "name": "Zed <b>Listed</b>", "email": "zed@example.org"}],
                             extra={"archive_url": "https://example.org/spring/"})


def _page(made: SignupGame, name: str = "index.html") -> str:
    return (made.folder / "archive" / name).read_text()


def test_3_1_the_front_page_shows_the_game_and_how_to_join(made):
    made.gm("publish")
    page = _page(made)
    assert "<h1><bdi>Spring Snakes</bdi></h1>" in page
    assert "<code>postal</code> rules" in page and 'href="rules.html"' in page
    assert "A of 100 squares" in page
    assert 'href="mailto:gm@example.org"' in page
    assert "<pre>JOIN spring\nNAME &lt;your full name&gt;\n</pre>" in page
    assert "<strong>4 places left</strong> of 4" in page and "Sign-up closes Monday 08 March 2027, 18:00 UTC" in page
    link = re.search(r'<a href="(mailto:[^"]+)">open a ready mail</a>', page).group(1).replace("&amp;", "&")
    parts = urlsplit(link)
    assert unquote(parts.path) == "gm@example.org"
    query = parse_qs(parts.query)
    assert query["subject"] == ["Join Spring Snakes"] and query["body"] == ["JOIN spring\r\nNAME"]
    assert "CONFIRM &lt;code&gt;" in page
    rules = _page(made, "rules.html")
    assert "The rules of the <code>postal</code> game" in rules
    # the nav leads only to pages that exist before the start
    for href in set(re.findall(r'href="([a-z-]+\.html)', page + rules)):
        assert (made.folder / "archive" / href).exists(), href


def test_3_1_the_front_page_names_those_in_isolated_and_never_an_address(made):
    for player in HOSTILE_PLAYERS:
        made.join(player.email, player.name)
    made.gm("ingest")
    for player in HOSTILE_PLAYERS:
        made.later(minutes=1)
        made.confirm(player.email)
    made.gm("ingest")
    made.signed_up(("late@example.org", "Late Comer"))
    made.gm("publish")
    page = _page(made)
    players = page.split('<h2 id="players">')[1]
    assert "<li><bdi>Zed &lt;b&gt;Listed&lt;/b&gt;</bdi></li>" in players
    assert "<bdi>&lt;script&gt;alert(&#39;alice&#39;)&lt;/script&gt;</bdi>" in players
    assert "<script>" not in page and "onerror=" not in page.replace("onerror=alert", "")
    assert "5 in, 1 waiting" in players and "Late Comer" not in players
    assert "Every place (4) is taken" in page
    assert "@example.org" not in page.replace("gm@example.org", "")


def test_3_1_the_feed_says_when_sign_up_opens_and_closes(made):
    made.gm("publish")
    feed = _page(made, "feed.xml")
    assert feed.count("<entry>") == 1
    assert "Sign-up is open" in feed and "Sign-up closes Monday 08 March 2027, 18:00 UTC" in feed
    assert "<published>2027-03-01T09:00:00+00:00</published>" in feed
    made.later(hours=5)
    made.gm("publish")
    assert _page(made, "feed.xml") == feed  # nothing new: the same bytes
    made.later(days=8)
    made.gm("publish")
    feed = _page(made, "feed.xml")
    assert feed.count("<entry>") == 2 and "Sign-up has closed" in feed
    assert "<published>2027-03-08T18:00:00+00:00</published>" in feed
    assert "<strong>Sign-up has closed</strong>" in _page(made)


def test_3_1_open_false_is_news_in_the_feed_too(made):
    made.gm("publish")
    made.later(hours=1)
    made.edit(lambda data: data["signup"].update(open=False))
    made.gm("publish")
    feed = _page(made, "feed.xml")
    assert "Sign-up has closed" in feed and "<published>2027-03-01T10:00:00+00:00</published>" in feed


def test_3_1_after_the_start_publish_writes_the_archive(made):
    made.signed_up(("ann@example.org", "Ann"))
    made.gm("publish")
    made.gm("start")
    made.gm("publish")
    page = _page(made)
    assert "Standings" in page and "How to join" not in page
