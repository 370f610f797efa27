"""docs/rules/unleashed.md, Order mail, Unleashed's order mail: one test per bullet and per check on receipt,
through `parse_orders` (the envelope and the grammar's readers) and `Unleashed().merge`
(what the lines mean in the campaign), each problem's words rendered from
templates/mail/unleashed/problems.txt; a few through the real order desk on a campaign
folder.

The campaign is alice, bob, carol on the default 6 x 10 board (N = 60, 6.1): square s is
on level (s-1) div 10 + 1, in column (s-1) mod 10 on odd levels and 9 - that on even
ones. So S1 5-16 (levels 1 and 2, both column 4) fits a short reach, S4 15-35 (levels 2
and 4, both column 5) a long one, and 13-27 (levels 2 and 3) neither of a long item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from gm.mail.orderlang import parse_orders
from gm.mail.words import problem_text
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.grammar import ruleset_keywords
from gm.rules.problem import Problem
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.options import parse_options
from gm.rules.unleashed.orders import PlayLine, UnleashedOrder
from gm.rules.unleashed.state import UnleashedState
from gm.rules.unleashed.words import Spot, read_spot, resolve_player, resolve_spot
from gm.yamlfile import LineDict

RULES = Unleashed()
PLAYERS = ("alice", "bob", "carol")
NOTHING = UnleashedOrder()
# a hand holding one card of most codes, so that each case names the card it needs
HAND = ["BLANK", "+2", "-3", "EXTRA-ROLL", "SWAP-PLAYERS", "MOVE-LADDER", "MOVE-SNAKE", "MOVE-ANY",
        "MOVE-2-LADDERS", "MOVE-2-SNAKES", "SWAP-CARDS", "REVERSE", "FORWARD-3", "BACK-2"]


def campaign(**options: Any) -> Setup:
    opts = parse_options(LineDict(options))
    boards, problems = RULES.campaign_boards({}, len(PLAYERS), opts)
    assert not problems
    return Setup(boards, PLAYERS, opts, 2**128 + 5)


def begin(setup: Setup, hand: list[str] | None = None) -> UnleashedState:
    """The state at start, alice holding `hand` (HAND unless told)."""
    state = RULES.start(setup, SeededChance(setup.seed)).state
    state.hands["alice"] = list(HAND if hand is None else hand)
    return state


def rounds(**options: Any) -> tuple[Setup, UnleashedState]:
    """A campaign whose next turn is a round of play (setup: random)."""
    setup = campaign(setup="random", **options)
    return setup, begin(setup)


def setup_turn(**options: Any) -> tuple[Setup, UnleashedState]:
    """A campaign whose next turn is the setup turn (setup: players, the default)."""
    setup = campaign(**options)
    state = begin(setup)
    assert state.setup
    return setup, state


def parse(text: str, player: str = "alice"):
    return parse_orders(f"PLAYER {player}\nPASSWORD pw-{player}\n{text}\n", grammar=RULES.grammar(),
                        other_keywords=ruleset_keywords())


def merge(text: str, where: tuple[Setup, UnleashedState] | None = None, *, player: str = "alice",
          standing: UnleashedOrder = NOTHING) -> tuple[UnleashedOrder, list[Problem]]:
    parsed = parse(text, player)
    assert parsed.ok, [p.why for p in parsed.problems]
    setup, state = where or rounds()
    return RULES.merge(setup, state, player, standing, parsed.commands)


def accepted(text: str, where: tuple[Setup, UnleashedState] | None = None, **kwargs: Any) -> UnleashedOrder:
    order, problems = merge(text, where, **kwargs)
    assert problems == [], problems
    return order


def refusals(text: str, where: tuple[Setup, UnleashedState] | None = None, *,
             player: str = "alice") -> list[Problem]:
    """Every problem of a message, the grammar's and merge's, each on its line."""
    parsed = parse(text, player)
    found = [p.why for p in parsed.problems]
    setup, state = where or rounds()
    order, problems = RULES.merge(setup, state, player, NOTHING, parsed.commands)
    if problems:
        assert order == NOTHING  # refused whole: the standing order stands
    return found + problems


def refused(text: str, where: tuple[Setup, UnleashedState] | None = None, *, player: str = "alice") -> list[str]:
    """The codes of a message's problems; each one's words are checked on the way."""
    problems = refusals(text, where, player=player)
    for p in problems:
        words(p)
    return [p.code for p in problems]


def words(p: Problem) -> str:
    text = problem_text("unleashed", p)
    assert text and "\n" not in text and "{" not in text and "}" not in text, text
    assert p.code not in text, text
    assert "pw-" not in text, text
    if p.line is not None:
        assert text.startswith(f"line {p.line}: "), text
    return text


def plays(order: UnleashedOrder) -> list[str]:
    return [p.text() for p in order.plays or ()]


# -- 6.13's opening: docs/rules/, Order mail holds, NUMBER and TRAPDOOR, signatures, -k ---------------


def test_6_13_rules_3_envelope_holds_game_player_password_turn_end():
    parsed = parse("GAME kit\nTURN 2\nPLAY -3 ON 27\nEND\nPLAY +2 ON 30")
    assert parsed.ok and (parsed.game, parsed.player, parsed.turn) == ("kit", "alice", 2)
    assert [c.text for c in parsed.commands] == ["PLAY -3 ON 27"]  # nothing read after END
    assert plays(accepted("GAME kit\nTURN 2\nPLAY -3 ON 27\nEND\nPLAY nonsense")) == ["PLAY -3 ON 27"]


def test_6_13_a_message_is_taken_whole_or_not_at_all_every_problem_listed_line_by_line():
    standing = UnleashedOrder(sent=True, plays=(PlayLine("+2", "12"),))
    setup, state = rounds()
    parsed = parse("PLAY -3 ON 27\nPLAY +9 ON 30\nREACT BACK ME\nPLAY -3 ON 61")
    order, problems = RULES.merge(setup, state, "alice", standing, parsed.commands)
    assert order == standing
    assert [(p.code, p.line) for p in problems] == [("not_in_hand", 4), ("square_off_board", 6),
                                                   ("not_yourself", 5)]
    assert words(problems[0]) == ("line 4: you hold no +9: your hand is " + " ".join(HAND)
                                  + "; PLAY a card you hold, e.g. PLAY BLANK ON 12")


@pytest.mark.parametrize("line", ["NUMBER 5", "NUMBER A 5", "TRAPDOOR A 12", "TRAPDOOR NONE"])
def test_6_13_number_and_trapdoor_are_refused_with_the_commands_this_ruleset_knows(line):
    parsed = parse(f"PLAY -3 ON 27\n{line}")
    assert [(p.line, p.why.code) for p in parsed.problems] == [(4, "foreign_command")]
    assert parsed.problems[0].why.facts["commands"] == ["PLAY", "REACT", "PLACE"]
    text = words(parsed.problems[0].why)
    word = line.split()[0]
    assert text.startswith(f"line 4: {word} is not a command of this game")
    for form in ("PLAY <card> ON <square> [choices]", "PLAY NONE", "REACT <action> <choices>",
                 "REACT <action> NONE", "PLACE <item> <square> <square>"):
        assert form in text


@pytest.mark.parametrize("signature", ["--", "-- ", "--   \t"])
def test_6_13_a_signature_starts_at_a_line_that_is_exactly_two_dashes_trailing_spaces_allowed(signature):
    parsed = parse(f"PLAY -3 ON 27\n{signature}\nPLAY +2 ON 30\nAlice, sent from a phone")
    assert parsed.ok and [c.text for c in parsed.commands] == ["PLAY -3 ON 27"]


@pytest.mark.parametrize("line", ["-3", "-- 3", "--3", "-1 -2", "---", "- -"])
def test_6_13_other_lines_of_dashes_start_no_signature(line):
    parsed = parse(f"PLAY -3 ON 27\n{line}\nPLAY +2 ON 30")
    assert [c.text for c in parsed.commands] == ["PLAY -3 ON 27", "PLAY +2 ON 30"]


@pytest.mark.parametrize("line", ["  --", "\u2014"])
def test_6_13_a_dash_line_with_leading_spaces_or_an_em_dash_is_no_signature(line):
    parsed = parse(f"PLAY -3 ON 27\n{line}\nPLAY +2 ON 30")
    assert [c.text for c in parsed.commands] == ["PLAY -3 ON 27", "PLAY +2 ON 30"]


def test_6_13_minus_k_in_a_line_is_a_card_code():
    order = accepted("PLAY -3 ON 27\nplay -3 on bob-3\nPLAY -3 ON ME-0")
    assert plays(order) == ["PLAY -3 ON 27", "PLAY -3 ON bob-3", "PLAY -3 ON ME+0"]
    assert order.plays[1] == PlayLine("-3", "bob-3")


# -- the commands ---------------------------------------------------------------------


def test_6_13_play_card_on_square_with_or_without_choices_is_one_line_of_the_play_list():
    order = accepted("PLAY BACK-2 ON 14 leader\nPlay Move-Snake on ME+3 s4 15 to 35\nPLAY BACK-2 ON 20\n"
                     "PLAY BLANK ON 60")
    assert order.sent
    assert order.plays == (PlayLine("BACK-2", "14", "LEADER"), PlayLine("MOVE-SNAKE", "ME+3", "S4 15 35"),
                           PlayLine("BACK-2", "20"), PlayLine("BLANK", "60"))
    assert plays(order) == ["PLAY BACK-2 ON 14 LEADER", "PLAY MOVE-SNAKE ON ME+3 S4 15 35", "PLAY BACK-2 ON 20",
                            "PLAY BLANK ON 60"]


def test_6_13_play_none_plays_no_card_this_round():
    standing = UnleashedOrder(sent=True, plays=(PlayLine("+2", "12"),))
    order = accepted("play none", standing=standing)
    assert order.sent and order.plays == ()


def test_6_13_play_lines_only_in_rounds_of_play():
    assert refused("PLAY -3 ON 27", setup_turn()) == ["no_play_in_setup"]
    assert refused("PLAY NONE", setup_turn()) == ["no_play_in_setup"]
    assert words(refusals("PLAY NONE", setup_turn())[0]) == (
        "line 3: no PLAY in the setup turn: this turn the items are placed, written PLACE <item> <square> "
        "<square>, e.g. PLACE S4 13 27; send your PLAY lines from the next turn")


def test_6_13_react_action_choices_is_one_line_of_that_actions_list():
    order = accepted("REACT BACK LAST\nREACT back bob\nREACT SWAP-PLAYERS ME leader\nREACT SWAP-CARDS 12 ME+3\n"
                     "REACT MOVE-LADDER L4 13-33\nREACT MOVE-SNAKE S1 16 5\nREACT MOVE-ANY P1 ME+8 TO Carol-3\n"
                     "REACT MOVE-2-LADDERS L1 5 - 16 L4 13 33\nREACT MOVE-2-SNAKES S4 35 15")
    assert order.reactions == {
        "BACK": ("LAST", "bob"), "SWAP-PLAYERS": ("ME LEADER",), "SWAP-CARDS": ("12 ME+3",),
        "MOVE-LADDER": ("L4 13 33",), "MOVE-SNAKE": ("S1 16 5",), "MOVE-ANY": ("P1 ME+8 carol-3",),
        "MOVE-2-LADDERS": ("L1 5 16 L4 13 33",), "MOVE-2-SNAKES": ("S4 35 15",),
    }


def test_6_13_forward_k_and_back_k_are_react_action_names_one_list_for_every_k():
    order = accepted("REACT FORWARD-2 LAST\nREACT forward-9 bob\nREACT FORWARD carol\nREACT BACK-4 LEADER")
    assert order.reactions == {"FORWARD": ("LAST", "bob", "carol"), "BACK": ("LEADER",)}
    assert refused("REACT FORWARD-0 LAST") == ["react_needs_action"]
    assert refused("REACT FORWARD-10 LAST") == ["react_needs_action"]


def test_6_13_react_action_none_empties_the_list():
    standing = UnleashedOrder(sent=True, reactions={"BACK": ("LAST",), "FORWARD": ("bob",)})
    order = accepted("REACT BACK NONE", standing=standing)
    assert order.reactions == {"BACK": (), "FORWARD": ("bob",)}
    order = accepted("REACT back-3 none", standing=standing)
    assert order.reactions["BACK"] == ()


def test_6_13_react_actions_are_the_ones_with_choices():
    for action in ("EXTRA-ROLL", "REVERSE", "BLANK", "+2", "SWAP", "NONE"):
        assert refused(f"REACT {action} LEADER") == ["react_needs_action"], action
    assert refused("REACT") == ["react_needs_action"]
    text = words(refusals("REACT REVERSE ME")[0])
    assert text.startswith('line 3: REACT needs an action, written REACT <action> <choices>, e.g. REACT BACK LAST')
    assert "FORWARD, BACK, SWAP-PLAYERS, SWAP-CARDS, MOVE-LADDER, MOVE-SNAKE, MOVE-ANY" in text
    assert text.endswith('; got "REACT REVERSE ME"')


def test_6_13_react_snake_eyes_only_with_snake_eyes_evil():
    assert accepted("REACT SNAKE-EYES LEADER\nREACT snake-eyes bob", rounds(snake_eyes="evil")).reactions == {
        "SNAKE-EYES": ("LEADER", "bob")}
    for options in ({}, {"snake_eyes": "self"}, {"snake_eyes": "off"}):
        assert refused("REACT SNAKE-EYES LEADER", rounds(**options)) == ["snake_eyes_off"], options
        assert refused("REACT SNAKE-EYES NONE", rounds(**options)) == ["snake_eyes_off"], options
    assert words(refusals("REACT SNAKE-EYES LEADER")[0]) == (
        "line 3: REACT SNAKE-EYES is only for campaigns played with snake_eyes: evil, and this one is not: "
        "leave the line out")


def test_6_13_a_react_line_must_give_its_choices():
    assert refused("REACT BACK") == ["react_needs_choices"]
    assert refused("REACT MOVE-SNAKE") == ["react_needs_choices"]
    assert words(refusals("REACT BACK-2")[0]) == (
        "line 3: REACT BACK needs its choices, written REACT BACK <choices>, e.g. REACT BACK LEADER; "
        "or REACT BACK NONE to empty the list")
    assert "REACT MOVE-SNAKE S4 27 TO 13" in words(refusals("REACT MOVE-SNAKE")[0])


def test_6_13_place_item_square_square_is_one_line_of_the_setup_list():
    order = accepted("PLACE S4 15 35\nplace s1 16 5\nPLACE P2 35 15", setup_turn())
    assert order.places == (("S4", 15, 35), ("S1", 16, 5), ("P2", 35, 15))
    assert RULES.order_view(*setup_turn(), "alice", order)["places"] == [
        "PLACE S4 15 35", "PLACE S1 16 5", "PLACE P2 35 15"]


def test_6_13_place_in_the_setup_turn_only():
    assert refused("PLACE S4 15 35") == ["place_after_setup"]
    assert words(refusals("PLACE S4 15 35")[0]) == (
        "line 3: no PLACE now: items are placed in the setup turn only; play cards with PLAY <card> ON <square>, "
        "e.g. PLAY -3 ON 27")


def test_6_13_place_takes_absolute_squares_only():
    where = setup_turn()
    for line in ("PLACE S4 ME+1 35", "PLACE S4 15 bob-2", "PLACE S4 15 LEADER", "PLACE S4 fifteen 35"):
        assert refused(line, where) == ["place_absolute"], line
    assert words(refusals("PLACE S4 ME+1 35", where)[0]) == (
        'line 3: PLACE takes square numbers only, not "ME+1": write PLACE <item> <square> <square>, '
        "e.g. PLACE S4 13 27")
    for line in ("PLACE S4 15", "PLACE S4 15 TO 35", "PLACE S4 15-35", "PLACE"):
        assert refused(line, where) == ["place_form"], line
    assert words(refusals("PLACE S4 15", where)[0]) == (
        'line 3: PLACE needs an item and two squares, written PLACE <item> <square> <square>, e.g. PLACE S4 13 27; '
        'got "PLACE S4 15"')
    assert refused("PLACE S7 15 35", where) == ["unknown_item"]


# -- player words -----------------------------------------------------------------------


def test_6_13_player_words_are_an_id_in_any_case_me_leader_last_next():
    order = accepted("REACT BACK Bob\nREACT BACK CAROL\nREACT BACK leader\nREACT BACK Last\nREACT BACK next")
    assert order.reactions["BACK"] == ("bob", "carol", "LEADER", "LAST", "NEXT")
    assert refused("REACT BACK dave") == ["unknown_player"]
    assert words(refusals("REACT BACK dave")[0]) == (
        'line 3: "dave" is no player word: write a player id (alice, bob, carol) or ME, LEADER, LAST or NEXT, '
        "e.g. BACK-2 LEADER")


def test_6_13_player_words_resolve_against_the_pawns_ties_to_the_lowest_seat():
    seats = ["carol", "alice", "bob"]
    squares = {"alice": 10, "bob": 20, "carol": 20}
    assert resolve_player("ME", "alice", squares, seats) == "alice"
    assert resolve_player("LEADER", "alice", squares, seats) == "carol"  # seat 1 before bob's seat 3
    assert resolve_player("LEADER", "carol", squares, seats) == "bob"  # the other pawn, never the actor
    assert resolve_player("LAST", "bob", squares, seats) == "alice"
    assert resolve_player("LAST", "alice", squares, seats) == "carol"
    assert resolve_player("NEXT", "alice", {"alice": 10, "bob": 15, "carol": 20}, seats) == "bob"
    assert resolve_player("NEXT", "carol", {"alice": 10, "bob": 15, "carol": 20}, seats) == "bob"  # none ahead: LEADER
    assert resolve_player("bob", "alice", {"alice": 10, "carol": 20}, seats) is None  # not in play
    assert resolve_player("LEADER", "alice", {"alice": 10}, seats) is None  # no other pawn in play


# -- squares ---------------------------------------------------------------------------


def test_6_13_squares_are_integers_or_a_player_word_plus_or_minus_k():
    players = ("alice", "bob")
    assert read_spot("27", players) == Spot(None, 27)
    assert read_spot("bob+2", players) == Spot("bob", 2)
    assert read_spot("ME-1", players) == Spot("ME", -1)
    assert read_spot("leader+0", players).text() == "LEADER+0"
    assert read_spot("Bob-0", players).text() == "bob+0"
    assert read_spot("next+007", players).text() == "NEXT+7"
    assert plays(accepted("PLAY -3 ON bob+2\nPLAY -3 ON me-1\nPLAY -3 ON Leader+0")) == [
        "PLAY -3 ON bob+2", "PLAY -3 ON ME-1", "PLAY -3 ON LEADER+0"]


def test_6_13_the_sign_before_the_last_digits_splits_a_relative_square():
    players = ("r2-d2", "x-1", "bob")
    assert read_spot("r2-d2+3", players) == Spot("r2-d2", 3)
    assert read_spot("x-1-2", players) == Spot("x-1", -2)
    assert read_spot("x-1+12", players) == Spot("x-1", 12)
    assert read_spot("bob-12", players) == Spot("bob", -12)


def test_6_13_what_is_no_square_is_refused():
    for word in ("twelve", "+5", "-5", "ME+", "ME+-1", "ME+1.5", "27-13"):
        problems = refusals(f"PLAY -3 ON {word}")
        assert [p.code for p in problems] in (["not_a_square"], ["unknown_player"]), word
        words(problems[0])
    assert words(refusals("PLAY -3 ON twelve")[0]) == (
        'line 3: "twelve" is no square: write a number, or a player word plus or minus a number, '
        "e.g. 27, ME+3, bob-2 or LEADER+0")
    assert refused("PLAY -3 ON dave+2") == ["unknown_player"]


def test_6_13_a_relative_square_is_resolved_at_the_go_outside_1_to_n_it_is_no_square():
    assert resolve_spot(Spot("bob", 2), "alice", {"alice": 5, "bob": 10}, PLAYERS, 60) == 12
    assert resolve_spot(Spot("bob", -10), "alice", {"alice": 5, "bob": 10}, PLAYERS, 60) is None
    assert resolve_spot(Spot("ME", 56), "alice", {"alice": 5, "bob": 10}, PLAYERS, 60) is None
    # on receipt it is not judged: the pawns may stand elsewhere at the go
    assert plays(accepted("PLAY -3 ON ME+99\nPLAY -3 ON bob-70")) == ["PLAY -3 ON ME+99", "PLAY -3 ON bob-70"]


# -- choices ---------------------------------------------------------------------------


def test_6_13_choices_of_each_card_have_its_form():
    order = accepted("PLAY FORWARD-3 ON 20 LAST\nPLAY BACK-2 ON 20 carol\nPLAY SWAP-PLAYERS ON 20 bob carol\n"
                     "PLAY SWAP-CARDS ON 20 9 ME+1\nPLAY MOVE-SNAKE ON 20 S1 5 16\nPLAY MOVE-LADDER ON 20 L4 33 13\n"
                     "PLAY MOVE-ANY ON 20 P2 15 35\nPLAY MOVE-2-SNAKES ON 20 S1 5 16 S4 15 35\n"
                     "PLAY MOVE-2-LADDERS ON 20 L1 16 5\nPLAY EXTRA-ROLL ON 20\nPLAY REVERSE ON 20")
    assert [p.choices for p in order.plays] == ["LAST", "carol", "bob carol", "9 ME+1", "S1 5 16", "L4 33 13",
                                                "P2 15 35", "S1 5 16 S4 15 35", "L1 16 5", None, None]


@pytest.mark.parametrize("written", ["S4 15 35", "s4 15-35", "S4 15 TO 35", "S4 15 to 35", "S4 15 - 35"])
def test_6_13_a_triple_is_item_square_to_or_dash_square_or_two_integers_joined_by_a_dash(written):
    assert accepted(f"PLAY MOVE-SNAKE ON 20 {written}").plays[0].choices == "S4 15 35"


def test_6_13_a_triple_with_relative_squares():
    order = accepted("PLAY MOVE-ANY ON 20 P1 ME+8 TO carol-3\nPLAY MOVE-ANY ON 20 P1 bob+1 - 40")
    assert [p.choices for p in order.plays] == ["P1 ME+8 carol-3", "P1 bob+1 40"]


def test_6_13_move_2_takes_one_or_two_triples_the_others_one():
    assert accepted("PLAY MOVE-2-SNAKES ON 20 S1 5 16").plays[0].choices == "S1 5 16"
    assert refused("PLAY MOVE-2-SNAKES ON 20 S1 5 16 S4 15 35 S5 16 36") == ["too_many_triples"]
    assert refused("PLAY MOVE-SNAKE ON 20 S1 5 16 S4 15 35") == ["too_many_triples"]
    assert words(refusals("PLAY MOVE-SNAKE ON 20 S1 5 16 S4 15 35")[0]) == (
        "line 3: this action moves one item: give one triple <item> <square> TO <square>, e.g. S4 27 TO 13")
    assert "at most 2 items" in words(refusals("PLAY MOVE-2-SNAKES ON 20 S1 5 16 S4 15 35 S5 16 36")[0])


def test_6_13_a_triple_needs_an_item_and_two_squares():
    for choices in ("S4", "S4 15", "S4 15 TO", "S1 5 16 S4", "S4 15 -"):
        assert refused(f"PLAY MOVE-2-SNAKES ON 20 {choices}") == ["triple_needs_squares"], choices
    assert words(refusals("PLAY MOVE-SNAKE ON 20 S4 15")[0]) == (
        "line 3: S4 needs two squares after it, written S4 <square> TO <square>, e.g. S4 27 TO 13 "
        "(also S4 27 13 or S4 27-13)")
    assert refused("PLAY MOVE-ANY ON 20 X9 15 35") == ["unknown_item"]
    assert refused("PLAY MOVE-ANY ON 20 15 35") == ["unknown_item"]
    assert words(refusals("PLAY MOVE-ANY ON 20 X9 15 35")[0]) == (
        'line 3: "X9" is no item: write S1 to S6 (snakes), L1 to L6 (ladders) or P1, P2 (lampposts), e.g. S4')


def test_6_13_a_play_line_may_leave_the_choices_out_other_cards_take_none():
    order = accepted("PLAY SWAP-PLAYERS ON 20\nPLAY MOVE-2-LADDERS ON 20\nPLAY BACK-2 ON 20")
    assert [p.choices for p in order.plays] == [None, None, None]
    for line in ("PLAY BLANK ON 20 LEADER", "PLAY +2 ON 20 bob", "PLAY -3 ON 20 21", "PLAY EXTRA-ROLL ON 20 ME",
                 "PLAY REVERSE ON 20 S1 5 16"):
        assert refused(line) == ["takes_no_choices"], line
    assert words(refusals("PLAY +2 ON 20 bob")[0]) == (
        "line 3: +2 takes no choices: write just PLAY +2 ON <square>, e.g. PLAY +2 ON 12")


@pytest.mark.parametrize(("line", "expected"), [
    ("PLAY BACK-2 ON 20 bob carol", "line 3: BACK takes one player (an id, ME, LEADER, LAST or NEXT), e.g. BACK-2 LEADER"),
    ("PLAY SWAP-PLAYERS ON 20 bob", "line 3: SWAP-PLAYERS takes two players, e.g. SWAP-PLAYERS ME LEADER"),
    ("PLAY SWAP-CARDS ON 20 9 10 11", "line 3: SWAP-CARDS takes two squares, e.g. SWAP-CARDS 12 ME+3"),
    ("REACT SWAP-PLAYERS ME bob carol", "line 3: SWAP-PLAYERS takes two players, e.g. SWAP-PLAYERS ME LEADER"),
    ("REACT FORWARD LAST bob", "line 3: FORWARD takes one player (an id, ME, LEADER, LAST or NEXT), e.g. BACK-2 LEADER"),
])
def test_6_13_choices_of_the_wrong_form_are_refused(line, expected):
    problems = refusals(line)
    assert [p.code for p in problems] == ["wrong_choices"]
    assert words(problems[0]) == expected


def test_6_13_a_play_line_needs_a_card_on_and_a_square():
    for line in ("PLAY", "PLAY JOKER ON 20", "PLAY 3 ON 20", "PLAY +10 ON 20", "PLAY ON 20", "PLAY NONE 20"):
        assert refused(line) == ["play_needs_card"], line
    for line in ("PLAY -3", "PLAY -3 20", "PLAY -3 AT 20", "PLAY -3 ON"):
        assert refused(line) == ["play_needs_on"], line
    assert words(refusals("PLAY JOKER ON 20")[0]).startswith(
        "line 3: PLAY needs a card code, written PLAY <card> ON <square> [choices], e.g. PLAY -3 ON 27")
    assert words(refusals("PLAY JOKER ON 20")[0]).endswith('or PLAY NONE; got "PLAY JOKER ON 20"')
    assert words(refusals("PLAY -3 20")[0]) == (
        "line 3: PLAY -3 needs ON and the square to play it on, written PLAY -3 ON <square>, "
        "e.g. PLAY -3 ON 12 or PLAY -3 ON ME+3")


def test_6_13_words_are_resolved_at_the_go_so_a_legal_looking_line_is_skipped_there_not_refused():
    setup, state = rounds()
    state.pawns["bob"].square = 20
    # bob stands on 20, LEADER may be anyone, S6 is not in play, P1's squares are not free: all for the go
    order = accepted("PLAY -3 ON 20\nPLAY BACK-2 ON 20 LEADER\nPLAY MOVE-ANY ON 21 S6 15 35\n"
                     "PLAY SWAP-PLAYERS ON 22 LEADER NEXT", (setup, state))
    assert len(order.plays) == 4
    # a player not in play is named all the same: the line is skipped at the go
    state.pawns["carol"].finished = True
    assert accepted("REACT BACK carol\nPLAY BACK-2 ON carol+1 carol", (setup, state)).reactions == {"BACK": ("carol",)}


# -- which lines a message replaces ------------------------------------------------------


def test_6_13_play_lines_in_order_replace_the_rounds_play_list():
    standing = UnleashedOrder(sent=True, plays=(PlayLine("+2", "12"), PlayLine("BLANK", "13")))
    assert plays(accepted("PLAY -3 ON 27\nPLAY +2 ON ME+1", standing=standing)) == [
        "PLAY -3 ON 27", "PLAY +2 ON ME+1"]
    # a message with no PLAY line leaves the play list as it stands
    assert accepted("REACT BACK LAST", standing=standing).plays == standing.plays
    assert NOTHING.plays is None  # no PLAY line ever sent


def test_6_13_react_lines_replace_that_actions_list_which_stands_until_replaced():
    standing = UnleashedOrder(sent=True, reactions={"BACK": ("LAST",), "SWAP-PLAYERS": ("ME LEADER",)})
    order = accepted("REACT BACK bob\nREACT BACK NEXT", standing=standing)
    assert order.reactions == {"BACK": ("bob", "NEXT"), "SWAP-PLAYERS": ("ME LEADER",)}
    # in the state, reactions stand for later rounds: a missed round keeps them
    setup, state = rounds()
    state.reactions = {"alice": {"FORWARD": ["LAST"], "BACK": ["LEADER"]}}
    view = RULES.order_view(setup, state, "alice", accepted("REACT BACK bob\nREACT MOVE-ANY P1 ME+8 carol-3"))
    assert view["reactions"] == {"FORWARD": ["LAST"], "BACK": ["bob"], "MOVE-ANY": ["P1 ME+8 carol-3"]}
    view = RULES.order_view(setup, state, "alice", accepted("REACT BACK NONE"))
    assert view["reactions"] == {"FORWARD": ["LAST"]}
    assert RULES.order_view(setup, state, "alice", NOTHING)["reactions"] == {"FORWARD": ["LAST"], "BACK": ["LEADER"]}


def test_6_13_place_lines_replace_the_setup_list():
    standing = UnleashedOrder(sent=True, places=(("S1", 5, 16),))
    where = setup_turn()
    assert accepted("PLACE L4 13 33", where, standing=standing).places == (("L4", 13, 33),)
    assert accepted("REACT BACK LAST", where, standing=standing).places == (("S1", 5, 16),)


def test_6_13_play_none_and_react_none_must_be_the_only_line_of_their_list():
    assert refused("PLAY NONE\nPLAY -3 ON 27") == ["none_not_alone"]
    assert refused("PLAY -3 ON 27\nPLAY NONE") == ["none_not_alone"]
    assert refused("REACT BACK NONE\nREACT BACK LAST") == ["none_not_alone"]
    assert refused("REACT BACK-2 LAST\nREACT BACK-3 NONE") == ["none_not_alone"]
    assert words(refusals("PLAY NONE\nPLAY -3 ON 27")[0]) == (
        "line 3: PLAY NONE must be the only PLAY line of the message: send either PLAY NONE or your PLAY lines")
    assert words(refusals("REACT BACK LAST\nREACT BACK NONE")[0]) == (
        "line 4: REACT BACK NONE must be the only REACT BACK line of the message: send either REACT BACK NONE "
        "or your REACT BACK lines")
    # other lists do not count
    order = accepted("PLAY NONE\nREACT BACK NONE\nREACT FORWARD LAST\nREACT SWAP-CARDS 1 2")
    assert order.plays == () and order.reactions == {"BACK": (), "FORWARD": ("LAST",), "SWAP-CARDS": ("1 2",)}


# -- checked on receipt ----------------------------------------------------------------------


def test_6_13_receipt_known_commands():
    parsed = parse("PLAY -3 ON 27\nBUILD SNAKE 12\nPLAYS -3 ON 27\nREACTT BACK LAST")
    assert [(p.line, p.why.code) for p in parsed.problems] == [(4, "foreign_command"), (5, "misspelt"),
                                                             (6, "misspelt")]
    assert words(parsed.problems[1].why) == "line 5: PLAYS is not a command; did you mean PLAY?"


def test_6_13_receipt_codes_player_words_and_item_ids():
    assert refused("PLAY FORWARD-0 ON 27") == ["play_needs_card"]
    assert refused("REACT BACK somebody") == ["unknown_player"]
    assert refused("PLAY SWAP-PLAYERS ON 27 ME somebody") == ["unknown_player"]
    assert refused("PLAY MOVE-SNAKE ON 27 S0 5 16") == ["unknown_item"]
    assert refused("PLACE Q1 5 16", setup_turn()) == ["unknown_item"]


@pytest.mark.parametrize("line", ["PLAY -3 ON 0", "PLAY -3 ON 61", "PLAY SWAP-CARDS ON 27 0 5",
                                  "PLAY SWAP-CARDS ON 27 5 61", "PLAY MOVE-ANY ON 27 P1 61 50",
                                  "REACT MOVE-SNAKE S1 0 ME+3", "REACT SWAP-CARDS 100 ME+1"])
def test_6_13_receipt_integer_squares_in_1_to_n(line):
    problems = refusals(line)
    assert [p.code for p in problems] == ["square_off_board"]
    square = problems[0].facts["square"]
    assert words(problems[0]) == f"line 3: square {square} is not on the board: squares run from 1 to 60, e.g. 30"


def test_6_13_receipt_integer_squares_in_1_to_n_in_place():
    assert refused("PLACE S1 0 16", setup_turn()) == ["square_off_board"]
    assert refused("PLACE S4 45 65", setup_turn()) == ["square_off_board"]
    assert refused("PLAY -3 ON 60\nPLAY -3 ON 1") == []


def test_6_13_receipt_the_player_holds_a_card_of_each_code_played():
    where = rounds()
    where[1].hands["alice"] = ["BLANK", "-3", "BACK-2"]
    assert refused("PLAY -3 ON 27\nPLAY -3 ON 28\nPLAY BACK-2 ON 29", where) == []  # one -3 held is enough
    assert refused("PLAY +3 ON 27\nPLAY BACK-3 ON 28\nPLAY -3 ON 29", where) == ["not_in_hand", "not_in_hand"]
    assert words(refusals("PLAY +3 ON 27", where)[0]) == (
        "line 3: you hold no +3: your hand is BLANK -3 BACK-2; PLAY a card you hold, e.g. PLAY BLANK ON 12")
    where[1].hands["alice"] = []
    assert words(refusals("PLAY +3 ON 27", where)[0]) == (
        "line 3: you hold no +3: your hand is empty; PLAY a card you hold, e.g. PLAY BLANK ON 12")


@pytest.mark.parametrize("line", ["PLAY FORWARD-3 ON 27 ME", "PLAY BACK-2 ON 27 alice", "PLAY BACK-2 ON 27 ALICE",
                                  "REACT FORWARD me", "REACT BACK-3 Alice"])
def test_6_13_receipt_a_forward_or_back_choice_is_not_the_sender(line):
    problems = refusals(line)
    assert [p.code for p in problems] == ["not_yourself"]
    action = "FORWARD" if "FORWARD" in line else "BACK"
    assert words(problems[0]) == (
        f"line 3: {action} names another player, never you (ME or your own id): e.g. {action} LEADER")


def test_6_13_receipt_a_snake_eyes_choice_is_not_the_sender():
    where = rounds(snake_eyes="evil")
    assert refused("REACT SNAKE-EYES ME", where) == ["not_yourself"]
    assert refused("REACT SNAKE-EYES alice", where) == ["not_yourself"]
    assert refused("REACT SNAKE-EYES alice", where, player="bob") == []
    assert refused("REACT BACK bob\nREACT FORWARD carol\nREACT FORWARD LEADER") == []


@pytest.mark.parametrize("choices", ["ME alice", "alice ME", "Alice me", "bob BOB", "LEADER leader", "ME ME"])
def test_6_13_receipt_the_two_players_of_a_swap_differ_me_being_the_sender(choices):
    for line in (f"PLAY SWAP-PLAYERS ON 27 {choices}", f"REACT SWAP-PLAYERS {choices}"):
        problems = refusals(line)
        assert [p.code for p in problems] == ["same_players"], line
        assert words(problems[0]) == ("line 3: SWAP-PLAYERS needs two different players (ME and your own id are "
                                      "the same), e.g. SWAP-PLAYERS ME LEADER")


def test_6_13_receipt_a_swap_of_other_words_is_judged_at_the_go():
    order = accepted("REACT SWAP-PLAYERS ME bob\nREACT SWAP-PLAYERS LEADER NEXT\nREACT SWAP-PLAYERS bob alice")
    assert order.reactions["SWAP-PLAYERS"] == ("ME bob", "LEADER NEXT", "bob alice")
    # for bob, alice and ME differ
    assert accepted("REACT SWAP-PLAYERS ME alice", player="bob").reactions["SWAP-PLAYERS"] == ("ME alice",)


@pytest.mark.parametrize("choices", ["12 12", "ME+1 me+1", "bob-2 Bob-02", "LEADER+0 leader-0"])
def test_6_13_receipt_the_two_squares_of_swap_cards_differ_as_written(choices):
    for line in (f"PLAY SWAP-CARDS ON 27 {choices}", f"REACT SWAP-CARDS {choices}"):
        problems = refusals(line)
        assert [p.code for p in problems] == ["same_squares"], line
        assert words(problems[0]) == "line 3: SWAP-CARDS needs two different squares, e.g. SWAP-CARDS 12 30"


def test_6_13_receipt_squares_differing_as_written_are_judged_at_the_go():
    assert accepted("REACT SWAP-CARDS 12 ME+0\nREACT SWAP-CARDS ME+0 alice+0").reactions["SWAP-CARDS"] == (
        "12 ME+0", "ME+0 alice+0")


def test_6_13_receipt_the_items_of_one_move_2_differ():
    for line in ("PLAY MOVE-2-SNAKES ON 27 S1 5 16 S1 6 15", "REACT MOVE-2-LADDERS L1 5 16 l1 6 15"):
        problems = refusals(line)
        assert [p.code for p in problems] == ["same_items"], line
        assert words(problems[0]) == "line 3: a two-item move needs two different items, e.g. S4 27 TO 13 S5 31 TO 50"


@pytest.mark.parametrize(("line", "item"), [
    ("PLAY MOVE-SNAKE ON 27 L1 5 16", "L1"), ("PLAY MOVE-LADDER ON 27 S1 5 16", "S1"),
    ("PLAY MOVE-SNAKE ON 27 P1 5 16", "P1"), ("REACT MOVE-2-SNAKES S1 5 16 L4 15 35", "L4"),
    ("REACT MOVE-2-LADDERS P2 15 35", "P2"), ("PLAY MOVE-2-LADDERS ON 27 L1 5 16 S4 15 35", "S4"),
])
def test_6_13_receipt_snake_moves_name_snakes_and_ladder_moves_ladders(line, item):
    problems = refusals(line)
    assert [p.code for p in problems] == ["wrong_item_kind"]
    assert problems[0].facts["item"] == item
    text = words(problems[0])
    action = problems[0].facts["action"]
    kind = {"S": "a snake", "L": "a ladder", "P": "a lamppost"}[item[0]]
    if "SNAKE" in action:
        assert text == (f"line 3: {action} moves snakes (S1 to S6), e.g. {action} S4 27 TO 13; {item} is {kind} "
                        "(MOVE-ANY moves any item)")
    else:
        assert text == (f"line 3: {action} moves ladders (L1 to L6), e.g. {action} L4 13 TO 27; {item} is {kind} "
                        "(MOVE-ANY moves any item)")


def test_6_13_receipt_move_any_takes_any_item():
    order = accepted("PLAY MOVE-ANY ON 27 S1 5 16\nPLAY MOVE-ANY ON 27 L4 15 35\nPLAY MOVE-ANY ON 27 P1 16 5")
    assert [p.choices for p in order.plays] == ["S1 5 16", "L4 15 35", "P1 16 5"]


@pytest.mark.parametrize(("line", "facts"), [
    ("PLAY MOVE-SNAKE ON 27 S4 13 27", ("S4", 13, 27)),  # a long item one level apart
    ("PLAY MOVE-SNAKE ON 27 S1 15 35", ("S1", 15, 35)),  # a short item two levels apart
    ("PLAY MOVE-SNAKE ON 27 S1 5 5", ("S1", 5, 5)),
    ("PLAY MOVE-ANY ON 27 P1 5 18", ("P1", 5, 18)),  # levels 1 and 2, columns 4 and 2
    ("REACT MOVE-ANY P2 15 38", ("P2", 15, 38)),  # levels 2 and 4, columns 5 and 2
    ("REACT MOVE-2-LADDERS L1 5 16 L4 5 15", ("L4", 5, 15)),
])
def test_6_13_receipt_an_items_two_integer_squares_fit_its_reach(line, facts):
    problems = refusals(line)
    assert [p.code for p in problems] == ["out_of_reach"]
    assert (problems[0].facts["item"], problems[0].facts["a"], problems[0].facts["b"]) == facts
    item, a, b = facts
    size = ("a long item joins squares two levels apart and at most two columns aside" if item in ("S4", "P2", "L4")
            else "a short item joins squares one level apart and at most one column aside")
    assert words(problems[0]) == f"line 3: {item} cannot join squares {a} and {b}: {size}"


def test_6_13_receipt_squares_within_reach_are_accepted():
    # 5 and 25: levels 1 and 3, both column 4 (a long reach); 5 and 16: levels 1 and 2, both column 4
    assert refused("REACT MOVE-2-LADDERS L1 5 16 L4 5 25\nREACT MOVE-ANY P2 38 18\nREACT MOVE-ANY P1 17 4") == []


def test_6_13_receipt_reach_is_judged_only_when_both_squares_are_integers():
    assert accepted("PLAY MOVE-SNAKE ON 27 S4 ME+1 13\nPLAY MOVE-ANY ON 27 P1 5 bob+30").plays[1].choices == "P1 5 bob+30"


def test_6_13_receipt_reach_in_place_lines():
    where = setup_turn()
    assert refused("PLACE S4 13 27", where) == ["out_of_reach"]
    assert refused("PLACE P1 15 35", where) == ["out_of_reach"]
    assert refused("PLACE S4 15 35\nPLACE P1 5 16\nPLACE L6 35 15", where) == []


def test_6_13_receipt_what_only_the_go_can_judge_is_accepted():
    """Pawns, locks, items in play, Ends and resolved squares are judged at the go."""
    setup, state = rounds()
    state.pawns["bob"].square = 27
    state.locked_cards = [28]
    state.items = {"S1": [5, 16]}
    state.locked_items = ["S1"]
    order = accepted("PLAY -3 ON 27\nPLAY -3 ON 28\nPLAY MOVE-ANY ON 29 S1 6 15\nPLAY MOVE-ANY ON 29 S6 15 35\n"
                     "PLAY MOVE-ANY ON 29 L1 16 25\nPLAY -3 ON LEADER+40", (setup, state))
    assert len(order.plays) == 6


def test_6_13_receipt_a_finished_pawn_sends_no_orders():
    setup, state = rounds()
    order = accepted("PLAY -3 ON 27", (setup, state))
    assert RULES.order_problems(setup, state, "alice", order) == []
    state.pawns["alice"].finished = True
    problems = RULES.order_problems(setup, state, "alice", order)
    assert [p.code for p in problems] == ["not_in_play"]
    assert words(problems[0]) == ("your pawn has crossed the finish line, so you have no more goes and send "
                                  "no orders")
    assert not RULES.must_order(setup, state, "alice")


# -- NMR and the acknowledgement ------------------------------------------------------------


def test_6_13_nmr_is_no_message_accepted_for_the_round():
    setup, state = rounds()
    assert [RULES.must_order(setup, state, p) for p in PLAYERS] == [True, True, True]
    assert not RULES.order_complete(setup, state, "alice", NOTHING)
    assert RULES.order_complete(setup, state, "alice", accepted("REACT BACK LAST"))
    assert RULES.order_complete(setup, state, "alice", accepted("PLAY NONE"))


def test_6_13_the_acknowledgement_shows_the_whole_standing_order():
    setup, state = rounds()
    state.reactions = {"alice": {"MOVE-ANY": ["P1 ME+8 carol-3"]}}
    order = accepted("PLAY -3 ON 27\nplay back-2 on leader+1 last\nREACT BACK-2 LAST", (setup, state))
    view = RULES.order_view(setup, state, "alice", order)
    assert view["turn"] == state.turn and view["seat"] == state.seats.index("alice") + 1
    assert view["hand"] == HAND
    assert view["plays"] == ["PLAY -3 ON 27", "PLAY BACK-2 ON LEADER+1 LAST"]
    assert view["reactions"] == {"BACK": ["LAST"], "MOVE-ANY": ["P1 ME+8 carol-3"]}  # 6.13's order of actions
    assert view["places"] is None and view["setup_turn"] is False


def test_6_13_orders_survive_storage():
    order = accepted("PLAY MOVE-ANY ON ME+1 P1 ME+8 TO carol-3\nPLAY BACK-2 ON 9\nREACT BACK LAST\n"
                     "REACT SWAP-CARDS NONE")
    assert RULES.order_from_json(RULES.order_to_json(order)) == order
    places = accepted("PLACE S4 15 35", setup_turn())
    assert RULES.order_from_json(RULES.order_to_json(places)) == places


# -- CONTRACT: the canonical text of reactions ----------------------------------------------


def test_contract_private_reactions_are_canonical_text():
    """CONTRACT's example: `{"BACK": ["LAST"], "MOVE-ANY": ["P1 ME+8 carol-3"]}`, from
    lines written in any case, with k, TO and leading zeros."""
    setup = campaign()
    state = begin(setup)
    order = accepted("react move-any p1 me+08 TO Carol-3\nREACT back-3 last\nREACT SWAP-CARDS NONE",
                     (setup, state))
    after = RULES.resolve(setup, state, {"alice": order}, SeededChance(setup.seed)).state
    assert RULES.private_json(setup, after, "alice")["reactions"] == {"BACK": ["LAST"], "MOVE-ANY": ["P1 ME+8 carol-3"]}
    assert RULES.order_view(setup, after, "alice", NOTHING)["reactions"] == {
        "BACK": ["LAST"], "MOVE-ANY": ["P1 ME+8 carol-3"]}
    # they stand: a later message naming no reaction keeps them, and NONE empties one list
    later = accepted("REACT BACK NONE", (setup, after))
    again = RULES.resolve(setup, after, {"alice": later}, SeededChance(setup.seed)).state
    assert RULES.private_json(setup, again, "alice")["reactions"] == {"MOVE-ANY": ["P1 ME+8 carol-3"]}


# -- the words ---------------------------------------------------------------------------


CODES = {
    "unknown_player", "not_a_square", "unknown_item", "triple_needs_squares", "too_many_triples",
    "takes_no_choices", "wrong_choices", "play_needs_card", "play_needs_on", "react_needs_action",
    "react_needs_choices", "place_form", "square_off_board", "not_yourself", "same_players", "same_squares",
    "same_items", "wrong_item_kind", "out_of_reach", "no_play_in_setup", "not_in_hand", "place_after_setup",
    "place_absolute", "none_not_alone", "snake_eyes_off", "not_in_play",
}


def test_6_13_every_problem_code_raised_in_the_order_language_has_words():
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "gm" / "rules" / "unleashed"
    raised = set()
    for name in ("orders.py", "words.py", "__init__.py"):
        raised |= set(re.findall(r'(?:CommandProblem|problem)\("([a-z_]+)"', (package / name).read_text()))
    assert raised == CODES
    setup, state = rounds()
    state.pawns["alice"].finished = True
    messages = ["REACT BACK dave", "PLAY -3 ON twelve", "PLAY MOVE-ANY ON 1 X1 2 3", "PLAY MOVE-ANY ON 1 S1 2",
                "PLAY MOVE-ANY ON 1 S1 5 16 S4 15 35", "PLAY +2 ON 1 2", "REACT BACK a b", "PLAY x", "PLAY -3",
                "REACT x", "REACT BACK", "PLACE", "PLAY -3 ON 0", "REACT BACK ME", "REACT SWAP-PLAYERS ME ME",
                "REACT SWAP-CARDS 1 1", "REACT MOVE-2-SNAKES S1 5 16 S1 6 15", "REACT MOVE-SNAKE L1 5 16",
                "REACT MOVE-ANY S1 5 6", "PLAY +9 ON 5", "PLACE S1 5 16", "PLAY NONE\nPLAY NONE",
                "REACT SNAKE-EYES LEADER"]
    seen = {p.code for text in messages for p in refusals(text)}
    seen |= {p.code for p in refusals("PLAY NONE", setup_turn()) + refusals("PLACE S1 ME+1 16", setup_turn())}
    seen |= {p.code for p in RULES.order_problems(setup, state, "alice", accepted("REACT BACK LAST"))}
    assert seen == CODES
    for code in CODES:
        assert problem_text("unleashed", Problem(code, _facts(code)))


def _facts(code: str) -> Mapping[str, Any]:
    """Plausible facts for a code, as the readers give them."""
    return {
        "unknown_player": {"word": "dave", "players": list(PLAYERS)}, "not_a_square": {"word": "x"},
        "unknown_item": {"word": "X1"}, "triple_needs_squares": {"item": "S1"}, "too_many_triples": {"most": 2},
        "takes_no_choices": {"card": "+2"}, "wrong_choices": {"action": "BACK", "form": "player"},
        "play_needs_card": {"rest": ""}, "play_needs_on": {"card": "-3", "rest": "-3"},
        "react_needs_action": {"rest": "", "actions": ["BACK"]}, "react_needs_choices": {"action": "BACK"},
        "place_form": {"rest": ""}, "square_off_board": {"square": 0, "last": 60},
        "not_yourself": {"action": "BACK"}, "wrong_item_kind": {"action": "MOVE-SNAKE", "item": "L1"},
        "out_of_reach": {"item": "S1", "a": 5, "b": 6}, "not_in_hand": {"card": "+9", "hand": ["BLANK"]},
        "place_absolute": {"word": "ME+1"}, "none_not_alone": {"command": "PLAY"},
    }.get(code, {})


@pytest.mark.parametrize(("code", "expected"), [
    ("not_held", "you no longer held that card"),
    ("square", "its square was not on the board then, or its player word named no pawn in play"),
    ("occupied", "another pawn stood on that square"),
    ("locked", "the card on that square was placed during the preceding go"),
    ("choices", "its choices were not legal at that moment"),
])
def test_6_14_each_reason_a_play_line_is_skipped_has_words(code, expected):
    from gm.mail.mailout import environment

    module = environment("text").get_template("mail/unleashed/problems.txt").module
    assert str(module.skip_reason(code)).strip() == expected


def test_6_14_skip_reasons_are_the_ones_the_go_gives():
    import re
    from pathlib import Path

    play = (Path(__file__).resolve().parent.parent / "gm" / "rules" / "unleashed" / "play.py").read_text()
    source = play[play.index("def try_play"):]
    source = source[:source.index("\n    def ", 1)]
    assert set(re.findall(r'return "([a-z_]+)"', source)) == {"not_held", "square", "occupied", "locked", "choices"}


# -- through the order desk, on a campaign folder ------------------------------------------


@pytest.fixture
def kit(tmp_path, monkeypatch):
    from campaignkit import PLAIN_PLAYERS, CampaignKit

    made = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS[:3], start=False)
    path = made.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data.pop("boards")
    data.update(ruleset="unleashed", seed=2**128 + 5, options={"seating": "listed"})
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    made.start()
    yield made
    made.close()


def _last_reply(kit, player: str) -> str:
    mail = kit.outbox(player=player)[-1]
    return mail.get_body(("plain",)).get_content()


def test_6_13_by_mail_a_refusal_says_every_problem_line_by_line(kit):
    assert kit.state().setup
    outcome = kit.order("alice", ["NUMBER 5", "PLAY -3 ON 5", "PLACE S4 bob+1 13", "REACT BACK ME"])
    assert outcome.outcome == "refused"
    text = _last_reply(kit, "alice")
    assert "line 3: NUMBER is not a command of this game (Snakes & Ladders Unleashed); its commands are" in text
    assert "line 4: no PLAY in the setup turn" in text
    assert 'line 5: PLACE takes square numbers only, not "bob+1"' in text
    assert "line 6: BACK names another player, never you" in text
    assert "pw-alice" not in text


def test_6_13_by_mail_an_accepted_order_stands_and_its_reactions_stand_after_the_turn(kit):
    from gm.campaign.standing import order_view

    outcome = kit.order("alice", ["PLACE S4 15 35", "PLACE s1 16 5", "REACT back-3 last",
                                  "REACT MOVE-ANY p1 ME+8 to Carol-3", "-- ", "PLAY -3 ON 5"])
    assert outcome.outcome == "applied", outcome
    with kit.campaign() as campaign:
        view = order_view(campaign, "alice")
    assert view["places"] == ["PLACE S4 15 35", "PLACE S1 16 5"]
    assert view["reactions"] == {"BACK": ["LAST"], "MOVE-ANY": ["P1 ME+8 carol-3"]}
    text = _last_reply(kit, "alice")
    assert "P1 ME+8 carol-3" in text and "pw-alice" not in text
    # a second message refused whole leaves the first standing
    assert kit.order("alice", ["PLACE S4 15 35", "PLACE S9 1 2"]).outcome == "refused"
    with kit.campaign() as campaign:
        assert order_view(campaign, "alice")["places"] == ["PLACE S4 15 35", "PLACE S1 16 5"]
