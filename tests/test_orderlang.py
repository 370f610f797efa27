"""docs/rules/, Order mail: the order language, one test per behaviour, then hypothesis.

The orders here are the postal game's (docs/rules/, Order mail's NUMBER and TRAPDOOR), read through the
postal ruleset's grammar; what is common to every ruleset's grammar is in
tests/test_order_grammar.py."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rulehelpers import said, worded

from gm.mail import orderlang
from gm.mail.masking import MASK
from gm.mail.orderlang import OrderText
from gm.rules.postal.options import PostalOptions
from gm.rules.postal.orders import postal_grammar


def parse_orders(text: str, *, per_board_numbers: bool = False, **kwargs) -> OrderText:
    """orderlang.parse_orders with the postal commands, shared or per-board numbers."""
    options = PostalOptions(numbers="per-board" if per_board_numbers else "shared")
    return orderlang.parse_orders(text, grammar=postal_grammar(options), **kwargs)


def _by_board(result: OrderText, keyword: str) -> dict:
    """The message's KEYWORD commands as board as written (None: left out) -> value."""
    return {
        None if c.target is None else c.target.written: c.value
        for c in result.commands
        if c.keyword == keyword
    }


def numbers(result: OrderText) -> dict:
    return _by_board(result, "NUMBER")


def trapdoors(result: OrderText) -> dict:
    return _by_board(result, "TRAPDOOR")


def messages(result: OrderText) -> list[str]:
    return worded(result.problems)


# --- the commands ------------------------------------------------------------------------


def test_3_a_complete_order():
    result = parse_orders(
        "GAME spring-2027\nPLAYER alice\nPASSWORD Tea-Party-6\nTURN 7\nNUMBER 3\nTRAPDOOR A 44\n"
    )
    assert (result.game, result.player, result.password, result.turn) == (
        "spring-2027",
        "alice",
        "Tea-Party-6",
        7,
    )
    assert numbers(result) == {None: 3} and trapdoors(result) == {"A": 44}
    assert (result.help, result.reset, result.problems, result.ignored) == (False, False, (), ())
    assert result.ok


def test_3_keywords_are_case_insensitive_and_tolerate_a_colon_and_spaces():
    result = parse_orders(
        "  game:spring-2027\nPlayer :  Alice\npassword:  Se Cret \n\tNumber: 4\ntrapDoor a: 12\n"
    )
    assert result.ok
    assert (result.game, result.player) == ("spring-2027", "Alice")
    # Passwords keep their case and inner spaces: the rest of the line, trimmed.
    assert result.password == "Se Cret"
    assert numbers(result) == {None: 4}
    assert trapdoors(result) == {"a": 12}


def test_3_full_width_letters_and_digits_read_as_ascii():
    result = parse_orders("\uff2e\uff35\uff2d\uff22\uff25\uff32\u3000\uff14")  # ＮＵＭＢＥＲ　４
    assert numbers(result) == {None: 4}


def test_3_bold_lines_from_gmail_plain_text_are_read():
    assert numbers(parse_orders("*NUMBER 4*\n**TRAPDOOR 9**")) == {None: 4}
    assert trapdoors(parse_orders("*NUMBER 4*\n**TRAPDOOR 9**")) == {None: 9}


def test_3_number_must_be_1_to_6():
    for value in ("0", "7", "four", "4.0", "-1", "99999999999999999999"):
        result = parse_orders(f"PLAYER a\nNUMBER {value}")
        assert said(result) == (
            (2, f"NUMBER {value}", f'NUMBER needs a whole number from 1 to 6, got "{value}"'),
        )
    assert messages(parse_orders("\n\n\nNUMBER 7")) == [
        'line 4: NUMBER needs a whole number from 1 to 6, got "7"'
    ]


def test_3_per_board_numbers():
    result = parse_orders("NUMBER A 4\nNUMBER b: 2", per_board_numbers=True)
    assert result.ok and numbers(result) == {"A": 4, "b": 2}
    # A lone number leaves the board out, as TRAPDOOR 37 does; the caller decides.
    assert numbers(parse_orders("NUMBER 4", per_board_numbers=True)) == {None: 4}


def test_3_shared_numbers_refuse_a_board():
    assert messages(parse_orders("NUMBER A 4")) == [
        'line 1: too many values for NUMBER: write NUMBER <1-6>; got "A 4"'
    ]


def test_3_trapdoor_forms():
    result = parse_orders("TRAPDOOR A 37\nTRAPDOOR b none\nTRAPDOOR 12")
    assert result.ok
    assert trapdoors(result) == {"A": 37, "b": None, None: 12}
    assert trapdoors(parse_orders("TRAPDOOR NONE")) == {None: None}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("TRAPDOOR", "TRAPDOOR needs a square or NONE, written TRAPDOOR <board> <square or NONE>"),
        ("TRAPDOOR A 0", 'TRAPDOOR needs a square number (1 or more) or NONE, got "0"'),
        (
            "TRAPDOOR A",
            'TRAPDOOR needs a square number (1 or more) or NONE, got "A", '
            "written TRAPDOOR <board> <square or NONE>",
        ),
        (
            "TRAPDOOR A 3 4",
            'too many values for TRAPDOOR: write TRAPDOOR <board> <square or NONE>; got "A 3 4"',
        ),
        ("TURN", "TURN needs the turn number, written TURN <turn number>"),
        ("TURN seven", 'TURN needs a whole turn number (1 or more), got "seven"'),
        ("TURN 0", 'TURN needs a whole turn number (1 or more), got "0"'),
        (
            "TURN 7 orders",
            'TURN takes one value (the turn number), written TURN <turn number>; got "7 orders"',
        ),
        ("GAME", "GAME needs the campaign id, written GAME <campaign>"),
        ("PLAYER", "PLAYER needs your player id, written PLAYER <player>"),
        (
            "PLAYER Alice Liddell",
            'PLAYER takes one value (your player id), written PLAYER <player>; got "Alice Liddell"',
        ),
        ("PASSWORD", "PASSWORD needs your password, written PASSWORD <password>"),
        ("NUMBER", "NUMBER needs a number from 1 to 6, written NUMBER <1-6>"),
        ("NUMBER4", 'write NUMBER and its value with a space between: "NUMBER 4"'),
        ("NUMBER=4", 'write NUMBER and its value with a space between: "NUMBER 4"'),
        ("Turn#7", 'write TURN and its value with a space between: "TURN 7"'),
    ],
)
def test_3_problems_say_the_line_and_the_expected_form(line, message):
    result = parse_orders(f"PLAYER bob\n{line}" if not line.startswith("PLAYER") else line)
    number = 1 if line.startswith("PLAYER") else 2
    assert said(result) == ((number, line, message),)
    assert not result.ok


def test_3_help_and_end():
    result = parse_orders("HELP\nNUMBER 2\nEND\nNUMBER 5\nwhatever")
    assert result.help and numbers(result) == {None: 2} and result.ignored == ()
    # "Help me please" asks for help; words after END are not read either.
    assert parse_orders("help me please").help
    assert parse_orders("End of orders\nNUMBER 9").ok


def test_3_a_message_with_one_bad_command_is_not_ok():
    result = parse_orders("NUMBER 3\nTRAPDOOR A x")
    assert not result.ok
    assert numbers(result) == {None: 3}  # still parsed; the caller refuses it whole


def test_3_every_problem_is_listed_line_by_line():
    result = parse_orders("NUMBER 9\nTURN x\nTRAPDOOR A B C")
    assert [p.line for p in result.problems] == [1, 2, 3]


# --- the same command twice --------------------------------------------------------------


def test_3_same_command_twice_with_the_same_value_is_fine():
    result = parse_orders(
        "NUMBER 4\nnumber 4\nPLAYER alice\nPLAYER ALICE\nTRAPDOOR A 3\nTRAPDOOR a 3"
    )
    assert result.ok and trapdoors(result) == {"A": 3}


def test_3_same_command_twice_with_different_values_names_both_lines():
    assert messages(parse_orders("NUMBER 4\nfoo\nNUMBER 5")) == [
        'line 3: NUMBER given twice with different values: line 1 says "NUMBER 4", '
        'line 3 says "NUMBER 5"'
    ]
    assert messages(parse_orders("TRAPDOOR A 4\nTRAPDOOR a NONE\nTRAPDOOR B 4")) == [
        "line 2: TRAPDOOR for board A given twice with different values: line 1 says "
        '"TRAPDOOR A 4", line 2 says "TRAPDOOR a NONE"'
    ]
    assert len(parse_orders("NUMBER A 1\nNUMBER A 2", per_board_numbers=True).problems) == 1
    assert len(parse_orders("TURN 3\nTURN 4").problems) == 1
    assert len(parse_orders("GAME x\nGAME y").problems) == 1


def test_3_two_passwords_are_a_problem_that_shows_neither():
    result = parse_orders("PASSWORD first-secret\nPASSWORD other-secret")
    assert messages(result) == [
        f'line 2: PASSWORD given twice with different values: line 1 says "PASSWORD {MASK}", '
        f'line 2 says "PASSWORD {MASK}"'
    ]
    assert result.password == "first-secret"


# --- what is not read --------------------------------------------------------------------


def test_3_blank_and_quoted_lines_are_ignored_silently():
    result = parse_orders("\n   \n> NUMBER 5\n   >> TRAPDOOR 4\n\u200b> NUMBER 6\nNUMBER 2\n")
    assert result.ok and numbers(result) == {None: 2} and result.ignored == ()


def test_3_other_lines_are_listed_back_as_ignored():
    # (A line like "Numbr 3" was listed here too; it is now a problem, "did you mean
    # NUMBER?": tests/test_order_grammar.py.)
    result = parse_orders("Hi GM,\nNUMBER 2\nsee you next week\n\nSent from my iPhone")
    assert result.ignored == (
        (1, "Hi GM,"),
        (3, "see you next week"),
        (5, "Sent from my iPhone"),
    )
    assert result.ok


@pytest.mark.parametrize("marker", ["-- ", "--", "-- \u00a0", "\u2014"])
def test_3_signature_ends_reading(marker):
    result = parse_orders(f"NUMBER 1\n{marker}\nAlice\nNUMBER 6\n")
    assert numbers(result) == {None: 1} and result.ignored == ()


def test_3_a_dashed_line_in_the_text_is_no_signature():
    result = parse_orders("NUMBER 1\n--- my notes ---\nTRAPDOOR 5")
    assert trapdoors(result) == {None: 5}


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "----- Original Message -----",
        "-------- Forwarded Message --------",
        "---------- Forwarded message ---------",
        "-----Ursprüngliche Nachricht-----",
        "Begin forwarded message:",
        "-----BEGIN PGP SIGNATURE-----",
    ],
)
def test_3_an_unmarked_quoted_original_ends_reading(separator):
    result = parse_orders(f"NUMBER 3\n\n{separator}\nFrom: GM\nNUMBER 4\nTRAPDOOR A 12\n")
    assert numbers(result) == {None: 3} and trapdoors(result) == {} and result.ok


def test_3_an_outlook_header_block_ends_reading():
    text = (
        "NUMBER 3\n________________________________\nFrom: Snakes GM <gm@example.org>\n"
        "Sent: Sunday, November 22, 2026 5:05 PM\nTo: mary@example.org\n\nNUMBER 4\n"
    )
    result = parse_orders(text)
    assert numbers(result) == {None: 3} and result.ignored == ()
    # Without the rule line too, as Outlook's HTML reply converts.
    result = parse_orders("NUMBER 3\nMary\nFrom: GM <gm@example.org>\nSent: today\nNUMBER 4")
    assert numbers(result) == {None: 3} and result.ignored == ((2, "Mary"),)


@pytest.mark.parametrize(
    "attribution",
    [
        "On Sun, 22 Nov 2026 at 17:05, Snakes GM <gm@example.org> wrote:",
        "On Sun, Nov 22, 2026 at 5:05 PM Snakes GM <\ngm@example.org> wrote:",
        "Snakes GM <gm@example.org> wrote:",
        "Am 22.11.2026 um 17:05 schrieb Snakes GM:",
        "Le dim. 22 nov. 2026 à 17:05, Snakes GM <gm@example.org> a écrit :",
        "On Monday, Snakes GM wrote:",
    ],
)
def test_3_an_attribution_over_an_unmarked_quote_ends_reading(attribution):
    result = parse_orders(f"NUMBER 3\n\n{attribution}\n\nTurn 6 report\nNUMBER 4\n")
    assert numbers(result) == {None: 3} and result.ok and result.ignored == ()


def test_3_an_attribution_over_a_marked_quote_lets_a_bottom_post_be_read():
    text = (
        "On Sun, 22 Nov 2026 at 17:05, Snakes GM <gm@example.org> wrote:\n"
        "> Your standing order:\n> NUMBER 4\n\nNUMBER 5\nTRAPDOOR A 9\n"
    )
    result = parse_orders(text)
    assert result.ok and numbers(result) == {None: 5} and result.ignored == ()


def test_3_free_text_ending_in_wrote_is_not_an_attribution():
    result = parse_orders("As I wrote:\nNUMBER 5")
    assert numbers(result) == {None: 5} and result.ignored == ((1, "As I wrote:"),)


def test_3_invisible_characters_do_not_break_a_command():
    result = parse_orders("NUM\u200bBER 4\n\ufeffTRAPDOOR\u00a0A\u00a07")
    assert numbers(result) == {None: 4} and trapdoors(result) == {"A": 7}


def test_3_any_line_ending_is_read():
    assert trapdoors(parse_orders("PLAYER a\r\nNUMBER 2\rTRAPDOOR 3")) == {None: 3}


# --- passwords are never echoed ----------------------------------------------------------


def test_3_problem_text_masks_the_password():
    result = parse_orders("PASSWORD: hunter22\nPASSWORD other\nTURN hunter22")
    texts = [text for _, line, message in said(result) for text in (line, message)]
    assert all("hunter22" not in t and "other" not in t for t in texts)
    assert result.problems[0].text == f"PASSWORD {MASK}"
    assert said(result)[1][2] == f'TURN needs a whole turn number (1 or more), got "{MASK}"'


def test_3_ignored_lines_never_show_a_password():
    result = parse_orders(
        "PASSWORD hunter22\nmy password is hunter22\nPassword=hunter22\nPWD hunter22"
    )
    assert result.ignored == (
        (2, f"my password is {MASK}"),
        (3, f"Password {MASK}"),
        (4, f"PWD {MASK}"),
    )


# --- limits ------------------------------------------------------------------------------


def test_3_lines_read_are_capped_and_the_cap_is_a_problem():
    result = parse_orders("NUMBER 1\n" + "chatter\n" * 5, max_lines=3)
    assert said(result) == (
        (
            4,
            "chatter",
            "too many lines: only the first 3 lines (not counting blank and quoted ones) "
            "are read; put your orders first or end them with END",
        ),
    )
    assert len(result.ignored) == 2


def test_3_quoted_and_blank_lines_do_not_use_up_the_cap():
    text = "NUMBER 1\n" + "> quoted report\n\n" * 2000 + "-- \nsig\n"
    assert parse_orders(text, max_lines=5).ok


def test_3_empty_text_has_no_commands_and_no_problems():
    assert parse_orders("") == OrderText()


# --- never raises ------------------------------------------------------------------------

LINES = st.sampled_from(
    [
        "NUMBER 4",
        "NUMBER A 4",
        "NUMBER",
        "number: 9",
        "TRAPDOOR",
        "TRAPDOOR A NONE",
        "TRAPDOOR 1 2 3",
        "TURN 99999999999",
        "PASSWORD",
        "PASSWORD x",
        "GAME a b",
        "END",
        "HELP",
        "-- ",
        "> NUMBER 1",
        "On Sun wrote:",
        "-----Original Message-----",
        "From: x",
        "Sent: y",
        "____________________",
        "NUMBER4",
        "*",
        "**",
        "",
        "\u00a0",
        "\uff2e\uff35\uff2d\uff22\uff25\uff32",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    text=st.one_of(st.text(), st.lists(st.one_of(LINES, st.text(max_size=20))).map("\n".join)),
    per_board=st.booleans(),
    max_lines=st.integers(min_value=0, max_value=50),
)
@example(text="\x85\u2028\x0b\x1c", per_board=False, max_lines=1)
def test_parse_orders_never_raises(text, per_board, max_lines):
    result = parse_orders(text, per_board_numbers=per_board, max_lines=max_lines)
    assert isinstance(result, OrderText)
    assert all(1 <= n <= 6 for n in numbers(result).values())
    assert all(p.line >= 1 for p in result.problems)


@settings(max_examples=200, deadline=None)
@given(
    # with a digit: a secret of letters alone may be a word of the reply ("number")
    secret=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=6, max_size=12).filter(
        lambda s: any(c.isdigit() for c in s)),
    lines=st.lists(st.one_of(LINES, st.just("TURN {s}"), st.just("{s}"), st.just("PASSWORD {s}x"))),
)
def test_a_password_never_appears_in_problems_or_ignored(secret, lines):
    text = "\n".join([f"PASSWORD {secret}", *(line.replace("{s}", secret) for line in lines)])
    result = parse_orders(text)
    shown = [text for _, line, message in said(result) for text in (line, message)]
    shown += [t for _, t in result.ignored]
    assert not any(secret in s for s in shown)
