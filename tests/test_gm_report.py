"""The GM's report is written for a person, in every ruleset. It printed
advanced's events as `Moved(turn=1, player='dave', die=8, ...)` and its standings as bare
names. Now every event of every ruleset is in words, and the report ends with a table of
every player's place and square(s), in the text part and in the HTML part.

Each built-in ruleset's golden campaign (tests/data/golden/campaigns, which between them
produce every kind of event a turn can give) is replayed and its GM report rendered after
every turn, through the same context the GM's mail is built from (gm.mail.gmreport); a
campaign per ruleset checks the mail itself.
"""

from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer
from test_golden_campaigns import GOLDEN, make_setup

import gm.rules.advanced
import gm.rules.dice
import gm.rules.postal
import gm.rules.unleashed.happenings
from gm.campaign import turns
from gm.counts import ordinal
from gm.mail.gmreport import gm_context
from gm.mail.htmltext import html_to_text
from gm.mail.mailout import render
from gm.rules import registry
from gm.rules.base import Setup
from gm.rules.chance import SeededChance

BOARDS = Path(__file__).resolve().parent.parent / "boards"
RULESETS = ("postal", "classic", "doubles", "advanced", "unleashed")
# the golden's player ids with names a person has, one that HTML must escape
NAMES = {"ann": "Ann Archer", "ben": "Ben <b>Baker</b>", "cat": "Cat & Co", "dan": "Dan Dare", "eve": "Eve Ewing"}

# What a report written for a person never holds: a dataclass's repr, a `kind=` field,
# Python's list, tuple, dict or None/True/False syntax.
RAW = re.compile(r"\b[A-Z]\w*\(\w+=|\bkind=|[\[{]['\"\d]|\((?:'|\d+, )|\b(?:None|True|False)\b")

# Events that only `start` gives (seats, opening throws, the order of play): the GM's
# start mail tells them, never a turn's report.
START_ONLY = {"opening_throw", "order_of_play", "seats"}
EVENT_MODULES: dict[str, ModuleType] = {
    "postal": gm.rules.postal, "classic": gm.rules.dice, "doubles": gm.rules.dice,
    "advanced": gm.rules.advanced, "unleashed": gm.rules.unleashed.happenings,
}


def event_kinds(module: ModuleType) -> set[str]:
    """Every event class a ruleset's module defines or exports, by its `kind`."""
    return {
        value.__dataclass_fields__["kind"].default
        for value in vars(module).values()
        if isinstance(value, type) and dataclasses.is_dataclass(value) and "kind" in value.__dataclass_fields__
    }


@dataclasses.dataclass(frozen=True)
class Report:
    turn: int
    ruleset: Any
    setup: Any
    state: Any  # after the turn
    events: tuple[Any, ...]
    subject: str
    text: str
    html: str


@cache
def golden_reports(name: str) -> tuple[Report, ...]:
    golden = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    ruleset = registry.find_ruleset(name)
    setup = make_setup(ruleset, golden)
    state = ruleset.start(setup, SeededChance(setup.seed)).state
    names = {p: NAMES[p] for p in setup.players}
    reports = []
    for recorded in golden["turns"]:
        orders = {p: ruleset.order_from_json(o) for p, o in recorded["orders"].items()}
        outcome = ruleset.resolve(setup, state, orders, SeededChance(setup.seed))
        view = ruleset.public_view(setup, state, outcome.state, outcome.events, names, "gold", "Gold <Cup>")
        context = gm_context(ruleset, setup, state, outcome.state, outcome.events, orders, view=view,
                             campaign="gold", title="Gold <Cup>", names=names,
                             board_names={b: f"The {b} Stair" for b in setup.boards})
        subject, text, html = render("gm_report", context)
        reports.append(Report(recorded["turn"], ruleset, setup, outcome.state, outcome.events, subject, text, html))
        state = outcome.state
    return tuple(reports)


def standings_lines(text: str) -> list[str]:
    """The standings table of a report's text: its lines after the heading."""
    block = re.search(r"^(?:STANDINGS AFTER .*|FINAL STANDINGS .*)\n((?:.+\n)+)", text, re.M)
    assert block, text
    return block.group(1).splitlines()


def square(n: int) -> str:
    return "Start" if n == 0 else str(n)


def expected_row(report: Report, player: str) -> re.Pattern[str]:
    """The standings line of `player`: their place once decided, name, and on each board
    the square they stand on, or finished."""
    data = report.ruleset.state_json(report.setup, report.state)
    several = len(report.setup.boards) > 1
    cells = []
    for board_id in report.setup.boards:
        piece = data["boards"][board_id]["players"][player]
        cell = "finished" if piece["finished"] else rf"(?:on|stopped on) {square(piece['square'])}"
        if several and piece["placing"]:
            cell += f", {ordinal(piece['placing'])}"
        cells.append(f"{board_id} {cell}" if several else cell)
    place = data["players"][player]["place"]
    start = rf"{place}\. " if data["over"] else r"(?:\d+\. |- )"
    return re.compile(start + re.escape(NAMES[player]) + ": " + "; ".join(cells) + r"(?:;|$)")


# -- each event in words ---------------------------------------------------------------------------


def _name(player: str) -> str:
    return NAMES.get(player, player)


def _unleashed_square(n: int, report: Report) -> str:
    squares = next(iter(report.setup.boards.values())).squares
    return "Start" if n == 0 else "Finish" if n == squares + 1 else str(n)


# kind -> what the report's text says of such an event (a regular expression)
POSTAL_WORDS: dict[str, Callable[[Any, Report], str]] = {
    "number_played": lambda e, r: rf"{re.escape(_name(e.player))} played {e.number}",
    "moved": lambda e, r: rf"{re.escape(_name(e.player))}: {square(e.start)} \+{e.number}",
    "placed": lambda e, r: rf"{re.escape(_name(e.player))} placed {ordinal(e.placing)} on board {e.board}",
    "board_closed": lambda e, r: rf"board {e.board} closes: ",
    "trapdoor_election": lambda e, r: rf"- board {e.board}: .*(?:Elected: square {e.elected}|No trapdoor)",
    "campaign_over": lambda e, r: r"The campaign is over\.",
}
DICE_WORDS: dict[str, Callable[[Any, Report], str]] = {
    "throw": lambda e, r: "threw " + " and ".join(map(str, e.dice)),
    "resign": lambda e, r: rf"{re.escape(_name(e.player))} resigned",
    "placed": lambda e, r: rf"^{e.placing}\. {re.escape(_name(e.player))}",
    "campaign_over": lambda e, r: "THE GAME IS OVER",
}
ADVANCED_WORDS: dict[str, Callable[[Any, Report], str]] = {
    "moved": lambda e, r: rf"{re.escape(_name(e.player))} threw {e.roll} \(d{e.die}\)",
    # a ladder is said foot to top, as it is drawn; a snake head to tail
    "build": lambda e, r: (rf"{re.escape(_name(e.player))} builds a ladder from {square(e.target)} to {e.start}"
                           if e.item == "ladder" else
                           rf"{re.escape(_name(e.player))} builds a {e.item} from {e.start} to {square(e.target)}"),
    "team_placed": lambda e, r: rf"^{e.placing}\. {re.escape(e.team)}: ",
    "campaign_over": lambda e, r: "wins|no winner",
}
UNLEASHED_WORDS: dict[str, Callable[[Any, Report], str]] = {
    "pick": lambda e, r: rf"{e.pick}\. (?:{re.escape(_name(e.player or ''))}: )?{e.item} \(",
    "round": lambda e, r: rf"ROUND {e.round}: ",
    "go": lambda e, r: rf"^\d+\. {re.escape(_name(e.player))}(?: \(NMR: no order\))?$",
    "play": lambda e, r: re.escape(f"plays {e.card} on {e.square} (covering {e.covered})"),
    "action": lambda e, r: re.escape(f"{e.card} on {e.square}"),
    "roll": lambda e, r: re.escape(f"{e.dice[0]} + {e.dice[1]} = {sum(e.dice)}"),
    "step": lambda e, r: re.escape(f"{_name(e.pawn)} {_unleashed_square(e.start, r)} -> "
                                   f"{_unleashed_square(e.end, r)}"),
    "cross": lambda e, r: re.escape(f"{_name(e.pawn)} crosses the finish line from"),
    "drew": lambda e, r: f"draws {e.count} cards?" if e.count else "",
    "no_roll": lambda e, r: "does not roll",
    "end": lambda e, r: r"The campaign is over",
}
WORDS = {"postal": POSTAL_WORDS, "classic": DICE_WORDS, "doubles": DICE_WORDS, "advanced": ADVANCED_WORDS,
         "unleashed": UNLEASHED_WORDS}


@pytest.mark.parametrize("name", RULESETS)
def test_24_every_event_kind_of_every_ruleset_is_in_words_in_the_gm_report(name):
    """Every kind of event a turn of the ruleset can give occurs in its golden campaign,
    and the GM's report of that turn says it in words."""
    turn_kinds = event_kinds(EVENT_MODULES[name]) - START_ONLY
    assert set(WORDS[name]) == turn_kinds, "a kind of event with no words checked here"
    seen = set()
    for report in golden_reports(name):
        for event in report.events:
            seen.add(event.kind)
            words = WORDS[name][event.kind](event, report)
            assert re.search(words, report.text, re.M), (name, report.turn, event, report.text)
    assert seen == turn_kinds, f"the {name} golden campaign gives no {sorted(turn_kinds - seen)}"


@pytest.mark.parametrize("name", RULESETS)
def test_24_no_gm_report_holds_raw_program_output(name):
    """No repr, `kind=`, Python list, tuple or dict, in the text part or the HTML part."""
    for report in golden_reports(name):
        for part in (report.text, htmllib.unescape(report.html)):
            raw = RAW.search(part)
            assert raw is None, (name, report.turn, part[max(raw.start() - 80, 0):raw.end() + 80])


@pytest.mark.parametrize("name", RULESETS)
def test_24_the_gm_report_names_every_players_square_and_place(name):
    """After every turn the standings give each player's square (per board) or that they
    finished; on the last, every player's place."""
    for report in golden_reports(name):
        lines = standings_lines(report.text)
        assert len(lines) >= len(report.setup.players)
        for player in report.setup.players:
            row = expected_row(report, player)
            assert any(row.match(line) for line in lines), (name, report.turn, row.pattern, lines)
        html = html_to_text(report.html)
        for player in report.setup.players:
            assert htmllib.escape(NAMES[player]) in report.html and NAMES[player] in html
        assert "<b>Baker</b>" not in report.html  # escaped like every mail
    last = golden_reports(name)[-1]
    assert last.state.over and "(final)" in last.subject and "FINAL STANDINGS" in last.text
    assert all(re.match(r"\d+\. ", line) for line in standings_lines(last.text)[: len(last.setup.players)])


def lines_of(name: str, turn: int) -> list[str]:
    return next(r for r in golden_reports(name) if r.turn == turn).text.splitlines()


def test_what_players_see_a_build_says_a_ladder_foot_to_top_as_it_is_drawn():
    """docs/rules/advanced.md, What players see: a ladder built from 10 (its top, the
    builder's square) to 7 (its foot) reads "from 7 to 10", like "ladder 7 -> 10" below."""
    text = lines_of("advanced", 5)
    builds = [line for line in text if " builds a ladder from " in line]
    assert builds and all(line.startswith("- Ben <b>Baker</b> builds a ladder from 7 to 10:") for line in builds)
    assert not any("builds a ladder from 10 to 7" in line for line in text)


def test_24_postal_gm_report_reads_as_sentences():
    text = lines_of("postal", 3)
    assert "- Ben <b>Baker</b> played 5 (NMR: chosen for them)" in text
    assert "- Ann Archer: 8 +3 -> 11 -> Start by trapdoor" in text
    assert ("- board A: square 16, 3 votes (Ann Archer, Cat & Co, Eve Ewing); square 17, 1 vote (Dan Dare)."
            " Elected: square 16.") in text
    assert "- Ann Archer: A on 22; B on Start; holds 1, 4, 5" in text
    assert "Board A: trapdoor 16" in text
    final = lines_of("postal", 15)
    assert "- board B closes: enough pieces have crossed it" in final
    assert "1. Dan Dare: A finished, 2nd; B finished, 1st; aggregate 3" in final


def test_24_classic_gm_report_reads_as_sentences():
    text = lines_of("classic", 12)
    assert "  threw 3: 21 -> 24, snake to 13" in text
    assert "- Dan Dare: on Start; resigned" in text
    assert "1. Cat & Co: finished" in lines_of("classic", 17)


def test_24_doubles_gm_report_reads_as_sentences():
    text = lines_of("doubles", 10)
    assert "- Ben <b>Baker</b>: RESIGN NONE (nothing to do)" in lines_of("doubles", 4)
    assert any(re.fullmatch(r"  threw \d and \d \(\d+\): .+", line) for line in text)
    assert "1. Ben <b>Baker</b>: finished" in text


def test_24_advanced_gm_report_reads_as_sentences():
    """The report of the issue: `Moved(turn=5, player='ann', die=8, roll=7, ...)` is now
    the go in the players' own words, beside the order each player wrote."""
    text = lines_of("advanced", 5)
    assert "- Ben <b>Baker</b>: BUILD LADDER 7" in text
    assert "No order arrived from Ann Archer: the rules played for that player." in text
    assert "- Ann Archer threw 7 (d8), NMR: 25 -> 32" in text
    assert any(line.startswith("- Ben <b>Baker</b> builds a ladder from 7 to 10: threw 6 (d6), "
                               "construction 1 needs 3: not built") for line in text)
    assert "- Ann Archer: on 32" in text
    final = lines_of("advanced", 12)
    assert "1. Cat & Co: finished" in final and "3. Ben <b>Baker</b>: stopped on 25" in final


def test_24_unleashed_gm_report_reads_as_sentences():
    text = lines_of("unleashed", 2)
    assert "    PLAY BLANK ON LAST+3" in text  # the orders as written
    assert "- Ann Archer: drew SWAP-PLAYERS, MOVE-ANY" in text  # what only she was told
    assert "   - plays BLANK on 3 (covering +3)" in text
    assert "   - SWAP-PLAYERS on 7 (landed on): Ann Archer and Eve Ewing swap squares" in text
    assert "- Eve Ewing: on 11; hand BLANK MOVE-LADDER MOVE-SNAKE" in text
    assert ('    line 2 skipped (PLAY +2 ON LEADER+7): "its square was not on the board then, or its player'
            ' word named no pawn in play"') in lines_of("unleashed", 3)
    assert "1. Ann Archer: finished" in golden_reports("unleashed")[-1].text.splitlines()


def test_24_postal_notes_say_the_numbers_held_in_words():
    """What the GM's report and `gm state` say each player holds: it printed Python's
    lists ("holds [1, 4, 5]", or a dict per board)."""
    postal = registry.find_ruleset("postal")
    boards = {b: postal.read_board(BOARDS / f) for b, f in (("A", "small.yaml"), ("B", "ziggurat.yaml"))}
    for numbers, held in (("shared", "holds 1, 2, 3, 4, 5, 6"), ("per-board", "holds A 1, 2, 3, 4, 5, 6; B 1, 2, 3, 4, 5, 6")):
        options = postal.parse_options({"numbers": numbers})
        setup = Setup(boards, ("ann", "ben"), options, 24)
        state = postal.start(setup, SeededChance(24)).state
        assert postal.state_notes(setup, state)["ann"] == held


# -- the mail itself ---------------------------------------------------------------------------------


# names a reader has, one that HTML must escape (raw output is looked for by its syntax,
# so these hold none)
PLAYERS = (*PLAIN_PLAYERS[:2], KitPlayer("carol", "Carol <b>& Co</b>", "carol@example.org", "pw-carol"))
CAMPAIGNS: dict[str, dict[str, Any]] = {
    "postal": {"boards": {"A": "small.yaml", "B": "ziggurat.yaml"}, "options": {"max_turns": 3}},
    "classic": {"boards": {"A": "small.yaml"}, "options": {"max_turns": 3}},
    "doubles": {"boards": {"A": "small.yaml"}, "options": {"max_turns": 3}},
    "advanced": {"boards": {"A": "ziggurat.yaml"}, "options": {"max_turns": 3}},
    "unleashed": {"boards": {}, "options": {"setup": "random", "max_turns": 3}},
}


def played(folder: Path, ruleset: str, setenv: Callable[[str, str], None]) -> Iterator[CampaignKit]:
    """A campaign of `ruleset` whose turns are resolved with nobody writing, to its end."""
    kit = CampaignKit.create(folder, setenv=setenv, players=PLAYERS, start=False,
                             options=CAMPAIGNS[ruleset]["options"], seed=2**128 + 24)
    text = (folder / "campaign.yaml").read_text(encoding="utf-8").replace("ruleset: postal", f"ruleset: {ruleset}")
    boards = CAMPAIGNS[ruleset]["boards"]
    text = re.sub(r"boards:\n(?:  .*\n)+", "".join(
        ["boards:\n", *(f"  {b}: {BOARDS / f}\n" for b, f in boards.items())]) if boards else "", text)
    (folder / "campaign.yaml").write_text(text, encoding="utf-8")
    kit.start()
    while not kit.state().over:
        with kit.campaign() as campaign:
            kit.at(campaign.deadline() + timedelta(hours=1))
            turns.resolve(campaign, force=True)
    yield kit
    kit.close()


@pytest.mark.parametrize("name", RULESETS)
def test_24_the_gm_report_mail_is_words_in_its_text_and_html_parts(name, tmp_path, monkeypatch):
    """Through `gm turn`: the GM's mail of every turn has a text part and an HTML part,
    both free of raw output, both with the standings table and each player in it, names
    escaped in HTML."""
    for kit in played(tmp_path / name, name, monkeypatch.setenv):
        mails = kit.outbox(kind="gm-report")
        assert len(mails) == 3
        for mail in mails:
            text = mail.get_body(("plain",)).get_content()
            html = mail.get_body(("html",)).get_content()
            assert RAW.search(text) is None and RAW.search(htmllib.unescape(html)) is None, text
            assert re.search(r"^(STANDINGS AFTER TURN \d|FINAL STANDINGS)", text, re.M)
            assert "<th>Place</th><th>Player</th>" in html
            for player in PLAYERS:
                assert player.name in text and htmllib.escape(player.name) in html
            assert "<b>& Co</b>" not in html
