"""Misspelt commands (docs/rules/, Order mail: the reply says every problem found): a line
that is a typo of a command of the game, short commands too, refuses the message with
"did you mean ...?", in every ruleset: the envelope every ruleset shares and each
ruleset's own commands. `MOV` and `MOEV` used to be listed as free lines and the message
refused for holding no order. Prose is never taken for a command, misspelt or another
game's: "Move fast!", "Thanks for running this", "Sent from my iPhone"."""

from __future__ import annotations

import pytest

from gm.mail.masking import MASK
from gm.mail.orderlang import parse_orders
from gm.mail.typos import typo_cost
from gm.mail.words import problem_text
from gm.rules.grammar import ruleset_keywords
from gm.rules.registry import BUILT_IN, find_ruleset

RULESETS = sorted(BUILT_IN)
ENVELOPE_TYPOS = [
    ("PASWORD hunter22", "PASSWORD"),
    ("Pasword: hunter22", "PASSWORD"),
    ("PLAYR alice", "PLAYER"),
    ("plyer alice", "PLAYER"),
    ("GAEM spring-2027", "GAME"),
    ("TUNR 3", "TURN"),
    ("Trun 3", "TURN"),
    ("HLEP", "HELP"),
    ("RESTE", "RESET"),
]
# each ruleset's own commands, short ones and a letter doubled, dropped, swapped or struck
# beside the right key, in capitals as the help shows them and as phones write them
OWN_TYPOS = {
    "postal": [("NUMBR 5", "NUMBER"), ("Numbr 3", "NUMBER"), ("numbers: 4", "NUMBER"), ("NUBMER 2", "NUMBER"),
               ("TRAPDOR A 37", "TRAPDOOR"), ("Trapdoors 12", "TRAPDOOR"), ("TRAPDOOOR 12", "TRAPDOOR")],
    "classic": [("RESGN", "RESIGN"), ("RESING", "RESIGN"), ("resign none", None), ("Resing", "RESIGN"),
                ("RESIGNN NONE", "RESIGN")],
    "advanced": [("MOVVE", "MOVE"), ("MOV", "MOVE"), ("MOEV", "MOVE"), ("Mov", "MOVE"), ("moev", "MOVE"),
                 ("MOCE", "MOVE"), ("BUIDL SNAKE 12", "BUILD"), ("BUIDL", "BUILD"), ("buidl ladder 3", "BUILD"),
                 ("BIULD LADDER 3", "BUILD"), ("BUILF SNAKE 5", "BUILD")],
    "unleashed": [("PLAU", "PLAY"), ("PLAU +2 ON 14", "PLAY"), ("plau NONE", "PLAY"), ("PALY -1 ON 3", "PLAY"),
                  ("REACR BACK LAST", "REACT"), ("RECAT BACK NONE", "REACT"), ("PLACR S1 3 14", "PLACE"),
                  ("PALCE S1 3 14", "PLACE"), ("place s1 3 14", None)],
}
OWN_TYPOS["doubles"] = OWN_TYPOS["classic"]
PROSE = [
    "Move fast!",
    "Thanks for running this",
    "I'll move next week",
    "Sent from my iPhone",
    "Hi GM",
    "Hello GM",
    "Same here",
    "More soon",
    "Name: Alice",
    "Thanks, see you",
    "Moved house last week",
    "Played well",
    "Placed third last time",
    "Turns out I will be away next week",
    "Rest assured I will be on time",
    "Play nice with the others",
    "Numbr, I think, is 3",
    "Num 3",
    "Best wishes",
    "Cheers",
    "Ed",
    "Ends soon?",
]


def grammar(ruleset: str):
    return find_ruleset(ruleset).grammar(None)


def parse(ruleset: str, line: str):
    return parse_orders(f"PLAYER alice\n{line}", grammar=grammar(ruleset), other_keywords=ruleset_keywords())


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize(("line", "meant"), ENVELOPE_TYPOS)
def test_3_a_typo_of_an_envelope_command_is_answered_with_the_command_meant(ruleset, line, meant):
    result = parse(ruleset, line)
    word = line.split()[0].rstrip(":").upper()
    assert [(p.line, p.why.code, p.why.facts["meant"]) for p in result.problems] == [(2, "misspelt", meant)]
    said = problem_text(ruleset, result.problems[0].why)
    assert said == f"line 2: {word} is not a command; did you mean {meant}?"
    if meant == "PASSWORD":  # the line holds the password: only the word is shown
        assert "hunter22" not in repr(result) and result.problems[0].text.endswith(MASK)


@pytest.mark.parametrize(("ruleset", "line", "meant"),
                         [(r, line, meant) for r in RULESETS for line, meant in OWN_TYPOS[r]])
def test_3_a_typo_of_the_rulesets_own_command_is_answered_with_the_command_meant(ruleset, line, meant):
    result = parse(ruleset, line)
    if meant is None:  # the command itself, not a typo
        assert not any(p.why.code == "misspelt" for p in result.problems), result.problems
        return
    assert [(p.why.code, p.why.facts["meant"]) for p in result.problems] == [("misspelt", meant)]
    word = line.split()[0].rstrip(":").upper()
    assert problem_text(ruleset, result.problems[0].why).endswith(f"{word} is not a command; did you mean {meant}?")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_3_the_issues_short_typos_in_their_own_games(ruleset):
    """MOV, MOEV, NUMBR, PLAU, BUIDL: each a misspelling where its command is the game's."""
    own = set(grammar(ruleset).keywords)
    for line, meant in [("MOV", "MOVE"), ("MOEV", "MOVE"), ("NUMBR 5", "NUMBER"), ("PLAU", "PLAY"),
                        ("BUIDL SNAKE 5", "BUILD"), ("MOVVE", "MOVE"), ("PASWORD x", "PASSWORD")]:
        result = parse(ruleset, line)
        if meant in own or meant == "PASSWORD":
            assert [p.why.facts.get("meant") for p in result.problems] == [meant], (line, result.problems)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("line", PROSE)
def test_3_prose_is_never_taken_for_a_command(ruleset, line):
    result = parse(ruleset, line)
    assert not any(p.why.code in ("misspelt", "foreign_command") for p in result.problems), result.problems
    first = line.split()[0].upper()
    if first not in grammar(ruleset).keywords:  # "Move fast!" is a MOVE line in advanced
        assert result.ok and result.ignored == ((2, line),)


def test_4_5_another_games_command_written_as_a_command_is_still_refused():
    result = parse("postal", "MOVE")
    assert [(p.why.code, p.why.facts["word"]) for p in result.problems] == [("foreign_command", "MOVE")]
    assert [p.why.code for p in parse("classic", "BUILD SNAKE 12").problems] == ["foreign_command"]
    assert [p.why.code for p in parse("advanced", "Resign now").problems] == ["foreign_command"]


@pytest.mark.parametrize(
    ("word", "keyword", "cost"),
    [
        ("MOVVE", "MOVE", 1),  # doubled
        ("MOV", "MOVE", 1),  # dropped
        ("MOEV", "MOVE", 1),  # swapped
        ("PLAU", "PLAY", 1),  # the key beside Y
        ("MOBE", "MOVE", 1),  # the key beside V
        ("MORE", "MOVE", 2),  # R is nowhere near V: a word
        ("SAME", "GAME", 2),
        ("NUMBERS", "NUMBER", 1),  # a plural
        ("PLAYS", "PLAY", 1),
        ("MOVE", "MOVE", 0),
    ],
)
def test_typo_costs(word, keyword, cost):
    assert typo_cost(word, keyword) == cost


@pytest.mark.parametrize("line", ["MOV", "MOEV", "Mov"])
def test_4_5_a_short_typo_is_answered_with_the_command_not_with_no_order(tmp_path, monkeypatch, line):
    """Through the order desk: the reply names the command meant; it used to say the
    message held no order."""
    from test_order_replies import kit_of, last_reply, problem_lines

    kit = kit_of(tmp_path, monkeypatch, "advanced")
    kit.order("alice", [line])
    reply = last_reply(kit)
    assert reply.kind == "refusal"
    assert problem_lines(reply) == [f"line 3: {line.upper()} is not a command; did you mean MOVE?"]


def test_a_game_id_near_miss_of_the_campaign_is_offered_to_a_player_by_gm_s_own_id():
    from gm.mail.typos import near_miss
    from gm.rules.problem import problem

    assert near_miss("autmn", "autumn") and near_miss("Spring-2072", "spring-2027")
    assert not near_miss("winter", "autumn") and not near_miss("autumn", "autumn")
    said = problem_text("postal", problem("other_game", 2, game="autmn", campaign="autumn", meant=True))
    assert said == "line 2: GAME autmn: this is the order desk of autumn; did you mean GAME autumn?"
