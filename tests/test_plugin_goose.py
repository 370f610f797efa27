"""What a house ruleset written from docs/plugins.md alone gets from gm without copying
or guessing (tests/goose.py): its figure in the standings during play, a section of its
own in the reports, names escaped in HTML whichever part a macro comes from, its own
game's name in the generic words, its orders in the GM's report as it words them, the
GM's commands agreeing on who is awaited, and a broken template named in one line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from campaignkit import CampaignKit, KitPlayer
from click.testing import CliRunner
from goose import goose_class, goose_templates

from gm.cli import cli
from gm.rules import registry

PLAYERS = (
    KitPlayer("alice", "Alice <b>Bold</b>", "alice@example.org", "pw-alice"),
    KitPlayer("bob", "Bob Brown", "bob@example.org", "pw-bob"),
    KitPlayer("carol", "Carol Cole", "carol@example.org", "pw-carol"),
)
BOARDS = Path(__file__).resolve().parent.parent / "boards"


def new_campaign(folder: Path, ruleset: str, setenv) -> CampaignKit:
    folder.mkdir(parents=True)
    data = {
        "id": "goose-cup", "title": "Goose Cup", "ruleset": ruleset, "seed": 20270321, "timezone": "UTC",
        "turn_days": 7, "boards": {"A": str(BOARDS / "small.yaml")},
        "players": [{"id": p.id, "name": p.name, "email": p.email, "password": p.password} for p in PLAYERS],
        "options": {"max_turns": 3},
        "mail": {"transport": "maildir", "from": "Goose GM <gm@example.org>"},
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    kit = CampaignKit(folder, PLAYERS, setenv)
    kit.start()
    return kit


def gm(folder: Path, *args: str):
    return CliRunner().invoke(cli, ["-C", str(folder), *args])


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message) -> str:
    return next(part.get_content() for part in message.walk()
                if part.get_content_type() == "text/html" and not part.is_attachment())


def playing(tmp_path: Path, monkeypatch, ruleset: type) -> Iterator[CampaignKit]:
    """A campaign of the goose ruleset class `ruleset`, registered while the test runs."""
    registry.register(ruleset)
    kit = new_campaign(tmp_path / "cup", "goose", monkeypatch.setenv)
    yield kit
    kit.close()
    registry.unregister("goose")


@pytest.fixture
def goose(tmp_path, monkeypatch):
    yield from playing(tmp_path, monkeypatch, goose_class("goose", goose_templates(tmp_path / "words")))


def resolve_at_deadline(kit: CampaignKit):
    with kit.campaign() as campaign:
        deadline = campaign.deadline()
    kit.close()
    kit.at(deadline + timedelta(hours=1))
    return gm(kit.folder, "turn")


def test_a_quiet_week_of_a_game_whose_silence_is_an_order_is_resolved_at_its_deadline(goose):
    result = resolve_at_deadline(goose)
    assert result.exit_code == 0, result.output
    assert "resolve: turn 1 resolved" in result.output


def test_the_typed_standings_figure_shows_beside_each_name_during_play(goose):
    resolve_at_deadline(goose)
    report = text_of(goose.outbox(kind="report", player="bob")[0])
    points = re.findall(r"^- (Alice <b>Bold</b>|Bob Brown|Carol Cole): (\d+) points$", report, re.MULTILINE)
    assert [name for name, _ in points] == ["Alice <b>Bold</b>", "Bob Brown", "Carol Cole"]
    assert all(1 <= int(n) <= 6 for _, n in points)  # one die each in turn 1
    assert "points</td>" in html_of(goose.outbox(kind="report", player="bob")[0])


def test_a_rulesets_turn_extra_section_is_added_to_every_report_without_copying_the_turn_parts(goose):
    resolve_at_deadline(goose)
    report = goose.outbox(kind="report", player="bob")[0]
    assert "THE GOOSE'S OWN SECTION\nAlice <b>Bold</b>\nBob Brown\n" in text_of(report)
    assert "<h3>The goose's own section</h3>" in html_of(report)


def test_a_name_printed_by_a_macro_of_a_text_part_is_escaped_in_html(goose):
    resolve_at_deadline(goose)
    html = html_of(goose.outbox(kind="report", player="bob")[0])
    assert "<p>Alice &lt;b&gt;Bold&lt;/b&gt;</p>" in html  # the section's own line, from _names.txt
    assert "<b>Bold" not in html


def test_the_welcome_names_the_rulesets_own_game(goose):
    welcome = text_of(goose.outbox(kind="welcome", player="bob")[0])
    assert "welcome to Goose Cup, a game of Goose by email." in welcome
    assert "Snakes and Ladders" not in welcome


def test_gm_campaign_new_names_the_rulesets_own_game_in_the_sender(goose, tmp_path):
    result = gm(tmp_path, "campaign", "new", str(tmp_path / "spring"), "--ruleset", "goose")
    assert result.exit_code == 0, result.output
    assert 'from: "Goose GM <gm@example.org>"' in (tmp_path / "spring" / "campaign.yaml").read_text()
    result = gm(tmp_path, "campaign", "new", str(tmp_path / "postal"), "--ruleset", "postal")
    assert 'from: "Snakes GM <gm@example.org>"' in (tmp_path / "postal" / "campaign.yaml").read_text()


def test_the_gm_report_lists_each_order_as_the_ruleset_words_it(goose):
    goose.order("alice", ["ROLL"])
    goose.order("carol", ["RESIGN"])
    resolve_at_deadline(goose)
    report = text_of(goose.outbox(kind="gm-report")[0])
    assert "- Alice <b>Bold</b>: order ROLL; square 0" in report
    assert "- Carol Cole: order RESIGN; square 0" in report
    assert "roll yes" not in report and "resign no" not in report


def test_a_resigned_player_is_out_of_play_and_a_second_resign_is_refused(goose):
    goose.order("carol", ["RESIGN"])
    resolve_at_deadline(goose)
    with goose.campaign() as campaign:
        assert not campaign.ruleset.in_play(campaign.setup, campaign.state(), "carol")
    goose.at(goose.now + timedelta(hours=1))
    refused = goose.order("carol", ["RESIGN"])
    assert "you are no longer in play" in text_of(goose.outbox(player="carol")[-1]), refused


def test_gm_status_shows_the_figure_and_the_rulesets_notes_beside_each_player(goose):
    resolve_at_deadline(goose)
    status = gm(goose.folder, "status").output
    standings = status[status.index("standings:"):]
    assert re.search(r"^  Bob Brown +on \d+; \d+ points; rolled \d+ in all$", standings, re.MULTILINE), standings


def test_gm_state_says_no_stray_separator_for_a_player_without_a_note(goose):
    goose.order("carol", ["RESIGN"])
    while not goose.state().over:
        resolve_at_deadline(goose)
    state = gm(goose.folder, "state").output
    carol = next(line for line in state.splitlines() if line.startswith("carol "))
    assert re.fullmatch(r"carol +aggregate \d, place \d", carol), state
    assert not re.search(r"^\S+ +; ", state, re.MULTILINE)


@pytest.fixture
def must_not_order(tmp_path, monkeypatch):
    """A goose that says nobody must order (as a stranger tried, for silence means roll):
    the turn still waits for everyone in play before its deadline."""
    cls = goose_class("goose", goose_templates(tmp_path / "words"))
    yield from playing(tmp_path, monkeypatch,
                       type("QuietGoose", (cls,), {"must_order": lambda self, setup, state, player: False}))


def test_gm_turn_and_gm_status_agree_on_whom_the_turn_waits_for(must_not_order):
    must_not_order.order("alice", ["ROLL"])
    must_not_order.close()
    turn = gm(must_not_order.folder, "turn").output
    assert "waits for bob, carol;" in turn
    status = gm(must_not_order.folder, "status").output
    for player in ("bob", "carol"):
        line = next(x for x in status.splitlines() if x.strip().startswith(player + " "))
        assert "the turn waits for it until the deadline" in line and "nothing needed" not in line
    assert "nothing needed" not in gm(must_not_order.folder, "orders").output


@pytest.fixture
def broken(tmp_path, monkeypatch):
    """A goose whose archive turn page uses a filter only mail has."""
    words = goose_templates(tmp_path / "words", {"archive/goose/_turn_body.html": '<a href="{{ "x" | mailto }}">x</a>\n'})
    yield from playing(tmp_path, monkeypatch, goose_class("goose", words))


def test_a_template_error_at_publish_names_the_template_the_step_and_what_was_done(broken):
    result = resolve_at_deadline(broken)
    assert result.exit_code == 1
    error = result.stderr.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in result.output and "internal error" not in error
    assert error.startswith("Error: publish stopped by the template ")
    assert "archive/goose/_turn_body.html, line 1: No filter named 'mailto'" in error
    assert "resolve: turn 1 resolved, reports queued" in error and "send: " in error
    assert broken.state().turn == 2  # resolved and sent; a run after the fix only publishes
    publish = gm(broken.folder, "publish")
    assert publish.exit_code == 1 and publish.stderr.startswith("Error: publish stopped by the template ")


@pytest.fixture
def unknown_name(tmp_path, monkeypatch):
    """A goose whose report section reads a name its context lacks."""
    words = goose_templates(tmp_path / "words", {"mail/goose/_turn_extra.txt": "{{ view.wells }}\n"})
    yield from playing(tmp_path, monkeypatch, goose_class("goose", words))


def test_a_template_error_while_resolving_names_the_template_and_resolves_nothing(unknown_name):
    result = resolve_at_deadline(unknown_name)
    assert result.exit_code == 1 and "Traceback" not in result.output
    error = result.stderr.strip()
    assert error.startswith("Error: resolve stopped by the template ") and len(error.splitlines()) == 1
    assert "mail/goose/_turn_extra.txt, line 1: " in error and "has no attribute 'wells'" in error
    assert "Done before it: ingest: " in error
    assert unknown_name.state().turn == 1 and not unknown_name.outbox(kind="report")
