"""What the archive tells spectators beyond the turn pages: the Atom feed of published turns
(feed.xml), the rules page (docs/rules/<ruleset>.md), where every piece stands while nobody
is placed yet, and who held a seat that changed hands."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

import pytest
from campaignkit import HOSTILE_PLAYERS, CampaignKit
from test_archive_per_ruleset import toy_campaign
from test_browser import RULESETS, finished_campaign
from test_leaks import campaign as leaks_campaign  # noqa: F401  (a fixture: the leak tests' campaign)
from test_leaks import hidden_strings, other_world, scramble
from toyrules import Step

from gm.publish.archive import FEED, build_site, rules_html
from gm.publish.archive_load import load_archive, rules_text
from gm.publish.archive_values import Holder
from gm.publish.render import render_page
from gm.publish.write import write_site

ATOM = "{http://www.w3.org/2005/Atom}"


def rendered(data) -> dict[str, bytes]:
    return {page.path: render_page(page) for page in build_site(data)}


def atom(data: bytes) -> ET.Element:
    root = ET.fromstring(data)
    assert root.tag == f"{ATOM}feed"
    return root


@pytest.fixture
def running(tmp_path, monkeypatch):
    """The kit's postal campaign after three turns."""
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    for _ in range(3):
        kit.play_turn()
    yield kit
    kit.close()


# -- the feed ------------------------------------------------------------------------------


def test_feed_has_one_entry_per_published_turn_dated_by_its_resolution(running):
    with running.campaign() as campaign:
        data = load_archive(campaign)
        resolved = [r["resolved_at"] for r in campaign.store.rows("select resolved_at from turns order by turn")]
    feed = atom(rendered(data)[FEED])
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 3 == len(resolved)
    for entry, turn, when in zip(entries, (3, 2, 1), resolved[::-1], strict=True):  # newest first
        assert entry.findtext(f"{ATOM}title").startswith(f"Turn {turn}")
        assert entry.find(f"{ATOM}link").get("href") == f"turn-{turn:03d}.html"
        updated = datetime.fromisoformat(entry.findtext(f"{ATOM}updated"))
        assert updated == datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        summary = entry.findtext(f"{ATOM}summary")
        assert f"after turn {turn}" in summary and "<script>alert('alice')</script>" in summary  # names as text
        assert entry.findtext(f"{ATOM}id").startswith("urn:uuid:")
    assert datetime.fromisoformat(feed.findtext(f"{ATOM}updated")) == datetime.fromisoformat(
        entries[0].findtext(f"{ATOM}updated"))
    assert feed.findtext(f"{ATOM}id").startswith("urn:uuid:")
    assert {link.get("href") for link in feed.findall(f"{ATOM}link")} == {"feed.xml", "index.html"}


def test_feed_links_are_absolute_under_archive_url(running):
    with running.campaign() as campaign:
        data = dataclasses.replace(load_archive(campaign), archive_url="https://example.org/cup/")
    feed = atom(rendered(data)[FEED])
    assert feed.findtext(f"{ATOM}id") == "https://example.org/cup/feed.xml"
    hrefs = [link.get("href") for link in feed.iter(f"{ATOM}link")]
    assert hrefs and all(h.startswith("https://example.org/cup/") for h in hrefs)
    assert "https://example.org/cup/turn-001.html" in hrefs


def test_feed_ids_stay_the_same_from_one_publish_to_the_next(running):
    with running.campaign() as campaign:
        before = atom(rendered(load_archive(campaign))[FEED])
    running.play_turn()
    with running.campaign() as campaign:
        after = atom(rendered(load_archive(campaign))[FEED])
    ids = {e.findtext(f"{ATOM}title"): e.findtext(f"{ATOM}id") for e in before.findall(f"{ATOM}entry")}
    later = {e.findtext(f"{ATOM}title"): e.findtext(f"{ATOM}id") for e in after.findall(f"{ATOM}entry")}
    assert ids.items() <= later.items() and len(later) == len(ids) + 1
    assert before.findtext(f"{ATOM}id") == after.findtext(f"{ATOM}id")


def test_feed_bytes_do_not_change_on_a_publish_with_no_new_turn(running, tmp_path):
    out = tmp_path / "site"
    with running.campaign() as campaign:
        first = write_site(build_site(load_archive(campaign)), out)
    assert FEED in first.written
    running.at(running.now + timedelta(days=2, hours=5))  # later, but no turn resolved
    with running.campaign() as campaign:
        again = write_site(build_site(load_archive(campaign)), out)
    assert FEED in again.unchanged and not again.written
    running.play_turn()
    with running.campaign() as campaign:
        after = write_site(build_site(load_archive(campaign)), out)
    assert FEED in after.written


def test_every_page_links_the_feed_in_its_head(running):
    with running.campaign() as campaign:
        site = rendered(load_archive(campaign))
    pages = {p: t.decode() for p, t in site.items() if p.endswith(".html")}
    assert len(pages) >= 6
    for path, text in pages.items():
        head = text.split("</head>")[0]
        assert '<link rel="alternate" type="application/atom+xml" href="feed.xml"' in head, path


def test_a_campaign_with_no_turn_yet_has_an_empty_valid_feed(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    with kit.campaign() as campaign:
        feed = atom(rendered(load_archive(campaign))[FEED])
        started = campaign.row()["started_at"]
    kit.close()
    assert feed.findall(f"{ATOM}entry") == []
    assert datetime.fromisoformat(feed.findtext(f"{ATOM}updated")) == datetime.strptime(
        started, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def test_2_6_feed_before_reveal_shows_no_hidden_fact(leaks_campaign, tmp_path):  # noqa: F811
    """The leak checks of tests/test_leaks.py over the feed: no board name, salt, canonical
    text or seed in it, and the same bytes whatever the hidden facts (other layouts and
    names, other players' numbers and routes)."""
    kit, _ = leaks_campaign
    copy = tmp_path / "c"
    shutil.copytree(kit.folder, copy)
    other = CampaignKit(copy, HOSTILE_PLAYERS, kit.setenv)
    with other.campaign() as opened:
        real = rendered(load_archive(opened))[FEED]
        with opened.store.transaction() as db:
            for index, row in enumerate(opened.store.rows("select * from turns")):
                events = scramble([opened.ruleset.event_from_json(e) for e in json.loads(row["events"])], "", index)
                db["turns"].update(row["turn"], {"events": json.dumps([dataclasses.asdict(e) for e in events])})
        opened.config = dataclasses.replace(opened.config, boards=other_world(opened.setup, 7).boards)
        decoy = rendered(load_archive(opened))[FEED]
    text = real.decode()
    assert text.count("<entry>") >= 3
    for hidden in hidden_strings(other):
        assert hidden not in text
    other.close()
    assert real == decoy


# -- the rules page ------------------------------------------------------------------------


RULES_MD = """# The rules of step

Some *rules* with a [link](https://example.org/) and a [bad one](javascript:alert(1)).

<script>alert('raw')</script>

Inline <b onclick="x()">bold</b> stays text.

## A table

| Order | Meaning |
| --- | --- |
| `STEP <n>` | step n squares |
"""


def test_rules_markdown_renders_tables_and_anchors_and_keeps_raw_html_out():
    html = str(rules_html(RULES_MD))
    assert '<h1 id="the-rules-of-step">' in html and '<h2 id="a-table">' in html  # toc anchors
    assert "<table>" in html and "<code>STEP &lt;n&gt;</code>" in html
    assert '<a href="https://example.org/">link</a>' in html
    assert "javascript:" not in html and ">bad one</a>" in html  # the link text stays, not its target
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<b onclick" not in html and "&lt;b onclick" in html


def test_rules_page_is_in_the_archives_frame_and_in_every_pages_navigation():
    data = dataclasses.replace(toy_campaign(Step(), secrets=False, turns=2), rules=RULES_MD)
    site = {p: t.decode() for p, t in rendered(data).items()}
    page = site["rules.html"]
    assert '<article class="rules">' in page and "<title>Rules · " in page
    assert '<a href="rules.html" aria-current="page">Rules</a>' in page
    assert page.count("<h1") == 1
    for path, text in site.items():
        if path.endswith(".html"):
            assert '<a href="rules.html"' in text, path
    without = {p for p, _ in rendered(dataclasses.replace(data, rules=None)).items()}
    assert "rules.html" not in without
    assert all('href="rules.html"' not in t.decode() for t in rendered(dataclasses.replace(data, rules=None)).values())


@pytest.mark.parametrize("ruleset", ["postal", "classic", "doubles", "advanced"])
def test_each_ruleset_archive_links_its_own_shipped_rules(ruleset):
    text = rules_text((ruleset,))
    if text is None:
        pytest.skip(f"docs/rules/{ruleset}.md is not written yet")
    html = str(rules_html(text))
    first_heading = re.search(r"^#\s+(.+)$", text, re.M).group(1)
    assert "<h1" in html and "<script" not in html
    assert any(word in html for word in first_heading.split()[:2])


def test_a_derived_ruleset_shows_the_rules_of_the_one_it_derives_from():
    assert rules_text(("house-rules", "postal")) == rules_text(("postal",))


# -- where everyone is during play (every ruleset) ------------------------------------------


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_standings_during_play_show_each_pieces_square(ruleset, tmp_path, monkeypatch):
    kit = finished_campaign(tmp_path / "c", ruleset, monkeypatch.setenv, turns=2)
    with kit.campaign() as campaign:
        data = load_archive(campaign)
        now = campaign.ruleset.state_json(campaign.setup, campaign.state())
    kit.close()
    assert not data.over and len(data.turns) == 2
    index = rendered(data)["index.html"].decode()
    standings = index.split('id="standings"')[1].split("</table>")[0]
    rows = re.findall(r"<tr><td class=\"num\">.*?</tr>", standings)
    assert len(rows) == len(data.players)
    for row, line in zip(rows, data.standings, strict=True):
        for board, placing in zip(data.boards, line.placings, strict=True):
            piece = now["boards"][board.id]["players"][line.player]
            if placing:
                assert f">{placing}" in row  # a placing, once it exists, is shown
            elif piece["finished"]:
                assert "finished" in row
            else:
                where = "Start" if piece["square"] == 0 else str(piece["square"])
                assert f'<span class="muted">on</span> {where}</td>' in row, (ruleset, line.player)
        assert ">-<" not in row
    # each turn page's standings say where the pieces stood after that turn
    turn = rendered(data)["turn-001.html"].decode().split("Standings after turn 1")[1]
    first = data.turns[0].boards[0].pieces[0]
    assert f'<span class="muted">on</span> {first.end or "Start"}</td>' in turn or first.finished


# -- seats that changed hands ----------------------------------------------------------------


def test_seat_holders_are_shown_on_the_standings_the_player_page_and_the_turns_of_their_time():
    holders = (
        Holder(0, "zed", "Zed Zebra", 1, 2),
        Holder(0, "ann", "Ann", 3, None),
        Holder(1, "ben", "Ben", 1, None),
        Holder(2, "cat", "Cat", 1, None),
    )
    data = toy_campaign(Step(), secrets=False, turns=4, holders=holders, extra_names={"zed": "Zed Zebra"})
    site = {p: t.decode() for p, t in rendered(data).items()}
    index = site["index.html"].split('id="standings"')[1].split("</table>")[0]
    assert ('<bdi>Ann</bdi></a> <span class="muted">(seat held by <bdi>Zed Zebra</bdi> until turn 2)</span>'
            in index)
    assert "seat held by" not in index.split("player-ben.html")[1].split("</tr>")[0]
    assert "Seat held by <bdi>Zed Zebra</bdi> until turn 2; <bdi>Ann</bdi> holds it since turn 3." in site["player-ann.html"]
    # turns 1 and 2 were played by Zed, turns 3 and 4 by Ann, under the same seat
    for turn, name in ((1, "Zed Zebra"), (2, "Zed Zebra"), (3, "Ann"), (4, "Ann")):
        page = site[f"turn-{turn:03d}.html"]
        assert f'<tr><td class="name"><bdi>{name}</bdi>' in page, turn
    assert "<bdi>Ann</bdi>" not in site["turn-001.html"].split("<main>")[1]
    assert "Zed Zebra" not in site["turn-003.html"]


def test_holders_written_to_the_store_reach_the_archive(running):
    """Before `gm player replace` exists: a former holder's row as it will write one
    (replaced_by the new id, until_turn, the same seat), read back by load_archive."""
    with running.campaign() as campaign, campaign.store.transaction() as db:
        alice = campaign.store.one("select * from players where id = 'alice'")
        db["players"].insert(alice | {"id": "zoe", "name": "Zoë Former", "email": "zoe@example.org",
                                      "replaced_by": "alice", "from_turn": 1, "until_turn": 2})
        db["players"].update("alice", {"from_turn": 3})
    with running.campaign() as campaign:
        assert "zoe" in campaign.names()
        site = {p: t.decode() for p, t in rendered(load_archive(campaign)).items()}
    alice_name = next(p.name for p in HOSTILE_PLAYERS if p.id == "alice")
    assert "(seat held by <bdi>Zoë Former</bdi> until turn 2)" in site["index.html"]
    assert "Seat held by <bdi>Zoë Former</bdi> until turn 2" in site["player-alice.html"]
    assert "Zoë Former" in site["turn-001.html"] and "Zoë Former" in site["turn-002.html"]
    assert "Zoë Former" not in site["turn-003.html"]
    assert alice_name.replace("<", "&lt;")[:10] in site["turn-003.html"]
