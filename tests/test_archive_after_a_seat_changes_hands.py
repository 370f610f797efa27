"""The archive after a seat changes hands (gm player replace): every link on its pages leads
to a page it has (a former holder has none: the seat's history is its holder's page), and
what was dealt or thrown at the start is named after whoever held the seat then, with the
seat's holder now beside it."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from handoverkit import new_game


def played_and_revealed(tmp_path, monkeypatch, ruleset: str):
    """bob's seat passes to Hal Foster during turn 2; the GM ends the campaign after it and reveals."""
    options = {"setup": "random"} if ruleset == "unleashed" else None
    game = new_game(tmp_path, monkeypatch, ruleset, options=options)
    game.gm("turn", now="2027-01-08T00:05:00Z", code=0 if ruleset != "unleashed" else 1)
    if ruleset == "unleashed":  # round 1 with no orders at all: the GM looks, then forces it
        game.gm("resolve", "--force", now="2027-01-08T00:06:00Z")
    game.gm("player", "replace", "bob", "hal", "--name", "Hal Foster", "--email", "hal@example.org",
            now="2027-01-09T00:00:00Z")
    game.gm("resolve", "--force", now="2027-01-15T00:05:00Z")
    game.gm("end", now="2027-01-15T01:00:00Z")
    game.gm("reveal", now="2027-01-15T02:00:00Z")
    game.gm("publish", now="2027-01-15T02:00:00Z")
    return game, game.folder / "archive"


def broken_links(site) -> list[tuple[str, str]]:
    broken = []
    for page in sorted(site.glob("*.html")):
        for target in re.findall(r'href="([^"#:]+\.html)', page.read_text()):
            if not (site / target).exists():
                broken.append((page.name, target))
    return broken


@pytest.mark.parametrize("ruleset", ["unleashed", "advanced", "classic"])
def test_no_archive_page_links_a_former_holders_page_after_a_seat_changes_hands(tmp_path, monkeypatch, ruleset):
    _, site = played_and_revealed(tmp_path, monkeypatch, ruleset)
    assert not (site / "player-bob.html").exists()
    assert broken_links(site) == []
    index = site.joinpath("index.html").read_text()
    # the seats as they were at the start, bob's linking the seat's page, its holder now said
    assert re.search(r'<a href="player-hal.html"><bdi>Bob</bdi></a> <span class="muted">\(seat held now by '
                     r'<bdi>Hal Foster</bdi>\)</span>', index)


def test_the_deal_names_each_hand_after_whoever_held_the_seat_at_the_start(tmp_path, monkeypatch):
    game, site = played_and_revealed(tmp_path, monkeypatch, "unleashed")
    boards = site.joinpath("boards.html").read_text()
    deal = boards[boards.index('id="deal"'):boards.index('id="seed"')]
    hands = dict(re.findall(r"<li><bdi>([^<]+)</bdi>: ([^<]+)</li>", deal))
    assert sorted(hands) == ["Alice", "Bob", "Carol"]
    # the hand under Bob's name is the one dealt to bob (the state before turn 1, as stored)
    with sqlite3.connect(game.folder / "gm.sqlite") as db:
        dealt = json.loads(db.execute("select state_before from turns where turn = 1").fetchone()[0])["hands"]
    assert hands["Bob"] == ", ".join(dealt["bob"])
    assert "Hal Foster" not in deal
