"""CONTRACT.md "Fixed at start" and docs/audit.md's seed: after `gm start` the game is played
from the stored copy of the boards, seed, options and players; every command compares
campaign.yaml and the board files with it and refuses, naming what differs, until the
files are restored. Also docs/rules/postal.md, Orders, the deadline and missed turns: a turn is resolved early only once every player
who still moves has an accepted message for it."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from email.message import EmailMessage

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli
from gm.commitment import matches, seed_text

NOW = "2027-01-01T12:00:00Z"
# every command that reads a started campaign, with the arguments it needs
READERS = [("state", "--json"), ("status",), ("orders",), ("ingest",), ("resolve",), ("turn",),
           ("publish",), ("send",), ("remind",), ("deadline",), ("reveal",)]


def edit_yaml(path, change):
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def refused(campaign, *args):
    """Run a command that must be refused; return its one-line reason."""
    runner = CliRunner()
    result = runner.invoke(cli, ["-C", str(campaign.folder), *args], env={"GM_NOW": NOW})
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


PASSWORDS = {"alice": "alice-pass-1", "bob": "bob-pass-2", "carol": "carol-pass-3"}


@pytest.fixture
def campaign_folder_without_seed(tmp_path):
    """`gm campaign new` as it is (no seed, the classic board copied in), with passwords
    set so that tests can write orders, and a runner with the clock set per call."""
    folder = tmp_path / "fresh"
    CliRunner().invoke(cli, ["campaign", "new", str(folder)], catch_exceptions=False)
    edit_yaml(folder / "campaign.yaml",
              lambda c: [p.update(password=PASSWORDS[p["id"]]) for p in c["players"]])
    runner = CliRunner()

    class Run:
        sent = 0

        def __call__(self, *args, now=NOW):
            if isinstance(now, datetime):
                now = now.strftime("%Y-%m-%dT%H:%M:%SZ")
            result = runner.invoke(cli, ["-C", str(folder), *args], env={"GM_NOW": now})
            assert result.exit_code == 0, result.output
            return result.output

        def state(self, now=NOW):
            return json.loads(self("state", "--json", now=now))

        def deadline(self):
            text = self.state()["deadline"]
            return datetime.fromisoformat(text.replace("Z", "+00:00"))

        def order(self, player, line, when):
            self.sent += 1
            message = EmailMessage()
            message["From"] = f"{player}@example.org"
            message["To"] = "gm@example.org"
            message["Subject"] = "orders"
            message["Message-ID"] = f"<{self.sent}@example.org>"
            message.set_content(f"PLAYER {player}\nPASSWORD {PASSWORDS[player]}\n{line}\n")
            path = folder / f"order-{self.sent}.eml"
            path.write_bytes(bytes(message))
            out = self("ingest", str(path), now=when)
            assert "1 applied" in out, out

    return folder, Run()


def state_row(campaign):
    return sqlite3.connect(campaign.folder / "gm.sqlite").execute("select state, deadline from campaign").fetchone()


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_fixed_at_start_a_snake_added_to_a_board_file_is_refused_by_every_command(campaign, command):
    board = campaign.folder.parent / "a.yaml"
    edit_yaml(board, lambda b: b["snakes"].append([10, 3]))
    before = state_row(campaign)
    line = refused(campaign, *command)
    assert "board A" in line and "board B" not in line
    assert state_row(campaign) == before


def test_fixed_at_start_restoring_the_board_file_makes_the_campaign_work_again(campaign):
    board = campaign.folder.parent / "a.yaml"
    original = board.read_text()
    edit_yaml(board, lambda b: b["snakes"].append([10, 3]))
    refused(campaign, "state", "--json")
    board.write_text(original)
    assert campaign.state()["turn"] == 1


def test_fixed_at_start_a_board_file_rewritten_with_the_same_meaning_plays_the_committed_board(campaign):
    """Comments and key order are not the board: the stored copy is played (ann's 2 takes
    board A's ladder 2->9)."""
    board = campaign.folder.parent / "a.yaml"
    data = yaml.safe_load(board.read_text())
    board.write_text("# rewritten by hand\n" + yaml.safe_dump(dict(reversed(list(data.items())))))
    mail = campaign.order("ann", "NUMBER 2\n", date="Sat, 02 Jan 2027 10:00:00 +0000")
    campaign("ingest", str(mail), now="2027-01-02T12:00:00Z")
    campaign("resolve", "--force", now="2027-01-03T18:00:01Z")
    assert campaign.state()["boards"]["A"]["players"]["ann"]["square"] == 9


def test_fixed_at_start_two_boards_swapped_are_refused_naming_both(campaign):
    edit_yaml(campaign.folder / "campaign.yaml",
              lambda c: c.update(boards={"A": c["boards"]["B"], "B": c["boards"]["A"]}))
    line = refused(campaign, "resolve", "--force")
    assert "board A (now the board B was at start)" in line
    assert "board B (now the board A was at start)" in line


def test_fixed_at_start_a_changed_seed_is_refused_and_never_revealed(campaign):
    edit_yaml(campaign.folder / "campaign.yaml", lambda c: c.update(seed=8))
    assert "seed" in refused(campaign, "reveal")
    assert "seed" in refused(campaign, "state", "--json")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda c: c["players"].append({"id": "dan", "name": "Dan", "email": "dan@example.org"}),
         "player dan (added)"),
        (lambda c: c["players"].pop(1), "player ben (removed)"),
        (lambda c: c["players"][0].update(id="anne"), "player anne (added)"),
        (lambda c: c["players"][2].update(email="cat@elsewhere.org"), "player cat (email)"),
        (lambda c: c["players"].reverse(), "players (order)"),
        (lambda c: c["options"].update(nmr="highest"), "options.nmr"),
        (lambda c: c["options"].update(max_order_text=1000), "options.max_order_text"),
        (lambda c: c.update(ruleset="postal", id="other"), "id ('trio' at start)"),
    ],
    ids=["player-added", "player-removed", "player-replaced", "email", "order", "option", "campaign-option", "id"],
)
def test_fixed_at_start_players_and_options_change_only_through_gm(campaign, change, named):
    edit_yaml(campaign.folder / "campaign.yaml", change)
    assert named in refused(campaign, "ingest")


def test_fixed_at_start_free_keys_change_freely(campaign):
    """CONTRACT.md: title, mail, timezone, turn_days, a player's name and timezone; an
    option written out at its default changes nothing; a password is read only by start."""
    def change(c):
        c.update(title="A New Title", timezone="Europe/Paris", turn_days=3)
        c["mail"]["from"] = "Other GM <other@example.org>"
        c["players"][0].update(name="Ann Other", timezone="Asia/Tokyo", password="changed")
        c["options"].update(announce_trapdoors=True, double_turns=False)

    edit_yaml(campaign.folder / "campaign.yaml", change)
    out = campaign("status", now=NOW)
    assert out.startswith("A New Title (trio)")
    assert "Ann Other" in out


def test_fixed_at_start_a_campaign_started_before_the_copy_was_kept_fills_it_from_its_commitments(campaign):
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    db.execute("update campaign set fixed = null")
    db.commit()
    assert campaign.state()["turn"] == 1
    assert db.execute("select fixed from campaign").fetchone()[0] is not None
    db.execute("update campaign set fixed = null")
    db.commit()
    edit_yaml(campaign.folder / "campaign.yaml", lambda c: c.update(seed=8))
    assert "commitment" in refused(campaign, "state", "--json")


# -- the seed (docs/audit.md) ------------------------------------------------------------------


def test_5_without_a_seed_gm_start_draws_128_bits_and_commits_them(campaign_folder_without_seed):
    folder, run = campaign_folder_without_seed
    text_before = (folder / "campaign.yaml").read_text()
    out = run("start")
    assert "warning" not in out
    assert (folder / "campaign.yaml").read_text() == text_before
    fixed = json.loads(sqlite3.connect(folder / "gm.sqlite").execute("select fixed from campaign").fetchone()[0])
    seed = fixed["seed"]
    assert 2**64 <= seed < 2**128
    row = sqlite3.connect(folder / "gm.sqlite").execute("select seed_salt, seed_commitment from campaign").fetchone()
    assert matches(row[1], row[0], seed_text(seed))
    # the campaign runs from the drawn seed, and campaign.yaml needs none
    assert json.loads(run("state", "--json"))["turn"] == 1


def test_5_two_campaigns_without_a_seed_draw_different_seeds(tmp_path):
    seeds = []
    for name in ("one", "two"):
        folder = tmp_path / name
        CliRunner().invoke(cli, ["campaign", "new", str(folder)], catch_exceptions=False)
        result = CliRunner().invoke(cli, ["-C", str(folder), "start"], env={"GM_NOW": NOW})
        assert result.exit_code == 0, result.output
        seeds.append(json.loads(sqlite3.connect(folder / "gm.sqlite").execute("select fixed from campaign").fetchone()[0])["seed"])
    assert seeds[0] != seeds[1]


def test_5_a_seed_below_2_64_is_accepted_with_a_warning(tmp_path):
    folder = tmp_path / "weak"
    CliRunner().invoke(cli, ["campaign", "new", str(folder)], catch_exceptions=False)
    with (folder / "campaign.yaml").open("a") as f:
        f.write("seed: 12345\n")
    result = CliRunner().invoke(cli, ["-C", str(folder), "start"], env={"GM_NOW": NOW})
    assert result.exit_code == 0, result.output
    assert "warning: the seed 12345 is below 2^64" in result.output
    assert "started" in result.output


# -- gm campaign new ------------------------------------------------------------------------


def test_campaign_new_copies_its_board_into_the_campaign_and_writes_no_seed(tmp_path):
    folder = tmp_path / "fresh"
    result = CliRunner().invoke(cli, ["campaign", "new", str(folder)], catch_exceptions=False)
    assert result.exit_code == 0
    data = yaml.safe_load((folder / "campaign.yaml").read_text())
    assert "seed" not in data
    for path in data["boards"].values():
        board = (folder / path).resolve()
        assert board.is_file() and board.is_relative_to(folder.resolve()), board
    result = CliRunner().invoke(cli, ["-C", str(folder), "start"], env={"GM_NOW": NOW})
    assert result.exit_code == 0, result.output
    assert "1 board," in result.output and "3 players" in result.output


# -- campaign.yaml from outside -------------------------------------------------------------


def test_config_mail_from_with_a_line_break_is_a_config_error_with_its_line(tmp_path):
    folder = tmp_path / "crlf"
    CliRunner().invoke(cli, ["campaign", "new", str(folder)], catch_exceptions=False)
    text = (folder / "campaign.yaml").read_text()
    text = text.replace('from: "Snakes GM <gm@example.org>"', 'from: "GM <gm@example.org>\\r\\nBcc: all@example.org"')
    (folder / "campaign.yaml").write_text(text)
    result = CliRunner().invoke(cli, ["-C", str(folder), "start"], env={"GM_NOW": NOW})
    assert result.exit_code == 1
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.strip().startswith("from:"))
    assert f"line {line}: mail from must be one line" in result.output
    assert "internal error" not in result.output


# -- docs/rules/postal.md, Orders, the deadline and missed turns: early resolution ---------------------------------------------------------


def test_2_4_a_turn_of_forced_numbers_waits_for_its_deadline(campaign_folder_without_seed):
    """Five turns with every number sent early; on the sixth every number is forced, and
    a rerun of gm turn (cron, or after a failure) must not resolve it before its deadline:
    players have not seen the last report nor nominated trapdoors."""
    folder, run = campaign_folder_without_seed
    run("start")
    for turn in range(1, 6):
        early = run.deadline() - timedelta(hours=8)
        for player in PASSWORDS:
            held = run.state(early)["players"][player]["numbers_left"]
            run.order(player, f"NUMBER {held[0]}", early)
        assert f"turn {turn} resolved" in run("turn", now=early)
    state = run.state(early)
    assert state["turn"] == 6
    assert all(len(state["players"][p]["numbers_left"]) == 1 for p in PASSWORDS)
    early = run.deadline() - timedelta(hours=8)
    for _ in range(2):  # a rerun changes nothing
        out = run("turn", now=early)
        assert "resolve: not yet: turn 6 waits for alice, bob, carol" in out, out
    assert run.state(early)["turn"] == 6
    # one accepted message each (a nomination only) and the turn may go early
    for player in PASSWORDS:
        run.order(player, "TRAPDOOR 40", early)
    out = run("turn", now=early)
    assert "turn 6 resolved" in out, out


def test_2_4_a_turn_waits_for_a_message_from_every_player_who_still_moves(campaign):
    """A player whose order holds only a nomination has not sent the number they need."""
    mails = [campaign.order("ann", "NUMBER 1\n", date="Sat, 02 Jan 2027 10:00:00 +0000"),
             campaign.order("ben", "NUMBER 1\n", date="Sat, 02 Jan 2027 10:00:00 +0000"),
             campaign.order("cat", "TRAPDOOR A 5\n", date="Sat, 02 Jan 2027 10:00:00 +0000")]
    campaign("ingest", *map(str, mails), now="2027-01-02T12:00:00Z")
    out = campaign("turn", now="2027-01-02T12:00:00Z")
    assert "resolve: not yet: turn 1 waits for cat" in out
