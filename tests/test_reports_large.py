"""Turn reports of a campaign too large to list everyone in the body (docs/rules/postal.md, What players see at
scale): each copy shows the player's own pieces and standing, the leaders and the top of
the standings, and attaches every player's start and end on every board once, as text;
the HTML part repeats none of that bulk. Up to turns.INLINE_PLAYERS players the body
lists everyone, as before."""

from __future__ import annotations

import re

import pytest
import yaml
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer

import gm.campaign.passwords
from gm.campaign import turns
from gm.rules.postal.views import LEADERS, TOP_STANDINGS

PLAYERS = tuple(KitPlayer(f"p{i:02d}", f"Player{i:02d} Name", f"p{i}@example.org", f"pw-{i}")
                for i in range(turns.INLINE_PLAYERS + 1))


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**4)  # fifty-one passwords: the set-up is not the test
        kit = CampaignKit.create(tmp_path_factory.mktemp("large") / "c", setenv=patch.setenv, players=PLAYERS,
                                 options={"close_after": 3, "max_turns": 3}, start=False)
        config = yaml.safe_load((kit.folder / "campaign.yaml").read_text(encoding="utf-8"))
        config["observers"] = [{"name": "Olive Observer", "email": "olive@example.org"}]
        (kit.folder / "campaign.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
        kit.start()
        kit.play_to_end()
        yield kit
        kit.close()


def text_of(part) -> str:
    return part.get_content().replace("\r\n", "\n")


def table_of(message):
    attached = [a for a in message.iter_attachments() if (a.get_filename() or "").endswith("-players.txt")]
    assert len(attached) == 1, message["Subject"]
    return attached[0].get_filename(), text_of(attached[0])


def names_in(text: str) -> set[str]:
    return set(re.findall(r"Player\d\d Name", text))


def test_2_6_large_report_attaches_every_players_start_and_end_on_every_board(large):
    reports = large.outbox(kind="report")
    assert len(reports) == 3 * (len(PLAYERS) + 1)  # and the observer
    tables = {}
    for message in reports:
        name, table = table_of(message)
        assert name == f"kit-2027-turn-{message.turn}-players.txt"
        tables.setdefault(message.turn, set()).add(table)
        # each player's line of the standings (the receipts played, listed below it, name them too)
        lines = [line for line in table.splitlines() if re.match(r"(\d+\. |- )Player\d\d Name: ", line)]
        assert sorted(names_in("\n".join(lines))) == sorted(p.name for p in PLAYERS)
        for line in lines:  # every board, start and end (or a finished piece's placing)
            assert re.search(r": A (\S+ -> \S+|finished \d+\w\w|stopped on \S+, \d+\w\w).*; B ", line), line
    # one table per turn, the same bytes in every copy
    assert all(len(copies) == 1 for copies in tables.values())


def test_2_6_large_report_body_shows_own_pieces_leaders_and_top_standings_only(large):
    for message in large.outbox(kind="report", player="p07"):
        text = text_of(message.get_body(("plain",)))
        _, table = table_of(message)
        own_line = next(line for line in table.splitlines() if "Player07 Name: " in line)
        cells = dict(cell.split(" ", 1) for cell in own_line.split(": ", 1)[1].split("; ") if cell[:1] in "AB")
        yours = text.split("YOUR PIECES\n", 1)[1]
        for board in ("A", "B"):
            start_end = re.search(r"(\S+ -> \S+|finished|stopped on \S+)", cells[board]).group(1)
            assert f"- Board {board}: " in yours and start_end in yours
        others = names_in(text) - {"Player07 Name"}
        assert len(others) <= 2 * LEADERS + TOP_STANDINGS
        assert "attached kit-2027-turn-" in text
        # the top of the standings lists placed players only: before any, it says so
        assert not re.search(r"^- Player\d\d Name: A -, B -$", text, re.MULTILINE)
        assert ("STANDINGS: no piece is placed yet." in text) != ("placed of 51 players" in text)


def test_large_report_html_part_does_not_repeat_the_bulk(large):
    for message in large.outbox(kind="report"):
        html = text_of(message.get_body(("html",)))
        assert len(names_in(html)) <= 1 + 2 * LEADERS + TOP_STANDINGS
        _, table = table_of(message)
        assert len(html) < len(table) * 4 and len(html) < 20_000


def test_large_observer_report_attaches_the_table_and_lists_only_the_leaders(large):
    observed = [m for m in large.outbox(kind="report") if m.player is None]
    assert len(observed) == 3
    for message in observed:
        table_of(message)
        for part in (message.get_body(("plain",)), message.get_body(("html",))):
            assert len(names_in(text_of(part))) <= 2 * LEADERS + TOP_STANDINGS


def test_large_final_results_attach_the_table_and_say_the_players_place(large):
    finals = [m for m in large.outbox(kind="report") if m["Subject"].startswith("[kit-2027] Final results")]
    assert len(finals) == len(PLAYERS)
    for message in finals:
        table_of(message)
        assert "You finished " in text_of(message.get_body(("plain",)))


def test_large_report_table_is_stored_once_per_turn_and_sent_whole_in_every_copy(large):
    """The outbox keeps each turn's table once (shared_parts), not in every report's row,
    so a turn's store and write-ahead log grow with the players; gm send puts it back."""
    import email
    import email.policy

    from gm.campaign.delivery import send

    with large.campaign() as campaign:
        rows = campaign.store.rows("select id from outbox where kind = 'report'")
        shared = campaign.store.rows("select data from shared_parts")
        assert len(shared) == 3  # one table a turn
        for part in shared:  # in no outbox row
            assert campaign.store.one("select count(*) as n from outbox where instr(raw, ?)", (part["data"],))["n"] == 0
        report = send(campaign)
    assert report.sent >= len(rows)
    for path in (large.folder / "mail" / "outbox" / "new").iterdir():
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if message["Subject"].startswith("[kit-2027] Turn") or "Final results" in message["Subject"]:
            _, table = table_of(message)
            assert sorted(names_in(table)) == sorted(p.name for p in PLAYERS)
            assert b"gm-shared-part" not in path.read_bytes()


def test_small_campaign_report_lists_everyone_in_its_body_and_attaches_no_table(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    try:
        kit.play_turn()
        for message in kit.outbox(kind="report"):
            assert not [a for a in message.iter_attachments() if "players" in (a.get_filename() or "")]
            text = text_of(message.get_body(("plain",)))
            assert all(p.name in text for p in PLAIN_PLAYERS) and "YOUR PIECES" not in text
    finally:
        kit.close()
