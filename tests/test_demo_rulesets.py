"""`gm demo DIR --ruleset classic|doubles|advanced`: each ruleset's demo is an
ordinary campaign of that ruleset, played to the end on the Maildir transport by robots
who read their mail and write order mail through the weekly `gm turn` path, then
published. The robots are their ruleset's (gm/rules/<name>/robot.py, found through the
ruleset); gm/demo/ keeps only the run loop, the postman and the mail styles.

Each demo is played once per module (seconds each); the tests read what it left behind
and the robots as they ended.
"""

from __future__ import annotations

import email
import email.policy
import json
import shutil
import sqlite3
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gm.cli.demo import demo_cmd
from gm.demo.robots import robots_of
from gm.demo.run import MARK, play, summary
from gm.errors import GmError
from gm.rules import registry

REPO = Path(__file__).resolve().parent.parent
RULESETS = ("classic", "doubles", "advanced")


def run_demo(*args: str):
    group = click.Group("gm")
    group.add_command(demo_cmd)
    return CliRunner().invoke(group, ["demo", *args], catch_exceptions=False)


class Games:
    """Each ruleset's demo, played at most once per module."""

    def __init__(self, root: Path):
        self.root = root
        self.played: dict[str, tuple] = {}

    def __call__(self, ruleset: str):
        if ruleset not in self.played:
            folder = self.root / ruleset
            lines: list[str] = []
            result = play(folder, ruleset=ruleset, echo=lines.append)
            self.played[ruleset] = (folder, result, lines)
        return self.played[ruleset]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return Games(tmp_path_factory.mktemp("demos"))


def query(folder: Path, sql: str, *args) -> list[tuple]:
    db = sqlite3.connect(folder / "gm.sqlite")
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def events(folder: Path) -> list[dict]:
    return [e for (text,) in query(folder, "select events from turns order by turn") for e in json.loads(text)]


def state(folder: Path) -> dict:
    from gm.campaign.folder import Campaign

    campaign = Campaign.open(folder)
    try:
        return campaign.state_json()
    finally:
        campaign.close()


def robot(result, player: str):
    return next(r for r in result.robots if r.id == player)


# -- every ruleset ----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_has_robots_found_through_the_ruleset(ruleset):
    demo = robots_of(registry.find_ruleset(ruleset))
    assert demo is not None and len(demo.cast) == 6
    assert {spec["style"] for spec in demo.cast} == {"plain", "html", "phone", "reply"}
    assert type(demo).__module__.startswith("gm.rules.")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_demo_is_an_ordinary_campaign_of_that_ruleset(game, ruleset):
    folder, _, _ = game(ruleset)
    text = (folder / "campaign.yaml").read_text(encoding="utf-8")
    assert text.startswith(MARK)
    assert f"\nruleset: {ruleset}\n" in text and "transport: maildir" in text
    (board,) = list((folder / "boards").iterdir())
    assert f"A: boards/{board.name}" in text
    assert board.read_bytes() == (REPO / "boards" / board.name).read_bytes()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_demo_plays_to_the_end_and_publishes_its_archive(game, ruleset):
    folder, result, lines = game(ruleset)
    data = state(folder)
    assert data["over"] is True and data["ruleset"] == ruleset
    assert all(p["place"] is not None for p in data["players"].values())
    assert result.turns == len(query(folder, "select turn from turns")) >= 3
    assert result.archive == folder / "archive" / "index.html" and result.archive.is_file()
    (revealed,) = query(folder, "select revealed_at from campaign")
    assert revealed[0] is not None
    assert any("(the deadline):" in line for line in lines)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_summary_gives_standings_archive_and_where_to_look(game, ruleset):
    folder, result, _ = game(ruleset)
    text = summary(result)
    assert text[0].startswith(f"The Robot Derby is over after {result.turns} turns. Final standings")
    assert len(result.standings) == 6 and text[1:7] == [f"  {line}" for line in result.standings]
    for r in result.robots:
        assert sum(f" {r.name} " in line for line in result.standings) == 1, r.name
    assert result.standings[0].lstrip().startswith("1st")
    assert f"archive: {folder / 'archive' / 'index.html'}" in text
    assert text[-1] == f"look around: gm -C {folder} status; the mail is in {folder / 'mail'}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_robots_read_their_mail_and_every_letter_is_answered(game, ruleset):
    folder, result, _ = game(ruleset)
    for r in result.robots:
        assert r.password and r.read["welcome"] == 1 and r.read["report"] >= 2, r
    # every letter the robots wrote was read by gm, from their own address, before the
    # deadline, and answered once: the robot read the answer
    mails = query(folder, "select sender, outcome from messages")
    assert mails and all(outcome in ("applied", "refused", "help") for _, outcome in mails)
    assert {sender for sender, _ in mails} <= {r.email for r in result.robots}
    assert query(folder, "select count(*) from messages where detail like '%deadline%'") == [(0,)]
    replies = sum(r.read["ack"] + r.read["refusal"] + r.read["help"] for r in result.robots)
    assert replies == len(mails) == sum(r.written for r in result.robots)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_robots_write_in_the_four_mail_styles(game, ruleset):
    folder, _, _ = game(ruleset)
    mails = [email.message_from_bytes(raw, policy=email.policy.default)
             for (raw,) in query(folder, "select raw from messages order by id")]
    assert {m.get_content_type() for m in mails} == {"text/plain", "text/html", "multipart/alternative"}
    replies = [m for m in mails if m["In-Reply-To"]]
    assert replies, "the replying robot answers gm's last mail"
    body = replies[-1].get_body(("plain",)).get_content()
    assert any(line.startswith("> ") for line in body.splitlines())


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_ruleset_demo_with_force_starts_fresh_and_plays_the_same_game(game, ruleset, tmp_path):
    folder, result, _ = game(ruleset)
    again = tmp_path / "again"
    shutil.copytree(folder, again)
    (again / "leftover.txt").write_text("from the last run", encoding="utf-8")
    refused = run_demo(str(again), "--ruleset", ruleset)
    assert refused.exit_code == 1 and "--force" in refused.output
    replaced = run_demo(str(again), "--ruleset", ruleset, "--force", "--quiet")
    assert replaced.exit_code == 0, replaced.output
    assert not (again / "leftover.txt").exists()
    assert events(again) == events(folder)
    assert replaced.output.splitlines()[1:7] == [f"  {line}" for line in result.standings]
    assert f"archive: {again / 'archive' / 'index.html'}" in replaced.output
    assert (again / "archive" / "index.html").is_file()


# -- classic and doubles: nobody must write; a resignation, and one withdrawn -------------


@pytest.mark.parametrize("ruleset", ["classic", "doubles"])
def test_dice_most_robots_send_nothing(game, ruleset):
    folder, result, _ = game(ruleset)
    writers = {player for (player,) in query(folder, "select distinct player from messages")}
    assert writers == {"ada", "brian", "cleo", "dmitri"}
    assert robot(result, "eve").written == robot(result, "felix").written == 0


@pytest.mark.parametrize("ruleset", ["classic", "doubles"])
def test_dice_resignation_by_mail_takes_effect(game, ruleset):
    folder, result, _ = game(ruleset)
    quitter = robot(result, "ada")
    rows = query(folder, "select turn, outcome from messages where player = 'ada'")
    assert rows == [(quitter.resigns, "applied")]
    resigned = [(e["player"], e["turn"]) for e in events(folder) if e["kind"] == "resign"]
    assert resigned == [("ada", quitter.resigns)]
    data = state(folder)
    assert data["players"]["ada"]["resigned"] is True
    assert [p for p, v in data["players"].items() if v["resigned"]] == ["ada"]
    # later goes are not hers, and her own report told her so
    later = [e for e in events(folder) if e["kind"] == "throw" and e["player"] == "ada"
             and e["turn"] >= quitter.resigns]
    assert later == []
    assert quitter.in_play is False
    assert any("resigned" in line for line in result.standings if "Ada" in line)


@pytest.mark.parametrize("ruleset", ["classic", "doubles"])
def test_dice_resign_then_resign_none_keeps_the_waverer_in(game, ruleset):
    folder, result, lines = game(ruleset)
    waverer = robot(result, "brian")
    rows = query(folder, "select turn, outcome from messages where player = 'brian' order by received_at")
    assert rows == [(waverer.wavers, "applied"), (waverer.wavers, "applied")]
    bodies = [email.message_from_bytes(raw, policy=email.policy.default).get_body(("html",)).get_content()
              for (raw,) in query(folder, "select raw from messages where player = 'brian' order by received_at")]
    assert "<div>RESIGN</div>" in bodies[0] and "<div>RESIGN NONE</div>" in bodies[1]
    assert waverer.read["ack"] == 2 and waverer.resigning is False  # the second ack shows no RESIGN
    assert state(folder)["players"]["brian"]["resigned"] is False
    assert any("mid-week" in line for line in lines)
    assert any("Brian Waverer reads the acknowledgement" in line for line in lines)


@pytest.mark.parametrize("ruleset", ["classic", "doubles"])
def test_dice_help_and_an_idle_resign_none_are_answered(game, ruleset):
    folder, result, _ = game(ruleset)
    assert query(folder, "select outcome from messages where player = 'cleo'") == [("help",)]
    assert robot(result, "cleo").helped is True  # the help reply showed her standing order
    assert query(folder, "select outcome from messages where player = 'dmitri'") == [("applied",)]
    assert robot(result, "dmitri").read["ack"] == 1


# -- advanced: teams, moves and builds by mail, an NMR, a build refused on receipt ---------


def test_advanced_demo_has_teams_and_a_strong_seed(game):
    folder, result, _ = game("advanced")
    text = (folder / "campaign.yaml").read_text(encoding="utf-8")
    assert "boards/advanced.yaml" in text
    for r in result.robots:
        assert f"{{id: {r.id}, name: {r.name}, email: {r.email}, team: {r.team}}}" in text
    data = state(folder)
    assert {team: v["members"] for team, v in data["teams"].items()} == {
        "red": ["ada", "brian"], "blue": ["cleo", "dmitri"], "green": ["eve", "felix"]}
    assert data["winner"] in data["teams"]
    assert all(data["boards"]["A"]["players"][m]["finished"] for m in data["teams"][data["winner"]]["members"])


def test_advanced_robots_move_and_build_by_mail(game):
    folder, _, _ = game("advanced")
    goes = events(folder)
    builds = [e for e in goes if e["kind"] == "build"]
    assert any(e["built"] for e in builds), "some build succeeds"
    assert {e["item"] for e in builds if e["built"]} == {"snake", "ladder"}
    assert state(folder)["boards"]["A"]["built"], "the board shows what was built"
    moves = [e for e in goes if e["kind"] == "moved"]
    assert len(moves) > len(builds)


def test_advanced_one_robot_misses_a_turn_and_moves_by_nmr(game):
    folder, result, _ = game("advanced")
    misser = next(r for r in result.robots if r.misses)
    nmr = [(e["player"], e["turn"]) for e in events(folder) if e["kind"] == "moved" and e["nmr"]]
    assert nmr == [(misser.id, misser.misses)]


def test_advanced_build_refused_on_receipt_is_read_and_corrected(game):
    folder, result, lines = game("advanced")
    blunderer = next(r for r in result.robots if r.blunders)
    refused = query(folder, "select player, turn from messages where outcome = 'refused'")
    assert refused == [(blunderer.id, blunderer.blunders)]
    rows = query(folder, "select outcome from messages where player = ? and turn = ? order by received_at",
                 blunderer.id, blunderer.blunders)
    assert [r[0] for r in rows] == ["refused", "applied"]
    assert "must end on a lower square" in blunderer.refusal  # it read the reason
    assert any(f"{blunderer.name} reads the refusal and mails a corrected order" in line for line in lines)
    nmr = [e for e in events(folder) if e["kind"] == "moved" and e["nmr"] and e["player"] == blunderer.id]
    assert nmr == []


def test_advanced_robots_in_end_stop_writing(game):
    folder, _, _ = game("advanced")
    arrived = {e["player"]: e["turn"] for e in events(folder) if e["kind"] == "moved" and e["finished"]}
    assert arrived
    for player, turn in arrived.items():
        assert query(folder, "select count(*) from messages where player = ? and turn > ?", player, turn) == [(0,)]


# -- the command --------------------------------------------------------------------------


def test_demo_refuses_an_unknown_ruleset_as_a_usage_error(tmp_path):
    result = run_demo(str(tmp_path / "x"), "--ruleset", "chess")
    assert result.exit_code == 2
    assert not (tmp_path / "x").exists()


def test_demo_help_lists_every_ruleset():
    result = run_demo("--help")
    assert result.exit_code == 0
    assert "postal|classic|doubles|advanced" in result.output.replace("\n", "").replace(" ", "")


def test_a_ruleset_without_robots_has_no_demo(tmp_path):
    from toyrules import Step

    registry.register(Step)
    try:
        assert robots_of(Step()) is None
        with pytest.raises(GmError, match="no robots"):
            play(tmp_path / "toy", ruleset="step", echo=lambda _line: None)
    finally:
        registry.unregister("step")
    assert not (tmp_path / "toy").exists()
