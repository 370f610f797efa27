"""Standing orders after a seat changes hands (`gm player replace`, docs/audit.md "Receipts"):
an order, reaction or list is kept as sent, so its receipt still matches, and an id of a
seat's former holder in it is read as the seat's present holder. A line that still cannot be
read is skipped like any other unplayable line (docs/rules/unleashed.md, Card plays), never an error.

Only Unleashed's orders name players (6.13: PLAY squares and choices, REACT lists); the
other rulesets' orders (NUMBER, TRAPDOOR, RESIGN, MOVE, BUILD) name none, and their
standing order simply stays with the seat. The rules tests use tests/unleashedkit.py
(ann, bob, cat on the 5 x 8 board, seated as listed, round 1 starting with ann); the
campaign tests play real mail through the order desk, and `gm audit` replays the result."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

import pytest
import yaml
from campaignkit import BOARDS, PLAIN_PLAYERS, CampaignKit
from click.testing import CliRunner
from unleashedkit import R, campaign, of, order, play, run, state, steps

from gm.cli import cli
from gm.mail.orderlang import parse_orders
from gm.rules.grammar import ruleset_keywords
from gm.rules.unleashed.orders import PlayLine, UnleashedOrder


def handed_over(setup, before, old="bob", new="dan"):
    """The setup and state once `new` holds `old`'s seat (what gm player replace stores)."""
    players = tuple(new if p == old else p for p in setup.players)
    return dataclasses.replace(setup, players=players), R.rename_player(before, old, new)


def acted(out):
    return [(e.actor, e.card, e.square, e.choices, e.automatic) for e in of(out, "action")]


# -- the rules: read as the seat's present holder ------------------------------------------


def test_5_a_play_square_naming_the_seats_former_holder_is_read_as_its_holder():
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["-1"]})
    setup, before = handed_over(setup, before)
    out = run(setup, before, {"ann": order(play("-1", "bob+2"))})
    assert [(e.player, e.card, e.square) for e in of(out, "play")] == [("ann", "-1", 12)]
    assert out.state.private["ann"]["skipped"] == []


def test_5_play_choices_naming_the_seats_former_holder_send_its_holder():
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["FORWARD-3"]})
    setup, before = handed_over(setup, before)
    out = run(setup, before, {"ann": order(play("FORWARD-3", 30, "bob"))})
    assert acted(out)[0] == ("ann", "FORWARD-3", 30, "dan", False)
    assert (10, 13, "send", "FORWARD-3") in steps(out.events, "dan")


def test_5_a_standing_reaction_naming_the_seats_former_holder_is_its_holder():
    """cat's `REACT BACK bob`, sent while bob held the seat, sends dan back, not the
    automatic LEADER (ann)."""
    setup = campaign()
    before = state(setup, {"ann": 30, "bob": 10, "cat": 20}, cards={24: "BACK-2"},
                   reactions={"cat": {"BACK": ["bob"]}})
    setup, before = handed_over(setup, before)
    out = run(setup, before)  # every die 2: ann 34, dan 14, cat 24 on the BACK-2
    assert ("cat", "BACK-2", 24, "dan", False) in acted(out)
    assert (14, 12, "send", "BACK-2") in steps(out.events, "dan")


def test_5_a_seat_that_changed_hands_twice_is_read_as_its_last_holder():
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["FORWARD-3", "-1"]})
    setup, before = handed_over(setup, before, "bob", "dan")
    setup, before = handed_over(setup, before, "dan", "eve")
    out = run(setup, before, {"ann": order(play("FORWARD-3", "BOB+20", "Dan"))})
    assert acted(out)[0] == ("ann", "FORWARD-3", 30, "eve", False)


def test_6_6_a_line_naming_someone_who_never_held_a_seat_is_skipped_not_an_error():
    """Such a line cannot come by mail (6.13 refuses it on receipt), only from a stored
    order gone stale: the go skips it as it skips any line that is not legal now."""
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["FORWARD-3", "-1"]},
                   cards={24: "BACK-2"}, reactions={"cat": {"BACK": ["zed", "ann"]}})
    lines = (play("-1", "zed+2"), play("FORWARD-3", 30, "zed"), play("FORWARD-3", 30, "bob"))
    out = run(setup, before, {"ann": order(*lines)})
    assert out.state.private["ann"]["skipped"] == [[1, "square"], [2, "choices"]]
    assert acted(out)[0] == ("ann", "FORWARD-3", 30, "bob", False)
    assert ("cat", "BACK-2", 24, "ann", False) in acted(out)  # the stale reaction skipped, the next one used


def test_5_a_resolve_after_replace_replays_the_same_as_one_that_names_the_holder():
    """Reading `bob` as dan plays exactly what naming dan would have played."""
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["FORWARD-3", "-1"]},
                   cards={24: "BACK-2"}, reactions={"cat": {"BACK": ["bob"]}})
    setup, before = handed_over(setup, before)
    kept = run(setup, before, {"ann": order(play("-1", "bob+2"), play("FORWARD-3", 30, "bob"))})
    plain = before.copy()
    plain.reactions = {"cat": {"BACK": ["dan"]}}
    named = run(setup, plain, {"ann": order(play("-1", "dan+2"), play("FORWARD-3", 30, "dan"))})
    assert kept.events == named.events
    assert R.state_json(setup, kept.state) == R.state_json(setup, named.state)


# -- receipt and acknowledgement ------------------------------------------------------------


def merged(setup, before, player, text):
    parsed = parse_orders(f"PLAYER {player}\nPASSWORD pw\n{text}\n", grammar=R.grammar(),
                          other_keywords=ruleset_keywords())
    assert parsed.ok
    return R.merge(setup, before, player, UnleashedOrder(), parsed.commands)


def test_6_13_a_new_line_naming_a_former_holder_is_accepted_as_the_seats_holder():
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["FORWARD-3"]})
    setup, before = handed_over(setup, before)
    made, problems = merged(setup, before, "ann", "PLAY FORWARD-3 ON bob+1 bob\nREACT BACK BOB")
    assert problems == []
    assert made.plays == (PlayLine("FORWARD-3", "dan+1", "dan"),) and made.reactions == {"BACK": ("dan",)}


def test_6_13_a_holder_naming_their_seats_former_id_names_themselves():
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"bob": ["FORWARD-3"]})
    setup, before = handed_over(setup, before)
    _, problems = merged(setup, before, "dan", "PLAY FORWARD-3 ON 30 bob")
    assert [p.code for p in problems] == ["not_yourself"]


def test_6_13_the_acknowledgement_and_private_view_show_the_lines_as_the_go_reads_them():
    setup = campaign()
    before = state(setup, {"ann": 5, "bob": 10, "cat": 20}, hands={"ann": ["FORWARD-3", "-1"]},
                   reactions={"ann": {"BACK": ["bob", "LAST"], "MOVE-ANY": ["P1 bob+8 3"]}})
    setup, before = handed_over(setup, before)
    standing = UnleashedOrder(True, (PlayLine("-1", "bob+2"), PlayLine("FORWARD-3", "30", "bob"),
                                     PlayLine("-1", "zed-1")), {})
    view = R.order_view(setup, before, "ann", standing)
    assert view["plays"] == ["PLAY -1 ON dan+2", "PLAY FORWARD-3 ON 30 dan", "PLAY -1 ON zed-1"]
    assert view["reactions"] == {"BACK": ["dan", "LAST"], "MOVE-ANY": ["P1 dan+8 3"]}
    assert R.private_json(setup, before, "ann")["reactions"] == {"BACK": ["dan", "LAST"], "MOVE-ANY": ["P1 dan+8 3"]}
    assert R.order_to_json(standing)["plays"][0] == ["-1", "bob+2", None]  # kept as sent


def test_5_the_state_remembers_who_held_a_seat_across_a_stored_round_trip():
    setup = campaign()
    _, after = handed_over(setup, state(setup, {}))
    assert R.load_state(json.loads(json.dumps(R.dump_state(after)))).former == {"bob": "dan"}
    old = R.dump_state(state(setup, {}))
    old.pop("former")  # a state stored before seats were remembered reads as no change of hands
    assert R.load_state(old).former == {}


# -- a campaign: by mail, gm resolve --preview, gm turn, gm audit ---------------------------


def gm(folder, *args):
    result = CliRunner().invoke(cli, ["-C", str(folder), *args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def unleashed_kit(tmp_path, monkeypatch, options):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS[:3], start=False)
    path = kit.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data.pop("boards")
    data.update(ruleset="unleashed", seed=2**128 + 24, options=options)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    kit.start()
    return kit


def test_5_an_open_play_line_naming_a_replaced_player_resolves_and_the_audit_replays(tmp_path, monkeypatch):
    """The issue's case: alice's PLAY line names bob in its square and its choices; bob's
    seat goes to dora; `gm resolve --preview`, `gm turn` and every later turn run, alice's
    order is the one played, as stored when she sent it, and `gm audit` of the revealed
    archive replays it exactly."""
    kit = unleashed_kit(tmp_path, monkeypatch, {"seating": "listed", "setup": "random", "deck": {"FORWARD-2": 80}})
    with kit.campaign() as opened:
        deadline = opened.deadline()
    kit.at(deadline - timedelta(days=1))
    lines = ["PLAY FORWARD-2 ON bob+2 bob", "REACT FORWARD bob"]
    assert kit.order("alice", lines).outcome == "applied"
    with kit.campaign() as opened:
        before = dict(opened.store.one("select * from orders where player = 'alice'"))
    kit.close()
    replaced = gm(kit.folder, "player", "replace", "bob", "dora", "--name", "Dora", "--email", "dora@example.org")
    assert replaced.exit_code == 0
    kit.players = tuple(p for p in kit.players if p.id != "bob")
    kit.at(deadline + timedelta(hours=1))
    preview = gm(kit.folder, "resolve", "--preview")
    assert preview.exit_code == 0
    turned = gm(kit.folder, "turn", "--force")
    assert turned.exit_code == 0, turned.output
    with kit.campaign() as opened:
        after = dict(opened.store.one("select * from orders where player = 'alice'"))
        turn = opened.store.one("select * from turns where turn = 1")
    assert after == before  # kept as sent: the same JSON, so the same receipt
    events = json.loads(turn["events"])
    assert any(e["kind"] == "play" and (e["player"], e["card"], e["square"]) == ("alice", "FORWARD-2", 2)
               for e in events)
    assert any(e["kind"] == "action" and e["actor"] == "alice" and e["choices"] == "dora" and not e["automatic"]
               for e in events)
    for _ in range(40):  # NMR rounds to the end: alice's REACT FORWARD bob stands
        with kit.campaign() as opened:
            if opened.state().over:
                break
            deadline = opened.deadline()
        kit.close()
        kit.at(deadline + timedelta(hours=1))
        assert gm(kit.folder, "turn", "--force").exit_code == 0
    kit.close()
    assert gm(kit.folder, "reveal").exit_code == 0
    audit = CliRunner().invoke(cli, ["audit", str(kit.folder / "archive")])
    assert audit.exit_code == 0, audit.output
    assert "replays exactly" in audit.output


@pytest.mark.parametrize(("ruleset", "line"), [("postal", "NUMBER 3"), ("classic", "RESIGN"),
                                               ("doubles", "RESIGN"), ("advanced", "MOVE")])
def test_5_in_every_ruleset_the_open_standing_order_is_kept_and_played_for_the_seats_holder(
        tmp_path, monkeypatch, ruleset, line):
    """No other ruleset's order names a player, so the seat's order simply stands: bob's
    order, sent before the seat went to dora, is played for dora."""
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS[:3],
                             boards={"A": BOARDS / "small.yaml"}, start=False)
    if ruleset != "postal":
        path = kit.folder / "campaign.yaml"
        data = yaml.safe_load(path.read_text())
        data.update(ruleset=ruleset, options={}, seed=2**128 + 3)
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    kit.start()
    with kit.campaign() as opened:
        deadline = opened.deadline()
    kit.at(deadline - timedelta(days=1))
    assert kit.order("bob", [line]).outcome == "applied"
    kit.close()
    assert gm(kit.folder, "player", "replace", "bob", "dora", "--name", "Dora",
              "--email", "dora@example.org").exit_code == 0
    kit.at(deadline + timedelta(hours=1))
    assert gm(kit.folder, "resolve", "--force").exit_code == 0
    data = json.loads(gm(kit.folder, "state", "--json").output)
    if ruleset == "postal":
        assert data["boards"]["A"]["players"]["dora"]["square"] != 0 and data["players"]["dora"]["numbers_left"] == [1, 2, 4, 5, 6]
    elif ruleset == "advanced":
        assert [e["nmr"] for e in data["log"] if e["player"] == "dora"] == [False]
    else:
        assert data["players"]["dora"]["resigned"]


@pytest.mark.parametrize("new", ["next", "LEADER", "me"])
def test_6_13_a_seats_new_holder_may_not_take_a_word_of_the_order_language_as_id(tmp_path, monkeypatch, new):
    """gm start refuses such ids; gm player replace does too (one line, exit 1, nothing
    changed), or `PLAY -1 ON next+2` would name the keyword, not the player."""
    kit = unleashed_kit(tmp_path, monkeypatch, {"seating": "listed", "setup": "random"})
    kit.close()
    refused = gm(kit.folder, "player", "replace", "bob", new, "--name", "Nex", "--email", "nex@example.org")
    assert refused.exit_code == 1 and "word of the order language" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    assert gm(kit.folder, "state", "--json").output.count('"bob"') >= 1
    assert "nex@example.org" not in gm(kit.folder, "status").output
