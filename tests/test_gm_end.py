"""`gm end` (CONTRACT.md; docs/audit.md "What an audit proves"): the GM ends a running
campaign after its last resolved turn, as if `max_turns` had been reached there, each
ruleset placing the players by its own rules for a campaign cut short (docs/rules/postal.md, Crossing the finish and placings for
postal, 4.1 End (c) for classic and doubles, 4.4's max_turns end for advanced, 6.10's for
unleashed).

The rules core: `Ruleset.end` after turn t gives exactly the state `resolve` gives for turn
t under `max_turns: t`, for every turn of a campaign of each ruleset. The command: its
refusals, the final mail to every player and observer with the reason, the campaign over
for `gm status` and `gm state --json`, `gm reveal`, `gm publish` and `gm audit` after it,
and one transaction."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from handoverkit import outbox_of

from gm.errors import RulesError
from gm.rules.advanced.state import AdvancedOrder
from gm.rules.base import Ruleset, Setup
from gm.rules.chance import SeededChance
from gm.rules.dice.state import DiceOrder
from gm.rules.registry import find_ruleset

ROOT = Path(__file__).resolve().parent.parent
BOARDS = ROOT / "boards"


# -- the rules core: end after turn t == resolve turn t under max_turns: t ----------------


def _setup(name: str, seed: int) -> Setup:
    """A campaign of `name` that runs long enough to be cut short at many turns, with what
    makes its placings interesting: postal two boards, double turns and trapdoors; classic
    and doubles a resignation; advanced teams and builds; unleashed its default board."""
    ruleset = find_ruleset(name)
    players = ("ann", "bob", "cat", "dan")
    if name == "postal":
        boards = {"A": BOARDS / "small.yaml", "B": BOARDS / "ziggurat.yaml"}
        options = {"double_turns": True, "trapdoor_threshold": 2, "close_after": 2, "max_turns": 200}
    elif name == "advanced":
        boards = {"A": BOARDS / "advanced.yaml"}
        options = {"max_turns": 200}
    elif name == "unleashed":
        boards = {}
        options = {"max_turns": 200}
    else:
        boards = {"A": BOARDS / "milton-bradley.yaml"}
        options = {"close_after": 2, "max_turns": 200}
    from gm.yamlfile import LineDict

    parsed = ruleset.parse_options(LineDict(options))
    read = {b: ruleset.read_board(path) for b, path in boards.items()}
    played, problems = ruleset.campaign_boards(read, len(players), parsed)
    assert not problems, problems
    keys = {"bob": {"team": "red"}, "cat": {"team": "red"}} if name == "advanced" else {}
    return Setup(played, players, parsed, seed, keys)


def _orders(name: str, ruleset: Ruleset, setup: Setup, state: Any) -> dict[str, Any]:
    """Orders that vary the game: the rest of the players send nothing (NMR)."""
    turn = state.turn
    if name == "postal":
        sizes = {b: board.squares for b, board in setup.boards.items()}
        return {p: dataclasses.replace(ruleset.empty_order(), trapdoors={b: min(n, 3 + turn) for b, n in sizes.items()})
                for p in ("ann", "bob") if not turn % 2}
    if name in ("classic", "doubles"):
        return {"dan": DiceOrder(resign=True)} if turn == 3 else {}
    if name == "advanced":
        square = state.squares["cat"]
        return {"cat": AdvancedOrder("build", "snake", square - 2)} if square > 3 and turn % 3 == 0 else {}
    return {}


@pytest.mark.parametrize("name", ["postal", "classic", "doubles", "advanced", "unleashed"])
@pytest.mark.parametrize("seed", [2**130 + 5, 2**130 + 77])
def test_5_end_after_turn_t_is_resolving_turn_t_under_max_turns_t(name, seed):
    """For every turn t of a campaign played to its end: `end` on the state after turn t
    gives the same state (state_json and the stored form), placings included, as resolving
    turn t from the state before it with the same orders under `max_turns: t`; its events
    are the ones that resolve ends with, and it draws nothing."""
    ruleset = find_ruleset(name)
    setup = _setup(name, seed)
    state = ruleset.start(setup, SeededChance(seed)).state
    ended_at = 0
    while not state.over:
        turn = state.turn
        orders = _orders(name, ruleset, setup, state)
        after = ruleset.resolve(setup, state, orders, SeededChance(seed)).state
        if after.over:
            break  # the rules ended it at this turn: there is nothing to cut short
        last = after.turn - 1  # a postal double turn played turn and turn + 1
        cut = dataclasses.replace(setup, options=dataclasses.replace(setup.options, max_turns=last))
        expected = ruleset.resolve(cut, state, orders, SeededChance(seed))
        ended = ruleset.end(setup, after)
        assert ended.draws == ()
        assert ended.state.over and expected.state.over
        assert ruleset.state_json(setup, ended.state) == ruleset.state_json(cut, expected.state), (name, turn)
        assert ruleset.dump_state(ended.state) == ruleset.dump_state(expected.state), (name, turn)
        assert ended.events == expected.events[len(expected.events) - len(ended.events):], (name, turn)
        placings = ruleset.state_json(setup, ended.state)["players"]
        assert all(p["place"] is not None for p in placings.values()), (name, turn)
        # the state it was given is left as it was
        assert not after.over and ruleset.end(setup, after).state == ended.state
        state, ended_at = after, turn
    assert ended_at >= 3, f"{name} ended too soon to be cut short in many places"


@pytest.mark.parametrize("name", ["postal", "classic", "doubles", "advanced", "unleashed"])
def test_5_end_refuses_before_turn_1_and_once_over(name):
    ruleset = find_ruleset(name)
    setup = _setup(name, 2**130 + 5)
    first = ruleset.start(setup, SeededChance(setup.seed)).state
    with pytest.raises(RulesError, match="no turn has been resolved"):
        ruleset.end(setup, first)
    after = ruleset.resolve(setup, first, {}, SeededChance(setup.seed)).state
    over = ruleset.end(setup, after).state
    with pytest.raises(RulesError, match="over already"):
        ruleset.end(setup, over)


def test_5_a_ruleset_without_its_own_end_refuses_in_one_line():
    """The hook is new on a public interface: a ruleset written before it (the tests' toy
    one) keeps working and refuses `gm end` with one line instead of a traceback."""
    from toyrules import Step

    from gm.boards.model import Board

    toy = Step()
    setup = Setup({"A": Board.build(10)}, ("ann", "ben"), toy.parse_options({"silent": "random"}), 7)
    state = toy.start(setup, SeededChance(7)).state
    state = toy.resolve(setup, state, {}, SeededChance(7)).state
    with pytest.raises(RulesError) as refused:
        toy.end(setup, state)
    assert "\n" not in str(refused.value) and "step" in str(refused.value)


# -- gm end: the command ----------------------------------------------------------------

LATER = "2027-01-04T09:00:00Z"
REASON = "Most players have stopped writing & the season is over"


def _outbox(campaign, kind=None):
    """Every queued mail, parsed, with its outbox kind and recipient."""
    return outbox_of(campaign.folder, kind=kind)


def _text(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def _html(message) -> str:
    return message.get_body(("html",)).get_content()


def _rows(campaign, sql):
    import sqlite3

    return sqlite3.connect(campaign.folder / "gm.sqlite").execute(sql).fetchall()


def _unchanged(campaign):
    """What a refused gm end must leave as it was."""
    return (campaign.state(), _rows(campaign, "select count(*) from outbox"),
            _rows(campaign, "select * from admin"), _rows(campaign, "select ended, deadline from campaign"))


def _with_observer(campaign):
    import yaml

    path = campaign.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data["observers"] = [{"name": "Lewis Carroll", "email": "lewis@example.org"}]
    path.write_text(yaml.safe_dump(data))


def test_end_refuses_before_turn_1_was_resolved_and_changes_nothing(campaign):
    before = _unchanged(campaign)
    out = campaign("end", "--reason", "too soon", now=LATER, code=1)
    assert out.strip().splitlines() == ["Error: no turn has been resolved yet: a campaign ends after a turn it "
                                        "played (gm resolve plays turn 1)"]
    assert _unchanged(campaign) == before


def test_end_refuses_a_campaign_not_started(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from gm.cli import cli

    folder = tmp_path / "new"
    CliRunner().invoke(cli, ["campaign", "new", str(folder), "--ruleset", "classic"])
    monkeypatch.setenv("GM_NOW", LATER)
    result = CliRunner().invoke(cli, ["-C", str(folder), "end"])
    assert result.exit_code == 1
    assert "has not started yet" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (folder / "gm.sqlite").exists()  # nothing was created


def test_end_refuses_a_campaign_already_over_and_a_reason_that_is_not_a_line(campaign):
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    before = _unchanged(campaign)
    assert "control characters" in campaign("end", "--reason", "bell \x07 rings", now=LATER, code=1)
    assert "keep it to 500" in campaign("end", "--reason", "x" * 501, now=LATER, code=1)
    assert _unchanged(campaign) == before
    campaign("end", now=LATER)
    before = _unchanged(campaign)
    out = campaign("end", "--reason", "again", now=LATER, code=1)
    assert out.strip().splitlines() == ["Error: the campaign is over already; gm reveal may follow"]
    assert _unchanged(campaign) == before


def test_end_places_everyone_as_max_turns_would_and_the_campaign_is_over(campaign):
    """After turn 1 the postal trio is cut short: every board closes and every piece is
    placed by square (docs/rules/postal.md, Crossing the finish and placings), exactly as `max_turns: 1` would have; `gm state
    --json` and `gm status` say it is over and that the GM ended it, and why."""
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    out = campaign("end", "--reason", REASON, now=LATER)
    assert out.startswith("ended after turn 1; final places: ")
    assert "run gm send to deliver the mail; gm reveal may follow" in out
    data = campaign.state()
    assert data["over"] and data["deadline"] is None and not data["paused"]
    assert data["end"] == {"by": "gm", "turn": 1, "reason": REASON}
    assert all(board["closed"] for board in data["boards"].values())
    assert all(p["place"] is not None and p["aggregate"] is not None for p in data["players"].values())
    assert data["turn"] == 2  # one past the last turn played (CONTRACT.md)
    status = campaign("status", now=LATER)
    assert f"over after turn 1 (ended by the GM: {REASON})" in status
    assert campaign("state", now=LATER).startswith(f"trio (postal): over after turn 1 (ended by the GM: {REASON})")
    assert _rows(campaign, "select command, turn, detail from admin") == [
        ("end", 1, '{"reason": "' + REASON + '", "turn": 1}')]
    # nothing more resolves, and the administration of a running campaign is refused
    assert "the campaign is over" in campaign("resolve", "--force", now=LATER, code=1)
    assert "the campaign is over" in campaign("pause", now=LATER, code=1)


def test_end_mails_the_final_results_with_the_reason_to_every_player_and_observer(campaign):
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    _with_observer(campaign)
    campaign("end", "--reason", REASON, now=LATER)
    finals = _outbox(campaign, kind="final")
    assert sorted(m.recipient for m in finals) == [
        "ann@example.org", "ben@example.org", "cat@example.org", "lewis@example.org"]
    for message in finals:
        body, html = _text(message), _html(message)
        assert ("The game master ended the campaign after turn 1, as if it had been the\nlast turn allowed: "
                f"everyone is placed as the rules place them then.\nThe game master's reason: {REASON}\n") in body
        assert "stopped writing &amp; the season is over" in html  # the GM's words, escaped
        assert "The game master ended the campaign after turn 1</strong>" in html
    players = [m for m in finals if m.recipient != "lewis@example.org"]
    for message in players:
        assert message["Subject"] == "[trio] Final results after turn 1"
        assert "You finished" in _text(message)
    observer = next(m for m in finals if m.recipient == "lewis@example.org")
    assert "The campaign is over." in _text(observer)
    # an observer added before the end was welcomed first, as by any mail to observers
    assert [m.recipient for m in _outbox(campaign, kind="observer-welcome")] == ["lewis@example.org"]


def test_end_without_a_reason_says_only_that_the_gm_ended_it(campaign):
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("end", "--reason", "  \n ", now=LATER)
    assert campaign.state()["end"] == {"by": "gm", "turn": 1, "reason": None}
    body = _text(_outbox(campaign, kind="final")[0])
    assert "after turn 1, as if it had been the\nlast turn allowed: everyone is placed as the rules place them then.\n\n" in body
    assert "reason" not in body


def test_end_is_one_transaction_a_crash_leaves_nothing_half_done(campaign, monkeypatch):
    """A crash while the final mail is queued (here, at the third copy) leaves the
    campaign running, nothing logged, nothing queued; the end then runs again whole."""
    import gm.campaign.turns

    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    before = _unchanged(campaign)
    real, calls = gm.campaign.turns.queue, {"n": 0}

    class Crash(BaseException):
        pass

    def crashing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise Crash
        return real(*args, **kwargs)

    monkeypatch.setattr(gm.campaign.turns, "queue", crashing)
    with pytest.raises(Crash):
        campaign("end", "--reason", REASON, now=LATER)
    monkeypatch.undo()
    assert _unchanged(campaign) == before
    campaign("end", "--reason", REASON, now=LATER)
    assert len(_outbox(campaign, kind="final")) == 3 and campaign.state()["over"]


def test_end_then_reveal_publish_and_audit(campaign):
    """`gm reveal` may follow a `gm end`; the archive says the GM ended the campaign, and
    why, where it says how the campaign ended; its audit record replays."""
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("publish", now=LATER)
    archive = campaign.folder / "archive"
    assert "Turn 2 is being played" in (archive / "turn-002.html").read_text()
    campaign("end", "--reason", REASON, now=LATER)
    campaign("reveal", now=LATER)
    campaign("publish", now=LATER)
    index = (archive / "index.html").read_text()
    assert ("The campaign is over: it ended with turn 1. The game master ended it after turn 1, as if it had "
            "been the last turn allowed, giving this reason: Most players have stopped writing &amp; the season "
            "is over.") in index
    assert not (archive / "turn-002.html").exists()  # turn 2 will never be played
    # the feed's newest entry is the end, for those who follow the campaign in a reader
    import xml.etree.ElementTree as ET

    atom = "{http://www.w3.org/2005/Atom}"
    feed = ET.parse(archive / "feed.xml").getroot()
    newest = feed.findall(f"{atom}entry")[0]
    assert newest.findtext(f"{atom}title") == "The game master ended the campaign after turn 1: \u2068trio\u2069"
    assert REASON in newest.findtext(f"{atom}summary")
    assert newest.findtext(f"{atom}updated").startswith("2027-01-04T09:00:00")
    assert feed.findtext(f"{atom}updated").startswith("2027-01-04T09:00:00")
    out = campaign("audit", str(archive), now=LATER)
    assert out.startswith("ok: trio (postal) replays exactly")


@pytest.mark.parametrize("name", ["postal", "classic", "doubles", "advanced", "unleashed"])
def test_end_of_each_ruleset_mails_its_final_results_then_reveal_publish_and_audit(name, tmp_path, monkeypatch):
    """A starter campaign of each ruleset (gm campaign new) played two turns with nobody
    writing, then ended by the GM: each player's final results, in the ruleset's own words,
    say the GM ended it and why and give their place; gm reveal, gm publish and gm audit
    follow."""
    import json

    from click.testing import CliRunner

    from gm.cli import cli

    folder = tmp_path / name
    runner = CliRunner()

    def gm(*args, now="2027-01-01T00:00:00Z", code=0):
        monkeypatch.setenv("GM_NOW", now)
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    assert runner.invoke(cli, ["campaign", "new", str(folder), "--ruleset", name]).exit_code == 0
    gm("start")
    gm("resolve", "--force", now="2027-01-02T00:00:00Z")
    gm("resolve", "--force", now="2027-01-03T00:00:00Z")
    out = gm("end", "--reason", "the club closes for summer", now="2027-01-04T00:00:00Z")
    assert out.startswith("ended after turn 2; final places: ")
    data = json.loads(gm("state", "--json", now="2027-01-04T00:00:00Z"))
    assert data["over"] and data["end"] == {"by": "gm", "turn": 2, "reason": "the club closes for summer"}
    finals = _outbox(type("C", (), {"folder": folder}), kind="final")
    assert sorted(m.recipient for m in finals) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    for message in finals:
        body = _text(message)
        assert message["Subject"].endswith("Final results after turn 2"), message["Subject"]
        assert "The game master ended the campaign after turn 2" in body
        assert "The game master's reason: the club closes for summer" in body
        assert any(word in body for word in ("You finished", "You placed", "Your team placed")), body
        assert "game master ended the campaign after turn 2</strong>" in _html(message)
    gm("reveal", now="2027-01-04T00:00:00Z")
    gm("publish", now="2027-01-04T00:00:00Z")
    assert "The game master ended it after turn 2" in (folder / "archive" / "index.html").read_text()
    assert "replays exactly" in gm("audit", str(folder / "archive"), now="2027-01-04T00:00:00Z")


def test_undo_refuses_after_an_end(campaign):
    """The final results are out and the record says the GM ended the campaign after the
    last turn: undoing that turn would leave an end after a turn never played."""
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("end", now=LATER)
    before = _unchanged(campaign)
    out = campaign("undo", "--force", now=LATER, code=1)
    assert out.strip() == "Error: the GM ended the campaign after turn 1 (gm end); an end cannot be undone"
    assert _unchanged(campaign) == before


def test_after_an_end_gm_turn_runs_from_cron_and_orders_are_refused_as_over(campaign):
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("end", now=LATER)
    late = campaign.order("ann", "NUMBER 3\n", date="Mon, 04 Jan 2027 10:00:00 +0000")
    campaign("ingest", str(late), now="2027-01-04T11:00:00Z")
    out = campaign("turn", "--force", now="2027-01-04T11:00:00Z")
    assert "resolve: not yet: the campaign is over" in out
    refusal = _outbox(campaign, kind="refusal")[-1]
    assert refusal.recipient == "ann@example.org"
    assert "the campaign is over; no more orders are taken" in _text(refusal)


def test_end_after_a_seat_changed_hands_tells_the_new_holder_and_audits(campaign):
    """Ben's seat went to Dora after turn 1; the end after turn 1 tells that turn under
    the seats' holders now: Dora gets the final results with the seat's place."""
    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("player", "replace", "ben", "dora", "--name", "Dora Maar", "--email", "dora@example.org",
             now="2027-01-04T08:00:00Z")
    campaign("end", "--reason", REASON, now=LATER)
    data = campaign.state()
    assert data["players"]["dora"]["place"] is not None and data["players"]["dora"]["held_by"] == ["ben"]
    finals = {m.recipient: m for m in _outbox(campaign, kind="final")}
    assert sorted(finals) == ["ann@example.org", "cat@example.org", "dora@example.org"]
    assert "Dora Maar" in _text(finals["dora@example.org"]) and "You finished" in _text(finals["dora@example.org"])
    campaign("reveal", now=LATER)
    campaign("publish", now=LATER)
    assert "replays exactly" in campaign("audit", str(campaign.folder / "archive"), now=LATER)


def test_5_the_audit_record_states_the_gms_end_and_the_audit_replays_it(campaign, tmp_path):
    """docs/audit.md: the record runs to the campaign's end, which it states: the GM's end
    after turn 1 with the reason and the state it left, which gm audit recomputes with
    the ruleset's own end; a record whose end places anyone otherwise fails there."""
    import json
    import shutil

    from gm.audit.checks import Difference
    from gm.audit.replay import audit, load_record
    from gm.audit.source import AUDIT_FILE

    campaign("resolve", "--force", now="2027-01-03T19:00:00Z")
    campaign("end", "--reason", REASON, now=LATER)
    campaign("reveal", now=LATER)
    campaign("publish", now=LATER)
    archive = campaign.folder / "archive"
    record = load_record(str(archive))
    end = record["end"]
    assert (end["by"], end["turn"], end["reason"]) == ("gm", 1, REASON)
    now = campaign.state()
    assert end["state"]["boards"] == now["boards"] and end["state"]["turn"] == now["turn"] == 2
    assert {p: f["place"] for p, f in end["state"]["players"].items()} == {
        p: f["place"] for p, f in now["players"].items()}
    assert record["turns"][-1]["state"]["over"] is False and end["state"]["over"] is True
    out = campaign("audit", str(archive), now=LATER)
    assert "by the GM after turn 1" in out and "stopped writing" in out
    # the GM's end with one placing changed, as if the GM had placed someone otherwise
    copy = tmp_path / "tampered"
    shutil.copytree(archive, copy)
    tampered = json.loads((copy / AUDIT_FILE).read_text())
    player = next(iter(tampered["end"]["state"]["players"]))
    tampered["end"]["state"]["players"][player]["place"] += 1
    (copy / AUDIT_FILE).write_text(json.dumps(tampered))
    found = audit(load_record(str(copy)))
    assert isinstance(found, Difference) and found.what.startswith("end by the GM"), found
    # and an end claimed by the GM after another turn than the last played
    tampered = json.loads((archive / AUDIT_FILE).read_text())
    tampered["end"]["turn"] = 2
    (copy / AUDIT_FILE).write_text(json.dumps(tampered))
    found = audit(load_record(str(copy)))
    assert isinstance(found, Difference) and "the turn the GM ended the campaign after" in found.what, found
