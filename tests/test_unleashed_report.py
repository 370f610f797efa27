"""docs/rules/unleashed.md, What players see and 6.16: the turn report of the worked example, word for word. The
public round (every play, roll and step with the item or card that made it, the board as
it now is) and each player's own copy (hand, the card drawn, skipped lines with their
reason, standing reactions) are rendered from the templates and compared with golden
texts; regenerate with GM_REGEN_GOLDEN=1 and read the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_unleashed_worked_example import ORDERS, R, example_setup, example_state

from gm.mail.mailout import render
from gm.mail.views import BoardSize, PlayerMail, PlayerRef
from gm.rules.chance import SeededChance

GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "unleashed"
NAMES = {"alice": "Alice", "bob": "Bob", "carol": "Carol"}


def report(player: str) -> tuple[str, str, str]:
    setup = example_setup()
    before = example_state()
    out = R.resolve(setup, before, ORDERS, SeededChance(2462))
    view = R.public_view(setup, before, out.state, out.events, NAMES, "fiendish", "Fiendish Forty")
    own = R.player_view(setup, player, NAMES[player], out.state, out.events, ORDERS.get(player))
    mail = PlayerMail(
        campaign="fiendish", title="Fiendish Forty", ruleset=R.name, gm_address="gm@example.org",
        boards=tuple(BoardSize(b, board.squares) for b, board in setup.boards.items()),
        facts=R.mail_facts(setup), commands=(), player=PlayerRef(player, NAMES[player]),
        deadline=None, next_turn=view.next_turn, view=view, own=own,
    )
    return render("report", mail.context())


@pytest.mark.parametrize("player", ["alice", "bob", "carol"])
def test_6_16_the_worked_example_report_word_for_word(player):
    subject, text, html = report(player)
    path = GOLDEN / f"6.16-report-{player}.txt"
    if os.environ.get("GM_REGEN_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(f"Subject: {subject}\n\n{text}", encoding="utf-8")
    assert f"Subject: {subject}\n\n{text}" == path.read_text(encoding="utf-8")


def test_6_14_the_report_tells_each_step_and_the_own_copy_what_only_its_reader_knows():
    _, alice, _ = report("alice")
    _, bob, bob_html = report("bob")
    for line in ("Alice 5 -> 14", "Alice 14 -> 16 by the +2 card", "Alice 16 -> 14 by the -2 card",
                 "plays MOVE-SNAKE on 23 (covering BLANK)", "MOVE-SNAKE on 23: S4 moves to 13-27",
                 "Bob 11 -> 22 by L1", "Bob rolls again 1 + 4 = 5", "Bob 27 -> 13 by S4",
                 "Carol (NMR: no order)", "BACK-2 on 24 (landed on): Carol sends Bob back 2", "Bob 12 -> 10 (BACK-2)"):
        assert line in alice, line
    assert "You drew: FORWARD-3" in alice and "Your hand: BLANK, +1, FORWARD-3" in alice
    assert "Skipped: line 1, PLAY MOVE-SNAKE ON 9 S4 27 13" in alice
    assert "You drew: BLANK" in bob and "Skipped: line 2, PLAY -3 ON alice+0" in bob
    assert "FORWARD-3" not in bob  # alice's draw is hers alone
    assert "Your hand: BLANK, +2, SWAP-CARDS" in bob and "Your hand" in bob_html


def test_a_skipped_play_says_which_choice_was_not_legal_and_why():
    """docs/rules/unleashed.md, What players see: a PLAY line skipped for its choices says
    which and why, here a short snake given a span two levels long by a relative square (bob-15 is 25 at the go)."""
    from unleashedkit import campaign, order, play, run, state

    setup = campaign()
    before = state(setup, {"ann": 1, "bob": 40, "cat": 41}, hands={"ann": ["MOVE-SNAKE"]}, items={"S1": [3, 14]})
    out = run(setup, before, {"ann": order(play("MOVE-SNAKE", 20, "S1 3 bob-15"))})
    assert out.state.private["ann"]["skipped"] == [[1, "choices"]]
    assert out.state.private["ann"]["choices"] == {"1": ["short_reach", "S1"]}
    names = {"ann": "Ann", "bob": "Bob", "cat": "Cat"}
    view = R.public_view(setup, before, out.state, out.events, names, "k", "K")
    own = R.player_view(setup, "ann", "Ann", out.state, out.events, order(play("MOVE-SNAKE", 20, "S1 3 bob-15")))
    mail = PlayerMail(
        campaign="k", title="K", ruleset=R.name, gm_address="gm@example.org",
        boards=tuple(BoardSize(b, board.squares) for b, board in setup.boards.items()),
        facts=R.mail_facts(setup), commands=(), player=PlayerRef("ann", "Ann"),
        deadline=None, next_turn=view.next_turn, view=view, own=own,
    )
    _, text, html = render("report", mail.context())
    why = "S1 is a short item: its ends must be one level apart and at most one column aside"
    assert why in " ".join(text.split()) and why in " ".join(html.split())
    assert "not legal at that moment" not in text
