"""A seat handed over mid-campaign (CONTRACT `gm player replace`): its new holder is
welcomed as a player is at `gm start`, by the ruleset's own welcome for the seat as it
stands (rules attached, pieces where they stand, the deadline and its calendar file), told
whose seat it was and shown the order standing for the open turn in full, as an
acknowledgement shows it. The reports and the archive then say truthfully who held the
seat when: the former holder through the last turn resolved before the handover, and the
next turn played with the order they left, when it was.

Every ruleset: bob orders for turn 2, then erin takes his seat, then turn 2 is resolved."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import unquote

import pytest
from handoverkit import RULESETS, START, attachment_names, flat, html_of, new_game, text_of

TURN_1_RESOLVED = "2027-01-09T00:00:00Z"
BOB_ORDERS = "2027-01-09T02:00:00Z"
REPLACED = "2027-01-09T04:00:00Z"
ERIN_ORDERS = "2027-01-10T00:00:00Z"
TURN_2_RESOLVED = "2027-01-16T00:00:00Z"


def bob_order(ruleset: str, state: dict) -> str:
    """An order bob may send for turn 2 in each ruleset, as the player would write it."""
    if ruleset == "postal":
        return f"NUMBER {state['players']['bob']['numbers_left'][-1]}"
    if ruleset in ("classic", "doubles"):
        return "RESIGN"
    if ruleset == "advanced":
        square = state["boards"]["A"]["players"]["bob"]["square"]
        assert square >= 2, "the seed must leave bob a square to build down to"
        return f"BUILD SNAKE {square - 1}"  # one step down: within any die's reach
    return "PLAY NONE"


def standing_block(ack_text: str, turn: int) -> str:
    """The standing order as an acknowledgement words it: from `Your order for turn N:` to
    the first blank line."""
    start = ack_text.index(f"Your order for turn {turn}")
    return ack_text[start:].split("\n\n")[0]


def handed_over(tmp_path, monkeypatch, ruleset: str, *, erin_orders: bool = False):
    game = new_game(tmp_path, monkeypatch, ruleset, observers=[{"name": "Olive", "email": "olive@example.org"}])
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    before = game.state(TURN_1_RESOLVED)
    order = bob_order(ruleset, before)
    assert "1 applied" in game.order("bob", order, now=BOB_ORDERS)
    game.gm("player", "replace", "bob", "erin", "--name", "Erin", "--email", "erin@example.org", now=REPLACED)
    if erin_orders:
        welcome = game.outbox(kind="welcome", to="erin@example.org")[0]
        password = re.search(r"Your password: (\S+)", text_of(welcome)).group(1)
        own = {"postal": order, "advanced": "MOVE", "unleashed": "PLAY NONE"}.get(ruleset, "RESIGN NONE")
        assert "1 applied" in game.order("erin", own, now=ERIN_ORDERS, password=password)
    return game, before, order


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_new_holder_gets_the_rulesets_own_welcome_with_the_standing_order_spelled_out(
        tmp_path, monkeypatch, ruleset):
    game, before, order = handed_over(tmp_path, monkeypatch, ruleset)
    [welcome] = game.outbox(to="erin@example.org")
    assert welcome.kind == "welcome"  # a password in clear: its body goes once sent
    assert str(welcome["Subject"]) == f"[h-{ruleset}] Welcome to Handover {ruleset.title()}: you take over Bob's seat"
    text, html = text_of(welcome), html_of(welcome)
    # the ruleset's welcome, as bob had it at gm start: its words, its commitments, its rules
    bobs = text_of(game.outbox(kind="welcome", to="bob@example.org")[0])
    ruleset_line = next(line for line in bobs.splitlines() if line.startswith("welcome to "))
    assert ruleset_line in text
    seed_line = next(line for line in bobs.splitlines() if line.strip().startswith("Seed: "))
    assert seed_line in text
    assert f"rules-{ruleset}.md" in attachment_names(welcome)
    assert re.search(r"Your password: \S+", text)
    # whose seat it is, from when, and the order standing for the open turn, in full
    assert "You take over the seat Bob held, from turn 2 on" in flat(text)
    assert "An order Bob sent for turn 2 stands until you send your own:" in flat(text)
    ack = text_of(game.outbox(kind="ack", to="bob@example.org")[-1])
    assert flat(standing_block(ack, 2)) in flat(text)
    assert order.split()[0] in text.upper()  # NUMBER, RESIGN, BUILD SNAKE 41, PLAY NONE
    if ruleset == "advanced":
        assert f"Action: {order}" in text
    assert "An order Bob sent for turn 2 stands" in flat(html)
    # the seat's pieces where they stand now, the turn's deadline and its calendar file
    board, seat = next((b, data["players"]["bob"]) for b, data in before["boards"].items())
    square = f"square {seat['square']}" if seat["square"] else "Start"
    if ruleset == "unleashed":  # one board: the pawn in unleashed's words (test_unleashed_welcome...)
        assert "Your pawn stands " in text
    else:
        assert f"Board {board}: {square}" in text
    assert "Deadline: Friday 15 January 2027, 00:00 UTC" in text
    assert f"h-{ruleset}-turn-2-deadline.ics" in attachment_names(welcome)
    assert f"The deadline is attached as a calendar entry (h-{ruleset}-turn-2-deadline.ics)." in text
    # the mail is erin's: no word of bob's password, and "turn 1 starts now" is for gm start only
    assert "pw-bob" not in text and "turn 1 starts now" not in text


def test_a_new_holder_without_a_standing_order_is_shown_the_seats_order_as_it_stands(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "postal")
    game.gm("resolve", "--force", now=TURN_1_RESOLVED)
    held = game.state(TURN_1_RESOLVED)["players"]["bob"]["numbers_left"]
    game.gm("player", "replace", "bob", "erin", "--name", "Erin", "--email", "erin@example.org", now=REPLACED)
    text = flat(text_of(game.outbox(to="erin@example.org")[0]))
    assert "Bob sent no order for turn 2; as it stands: Your order for turn 2:" in text
    assert f"Number: NONE YET - send one of {', '.join(map(str, held))}" in text


def test_a_new_holder_of_a_paused_campaign_is_told_it_is_paused_and_given_no_deadline(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic")
    game.gm("pause", now=START)
    game.gm("player", "replace", "bob", "erin", "--name", "Erin", "--email", "erin@example.org", now=START)
    welcome = game.outbox(to="erin@example.org")[0]
    assert "The game is paused" in text_of(welcome) and "Deadline:" not in text_of(welcome)
    assert not [name for name in attachment_names(welcome) if name.endswith(".ics")]


def test_the_advanced_report_shows_the_whole_order_played(tmp_path, monkeypatch):
    game, _, order = handed_over(tmp_path, monkeypatch, "advanced")
    game.gm("resolve", "--force", now=TURN_2_RESOLVED)
    report = game.outbox(kind="report", to="erin@example.org")[-1]
    assert f"Your order this turn: {order}" in text_of(report)  # BUILD SNAKE 41, not BUILD
    assert f"Your order this turn: {order}" in html_of(report)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_reports_and_archive_say_the_turn_after_the_handover_played_the_order_the_former_holder_left(
        tmp_path, monkeypatch, ruleset):
    game, _, _ = handed_over(tmp_path, monkeypatch, ruleset)
    game.gm("resolve", "--force", now=TURN_2_RESOLVED)
    note = "Erin holds the seat Bob held until turn 1. Turn 2 played the order Bob left."
    for to in ("alice@example.org", "erin@example.org", "olive@example.org"):
        report = game.outbox(kind="report", to=to)[-1]
        assert note in flat(text_of(report)), to
        assert note in flat(html_of(report)), to
    game.gm("publish", now=TURN_2_RESOLVED)
    archive = game.folder / "archive"
    assert ("(seat held by <bdi>Bob</bdi> until turn 1; turn 2 played the order <bdi>Bob</bdi> left)"
            in (archive / "index.html").read_text())
    assert ("<bdi>Erin</bdi> holds it since turn 2. Turn 2 played the order <bdi>Bob</bdi> left."
            in (archive / "player-erin.html").read_text())


@pytest.mark.parametrize("ruleset", ["postal", "advanced"])
def test_no_order_of_the_former_holder_is_said_played_when_the_new_holder_sent_her_own(
        tmp_path, monkeypatch, ruleset):
    game, _, _ = handed_over(tmp_path, monkeypatch, ruleset, erin_orders=True)
    game.gm("resolve", "--force", now=TURN_2_RESOLVED)
    report = flat(text_of(game.outbox(kind="report", to="alice@example.org")[-1]))
    assert "Erin holds the seat Bob held until turn 1." in report
    assert "played the order" not in report
    game.gm("publish", now=TURN_2_RESOLVED)
    assert "played the order" not in (game.folder / "archive" / "index.html").read_text()


def test_before_the_turn_is_resolved_no_order_is_said_played(tmp_path, monkeypatch):
    """The next turn has not been played yet: Bob's order stands, nothing was played."""
    game, _, _ = handed_over(tmp_path, monkeypatch, "postal")
    game.gm("publish", now=REPLACED)
    assert "played the order" not in (game.folder / "archive" / "index.html").read_text()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_new_holders_welcome_orders_for_the_open_turn_never_turn_1(tmp_path, monkeypatch, ruleset):
    game, before, _ = handed_over(tmp_path, monkeypatch, ruleset)
    welcome = game.outbox(to="erin@example.org")[0]
    html = unquote(unescape(html_of(welcome)))
    for part in (text_of(welcome), html):
        assert not re.search(r"\bTURN 1\b|[Oo]rder for turn 1\b", part)
    if ruleset == "postal":  # the ready replies: one per number the seat still holds
        links = re.findall(r"Order for turn (\d+)&body=[^\"]*NUMBER (\d)", html)
        assert links == [("2", str(n)) for n in before["players"]["bob"]["numbers_left"]]


def test_an_unleashed_new_holder_sees_her_seat_marked_and_her_pawn_in_unleashed_words(tmp_path, monkeypatch):
    """docs/rules/unleashed.md, Leaving and pauses: the welcome marks the seat she now
    holds "(you)" and says where the pawn stands as unleashed's mail does, with no board."""
    game, before, _ = handed_over(tmp_path, monkeypatch, "unleashed")
    welcome = game.outbox(to="erin@example.org")[0]
    text, html = text_of(welcome), unescape(html_of(welcome))
    square = before["boards"]["A"]["players"]["bob"]["square"]
    where = f"Your pawn stands on square {square}." if square else "Your pawn stands at Start."
    assert where in text and where in html
    assert "Board A:" not in text and "Where your piece stands" not in text
    assert "Erin (you; Bob held it before turn 2)" in text
    assert re.search(r"Erin <b>\(you</b>; Bob held it before turn 2<b>\)</b>", html_of(welcome))
