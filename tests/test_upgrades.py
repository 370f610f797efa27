"""A season outlives a version of gm (docs/upgrading.md): campaign folders left by earlier
releases (tests/data/releases, each made once by that release's own gm with
tests/data/releases/make_old_campaigns.py, never rewritten) are carried on by today's gm:
their store migrated on first open with a backup beside it, a turn played by mail, the
campaign ended, revealed, published and audited with the players' mail. An archive an
earlier release revealed wholly audits too, and a store a later gm migrated is refused
without a byte changed."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
import tarfile
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from maildirkit import MaildirGame

from gm import __version__
from gm.campaign.migrations import MIGRATIONS
from gm.cli import cli
from gm.rules.registry import BUILT_IN

DATA = Path(__file__).parent / "data" / "releases"
# b588207: a gm of 2026-11-25 (eight migrations, no proof); 1cb023a: release 0.1.0, the last
# before versions meant something
RELEASES = ("b588207", "1cb023a")
RULESETS = ("postal", "classic", "doubles", "advanced", "unleashed")


def unpacked(archive: Path, into: Path) -> tuple[Path, dict]:
    """The fixture's folder copied out of tests/data, and its fixture.json."""
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    facts = json.loads((into / "fixture.json").read_text())
    return into / facts["campaign"], facts


def at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def an_order(ruleset: str, player: str, state: dict) -> list[str]:
    """An order every player of the ruleset may send now, whatever the game so far."""
    if ruleset == "postal":
        return [f"NUMBER {state['players'][player]['numbers_left'][0]}"]
    return {"classic": ["RESIGN NONE"], "doubles": ["RESIGN NONE"], "advanced": ["MOVE"],
            "unleashed": ["PLAY NONE"]}[ruleset]


def migrations_of(store: Path) -> set[str]:
    with closing(sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True)) as db:
        return {name for (name,) in db.execute("select name from migrations")}


def applied(folder: Path) -> int:
    with closing(sqlite3.connect(folder / "gm.sqlite")) as db:
        return db.execute("select count(*) from messages where outcome = 'applied'").fetchone()[0]


def test_every_release_left_a_campaign_of_every_builtin_ruleset():
    assert set(RULESETS) == set(BUILT_IN)
    for release in RELEASES:
        for ruleset in RULESETS:
            assert (DATA / release / f"{ruleset}.tar.xz").is_file(), (release, ruleset)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("release", RELEASES)
def test_a_campaign_an_earlier_release_began_is_played_on_ended_revealed_and_audited(tmp_path, release, ruleset):
    fixture = DATA / release / f"{ruleset}.tar.xz"
    before = fixture.read_bytes()
    folder, facts = unpacked(fixture, tmp_path)
    assert facts["turns_played"] == 2
    game = MaildirGame(folder, facts["passwords"])
    deadline = datetime.fromisoformat(facts["next_deadline"])

    # the first command of today's gm migrates the store, keeping the earlier one beside it
    # (none when the release left nothing to migrate)
    pending = {name for name, _ in MIGRATIONS} - migrations_of(folder / "gm.sqlite")
    state = game.state(now=at(deadline - timedelta(days=2)))
    assert state["turn"] == 3 and not state["over"]
    backup = folder / "gm.sqlite.bak-0.1.0"
    assert backup.is_file() == bool(pending)
    if pending:
        assert pending.isdisjoint(migrations_of(backup))
        assert not ({name for name, _ in MIGRATIONS} - migrations_of(folder / "gm.sqlite"))

    # a turn played by mail with today's gm
    accepted = applied(folder)
    for player in facts["passwords"]:
        game.mail(player, *an_order(ruleset, player, state))
    game.gm("turn", now=at(deadline + timedelta(hours=1)))
    assert applied(folder) == accepted + len(facts["passwords"])
    assert game.state(now=at(deadline + timedelta(hours=2)))["turn"] == 4

    # ended, revealed, published and audited as if today's gm had begun it
    after = deadline + timedelta(days=1)
    game.gm("end", now=at(after))
    game.gm("send", now=at(after))
    game.gm("reveal", now=at(after))
    game.gm("publish", now=at(after))
    audited = CliRunner().invoke(cli, ["audit", str(folder / "archive"), "--mail", str(folder / "mail" / "outbox")])
    assert audited.exit_code == 0, audited.output
    assert "replays exactly: 3 turns" in audited.output
    assert fixture.read_bytes() == before  # tests/data is never rewritten


def test_an_unleashed_board_file_an_earlier_gm_played_uncommitted_is_no_board_made_from_the_seed(tmp_path):
    folder, facts = unpacked(DATA / "b588207" / "unleashed.tar.xz", tmp_path)
    game = MaildirGame(folder, facts["passwords"])
    after = datetime.fromisoformat(facts["next_deadline"])
    game.gm("end", now=at(after))
    game.gm("reveal", now=at(after))
    game.gm("publish", now=at(after))
    record = json.loads((folder / "archive" / "audit.json").read_text())
    (board,) = record["boards"]
    assert board["commitment"] is None and board["from_seed"] is False and record["game"] is None
    audited = CliRunner().invoke(cli, ["audit", str(folder / "archive")])
    assert audited.exit_code == 0, audited.output
    assert "board A was played from a file without a commitment" in audited.output


def test_a_record_with_a_game_commitment_still_needs_every_file_board_committed(tmp_path):
    folder, facts = unpacked(DATA / "1cb023a" / "unleashed.tar.xz", tmp_path)
    game = MaildirGame(folder, facts["passwords"])
    after = datetime.fromisoformat(facts["next_deadline"])
    for command in ("end", "reveal", "publish"):
        game.gm(command, now=at(after))
    path = folder / "archive" / "audit.json"
    record = json.loads(path.read_text())
    assert record["game"] is not None
    record["boards"][0].update(commitment=None, from_seed=False)
    path.write_text(json.dumps(record))
    audited = CliRunner().invoke(cli, ["audit", str(path)])
    assert audited.exit_code == 1
    assert "every board played from a file is committed" in audited.output


def test_an_archive_an_earlier_release_revealed_wholly_audits_with_its_mail(tmp_path):
    folder, facts = unpacked(DATA / "b588207" / "demo-unleashed-archive.tar.xz", tmp_path)
    record = json.loads((folder / "archive" / "audit.json").read_text())
    assert record["format"] == "gm-audit/1"
    audited = CliRunner().invoke(cli, ["audit", str(folder / "archive"), "--mail", str(folder / "mail" / "outbox")])
    assert audited.exit_code == 0, audited.output
    assert "replays exactly" in audited.output


def test_a_store_a_later_gm_migrated_is_refused_in_one_line_and_left_byte_for_byte(tmp_path):
    folder, facts = unpacked(DATA / "1cb023a" / "classic.tar.xz", tmp_path)
    game = MaildirGame(folder, facts["passwords"])
    game.gm("status")  # migrated by today's gm, as a later gm would
    with closing(sqlite3.connect(folder / "gm.sqlite")) as db, db:
        db.execute("insert into migrations values ('999_a_later_gm', '2031-01-01T00:00:00Z')")

    def files() -> dict[str, bytes]:
        # every file but the empty lock a command takes before it opens the store
        return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != ".gm.lock"}

    kept = files()
    for command in (["status"], ["turn"], ["state", "--json"]):
        result = game.gm(*command, ok=False)
        assert result.exit_code == 1
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "later gm" in lines[0] and "999_a_later_gm" in lines[0], result.output
        assert f"gm {__version__}" in lines[0] and "nothing was changed" in lines[0]
        assert files() == kept


def test_a_new_campaign_keeps_no_backup_and_an_up_to_date_one_makes_none(tmp_path):
    folder, facts = unpacked(DATA / "b588207" / "postal.tar.xz", tmp_path)
    game = MaildirGame(folder, facts["passwords"])
    game.gm("status")
    backup = folder / "gm.sqlite.bak-0.1.0"
    first = backup.read_bytes()
    backup.unlink()
    game.gm("status")  # nothing left to migrate: no second copy
    assert not backup.exists()
    demo = tmp_path / "demo"
    assert CliRunner().invoke(cli, ["demo", str(demo), "--quiet"]).exit_code == 0
    assert not list(demo.glob("gm.sqlite.bak-*"))
    assert first  # the copy of the earlier store was a whole database


def test_the_backup_is_the_store_as_the_earlier_release_left_it(tmp_path):
    folder, _ = unpacked(DATA / "b588207" / "postal.tar.xz", tmp_path)
    original = tmp_path / "original.sqlite"
    shutil.copyfile(folder / "gm.sqlite", original)
    CliRunner().invoke(cli, ["-C", str(folder), "status"], env={"GM_NOW": "2027-03-16T18:00:00Z"})

    def dump(path: Path) -> list[str]:
        with closing(sqlite3.connect(path)) as db:
            return list(db.iterdump())

    assert dump(folder / "gm.sqlite.bak-0.1.0") == dump(original)
    assert dump(folder / "gm.sqlite") != dump(original)


def revealed_record(tmp_path: Path) -> Path:
    """The audit.json of a 0.1.0 classic campaign ended and revealed by today's gm."""
    folder, facts = unpacked(DATA / "1cb023a" / "classic.tar.xz", tmp_path)
    game = MaildirGame(folder, facts["passwords"])
    after = datetime.fromisoformat(facts["next_deadline"])
    for command in ("end", "reveal", "publish"):
        game.gm(command, now=at(after))
    return folder / "archive" / "audit.json"


def test_a_record_played_with_a_release_whose_rules_todays_gm_plays_alike_is_replayed(tmp_path):
    path = revealed_record(tmp_path)
    record = json.loads(path.read_text())
    assert record["ruleset_version"] == "gm 0.1.0"  # what the game text bound at the start
    audited = CliRunner().invoke(cli, ["audit", str(path)])
    assert audited.exit_code == 0, audited.output
    assert f"gm {__version__} plays the classic rules alike" in " ".join(audited.output.split())


def test_a_record_played_with_rules_that_changed_since_names_the_release_to_install_and_exits_3(tmp_path, monkeypatch):
    from gm import releases

    path = revealed_record(tmp_path)
    changed = (*releases.RELEASES[:-1], dataclasses.replace(releases.RELEASES[-1], rules_changed=frozenset({"classic"})))
    monkeypatch.setattr(releases, "RELEASES", changed)
    audited = CliRunner().invoke(cli, ["audit", str(path)])
    assert audited.exit_code == 3, audited.output
    assert "pip install 'gm==0.1.0'" in audited.output and "classic rules" in audited.output
    # a ruleset whose rules did not change is replayed as before
    monkeypatch.setattr(releases, "RELEASES", (*releases.RELEASES[:-1], dataclasses.replace(
        releases.RELEASES[-1], rules_changed=frozenset({"postal"}))))
    assert CliRunner().invoke(cli, ["audit", str(path)]).exit_code == 0


def test_a_gm_audit_1_record_counts_as_played_by_0_1_0(tmp_path, monkeypatch):
    from gm import releases

    folder, _ = unpacked(DATA / "b588207" / "demo-unleashed-archive.tar.xz", tmp_path)
    monkeypatch.setattr(releases, "RELEASES", (*releases.RELEASES[:-1], dataclasses.replace(
        releases.RELEASES[-1], rules_changed=frozenset({"unleashed"}))))
    audited = CliRunner().invoke(cli, ["audit", str(folder / "archive")])
    assert audited.exit_code == 3 and "pip install 'gm==0.1.0'" in audited.output, audited.output


def test_a_record_of_a_later_release_names_it_and_exits_3(tmp_path):
    path = revealed_record(tmp_path)
    record = json.loads(path.read_text())
    record["ruleset_version"] = "gm 99.0.0"
    record.pop("ruleset_distribution")
    path.write_text(json.dumps(record))
    audited = CliRunner().invoke(cli, ["audit", str(path)])
    assert audited.exit_code == 3, audited.output
    assert "a later release than this gm" in audited.output and "pip install 'gm==99.0.0'" in audited.output


def test_version_numbers_compare_as_releases():
    from gm.releases import parse_version, release_of_store, rules_release

    assert parse_version("0.10.0") > parse_version("0.9.1")
    assert parse_version("1.2.3.dev4") == (1, 2, 3) and parse_version("unknown") is None
    assert rules_release("postal", "0.1.0") == rules_release("postal", __version__) == "0.1.0"
    assert rules_release("postal", "99.0.0") is None
    assert release_of_store(8) == release_of_store(12) == "0.1.0"


def test_the_version_is_a_release_the_changelog_describes():
    from gm.releases import RELEASES, parse_version

    assert CliRunner().invoke(cli, ["--version"]).output.split()[-1] == __version__
    changelog = (Path(__file__).parent.parent / "CHANGELOG.md").read_text()
    headings = [line for line in changelog.splitlines() if line.startswith("## [")]
    assert headings[0] == "## [Unreleased]"
    assert headings[1].startswith(f"## [{__version__}] - "), headings[:2]
    # every release gm knows of is described, newest first, and the newest is this one
    assert [h.split("]")[0][4:] for h in headings[1:]] == [r.version for r in reversed(RELEASES)]
    assert parse_version(__version__) >= (0, 2, 0)


def test_a_record_names_the_release_that_wrote_it_and_an_older_gm_names_it_to_install(tmp_path):
    path = revealed_record(tmp_path)
    record = json.loads(path.read_text())
    assert record["written_by"] == f"gm {__version__}"
    record["written_by"] = "gm 42.1.0"
    path.write_text(json.dumps(record))
    audited = CliRunner().invoke(cli, ["audit", str(path)])
    assert audited.exit_code == 3, audited.output
    assert "written by gm 42.1.0" in audited.output and "pip install 'gm==42.1.0'" in audited.output
