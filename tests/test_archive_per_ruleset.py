"""The archive side: a ruleset's archive comes from its public views through the
ruleset interface (gm.rules.base: event_from_json, archive_turn, archive_standings,
archive_boards, hidden_boards), rendered by its own templates under
templates/archive/<ruleset>/ where it has them and by the generic ones where it has not.

Postal's archive stays byte for byte the same: tests/test_archive.py's golden test
(test_golden_archive_of_a_fixed_revealed_campaign) compares it with the goldens, unchanged
by this split. Here: no generic template or archive module speaks of a postal concept, the
lookup rule, and whole archives of the toy ruleset (tests/toyrules.py, which has no archive
code or template of its own) before and after the reveal, with its board public or hidden.
"""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest
from campaignkit import BOARDS
from toyrules import Step, StepOrder

from gm.boards.board import load_board
from gm.boards.model import Board
from gm.commitment import commitment, seed_text
from gm.publish.archive import build_site
from gm.publish.archive_load import assemble
from gm.publish.archive_values import PlayedTurn, Secrets, template_rulesets
from gm.publish.render import render_page
from gm.publish.write import write_site
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.postal import Postal
from gm.rules.postal.state import PostalOrder
from gm.rules.templating import TemplateLoader, candidates

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE_TEMPLATES = ROOT / "templates" / "archive"
ARCHIVE_MODULES = [*sorted((ROOT / "gm" / "publish").glob("*.py")), ROOT / "gm" / "cli" / "archive.py",
                   ROOT / "gm" / "cli" / "publish.py"]

# the postal game's own words (docs/rules/postal.md): no generic archive template or module says them
POSTAL_WORDS = [
    re.compile(r"trapdoor", re.IGNORECASE),
    re.compile(r"\bNUMBER\b"),
    re.compile(r"numbers_left", re.IGNORECASE),
    re.compile(r"\bNMR\b", re.IGNORECASE),
    re.compile(r"double[ _-]turn", re.IGNORECASE),
    re.compile(r"\bcycles?\b", re.IGNORECASE),
    re.compile(r"\bhands\b", re.IGNORECASE),
    re.compile(r"per[-_]board", re.IGNORECASE),
    re.compile(r"aggregate", re.IGNORECASE),
    re.compile(r"postal", re.IGNORECASE),
]


def postal_words(text: str) -> list[str]:
    return [m.group(0) for pattern in POSTAL_WORDS for m in pattern.finditer(text)]


# -- nothing generic speaks of postal -------------------------------------------------------



def test_no_archive_module_speaks_of_a_postal_concept():
    found = {p.name: postal_words(p.read_text(encoding="utf-8")) for p in ARCHIVE_MODULES}
    assert not {name: words for name, words in found.items() if words}
    for path in ARCHIVE_MODULES:
        # nor reads a postal module: the players' mail views, the turn cycle, postal's rules
        imported = re.findall(r"^\s*(?:from|import)\s+(\S+)", path.read_text(encoding="utf-8"), re.MULTILINE)
        assert not [m for m in imported if re.search(r"views|turns|postal", m)], path.name


def test_the_scan_would_see_a_postal_word():
    assert postal_words("Trapdoor on turn 4; NUMBER 3; no NMR; a double turn ends the cycle")


# -- the lookup rule --------------------------------------------------------------------------


class House(Postal):
    """A GM's house rules made from postal (as tests/test_rules_registry.py installs one)."""

    name = "house"


def test_lookup_rule_ruleset_folders_first_most_specific_first_then_the_generic_template():
    assert candidates("archive/turn.html", ("house", "postal")) == (
        "archive/house/turn.html", "archive/postal/turn.html", "archive/turn.html")
    assert candidates("archive/turn.html", ()) == ("archive/turn.html",)


def test_lookup_rule_a_ruleset_looks_up_its_own_name_then_those_it_derives_from():
    assert template_rulesets(Postal()) == ("postal",)
    assert template_rulesets(House()) == ("house", "postal")
    assert template_rulesets(Step()) == ("step",)


def test_lookup_rule_loads_the_rulesets_copy_where_there_is_one(tmp_path):
    (tmp_path / "archive" / "postal").mkdir(parents=True)
    (tmp_path / "archive" / "page.html").write_text("generic {% include 'archive/_part.html' %}")
    (tmp_path / "archive" / "_part.html").write_text("generic part")
    (tmp_path / "archive" / "postal" / "_part.html").write_text("postal part")
    inner = jinja2.FileSystemLoader(str(tmp_path))
    postal = jinja2.Environment(loader=TemplateLoader((inner,), ("house", "postal")))
    plain = jinja2.Environment(loader=TemplateLoader((inner,), ("step",)))
    # the frame is generic for both; the part it includes is looked up by the same rule
    assert postal.get_template("archive/page.html").render() == "generic postal part"
    assert plain.get_template("archive/page.html").render() == "generic generic part"
    with pytest.raises(jinja2.TemplateNotFound):
        plain.get_template("archive/missing.html")


def test_postal_has_its_own_archive_templates_and_the_generic_ones_cover_every_page():
    own = {p.name for p in (ARCHIVE_TEMPLATES / "postal").iterdir()}
    generic = {p.name for p in ARCHIVE_TEMPLATES.iterdir() if p.is_file()}
    assert own and own <= generic  # every postal template overrides one a ruleset without its own gets


# -- a ruleset with no archive of its own -----------------------------------------------------


class HiddenStep(Step):
    """The toy ruleset with its board kept secret until the reveal, as postal's are."""

    name = "hiddenstep"
    hidden_boards = True


SECRET_NAME = "Secret Stair of Steps"


def toy_campaign(rules: Step, *, secrets: bool, turns: int | None = None, holders=(), extra_names=None):
    """The toy ruleset played in the rules core, as the archive's input; `holders` and
    `extra_names` (former holders' names) for a seat that changed hands."""
    board = dataclasses.replace(Board.build(12, snakes=[(11, 4)], ladders=[(2, 9)]), name=SECRET_NAME)
    setup = Setup({"A": board}, ("ann", "ben", "cat"), rules.parse_options({"silent": "random"}), 7)
    state = rules.start(setup, SeededChance(7)).state
    played = []
    while not state.over and (turns is None or len(played) < turns):
        outcome = rules.resolve(setup, state, {"ann": StepOrder(3), "ben": StepOrder(2)}, SeededChance(7))
        events = tuple(rules.event_from_json(dataclasses.asdict(e)) for e in outcome.events)  # as stored
        played.append(PlayedTurn(state, outcome.state, events))
        state = outcome.state
    salt = "1" * 32
    reveal = Secrets(7, "f" * 32, "2027-03-01T00:00:00Z", {"A": salt}, {"A": board.canonical_text()}) if secrets else None
    return assemble(
        rules, setup, campaign="toy-2027", title="Toy <Cup>", names={"ann": "Ann", "ben": "Ben", "cat": "Cat"} | (extra_names or {}),
        commitments={"A": commitment(salt, board.canonical_text())},
        seed_commitment=commitment("f" * 32, seed_text(7)), state=state, played=played,
        deadline=None if state.over else "Fri 15 Jan 2027 18:00 UTC", secrets=reveal, holders=holders,
    )


class Headings(HTMLParser):
    def __init__(self):
        super().__init__()
        self.h1 = 0
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.h1 += tag == "h1"
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a":
            self.links.append(attrs["href"])


def rendered(data) -> dict[str, str]:
    return {page.path: render_page(page).decode("utf-8") for page in build_site(data)}


def check_site(site: dict[str, str]) -> None:
    """Each page has one h1, no script, and every link within the site finds its page and anchor."""
    parsed = {}
    for path, text in site.items():
        if path.endswith(".html"):
            parser = Headings()
            parser.feed(text)
            parsed[path] = parser
            assert parser.h1 == 1 and "<script" not in text, path
    for path, parser in parsed.items():
        for href in parser.links:
            target, _, anchor = href.partition("#")
            target = target or path
            assert target in site, f"{path}: {href}"
            assert not anchor or anchor in parsed[target].ids, f"{path}: {href}"


def test_generic_archive_of_a_ruleset_with_no_archive_of_its_own():
    data = toy_campaign(Step(), secrets=False)
    assert data.over and data.turns
    site = rendered(data)
    check_site(site)
    assert not any(postal_words(text) for text in site.values())
    index = site["index.html"]
    assert "Final standings" in index and "<code>step</code> rules for 3 players on 1 board." in index
    assert index.count('<svg xmlns') == 1 and "Race on board A" in index  # the race chart (the legend's keys aside)
    assert "Toy &lt;Cup&gt;" in index and "<Cup>" not in index
    # docs/rules/classic.md, doubles.md and advanced.md: the layout is public, so the board is drawn from the first publish
    boards = site["boards.html"]
    assert SECRET_NAME in boards and boards.count("<svg") == 1 and "Commitments" in boards
    assert ">Boards</a>" in index and f"A: <bdi>{SECRET_NAME}</bdi>" in index
    # each turn: every player's square before and after it, and the standings
    first = site["turn-001.html"]
    assert first.count("<tr><td class=\"name\"><bdi>") == 3 and "<td class=\"num\">Start</td><td class=\"num\">3</td>" in first
    ann = site["player-ann.html"]
    assert "1st overall." in ann and "finished" in ann


def test_generic_archive_while_the_toy_campaign_runs():
    data = toy_campaign(Step(), secrets=False, turns=2)
    assert not data.over
    site = rendered(data)
    check_site(site)
    assert "Turn 3 is open until Fri 15 Jan 2027 18:00 UTC." in site["index.html"]
    assert SECRET_NAME in site["boards.html"] and "as the board stands now" in site["boards.html"]
    # nobody is placed yet: the player's page and the standings say where each piece stands
    square = data.positions["cat"][0].square
    assert f'So far: board A <span class="muted">on</span> {square or "Start"}.' in site["player-cat.html"]
    assert "-</td>" not in site["index.html"] and f'<span class="muted">on</span> {square or "Start"}</td>' in site["index.html"]


def test_generic_archive_after_the_reveal_shows_how_to_check_every_commitment(tmp_path):
    data = toy_campaign(Step(), secrets=True)
    site = rendered(data)
    check_site(site)
    boards = site["boards.html"]
    assert "gm verify" in boards and "f" * 32 in boards and 'id="seed"' in boards
    write_site(build_site(data), tmp_path)
    assert (tmp_path / "board-A.json").read_text() == data.revealed.boards[0].canonical


def test_generic_archive_keeps_a_hidden_board_secret_until_the_reveal():
    before = rendered(toy_campaign(HiddenStep(), secrets=False))
    check_site(before)
    text = "".join(before.values())
    assert SECRET_NAME not in text and "Fair play" in text and 'class="board-drawing"' not in text
    assert "the boards stay secret until the game master reveals them" in before["index.html"]
    after = rendered(toy_campaign(HiddenStep(), secrets=True))
    check_site(after)
    assert SECRET_NAME in after["boards.html"] and "Boards revealed" in after["index.html"]


# -- a ruleset derived from postal shows postal's archive --------------------------------------


def test_a_ruleset_made_from_postal_shows_postals_archive_pages():
    boards = {"A": load_board(BOARDS / "small.yaml"), "B": load_board(BOARDS / "ziggurat.yaml")}
    rules = Postal()
    setup = Setup(boards, ("ann", "ben", "cat"), rules.parse_options({}), 11)
    state = rules.start(setup, SeededChance(11)).state
    played = []
    for _ in range(8):
        orders = {"ann": PostalOrder({}, {"A": 9, "B": 9}), "ben": PostalOrder({}, {"A": 9}),
                  "cat": PostalOrder({}, {"A": 9})}  # numbers chosen for all (NMR); a trapdoor on 9
        outcome = rules.resolve(setup, state, orders, SeededChance(11))
        played.append(PlayedTurn(state, outcome.state, outcome.events))
        state = outcome.state
    kwargs = {"campaign": "c", "title": "t", "names": {}, "commitments": {"A": "a" * 64, "B": "b" * 64},
              "seed_commitment": "c" * 64, "state": state, "played": played}
    postal, house = rendered(assemble(rules, setup, **kwargs)), rendered(assemble(House(), setup, **kwargs))
    assert postal == house
    assert "NMR" in postal["turn-001.html"] and "Trapdoor on turn 2: <strong>square 9</strong>" in postal["turn-001.html"]
    assert "A postal game" in postal["index.html"]


@pytest.mark.browser
def test_generic_archive_reads_on_a_phone_in_chromium(tmp_path):
    from test_browser import PHONE, chromium

    executable = chromium()
    from playwright.sync_api import sync_playwright

    write_site(build_site(toy_campaign(Step(), secrets=True)), tmp_path)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(executable), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_context(viewport=PHONE, java_script_enabled=False).new_page()
        for path in sorted(tmp_path.glob("*.html")):
            page.goto(path.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path.name
        browser.close()
