"""docs/audit.md: the proof is shown to people, in words, exactly as stored. Every welcome (at
gm start, to a seat's new holder, to an observer), the GM's start mail and the final mail
show the game commitment; every acknowledgement the receipt of the whole standing order;
every turn report (players', observers', the GM's) the record hash and each seat's
receipt played, or none; the archive's front page the game commitment and each turn's
page its record. Each value is read back from gm.sqlite, for every ruleset. Above
INLINE_PLAYERS a report carries only its reader's receipt and the record hash, and the
attached table every receipt."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from campaignkit import BOARDS, PLAIN_PLAYERS, CampaignKit, KitPlayer
from click.testing import CliRunner

from gm.cli import cli
from gm.rules.base import INLINE_PLAYERS

RULESETS = ("postal", "classic", "doubles", "advanced", "unleashed")
ARCHIVE = "https://games.example.org/proof/"
# alice's order in turn 1 (acknowledged with a receipt); bob sends none
ORDER = {"postal": ["NUMBER 3"], "classic": ["RESIGN NONE"], "doubles": ["RESIGN NONE"],
         "advanced": ["MOVE"], "unleashed": ["REACT BACK NONE"]}
HASH = re.compile(r"[0-9a-f]{64}")


def campaign_folder(folder: Path, ruleset: str, setenv: Callable[[str, str], None], *,
                    players: tuple[KitPlayer, ...] = PLAIN_PLAYERS[:3], max_turns: int = 3) -> CampaignKit:
    """A campaign of `ruleset` on its usual board (postal: the kit's two), an observer and
    the archive's address; not started."""
    from gm.rules import registry

    kit = CampaignKit.create(folder, setenv=setenv, players=players, start=False, seed=2**128 + 25,
                             campaign_id=f"proof-{ruleset}")
    config = yaml.safe_load((folder / "campaign.yaml").read_text(encoding="utf-8"))
    config["ruleset"] = ruleset
    config["options"] = {"max_turns": max_turns} | ({"close_after": "all"} if ruleset == "postal" else {})
    if ruleset == "unleashed":
        del config["boards"]  # the default board, made from the seed
        config["options"]["seating"] = "listed"
    elif ruleset != "postal":
        config["boards"] = {"A": str(BOARDS / registry.find_ruleset(ruleset).starter_board)}
    if ruleset == "advanced":
        config["players"][1]["team"] = "red"
    config["observers"] = [{"name": "Olive Watcher", "email": "olive@example.org"}]
    config["archive_url"] = ARCHIVE
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                                          encoding="utf-8")
    return kit


def play(folder: Path, ruleset: str, setenv: Callable[[str, str], None]) -> CampaignKit:
    """Started; alice orders in turn 1, bob does not; after turn 1 bob's seat goes to erin;
    played to its end."""
    from gm.campaign import admin
    from gm.campaign.turns import resolve

    kit = campaign_folder(folder, ruleset, setenv)
    kit.start()
    kit.at(kit.now + timedelta(hours=1))
    kit.order("alice", ORDER[ruleset])
    for turn in range(1, 40):
        kit.close()
        with kit.campaign() as campaign:
            if campaign.state().over:
                break
            kit.at(campaign.deadline() + timedelta(hours=1))
            resolve(campaign, force=True)
            if turn == 1:
                admin.replace_player(campaign, "bob", "erin", name="Erin Brockovich", email="erin@example.org")
    assert kit.state().over
    return kit


@pytest.fixture(scope="module", params=RULESETS)
def played(request, tmp_path_factory) -> Iterator[tuple[str, CampaignKit]]:
    with pytest.MonkeyPatch.context() as patch:
        import gm.campaign.passwords

        patch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**10)
        kit = play(tmp_path_factory.mktemp(f"proof-{request.param}") / "c", request.param, patch.setenv)
        yield request.param, kit
        kit.close()


def stored(kit: CampaignKit) -> dict[str, Any]:
    """The proof as gm.sqlite holds it, and every name a seat was held under."""
    with kit.campaign() as campaign:
        store = campaign.store
        return {
            "game": store.one("select game_commitment from campaign")["game_commitment"],
            "acks": {(r["turn"], r["player"], r["receipt"]): r["receipt_hash"]
                     for r in store.rows("select turn, player, receipt, receipt_hash from orders")},
            "turns": {r["turn"]: (r["record_hash"], json.loads(r["receipts"]))
                      for r in store.rows("select turn, record_hash, receipts from turns order by turn")},
            "names": {r["id"]: r["name"] for r in store.rows("select id, name from players")},
        }


def text_of(message: Any) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message: Any) -> str:
    return message.get_body(("html",)).get_content()


def receipt_lines(receipts: dict[str, str | None], names: dict[str, str], reader: str | None = None) -> set[str]:
    return {f"  {names[p]}{' (you)' if p == reader else ''}: {r or 'none'}" for p, r in receipts.items()}


# -- the game commitment -------------------------------------------------------------------


def test_5_every_welcome_shows_the_game_commitment_and_how_to_use_it(played):
    ruleset, kit = played
    game = stored(kit)["game"]
    assert HASH.fullmatch(game)
    welcomes = kit.outbox(kind="welcome") + kit.outbox(kind="observer-welcome") + kit.outbox(kind="gm-start")
    # each player's at the start, erin's for bob's seat, the observer's, the GM's
    assert {m["To"] for m in welcomes} >= {"alice@example.org", "bob@example.org", "carol@example.org",
                                            "erin@example.org", "olive@example.org"}
    for message in welcomes:
        text = text_of(message)
        assert f"Game commitment: {game}\n" in text, (ruleset, message["Subject"])
        assert f"gm audit {ARCHIVE} --mail FILE" in text and "--game-commitment" in text
        assert "the ruleset and its options, the seats, the boards and the seed" in " ".join(text.split())
        assert game in html_of(message) and message["X-GM-Game"] == game


def test_5_the_final_mail_shows_the_game_commitment_the_last_record_hash_and_the_ends_link(played):
    ruleset, kit = played
    proof = stored(kit)
    last = max(proof["turns"])
    finals = [m for m in kit.outbox(kind="report") if m.turn == last]
    assert {m["To"] for m in finals} == {"alice@example.org", "carol@example.org", "erin@example.org",
                                         "olive@example.org"}
    for message in finals:
        text = text_of(message)
        assert f"Game commitment: {proof['game']}\n" in text, (ruleset, message["To"])
        assert f"Record hash: {proof['turns'][last][0]}\n" in text
        assert proof["game"] in html_of(message) and proof["turns"][last][0] in html_of(message)
    # the end's link (docs/audit.md, The end's link): one for the campaign, in every final
    # mail's header for gm audit --mail and in its words, the observer's copy included
    (end,) = {m["X-GM-End"] for m in finals}
    assert HASH.fullmatch(end or "")
    for message in finals:
        assert f"binding how the campaign ended): {end}" in " ".join(text_of(message).split()), message["To"]
        assert end in html_of(message)


def test_5_gm_start_prints_the_game_commitment(tmp_path, monkeypatch):
    kit = campaign_folder(tmp_path / "c", "postal", monkeypatch.setenv)
    kit.at(kit.now)
    result = CliRunner().invoke(cli, ["-C", str(kit.folder), "start"])
    assert result.exit_code == 0, result.output
    game = stored(kit)["game"]
    kit.close()
    assert f"game commitment {game}\n" in result.output


# -- receipts and the record ---------------------------------------------------------------


def test_5_the_acknowledgement_gives_the_receipt_of_the_whole_order(played):
    ruleset, kit = played
    acks = stored(kit)["acks"]
    (message,) = kit.outbox(kind="ack")
    receipt = acks[(1, "alice", 1)]
    text = text_of(message)
    assert f"Receipt for your whole order for turn 1: {receipt}\n" in text, ruleset
    assert "gm audit --mail checks that the order played for you is the one this receipt names" in " ".join(
        text.split())
    assert receipt in html_of(message)
    header = message["X-GM-Receipt"]  # what gm audit --mail reads
    assert "turn=1;" in header and "player=alice;" in header and header.endswith(f"receipt={receipt}")


def test_5_every_turn_report_shows_the_record_hash_and_each_receipt_played(played):
    ruleset, kit = played
    proof = stored(kit)
    reports = kit.outbox(kind="report")
    assert {m.turn for m in reports} == set(proof["turns"])
    for message in reports:
        record_hash, receipts = proof["turns"][message.turn]
        text, html = text_of(message), html_of(message)
        where = (ruleset, message.turn, message["To"])
        assert f"Record hash: {record_hash}\n" in text and record_hash in html, where
        assert message["X-GM-Record"].strip() == f"turn={message.turn}; hash={record_hash}"
        lines = set(text.splitlines())
        if message.player is None:  # an observer's copy
            assert receipt_lines(receipts, proof["names"]) <= lines, where
            assert "Your receipt played" not in text
            continue
        mine = receipts[message.player]
        assert receipt_lines(receipts, proof["names"], message.player) <= lines, where
        assert f"Your receipt played: {mine or 'none (no order from you for this turn)'}" in lines, where
        # the reader's own first, then seat by seat
        assert text.index("Your receipt played") < text.index(f"  {proof['names'][message.player]} (you): ")
    # turn 1 played alice's acknowledged order and none of bob's
    assert proof["turns"][1][1]["alice"] == proof["acks"][(1, "alice", 1)]
    assert proof["turns"][1][1]["bob"] is None


def test_5_the_gm_report_shows_the_record_hash_and_every_receipt(played):
    ruleset, kit = played
    proof = stored(kit)
    reports = kit.outbox(kind="gm-report")
    assert {m.turn for m in reports} == set(proof["turns"])
    for message in reports:
        record_hash, receipts = proof["turns"][message.turn]
        text = text_of(message)
        assert f"Record hash: {record_hash}\n" in text, (ruleset, message.turn)
        assert receipt_lines(receipts, proof["names"]) <= set(text.splitlines())


def test_5_a_report_s_proof_lines_hold_names_hashes_and_none_only(played):
    """Receipts and record hashes are salted with the secret seed; the section around them
    holds nothing else, so no other player's order text or number can show there."""
    ruleset, kit = played
    names = set(stored(kit)["names"].values())
    hexa = HASH.pattern
    allowed = re.compile("|".join((
        r"THE RECORD OF TURNS? [0-9]+( AND [0-9]+| \(SETUP\))?",
        rf"Record hash: {hexa}",
        rf"Your receipt played: ({hexa}|none \(no order from you for this turn\))",
        r'Receipts played, seat by seat \("none": no order\):',
        rf"  (?P<name>.+?)( \(you\))?: ({hexa}|none)",
    )))
    for message in kit.outbox(kind="report"):
        text = text_of(message)
        section = text[text.index("THE RECORD OF"):text.index("The record hash seals")]
        for line in filter(None, section.splitlines()):
            found = allowed.fullmatch(line)
            assert found, (ruleset, message.turn, line)
            assert found.group("name") is None or found.group("name") in names, line


# -- the archive ------------------------------------------------------------------------------


def test_5_the_archive_shows_the_game_commitment_and_each_turn_s_record(played, tmp_path):
    from gm.publish.write import publish

    ruleset, kit = played
    proof = stored(kit)
    with kit.campaign() as campaign:
        out, _ = publish(campaign, tmp_path / "site")
    index = (out / "index.html").read_text(encoding="utf-8")
    assert proof["game"] in index and "--game-commitment" in index
    for turn, (record_hash, receipts) in proof["turns"].items():
        page = (out / f"turn-{turn:03d}.html").read_text(encoding="utf-8")
        assert record_hash in page, (ruleset, turn)
        for player, receipt in receipts.items():
            name = proof["names"][player]
            assert re.search(rf"<bdi>{re.escape(name)}</bdi></td><td[^>]*>{receipt or 'none'}</td>", page), \
                (ruleset, turn, player)


def test_5_a_turn_page_is_written_again_when_its_record_changes(tmp_path, monkeypatch):
    """The incremental publish keeps a turn's page under a digest of what it shows: the
    record hash and the receipts are part of it."""
    from gm.publish.write import publish

    kit = campaign_folder(tmp_path / "c", "postal", monkeypatch.setenv)
    kit.start()
    kit.play_turn()
    with kit.campaign() as campaign:
        out, _ = publish(campaign, tmp_path / "site")
        assert "turn-001.html" in publish(campaign, out)[1].unchanged
        with campaign.store.transaction() as db:
            db["turns"].update(1, {"record_hash": "0" * 64, "receipts": json.dumps({"alice": "1" * 64})})
        _, report = publish(campaign, out)
    kit.close()
    assert "turn-001.html" in report.written
    page = (out / "turn-001.html").read_text(encoding="utf-8")
    assert "0" * 64 in page and "1" * 64 in page


# -- a large campaign --------------------------------------------------------------------------


def crowd(count: int) -> tuple[KitPlayer, ...]:
    return tuple(KitPlayer(f"p{i:03d}", f"Player {i}", f"p{i:03d}@example.org", f"pw-{i}") for i in range(count))


@pytest.mark.parametrize("ruleset", ["postal", "classic"])
def test_5_above_inline_players_a_report_shows_its_reader_s_receipt_and_attaches_the_rest(
        tmp_path, monkeypatch, ruleset):
    import gm.campaign.passwords
    from gm.campaign.turns import resolve

    monkeypatch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**10)
    players = crowd(INLINE_PLAYERS + 1)
    kit = campaign_folder(tmp_path / "c", ruleset, monkeypatch.setenv, players=players)
    kit.start()
    kit.at(kit.now + timedelta(hours=1))
    for player in players[:3]:
        kit.order(player.id, ORDER[ruleset])
    with kit.campaign() as campaign:
        kit.at(campaign.deadline() + timedelta(hours=1))
        resolve(campaign, force=True)
    proof = stored(kit)
    record_hash, receipts = proof["turns"][1]
    assert sum(1 for r in receipts.values() if r) == 3
    for message in kit.outbox(kind="report"):
        text = text_of(message)
        assert f"Record hash: {record_hash}\n" in text
        mine = receipts.get(message.player)
        assert len(HASH.findall(text)) == 1 + bool(mine), message["To"]  # the record hash and the reader's own
        if message.player is not None:
            assert f"Your receipt played: {mine or 'none (no order from you for this turn)'}" in text
        attached = [p for p in message.iter_attachments() if p.get_filename().endswith("-players.txt")]
        if ruleset == "postal":
            (table,) = attached
            assert f"in the attached {table.get_filename()}." in text
            assert receipt_lines(receipts, proof["names"]) <= set(table.get_content().splitlines())
            assert f"Record hash: {record_hash}" in table.get_content()
        else:  # no table to attach: the archive has every receipt
            assert not attached
            assert f"on this turn's page of the archive:\n{ARCHIVE}turn-001.html" in text
    kit.close()


def test_5_receipts_played_are_listed_seat_by_seat_in_reports_and_the_archive(played, tmp_path):
    """docs/audit.md: seat by seat, in seat order (the seats at gm start), not by id: bob's
    seat (erin's after turn 1) stands between alice's and carol's in every turn's list,
    whatever order gm.sqlite keeps the receipts in."""
    from gm.publish.write import publish

    ruleset, kit = played
    proof = stored(kit)
    for message in kit.outbox(kind="report"):
        text = text_of(message)
        block = text[text.index("Receipts played, seat by seat"):] if "Receipts played, seat by seat" in text else ""
        if not block:
            continue
        lines = [line.strip().split(":")[0].removesuffix(" (you)") for line in block.splitlines()[1:4]]
        assert [n for n in lines] == [proof["names"]["alice"], proof["names"]["bob" if message.turn == 1 else "erin"],
                                      proof["names"]["carol"]], (ruleset, message.turn, message["To"])
    with kit.campaign() as campaign:
        out, _ = publish(campaign, tmp_path / "site")
    for turn in proof["turns"]:
        page = (out / f"turn-{turn:03d}.html").read_text(encoding="utf-8")
        table = page[page.index(proof["turns"][turn][0]):]
        rows = re.findall(r"<tr><td class=\"name\"><bdi>([^<]*)</bdi>", table)
        assert rows[:3] == [proof["names"]["alice"], proof["names"]["bob" if turn == 1 else "erin"],
                            proof["names"]["carol"]], (ruleset, turn)


@pytest.mark.parametrize("ruleset", ["advanced", "postal"])
def test_5_the_final_mail_of_gm_end_lists_receipts_seat_by_seat_not_by_id(ruleset, tmp_path, monkeypatch):
    """docs/audit.md, seat order: seats carol, alice, bob (as after a sign-up, not by id);
    gm end's final mail reads the last turn's receipts back from gm.sqlite and still lists
    them seat by seat."""
    import gm.campaign.passwords
    from gm.campaign.gm_end import end_campaign
    from gm.campaign.turns import resolve

    monkeypatch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**10)
    alice, bob, carol = PLAIN_PLAYERS[:3]
    kit = campaign_folder(tmp_path / "c", ruleset, monkeypatch.setenv, players=(carol, alice, bob), max_turns=5)
    kit.start()
    kit.at(kit.now + timedelta(hours=1))
    kit.order("alice", ORDER[ruleset])
    kit.close()
    with kit.campaign() as campaign:
        kit.at(campaign.deadline() + timedelta(hours=1))
        resolve(campaign, force=True)
        end_campaign(campaign, "enough")
    names = stored(kit)["names"]
    finals = [m for m in kit.outbox(kind="final")]
    assert finals
    for message in finals:
        text = text_of(message)
        block = text[text.index("Receipts played, seat by seat"):].splitlines()[1:4]
        assert [line.strip().split(":")[0].removesuffix(" (you)") for line in block] == \
            [names["carol"], names["alice"], names["bob"]], message["To"]
    # and so does the audit record's list of the turn's receipts
    from gm.campaign.audit_record import audit_record
    with kit.campaign() as campaign:
        assert list(audit_record(campaign)["turns"][0]["receipts"]) == ["carol", "alice", "bob"]


def test_gm_state_text_shows_each_players_die_team_place_in_the_order_and_builds(tmp_path, monkeypatch):
    """docs/rules/advanced.md, Setup and Building (docs/commands.md, gm state): the text
    says what --json says of an advanced game: the order of play and the items built beside
    the board, and beside each player the die, team, place in the order and items built."""
    import gm.campaign.passwords

    monkeypatch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**10)
    kit = campaign_folder(tmp_path / "c", "advanced", monkeypatch.setenv)
    kit.start()
    kit.close()
    folder = str(tmp_path / "c")
    data = json.loads(CliRunner().invoke(cli, ["-C", folder, "state", "--json"]).output)
    text = CliRunner().invoke(cli, ["-C", folder, "state"]).output
    board = next(line for line in text.splitlines() if line.startswith("board A"))
    assert f"order of play {' '.join(data['order'])}; built: none" in board
    for player, facts in data["players"].items():
        line = next(line for line in text.splitlines() if line.startswith(player + " "))
        seat = {1: "1st", 2: "2nd", 3: "3rd"}[facts["seat"]]
        assert line.split(None, 1)[1] == f"d{facts['die']}, team {facts['team']}, plays {seat}, built 0"


def test_end_and_placings_the_advanced_archive_has_a_team_table_with_each_team_s_place(played, tmp_path):
    """docs/rules/advanced.md, The end and placings: the archive's front page lists the
    teams, their members and the place each team holds (its slowest member's)."""
    from gm.publish.write import publish

    ruleset, kit = played
    if ruleset != "advanced":
        pytest.skip("teams are advanced's")
    with kit.campaign() as campaign:
        out, _ = publish(campaign, tmp_path / "site")
        places = {s.player: s.place for s in campaign.ruleset.archive_standings(campaign.setup, campaign.state(), {})}
    index = (out / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="teams">Teams</h2>' in index
    rows = dict(re.findall(r'<tr data-team="([^"]+)"><td class="num">([^<]*)</td>', index))
    assert set(rows) == {"alice", "red", "carol"}, rows
    assert rows["red"] == {1: "1st", 2: "2nd", 3: "3rd"}[places["erin"]]  # bob's seat, erin's now
    assert rows["alice"] == {1: "1st", 2: "2nd", 3: "3rd"}[places["alice"]]
    assert rows["carol"] == {1: "1st", 2: "2nd", 3: "3rd"}[places["carol"]]
