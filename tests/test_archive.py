"""The published archive (`gm publish`, `gm reveal`, `gm verify`; CONTRACT.md, docs/rules/postal.md, What players see
and 5): what it shows before and after the reveal, that it is built in two phases and
rewrites only what changed, and a golden copy of a fixed campaign's whole archive.

Golden files: tests/data/golden/archive/. When a change to the archive is intended,
regenerate them with

    GM_REGEN_GOLDEN=1 python -m pytest tests/test_archive.py -k golden

and read the diff (git diff tests/data/golden) before committing it: accept it only when
every changed line is a change you meant.
"""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import click
import pytest
from campaignkit import BOARDS, HOSTILE_PLAYERS, PLAIN_PLAYERS, CampaignKit
from click.testing import CliRunner

from gm.cli import GmGroup
from gm.cli.archive import COMMANDS
from gm.cli.publish import COMMANDS as PUBLISH
from gm.commitment import commitment, seed_text
from gm.publish.archive import build_site
from gm.publish.archive_load import load_archive
from gm.publish.render import render_page
from gm.publish.write import write_site

GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "archive"


def gm_group() -> click.Group:
    """The archive commands on a group like gm's own (gm/cli.py is wired separately)."""

    @click.group(cls=GmGroup)
    @click.option("-C", "campaign_dir", default=".")
    @click.pass_context
    def group(ctx: click.Context, campaign_dir: str) -> None:
        ctx.obj = {"dir": campaign_dir}

    for command in (*PUBLISH, *COMMANDS):
        group.add_command(command)
    return group


def run(*args: str):
    return CliRunner().invoke(gm_group(), list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One campaign played to the end per module (a few seconds); tests get copies."""
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(tmp_path_factory.mktemp("played") / "c", setenv=patch.setenv)
        kit.play_to_end()
        kit.close()
        return kit.folder, kit.now


@pytest.fixture
def finished(played, tmp_path, monkeypatch):
    folder, now = played
    shutil.copytree(folder, tmp_path / "c")
    kit = CampaignKit(tmp_path / "c", HOSTILE_PLAYERS, monkeypatch.setenv)
    kit.at(now)
    yield kit
    kit.close()


def site_text(folder: Path) -> str:
    """Every page of the campaign's own. The rules page is left out: it is the shipped
    docs/rules text, the same for every campaign (so it holds no campaign's secret), and it
    speaks of canonical texts and salts in general."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.html")) if p.name != "rules.html")


# -- before the reveal ------------------------------------------------------------------------


def test_publish_writes_index_turn_player_and_boards_pages(finished):
    result = run("-C", str(finished.folder), "publish")
    assert result.exit_code == 0, result.output
    archive = finished.folder / "archive"
    names = {p.name for p in archive.iterdir()}
    assert {"index.html", "boards.html", "turn-001.html", "player-alice.html"} <= names
    turns = len([n for n in names if n.startswith("turn-")])
    with finished.campaign() as campaign:
        assert turns == len(campaign.store.rows("select turn from turns"))


def test_2_6_archive_before_reveal_shows_no_board_name_layout_or_number(finished):
    run("-C", str(finished.folder), "publish")
    text = site_text(finished.folder / "archive")
    assert "The Garden Path" not in text and "The Ziggurat" not in text
    assert "by snake" not in text and "by ladder" not in text and "<svg" in text  # charts only
    assert "canonical text (" not in text.lower()
    assert not re.search(r"\bplayed \d", text)  # nobody's number
    with finished.campaign() as campaign:
        row = campaign.row()
        salts = [b["salt"] for b in campaign.store.rows("select salt from boards")]
    assert row["seed_salt"] not in text and all(s not in text for s in salts)
    assert "20270321" not in text  # the seed
    assert not (finished.folder / "archive" / "board-A.json").exists()


def test_archive_shows_commitments_before_reveal(finished):
    run("-C", str(finished.folder), "publish")
    with finished.campaign() as campaign:
        commitments = campaign.state_json()["commitments"]
    boards_page = (finished.folder / "archive" / "boards.html").read_text()
    assert commitments["seed"] in boards_page
    assert all(value in boards_page for value in commitments["boards"].values())


def test_player_names_are_escaped_on_every_page(finished):
    run("-C", str(finished.folder), "publish")
    text = site_text(finished.folder / "archive")
    assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(&#39;alice&#39;)&lt;/script&gt;" in text
    assert "{{ 7*7 }}" in text  # template syntax in a name is printed, never run
    assert len(re.findall(r"<script", text)) == 0


# -- reveal -----------------------------------------------------------------------------------


def test_5_reveal_is_refused_while_the_campaign_runs(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    kit.play_turn()
    result = CliRunner().invoke(gm_group(), ["-C", str(kit.folder), "reveal"])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "not over" in result.output
    with kit.campaign() as campaign:
        assert campaign.state_json()["revealed"] is None
    kit.close()


def test_5_reveal_publishes_salts_canonical_texts_and_seed(finished):
    result = run("-C", str(finished.folder), "reveal")
    assert result.exit_code == 0, result.output
    with finished.campaign() as campaign:
        revealed = campaign.state_json()["revealed"]
    assert revealed["seed"]["value"] == 20270321
    page = (finished.folder / "archive" / "boards.html").read_text()
    assert "The Garden Path" in page and "The Ziggurat" in page
    assert page.count("<svg") == 2
    assert revealed["seed"]["salt"] in page
    for board_id, board in revealed["boards"].items():
        assert board["salt"] in page
        assert (finished.folder / "archive" / f"board-{board_id}.json").read_text() == board["canonical"]


def test_5_reveal_twice_changes_nothing(finished):
    run("-C", str(finished.folder), "reveal")
    with finished.campaign() as campaign:
        first = campaign.row()["revealed_at"]
    finished.at(finished.now.replace(year=2030))
    assert run("-C", str(finished.folder), "reveal").exit_code == 0
    with finished.campaign() as campaign:
        assert campaign.row()["revealed_at"] == first


# -- verify -----------------------------------------------------------------------------------


def test_5_verify_accepts_the_revealed_board_file_and_canonical_text(finished):
    run("-C", str(finished.folder), "reveal")
    with finished.campaign() as campaign:
        data = campaign.state_json()
    commitment, salt = data["commitments"]["boards"]["A"], data["revealed"]["boards"]["A"]["salt"]
    assert run("verify", commitment, salt, str(BOARDS / "small.yaml")).exit_code == 0
    canonical = finished.folder / "archive" / "board-A.json"
    assert run("verify", commitment, salt, str(canonical)).exit_code == 0


def test_5_verify_refuses_another_board_or_salt(finished):
    run("-C", str(finished.folder), "reveal")
    with finished.campaign() as campaign:
        data = campaign.state_json()
    commitment, salt = data["commitments"]["boards"]["A"], data["revealed"]["boards"]["A"]["salt"]
    wrong_board = CliRunner().invoke(gm_group(), ["verify", commitment, salt, str(BOARDS / "ziggurat.yaml")])
    assert wrong_board.exit_code == 1 and "NOT match" in wrong_board.output
    wrong_salt = CliRunner().invoke(gm_group(), ["verify", commitment, "0" * 32, str(BOARDS / "small.yaml")])
    assert wrong_salt.exit_code == 1


def test_5_verify_checks_a_seed(finished):
    run("-C", str(finished.folder), "reveal")
    with finished.campaign() as campaign:
        data = campaign.state_json()
    good = run("verify", data["commitments"]["seed"], data["revealed"]["seed"]["salt"], "--seed", "20270321")
    assert good.exit_code == 0
    bad = CliRunner().invoke(gm_group(), ["verify", data["commitments"]["seed"], data["revealed"]["seed"]["salt"], "--seed", "20270322"])
    assert bad.exit_code == 1


def test_verify_needs_a_file_or_a_seed():
    assert CliRunner().invoke(gm_group(), ["verify", "ab", "cd"]).exit_code == 2


# -- two phases, and only changed pages ----------------------------------------------------


def test_building_the_site_is_pure_and_repeatable(finished):
    with finished.campaign() as campaign:
        data = load_archive(campaign)
    first, second = build_site(data), build_site(data)
    assert [render_page(p) for p in first] == [render_page(p) for p in second]


def test_publish_rewrites_only_pages_whose_content_changed(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    for _ in range(3):
        kit.play_turn()
    out = tmp_path / "site"
    with kit.campaign() as campaign:
        first = write_site(build_site(load_archive(campaign)), out)
        again = write_site(build_site(load_archive(campaign)), out)
    assert first.written and not again.written
    old_turn = (out / "turn-001.html").stat().st_mtime_ns
    kit.play_turn()
    with kit.campaign() as campaign:
        after = write_site(build_site(load_archive(campaign)), out)
    assert "turn-004.html" in after.written and "index.html" in after.written
    # turn 3's page linked to turn 4's before it was played (the page saying it is being
    # played): no turn before it changes at all; turn 5's page now says that
    assert {"turn-001.html", "turn-002.html", "turn-003.html"} <= set(after.unchanged)
    assert (out / "turn-001.html").stat().st_mtime_ns == old_turn
    assert "turn-005.html" in after.written
    assert "Turn 5 is being played" in (out / "turn-005.html").read_text()
    assert 'href="turn-005.html" rel="next"' in (out / "turn-004.html").read_text()
    kit.close()


# -- golden -----------------------------------------------------------------------------------


def golden_campaign(tmp_path: Path, monkeypatch) -> Path:
    """A fixed campaign, played to the end and revealed: the same bytes every run."""
    import gm.campaign.campaign

    # salts are random at start (the seed's, then each board's): fix them so the golden
    # pages are stable, the game commitment and every record hash chained to it too
    salts = iter(["f" * 32, f"{1:032x}", f"{2:032x}"])
    monkeypatch.setattr(gm.campaign.campaign, "new_salt", lambda: next(salts))
    kit = CampaignKit.create(tmp_path / "golden", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS,
                             campaign_id="golden-2027", title="Golden Cup 2027")
    kit.play_to_end()
    with kit.campaign() as campaign:
        assert campaign.row()["seed_commitment"] == commitment("f" * 32, seed_text(20270321))
    run("-C", str(kit.folder), "reveal")
    kit.close()
    return kit.folder / "archive"


def test_golden_archive_of_a_fixed_revealed_campaign(tmp_path, monkeypatch):
    archive = golden_campaign(tmp_path, monkeypatch)
    # rules.html is the shipped docs/rules text in the archive's frame: it changes with the
    # docs, not with the archive, and tests/test_archive_feed.py checks how it is rendered
    produced = {p.name: p.read_bytes() for p in archive.iterdir()
                if not p.name.startswith(".") and p.name != "rules.html"}
    if os.environ.get("GM_REGEN_GOLDEN"):
        for old in GOLDEN.glob("*"):
            old.unlink()
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for name, data in produced.items():
            (GOLDEN / name).write_bytes(data)
        pytest.skip("golden archive regenerated; review it with git diff before committing")
    expected = {p.name: p.read_bytes() for p in GOLDEN.iterdir()}
    assert sorted(produced) == sorted(expected), "pages added or gone: regenerate (see the module docstring)"
    for name in sorted(expected):
        # the feed as a reader parses it: feedgen may write the same content in other bytes
        made, kept = produced[name].decode(), expected[name].decode()
        if name.endswith(".xml"):
            made, kept = (ET.canonicalize(text, strip_text=True) for text in (made, kept))
        assert made == kept, f"{name} differs from its golden copy"


@pytest.mark.parametrize(
    ("options", "boards", "players"),
    [
        ({"double_turns": True, "max_turns": 14}, None, 4),
        ({"numbers": "per-board", "announce_trapdoors": False}, None, 4),
        ({"close_after": "all"}, {"A": BOARDS / "small.yaml"}, 1),
    ],
    ids=["double-turns", "per-board-secret-trapdoors", "one-player-one-board"],
)
def test_publish_and_reveal_work_for_every_shape_of_campaign(tmp_path, monkeypatch, options, boards, players):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, options=options, boards=boards,
                             players=PLAIN_PLAYERS[:players])
    kit.play_to_end()
    kit.close()
    out = tmp_path / "site"
    assert run("-C", str(kit.folder), "reveal", "--out", str(out)).exit_code == 0
    index = (out / "index.html").read_text()
    assert "Final standings" in index and index.count("<svg") >= 1
    if options.get("double_turns"):
        assert "Turn 5-6" in index
    if options.get("announce_trapdoors") is False:
        assert "Trapdoor on turn" not in site_text(out)


def test_race_chart_ends_a_finished_line_on_the_finish_line():
    from gm.publish.chart import Series, race_chart

    chart = race_chart("A", 30, [Series("a", "A", (0, 10, 25, 28), 3), Series("b", "B", (0, 4, 9, 12), None)])
    finished, running = chart.lines
    assert finished.finished and not running.finished
    assert finished.last_y == chart.finish_y
    assert len(running.points.split()) == 4 and running.last_x == chart.right
