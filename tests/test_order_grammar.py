"""docs/rules/, Order mail and 4.5: each ruleset owns its order commands (gm.rules.grammar), read by
gm.mail.orderlang beside the envelope every ruleset shares; a command of another ruleset is
refused listing this game's commands; a misspelt command is a problem, not a free line;
postal's merge replaces only what a message names (docs/rules/postal.md, Orders, the deadline and missed turns)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import test_order_mail
from rulehelpers import board, campaign, said, start_state, worded
from test_order_mail import drop, order_mail, outcomes, replies
from toyrules import Step

from gm.mail.masking import MASK
from gm.mail.orderlang import OrderText, parse_orders
from gm.rules import registry
from gm.rules.grammar import (
    ENVELOPE,
    Command,
    CommandProblem,
    CommandSpec,
    Grammar,
    OrderRules,
    ruleset_keywords,
    whole_number,
)
from gm.rules.postal import Postal
from gm.rules.postal.options import PostalOptions
from gm.rules.postal.orders import BoardName, postal_grammar
from gm.rules.postal.state import PostalOrder

GM = Path(__file__).resolve().parent.parent / "gm"


# --- a toy grammar ---------------------------------------------------------------------


def _read_step(args: tuple[str, ...], rest: str, most: int) -> tuple[None, int]:
    if len(args) != 1:
        raise CommandProblem("step_one_value", most=most, rest=rest)
    step = whole_number(args[0], 1, most)
    if step is None:
        raise CommandProblem("step_not_whole", most=most, value=args[0])
    return None, step


@dataclass(frozen=True)
class Lane:
    name: str

    def __str__(self) -> str:
        return f"lane {self.name}"


def _read_mark(args: tuple[str, ...], rest: str, most: int) -> tuple[Lane, str]:
    if len(args) != 2:
        raise CommandProblem("mark_needs_lane")
    return Lane(args[0].upper()), args[1].lower()


def _read_say(args: tuple[str, ...], rest: str, most: int) -> tuple[None, str]:
    return None, rest


def toy_grammar(most: int = 3) -> Grammar:
    """STEP <1-most> (one a message), MARK <lane> <colour> (one per lane), SAY <words>
    (a list: every line counts)."""
    return Grammar(
        commands=(
            CommandSpec("STEP", f"STEP <1-{most}>", _read_step),
            CommandSpec("MARK", "MARK <lane> <colour>", _read_mark),
            CommandSpec("SAY", "SAY <words>", _read_say, repeatable=True),
        ),
        context=most,
    )


def toy(text: str, **kwargs) -> OrderText:
    kwargs.setdefault("other_keywords", ())
    return parse_orders(text, grammar=toy_grammar(), **kwargs)


def messages(result: OrderText, ruleset: str = "step") -> list[str]:
    """The problems as a player reads them: the toy grammar's words are the toy ruleset's
    templates (tests/data/step-templates)."""
    return worded(result.problems, ruleset)


@pytest.fixture(autouse=True)
def step_words():
    registry.register(Step)
    yield
    registry.unregister("step")


def test_3_a_toy_grammar_reads_its_commands_beside_the_envelope():
    result = toy("GAME g\nPLAYER ann\nPASSWORD Se cret\nTURN 4\nStep: 2\nmark a red\nSAY hi there")
    assert result.ok
    assert (result.game, result.player, result.password, result.turn) == ("g", "ann", "Se cret", 4)
    assert result.commands == (
        Command(5, "Step: 2", "STEP", None, 2),
        Command(6, "mark a red", "MARK", Lane("A"), "red"),
        Command(7, "SAY hi there", "SAY", None, "hi there"),
    )


def test_3_a_readers_problem_carries_the_line_and_nothing_of_it_counts():
    result = toy("PLAYER ann\nSTEP 4\nMARK a\nSTEP")
    assert messages(result) == [
        'line 2: STEP needs a whole number from 1 to 3, got "4"',
        "line 3: MARK needs a lane and a colour, written MARK <lane> <colour>",
        'line 4: STEP takes one value, written STEP <1-3>; got ""',
    ]
    assert result.commands == ()


def test_3_the_grammar_context_is_what_syntax_depends_on():
    assert parse_orders("STEP 5", grammar=toy_grammar(6), other_keywords=()).ok
    assert not parse_orders("STEP 5", grammar=toy_grammar(3), other_keywords=()).ok


def test_3_given_twice_with_different_values_for_any_grammar():
    result = toy("STEP 2\nstep 2\nMARK a red\nMARK A blue\nMARK b red\nSTEP 3\nSAY x\nSAY y")
    assert messages(result) == [
        'line 4: MARK for lane A given twice with different values: line 3 says "MARK a red", '
        'line 4 says "MARK A blue"',
        'line 6: STEP given twice with different values: line 1 says "STEP 2", '
        'line 6 says "STEP 3"',
    ]
    # The same value twice is one command (its first line); a repeatable one keeps each line.
    assert [(c.line, c.keyword) for c in result.commands] == [
        (1, "STEP"), (3, "MARK"), (5, "MARK"), (7, "SAY"), (8, "SAY"),
    ]


def test_3_a_glued_value_is_a_problem_for_the_grammars_keywords_too():
    assert messages(toy("STEP2")) == ['line 1: write STEP and its value with a space between: "STEP 2"']


def test_3_reset_goes_alone_whatever_the_grammar():
    assert messages(toy("RESET\nPLAYER ann\nSTEP 1")) == [
        "line 1: RESET goes in a message of its own, with your PLAYER line and no orders"
    ]


def test_3_a_password_never_shows_in_a_commands_text():
    result = toy("PASSWORD sesame-99\nSAY sesame-99 please")
    assert result.commands[0].text == f"SAY {MASK} please"


def test_grammar_declarations_are_checked():
    with pytest.raises(ValueError, match="envelope"):
        Grammar((CommandSpec("TURN", "TURN <n>", _read_step),))
    with pytest.raises(ValueError, match="twice"):
        Grammar((CommandSpec("STEP", "", _read_step), CommandSpec("STEP", "", _read_step)))
    with pytest.raises(ValueError, match="letters"):
        Grammar((CommandSpec("step", "", _read_step),))


# --- another ruleset's command (docs/rules/classic.md, Order mail) ------------------------------------------


def test_4_5_another_rulesets_command_is_refused_listing_this_games_commands():
    text = "PLAYER ann\nPASSWORD x\nTURN 3\nRESIGN\nNUMBER 4"
    result = parse_orders(text, grammar=postal_grammar(), other_keywords=("RESIGN", "MOVE"))
    assert messages(result) == [
        "line 4: RESIGN is not a command of this game; its commands are NUMBER, TRAPDOOR"
    ]
    result = toy("STEP 1\nnumber: 4\nTrapdoor A 9", other_keywords={"NUMBER", "TRAPDOOR"})
    assert messages(result) == [
        "line 2: NUMBER is not a command of this game; its commands are STEP, MARK, SAY",
        "line 3: TRAPDOOR is not a command of this game; its commands are STEP, MARK, SAY",
    ]
    # without other_keywords the same words are free lines
    assert toy("number: 4").ignored == ((1, "number: 4"),)


def test_4_5_other_rulesets_commands_are_gm_s_own_five_never_a_registered_ones():
    """The refusal knows gm's own rulesets' commands alone: a ruleset registered at run
    time (or installed by a package) has its words refused by none of the others, and a
    postal campaign reads its STEP as an ignored line (docs/plugins.md, Shipping)."""
    class Toy:
        name = "toy-steps"

        def grammar(self, options):
            return toy_grammar()

    own = frozenset().union(*(registry.built_in(name).grammar(None).keywords for name in registry.BUILT_IN))
    registry.register(Toy)
    try:
        assert ruleset_keywords() == own
        assert {"NUMBER", "TRAPDOOR", "RESIGN"} <= own and not {"STEP", "MARK", "SAY"} & own
        # a postal campaign ignores STEP; the toy one refuses NUMBER, both by default
        assert parse_orders("STEP 2", grammar=postal_grammar()).ignored == ((1, "STEP 2"),)
        assert messages(parse_orders("NUMBER 2", grammar=toy_grammar())) == [
            "line 1: NUMBER is not a command of this game; its commands are STEP, MARK, SAY"
        ]
    finally:
        registry.unregister("toy-steps")


def test_4_5_a_ruleset_that_fails_to_load_does_not_stop_order_mail():
    class Broken:
        name = "toy-broken"

        def grammar(self, options):
            raise RuntimeError("broken plug-in")

    registry.register(Broken)
    try:
        assert {"NUMBER", "TRAPDOOR"} <= ruleset_keywords()
    finally:
        registry.unregister("toy-broken")


# --- a misspelt command -----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "meant"),
    [
        ("NUMBR 5", "NUMBER"),
        ("Numbr 3", "NUMBER"),
        ("numbers: 4", "NUMBER"),
        ("TRAPDOR A 37", "TRAPDOOR"),
        ("Trapdoors 12", "TRAPDOOR"),
        ("PLAYR ann", "PLAYER"),
    ],
)
def test_3_a_misspelt_command_is_a_problem_that_names_the_command(line, meant):
    result = parse_orders(f"PLAYER ann\n{line}", grammar=postal_grammar(), other_keywords=())
    word = line.split()[0].rstrip(":").upper()
    assert said(result) == ((2, line, f"{word} is not a command; did you mean {meant}?"),)
    assert result.commands == ()


def test_3_a_misspelt_command_of_a_toy_grammar():
    assert messages(toy("STEPP 2")) == ["line 1: STEPP is not a command; did you mean STEP?"]
    # two letters swapped in a four-letter word are a typo too (MOEV)
    assert messages(toy("STPE 2")) == ["line 1: STPE is not a command; did you mean STEP?"]
    assert toy("Stop 2").ignored == ((1, "Stop 2"),)  # O is not beside E: a word


def test_3_a_misspelt_password_line_hides_the_password():
    result = parse_orders("PASWORD hunter22", grammar=postal_grammar(), other_keywords=())
    assert said(result) == (
        (1, f"PASWORD {MASK}", "PASWORD is not a command; did you mean PASSWORD?"),
    )


@pytest.mark.parametrize(
    "line",
    [
        "Numbr, I think, is 3",  # prose: punctuation
        "Turns out I will be away next week",  # prose: too many words
        "Hello GM",  # not close enough
        "Num 3",  # too short to guess
        "Sent from my iPhone",
    ],
)
def test_3_free_lines_are_not_taken_for_misspelt_commands(line):
    result = parse_orders(line, grammar=postal_grammar(), other_keywords=())
    assert result.ok and result.ignored == ((1, line),)


# --- postal's grammar and merge ---------------------------------------------------------


def test_postal_declares_its_grammar_from_its_options():
    postal = Postal()
    assert isinstance(postal, OrderRules)
    assert postal.grammar(None).keywords == ("NUMBER", "TRAPDOOR")
    assert postal.grammar(PostalOptions()).forms["NUMBER"] == "NUMBER <1-6>"
    per_board = postal.grammar(PostalOptions(numbers="per-board"))
    assert per_board.forms["NUMBER"] == "NUMBER <board> <1-6>"
    result = parse_orders("NUMBER a 4\nTRAPDOOR b: none", grammar=per_board, other_keywords=())
    assert result.commands == (
        Command(1, "NUMBER a 4", "NUMBER", BoardName("A"), 4),
        Command(2, "TRAPDOOR b: none", "TRAPDOOR", BoardName("b"), None),
    )


def _merge(setup, standing: PostalOrder, text: str) -> tuple[PostalOrder, list]:
    postal = Postal()
    parsed = parse_orders(text, grammar=postal.grammar(setup.options), other_keywords=())
    assert parsed.ok, parsed.problems
    return postal.merge(setup, start_state(setup), "ann", standing, parsed.commands)


def test_2_4_merge_replaces_only_what_the_message_names():
    setup = campaign({"A": board(), "B": board()}, numbers="per-board")
    standing = PostalOrder({"A": 3, "B": 5}, {"A": 10, "B": 20})
    order, problems = _merge(setup, standing, "NUMBER b 4\nTRAPDOOR a 12")
    assert problems == []
    assert order == PostalOrder({"A": 3, "B": 4}, {"A": 12, "B": 20})
    # TRAPDOOR <board> NONE withdraws; withdrawing what was never nominated is no problem
    order, problems = _merge(setup, order, "TRAPDOOR B NONE\nTRAPDOOR A none")
    assert problems == [] and order == PostalOrder({"A": 3, "B": 4}, {})
    assert standing == PostalOrder({"A": 3, "B": 5}, {"A": 10, "B": 20})  # not changed


def test_2_4_merge_under_shared_numbers_and_one_board():
    setup = campaign(board())
    order, problems = _merge(setup, PostalOrder({"*": 2}, {"A": 7}), "NUMBER 6\nTRAPDOOR 9")
    assert problems == [] and order == PostalOrder({"*": 6}, {"A": 9})
    order, problems = _merge(setup, PostalOrder({"*": 2}, {"A": 7}), "TRAPDOOR NONE")
    assert problems == [] and order == PostalOrder({"*": 2}, {})


def test_2_4_merge_problems_keep_their_wording():
    two = campaign({"A": board(), "B": board()}, numbers="per-board")
    _, problems = _merge(two, PostalOrder(), "NUMBER 4\nTRAPDOOR 9\nTRAPDOOR Z NONE\nNUMBER z 2")
    assert worded(problems) == [
        "line 1: NUMBER 4: name the board, e.g. NUMBER A 4",
        "line 4: NUMBER z 2: there is no board z",
        "line 2: TRAPDOOR 9: name the board, e.g. TRAPDOOR A 9",
        "line 3: TRAPDOOR Z NONE: there is no board Z",
    ]


# --- nothing of any ruleset in the common reader ----------------------------------------


def test_the_common_reader_knows_no_rulesets_commands():
    for path in (GM / "mail" / "orderlang.py", GM / "rules" / "grammar.py"):
        source = path.read_text(encoding="utf-8")
        found = re.findall(r"NUMBER|TRAPDOOR|[Bb]oard|[Tt]rapdoor|1-6|1 to 6|postal", source)
        assert found == [], f"{path.name}: {found}"
    assert set(ENVELOPE) == {"GAME", "PLAYER", "PASSWORD", "TURN", "END", "HELP", "RESET", "ENTROPY"}


# --- through the order desk -------------------------------------------------------------

gm = test_order_mail.gm  # a started postal campaign of the fixture senders


def _alice(tmp_path, body: str, name: str) -> Path:
    return drop(tmp_path, name, order_mail(
        "alice@example.org", f"PLAYER alice\nPASSWORD Tea-Party-6\n{body}\n",
        message_id=f"<{name}@example.org>"))


def test_4_5_the_desk_refuses_another_rulesets_command_and_a_misspelt_one(gm, tmp_path):
    gm("ingest", str(_alice(tmp_path, "NUMBER 3\nRESIGN", "foreign")))  # RESIGN: classic's and doubles'
    gm("ingest", str(_alice(tmp_path, "NUMBR 3", "misspelt")))
    first, second = (r["text"] for r in replies(gm.folder))
    assert "line 4: RESIGN is not a command of this game; its commands are NUMBER, TRAPDOOR" in first
    assert "line 3: NUMBR is not a command; did you mean NUMBER?" in second
    assert [o for o, _ in outcomes(gm.folder)] == ["refused", "refused"]


def test_2_4_the_desk_merges_through_the_ruleset(gm, tmp_path):
    gm("ingest", str(_alice(tmp_path, "NUMBER 3\nTRAPDOOR A 44\nTRAPDOOR B 12", "one")))
    gm("ingest", str(_alice(tmp_path, "TRAPDOOR a NONE", "two")))
    gm("ingest", str(_alice(tmp_path, "TURN 1", "three")))  # a TURN alone is an order
    gm("ingest", str(_alice(tmp_path, "HELLO", "four")))
    assert "number 3; trapdoors B 12" in gm("orders", "--full")
    assert [o for o, _ in outcomes(gm.folder)] == ["applied", "applied", "applied", "refused"]
    assert "the message holds no order: send NUMBER and TRAPDOOR lines" in replies(gm.folder)[-1]["text"]
