"""docs/rules/unleashed.md, A worked round's worked example and 6.12's test vector, as golden tests: every fact the
rules state, checked against the pure rules core (seeded dice, no scripting)."""

from __future__ import annotations

from collections import Counter

import pytest

from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.options import parse_options
from gm.rules.unleashed.orders import PlayLine, UnleashedOrder
from gm.rules.unleashed.state import Pawn, UnleashedState
from gm.yamlfile import LineDict

R = Unleashed()
PLAYERS = ("alice", "bob", "carol")
# RULES 6.16's rows of cards, squares 1-8, 9-16, 17-24, 25-32, 33-40
ROWS = ("BLANK +1 BLANK -1 BLANK +3 MOVE-LADDER BLANK",
        "-2 BLANK -2 BLANK -1 +2 SWAP-CARDS -2",
        "BLANK +1 FORWARD-2 BLANK -3 EXTRA-ROLL BLANK BACK-2",
        "+2 BLANK +3 -1 MOVE-SNAKE +1 BLANK REVERSE",
        "-2 BLANK SWAP-PLAYERS +2 BLANK -3 BACK-3 BLANK")
CARDS = [card for row in ROWS for card in row.split()]


def example_setup() -> Setup:
    options = parse_options(LineDict({"seating": "listed", "setup": "random", "super_size": False}))
    boards, problems = R.campaign_boards({}, 3, options)
    assert problems == []
    return Setup(boards, PLAYERS, options, 2462)


def example_state() -> UnleashedState:
    return UnleashedState(
        turn=4, rows=5, columns=8, seats=list(PLAYERS), cards=list(CARDS),
        pile=["FORWARD-3", "BLANK", "+1", "+1"],
        hands={"alice": ["BLANK", "+1", "MOVE-SNAKE"], "bob": ["+2", "-3", "SWAP-CARDS"],
               "carol": ["BLANK", "-1", "REVERSE"]},
        pawns={"alice": Pawn(5), "bob": Pawn(3), "carol": Pawn(20)},
        items={"S1": [19, 31], "S4": [18, 34], "L1": [11, 22], "L4": [4, 20], "P2": [7, 23]},
        locked_cards=[9], reactions={"carol": {"BACK": ["LAST"]}})


ORDERS = {
    # PLAY MOVE-SNAKE ON 9 S4 27 13 / PLAY MOVE-SNAKE ON ME+18 S4 27-13 (canonical: S4 27 13)
    "alice": UnleashedOrder(True, (PlayLine("MOVE-SNAKE", "9", "S4 27 13"), PlayLine("MOVE-SNAKE", "ME+18", "S4 27 13"))),
    # PLAY -3 ON 23 / PLAY -3 ON alice+0 / PLAY -3 ON 30
    "bob": UnleashedOrder(True, (PlayLine("-3", "23"), PlayLine("-3", "alice+0"), PlayLine("-3", "30"))),
    # carol: NMR
}


@pytest.fixture(scope="module")
def turn4():
    setup = example_setup()
    before = example_state()
    out = R.resolve(setup, before, ORDERS, SeededChance(2462))
    return setup, before, out


def go(out, player):
    events, inside = [], False
    for event in out.events:
        if event.kind == "go":
            inside = event.player == player
        if inside:
            events.append(event)
    return events


def summary(events):
    """Each event as a short tuple, in order."""
    rows = []
    for e in events:
        if e.kind == "go":
            rows.append(("go", e.player, e.nmr, e.locked_cards, e.locked_items))
        elif e.kind == "play":
            rows.append(("play", e.player, e.card, e.square, e.covered))
        elif e.kind == "action":
            rows.append(("action", e.actor, e.card, e.square, e.choices, e.automatic, e.landed))
        elif e.kind == "drew":
            rows.append(("drew", e.player, e.count))
        elif e.kind == "roll":
            rows.append(("roll", e.player, e.roller, e.dice, e.extra))
        elif e.kind == "step":
            rows.append(("step", e.pawn, e.start, e.end, e.by, e.what))
        else:
            rows.append((e.kind,))
    return rows


def test_6_16_round_4_starts_with_seat_1(turn4):
    _, _, out = turn4
    rounds = [e for e in out.events if e.kind == "round"]
    assert [(r.turn, r.round, r.order) for r in rounds] == [(4, 4, PLAYERS)]


def test_6_16_go_1_alice(turn4):
    _, _, out = turn4
    assert summary(go(out, "alice")) == [
        ("go", "alice", False, (9,), ()),
        # line 1 skipped: the card on 9 is locked; line 2: ME+18 is 23, covers the BLANK; S4 to 13-27
        ("play", "alice", "MOVE-SNAKE", 23, "BLANK"),
        ("action", "alice", "MOVE-SNAKE", 23, "S4 13 27", False, False),
        ("drew", "alice", 1),
        ("roll", "alice", "alice", (3, 6), False),
        ("step", "alice", 5, 14, "roll", ""),
        ("step", "alice", 14, 16, "card", "+2"),
        ("step", "alice", 16, 14, "card", "-2"),  # the +2 is used this go: stops on 14
    ]


def test_6_16_go_2_bob(turn4):
    _, _, out = turn4
    assert summary(go(out, "bob")) == [
        ("go", "bob", False, (23,), ("S4",)),  # locked: the card on 23 and S4
        ("play", "bob", "-3", 30, "+1"),
        ("drew", "bob", 1),
        ("roll", "bob", "bob", (2, 6), False),
        ("step", "bob", 3, 11, "roll", ""),
        ("step", "bob", 11, 22, "item", "L1"),  # the -2 on 11 ignored
        ("action", "bob", "EXTRA-ROLL", 22, "", False, True),
        ("roll", "bob", "bob", (1, 4), True),  # dice 3-4 of his go
        ("step", "bob", 22, 27, "roll", ""),
        ("step", "bob", 27, 13, "item", "S4"),  # its +3 ignored
        ("step", "bob", 13, 12, "card", "-1"),  # BLANK on 12: stops
    ]


def test_6_16_go_3_carol(turn4):
    _, _, out = turn4
    assert summary(go(out, "carol")) == [
        ("go", "carol", True, (30,), ()),  # NMR; locked: the card on 30, no item
        ("drew", "carol", 0),
        ("roll", "carol", "carol", (3, 1), False),
        ("step", "carol", 20, 24, "roll", ""),
        ("action", "carol", "BACK-2", 24, "bob", False, True),  # REACT BACK LAST: bob (12; alice 14)
        ("step", "bob", 12, 10, "send", "BACK-2"),  # BLANK on 10: stops; carol's move ends on 24
    ]
    assert [e.kind for e in out.events] == ["round"] + [e.kind for p in PLAYERS for e in go(out, p)]


def test_6_16_dice_are_the_seeded_ones(turn4):
    _, _, out = turn4
    dice = {d.key: d.value for d in out.draws if d.kind == "dice"}
    assert dice == {"alice/1": 3, "alice/2": 6, "bob/1": 2, "bob/2": 6, "bob/3": 1, "bob/4": 4,
                    "carol/1": 3, "carol/2": 1}
    assert all(d.turn == 4 for d in out.draws)


def test_6_16_state_after_turn_4(turn4):
    _, before, out = turn4
    after = out.state
    assert {p: after.pawns[p].square for p in PLAYERS} == {"alice": 14, "bob": 10, "carol": 24}
    assert after.items == {"S1": [19, 31], "S4": [13, 27], "L1": [11, 22], "L4": [4, 20], "P2": [7, 23]}
    assert after.cards[22] == "MOVE-SNAKE" and after.cards[29] == "-3"
    changed = [i + 1 for i, (a, b) in enumerate(zip(CARDS, after.cards, strict=True)) if a != b]
    assert changed == [23, 30]
    assert after.hands == {"alice": ["BLANK", "+1", "FORWARD-3"], "bob": ["BLANK", "+2", "SWAP-CARDS"],
                           "carol": ["BLANK", "-1", "REVERSE"]}
    assert after.pile == ["+1", "+1"] and len(after.pile) == len(before.pile) - 2
    assert after.locked_cards == [] and after.locked_items == []
    assert not any(p.finished for p in after.pawns.values()) and not after.over and after.winners == []
    assert not after.reversed
    assert after.turn == 5
    assert [e for e in out.events if e.kind in ("cross", "end")] == []
    # the rules core works on a copy
    assert before.turn == 4 and before.pawns["alice"].square == 5 and before.cards == CARDS


def test_6_16_private_facts(turn4):
    _, _, out = turn4
    private = out.state.private
    assert private["alice"] == {"drew": ["FORWARD-3"], "skipped": [[1, "locked"]]}
    assert private["bob"] == {"drew": ["BLANK"], "skipped": [[1, "locked"], [2, "occupied"]]}
    assert private["carol"] == {"drew": [], "skipped": []}
    assert out.state.reactions == {"carol": {"BACK": ["LAST"]}}


def test_6_16_state_json_and_private_json(turn4):
    setup, _, out = turn4
    data = R.state_json(setup, out.state)
    # CONTRACT's keys and this ruleset's additions (others may be added by the campaign)
    assert set(data) >= {"turn", "over", "setup", "winners", "boards", "players"}
    assert data["turn"] == 5 and data["over"] is False and data["winners"] == [] and data["setup"] is False
    board = data["boards"]["A"]
    assert set(board) >= {"squares", "closed", "trapdoor", "rows", "columns", "cards", "items", "reversed",
                          "locked_cards", "locked_items", "draw_pile", "players"}
    assert board["trapdoor"] is None and board["closed"] is False
    assert all(set(v) >= {"square", "finished", "placing", "overshoot", "seat", "hand_size"}
               for v in board["players"].values())
    assert all(set(v) >= {"numbers_left", "aggregate", "place", "seat", "hand"} for v in data["players"].values())
    assert {p: v["seat"] for p, v in data["players"].items()} == {"alice": 1, "bob": 2, "carol": 3}
    assert board["squares"] == 40 and board["rows"] == 5 and board["columns"] == 8
    assert board["cards"][22] == "MOVE-SNAKE" and board["cards"][29] == "-3"
    assert board["items"]["S4"] == [13, 27]
    assert board["locked_cards"] == [] and board["locked_items"] == []
    assert board["draw_pile"] == 2 and board["reversed"] is False
    assert {p: v["square"] for p, v in board["players"].items()} == {"alice": 14, "bob": 10, "carol": 24}
    assert {p: v["hand_size"] for p, v in board["players"].items()} == {"alice": 3, "bob": 3, "carol": 3}
    assert data["players"]["alice"]["hand"] == ["BLANK", "+1", "FORWARD-3"]
    assert R.private_json(setup, out.state, "alice") == {"drew": ["FORWARD-3"], "skipped": [1], "reactions": {}}
    assert R.private_json(setup, out.state, "bob") == {"drew": ["BLANK"], "skipped": [1, 2], "reactions": {}}
    assert R.private_json(setup, out.state, "carol") == {"drew": [], "skipped": [], "reactions": {"BACK": ["LAST"]}}


def test_6_16_resolve_is_repeatable(turn4):
    setup, before, out = turn4
    again = R.resolve(setup, before, ORDERS, SeededChance(2462))
    assert again.events == out.events and R.dump_state(again.state) == R.dump_state(out.state)


# -- 6.12's test vector ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def vector():
    options = parse_options(LineDict({"setup": "random"}))
    boards, problems = R.campaign_boards({}, 4, options)
    assert problems == []
    setup = Setup(boards, ("alice", "bob", "carol", "dave"), options, 2**128 + 2)
    return setup, R.start(setup, SeededChance(setup.seed))


def test_6_12_vector_board_and_seats(vector):
    setup, out = vector
    assert setup.boards["A"].levels == (10,) * 6
    assert out.state.seats == ["carol", "dave", "bob", "alice"]
    assert [e.seats for e in out.events if e.kind == "seats"] == [("carol", "dave", "bob", "alice")]


def test_6_12_vector_first_ten_cards(vector):
    _, out = vector
    assert out.state.cards[:10] == ["REVERSE", "MOVE-LADDER", "BACK-3", "BLANK", "EXTRA-ROLL", "BLANK", "-1",
                                    "SWAP-CARDS", "FORWARD-3", "MOVE-SNAKE"]


def test_6_12_vector_default_picks_and_mix(vector):
    _, out = vector
    picks = [(p.pick, p.item, p.lower, p.upper, p.default, p.player) for p in out.events if p.kind == "pick"]
    assert picks[:3] == [(1, "S5", 31, 51, True, None), (2, "P2", 7, 26, True, None), (3, "S4", 8, 29, True, None)]
    assert len(picks) == 12
    assert Counter(item[0] for item in out.state.items) == {"S": 5, "L": 5, "P": 2}
    assert [(d.turn, d.key) for d in out.draws if d.kind == "setup"][:3] == [(0, "1"), (0, "2"), (0, "3")]


def test_6_12_vector_turn_1_dice(vector):
    setup, out = vector
    assert out.state.turn == 1 and not out.state.setup
    turn1 = R.resolve(setup, out.state, {}, SeededChance(setup.seed))
    rolls = [(r.player, r.dice) for r in turn1.events if r.kind == "roll" and not r.extra]
    assert rolls[:4] == [("carol", (4, 1)), ("dave", (3, 4)), ("bob", (4, 6)), ("alice", (6, 3))]
    first = [e for e in turn1.events if e.kind == "round"][0]
    assert first.round == 1 and first.order == ("carol", "dave", "bob", "alice")
