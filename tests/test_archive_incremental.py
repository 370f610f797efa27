"""A weekly `gm publish`: the campaign's store keeps each turn's summary and each
page's digest (gm.publish.memo), so publishing after one more turn derives only the new
turn and renders only the pages it changed; a page changed by hand, a turn undone and a
crowded campaign (more than INLINE_PLAYERS players) are all published right."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer
from commandkit import gm_command

import gm.campaign.passwords
from gm.campaign.turns import undo
from gm.publish.archive import CHARTED_LEADERS, FEED_LEADERS
from gm.publish.write import publish
from gm.rules.base import INLINE_PLAYERS


def counting_derivations(monkeypatch, campaign) -> list[int]:
    """Every turn the archive derives from the store from now on, by its first turn."""
    derived: list[int] = []
    cls = type(campaign.ruleset)
    original = cls.archive_turn

    def archive_turn(self, setup, before, after, events, names):
        derived.append(before.turn)
        return original(self, setup, before, after, events, names)

    monkeypatch.setattr(cls, "archive_turn", archive_turn)
    return derived


@pytest.fixture
def kit(tmp_path, monkeypatch):
    """A four-player campaign two turns on."""
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    kit.play_turn()
    kit.play_turn()
    yield kit
    kit.close()


def assert_as_published_afresh(kit, out, fresh):
    """`out` holds exactly the pages a publish into an empty folder writes."""
    with kit.campaign() as campaign:
        publish(campaign, fresh)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {p.name: p.read_bytes() for p in fresh.iterdir()}


def test_publish_after_one_more_turn_renders_only_the_pages_it_changed(kit, tmp_path):
    kit.play_turn()
    out = tmp_path / "site"
    with kit.campaign() as campaign:
        publish(campaign, out)
        _, again = publish(campaign, out)
    assert again.written == ()
    kit.play_turn()
    with kit.campaign() as campaign:
        _, report = publish(campaign, out)
    assert {"turn-004.html", "turn-005.html", "index.html", "feed.xml"} <= set(report.written)
    assert {"turn-001.html", "turn-002.html", "turn-003.html", "boards.html"} <= set(report.unchanged)
    assert_as_published_afresh(kit, out, tmp_path / "fresh")


def test_publish_renders_again_a_page_changed_or_removed_by_hand(kit, tmp_path):
    out = tmp_path / "site"
    with kit.campaign() as campaign:
        publish(campaign, out)
        page = (out / "turn-001.html").read_bytes()
        (out / "turn-001.html").write_bytes(page.replace(b"Turn 1", b"Turn 9"))
        (out / "turn-002.html").unlink()
        _, report = publish(campaign, out)
    assert {"turn-001.html", "turn-002.html"} <= set(report.written)
    assert (out / "turn-001.html").read_bytes() == page
    assert (out / "turn-002.html").exists()


def test_publish_after_undo_tells_the_turn_as_played_again(kit, tmp_path):
    out = tmp_path / "site"
    with kit.campaign() as campaign:
        publish(campaign, out)
        undo(campaign, force=True)
        _, report = publish(campaign, out)
    assert "turn-002.html" in report.written
    assert "is being played" in (out / "turn-002.html").read_text(encoding="utf-8")
    with kit.campaign() as campaign:
        rows = campaign.store.rows("select turn_index from archive_turns")
    assert [r["turn_index"] for r in rows] == [0]


# -- the command a GM runs ------------------------------------------------------------

def files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_publish_command_over_the_last_turns_archive_writes_what_a_full_publish_writes(kit, tmp_path):
    gm_command("-C", str(kit.folder), "publish")
    before = files(kit.folder / "archive")
    kit.play_turn()
    kit.close()
    said, _ = gm_command("-C", str(kit.folder), "publish")
    after = files(kit.folder / "archive")
    rewritten = {name for name, (_, mtime) in after.items() if before.get(name, (b"", None))[1] != mtime}
    assert {"turn-003.html", "turn-004.html", "index.html", "feed.xml"} <= rewritten
    assert not {"turn-001.html", "turn-002.html", "boards.html", "rules.html"} & rewritten
    assert f"({len(rewritten)} pages written, {len(after) - len(rewritten)} unchanged)" in said
    gm_command("-C", str(kit.folder), "publish", "--out", str(tmp_path / "fresh"))
    assert {name: data for name, (data, _) in after.items()} == \
        {name: data for name, (data, _) in files(tmp_path / "fresh").items()}


def test_publish_command_with_nothing_new_writes_nothing(kit):
    gm_command("-C", str(kit.folder), "publish")
    before = files(kit.folder / "archive")
    said, _ = gm_command("-C", str(kit.folder), "publish")
    assert "(0 pages written," in said
    assert files(kit.folder / "archive") == before


def test_archive_templates_are_compiled_once_for_every_publish(kit, tmp_path):
    """Jinja keeps each compiled template, as Python its .pyc, in a folder nobody else may
    write to: compiled code is run as it is found there."""
    from gm.publish.render import _environment

    cache = _environment(("postal",)).bytecode_cache
    assert cache is not None
    folder = Path(cache.directory)
    assert folder.stat().st_uid == os.getuid() and folder.stat().st_mode & 0o077 == 0
    with kit.campaign() as campaign:
        publish(campaign, tmp_path / "site")
    assert list(folder.glob("gm-archive-*.cache"))


# -- a crowded campaign --------------------------------------------------------------------------

CROWD = tuple(KitPlayer(f"p{i:02d}", f"Player{i:02d} Name", f"p{i}@example.org", f"pw-{i}")
              for i in range(INLINE_PLAYERS + 1))


@pytest.fixture
def crowd(tmp_path, monkeypatch):
    monkeypatch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**4)  # the set-up is not the test
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=CROWD,
                             options={"close_after": 3, "max_turns": 30})
    yield kit
    kit.close()


def test_crowded_publish_after_one_more_turn_derives_only_that_turn(crowd, tmp_path, monkeypatch):
    out = tmp_path / "site"
    crowd.play_turn()
    crowd.play_turn()
    with crowd.campaign() as campaign:
        publish(campaign, out)
        derived = counting_derivations(monkeypatch, campaign)
        _, again = publish(campaign, out)
    assert derived == [] and again.written == ()
    crowd.play_turn()
    with crowd.campaign() as campaign:
        publish(campaign, out)
    assert derived == [3]
    assert_as_published_afresh(crowd, out, tmp_path / "fresh")


def test_crowded_player_pages_change_only_with_a_placing_until_the_end(crowd, tmp_path):
    out = tmp_path / "site"
    crowd.play_turn()
    with crowd.campaign() as campaign:
        publish(campaign, out)
    page = (out / "player-p07.html").read_text(encoding="utf-8")
    assert "<th>Turn</th>" not in page and "not placed yet" in page
    assert "lists their turns one by one once the campaign is over" in page
    crowd.play_turn()
    with crowd.campaign() as campaign:
        _, report = publish(campaign, out)
        placed_now = {s.player for s in campaign.ruleset.archive_standings(campaign.setup, campaign.state(), {})
                      if any(s.placings)}
    rewritten = {p for p in report.written if p.startswith("player-")}
    assert rewritten <= {f"player-{p}.html" for p in placed_now}
    crowd.play_to_end()
    with crowd.campaign() as campaign:
        publish(campaign, out)
    page = (out / "player-p07.html").read_text(encoding="utf-8")
    assert "<th>Turn</th>" in page and 'href="turn-001.html"' in page


def test_crowded_race_chart_draws_the_leaders_over_the_field(crowd, tmp_path):
    out = tmp_path / "site"
    crowd.play_turn()
    crowd.play_turn()
    with crowd.campaign() as campaign:
        publish(campaign, out)
    index = (out / "index.html").read_text(encoding="utf-8")
    charts = re.findall(r'<figure>\s*<svg.*?</figure>', index, re.S)
    assert len(charts) == 2
    for chart in charts:
        assert chart.count("<polygon") == 1  # the field, lowest to highest
        assert chart.count("<polyline") == CHARTED_LEADERS + 1  # and its median
        assert len(re.findall(r"<li><svg", chart)) == CHARTED_LEADERS


def test_crowded_feed_names_the_leaders_of_each_board(crowd, tmp_path):
    out = tmp_path / "site"
    crowd.play_turn()
    with crowd.campaign() as campaign:
        publish(campaign, out)
    feed = (out / "feed.xml").read_text(encoding="utf-8")
    summary = re.search(r"<summary>(.*?)</summary>", feed, re.S).group(1)
    assert "The pieces furthest on after turn 1" in summary
    for board in summary.split("; "):
        assert len(re.findall(r"Player\d\d Name", board)) == FEED_LEADERS
