"""docs/audit.md, Players' entropy: what the GM cannot choose, and Checking mail. Each attack
of a dishonest GM replayed the way such a GM would make it with gm itself, on a campaign
played by mail: the players keep the mail gm sent them, the GM restores a copy of the
campaign folder taken earlier (a backup) and plays on from it as suits them, then reveals and
publishes. Every record so made is consistent, so it audits clean without mail; the players'
mail catches it."""

from __future__ import annotations

import email
import email.policy
import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

from audit_reference import check as reference_check
from auditforger import gm_audit as cli_audit
from maildirkit import FIRST_DEADLINE, MaildirGame

BOARD = (Path(__file__).resolve().parent.parent / "boards" / "small.yaml").read_text()
PLAYERS = {"ann": "pw-ann", "bob": "pw-bob", "cat": "pw-cat"}
SEED = 2**130 + 7
START = "2027-01-01T00:00:00Z"


def at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


WEEK_2 = FIRST_DEADLINE + timedelta(days=2)  # turn 2 open, its deadline five days off
AFTER_2 = FIRST_DEADLINE + timedelta(days=7, hours=1)  # turn 2's deadline passed


def gm_audit(archive: Path, *mail: Path) -> object:
    """`gm audit ARCHIVE --mail ...`, which the independent checker (tests/audit_reference.py,
    written from docs/audit.md alone) must judge alike."""
    result = cli_audit(archive, *(arg for m in mail for arg in ("--mail", m)))
    verdict = reference_check(archive, list(mail))
    assert {0: "ok", 1: "fail", 3: "unreadable"}.get(result.exit_code) == verdict.status, (result.output,
                                                                                            verdict.reason)
    return result


def started(folder: Path, ruleset: str = "postal", **options: object) -> MaildirGame:
    game = MaildirGame.create(folder, ruleset=ruleset, seed=SEED, board=BOARD, players=PLAYERS, options=options)
    game.gm("start", now=START)
    game.gm("send", now=START)
    return game


def backup(game: MaildirGame, folder: Path) -> MaildirGame:
    """A copy of the campaign folder as it is now, which the GM may restore later."""
    shutil.copytree(game.folder, folder)
    copy = MaildirGame(folder, game.players)
    copy.sent = game.sent
    return copy


def first_turn_played(game: MaildirGame) -> None:
    """Turn 1 played by everyone's orders, and ann's order for turn 2 in (cat sends none,
    so that the turn waits for its deadline)."""
    for number, player in enumerate(PLAYERS, start=1):
        game.mail(player, f"NUMBER {number}")
    game.turn(1)
    game.mail("ann", "NUMBER 6")
    game.gm("turn", now=at(FIRST_DEADLINE + timedelta(hours=2)))


def ended(game: MaildirGame, reason: str | None = None, when: datetime = AFTER_2) -> Path:
    """The campaign ended (by `gm end`, with `reason`, unless its rules ended it), revealed
    and published: its archive."""
    if not game.state(now=at(when))["over"]:
        game.gm("end", *(["--reason", reason] if reason else []), now=at(when))
    for command in ("send", "reveal", "publish"):
        game.gm(command, now=at(when))
    return game.folder / "archive"


def read(path: Path) -> email.message.EmailMessage:
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def kept(game: MaildirGame, player: str, into: Path, header: str | None = None) -> Path:
    """A folder of the mail `player` received (only the messages carrying `header` when
    given), as their mail program keeps it."""
    into.mkdir()
    for path in sorted((game.folder / "mail" / "outbox" / "new").iterdir()):
        message = read(path)
        if message["To"].startswith(f"{player}@") and (header is None or message[header]):
            shutil.copyfile(path, into / path.name)
    assert any(into.iterdir()), f"no mail to {player}"
    return into


def acknowledged(mail: Path, turn: int) -> list[str]:
    """The `count=` of each acknowledgement for `turn` in the folder `mail`, oldest Date first."""
    parts = [(m["Date"].datetime, dict(part.strip().split("=", 1) for part in m["X-GM-Receipt"].split(";")))
             for m in map(read, mail.iterdir()) if m["X-GM-Receipt"]]
    return [f"count={p['count']}" for _, p in sorted(parts, key=lambda d: d[0]) if p["turn"] == str(turn)]


def record(archive: Path) -> dict:
    return json.loads((archive / "audit.json").read_text())


# -- a claimed drop erases an acknowledged order -------------------------------------------


def test_acknowledged_means_played_a_drop_claimed_over_an_acknowledged_order_is_caught(tmp_path):
    """bob's turn-2 order is acknowledged; the GM restores the folder from before it came and
    drops bob there, so the record says bob had left in turn 2 and plays no order of his."""
    honest = started(tmp_path / "spring")
    first_turn_played(honest)
    forged = backup(honest, tmp_path / "restored")
    honest.mail("bob", "NUMBER 4")
    honest.gm("turn", now=at(WEEK_2))  # acknowledged at once

    forged.gm("player", "drop", "bob", now=at(WEEK_2))
    forged.turn(2)
    archive = ended(forged, "bob stopped writing")
    assert "bob" in record(archive)["turns"][1]["dropped"]
    assert gm_audit(archive).exit_code == 0  # consistent: the record alone cannot show it

    acks = kept(honest, "bob", tmp_path / "bob-acks", "X-GM-Receipt")
    result = gm_audit(archive, acks)
    assert result.exit_code == 1, result.output
    assert "had left the game" in result.output and "bob" in result.output


def test_acknowledged_means_played_an_honest_drop_after_the_order_plays_it_and_audits_clean(tmp_path):
    game = started(tmp_path / "spring")
    first_turn_played(game)
    game.mail("bob", "NUMBER 4")
    game.gm("turn", now=at(WEEK_2))
    game.gm("player", "drop", "bob", now=at(WEEK_2))
    game.turn(2)
    archive = ended(game, "bob stopped writing")
    turns = record(archive)["turns"]
    assert turns[1]["orders"]["bob"] and "bob" not in turns[1]["dropped"]
    result = gm_audit(archive, game.folder / "mail" / "outbox")
    assert result.exit_code == 0, result.output


# -- backdating: the last acknowledgement is the highest k, whatever its Date --------------


def test_acknowledged_means_played_a_backdated_acknowledgement_does_not_make_order_1_the_last(tmp_path):
    """bob sends order #1 then #2, both acknowledged; the GM writes #2's Date before #1's
    (its clock set back) and publishes the record of the folder restored from before #2."""
    honest = started(tmp_path / "spring")
    first_turn_played(honest)
    honest.mail("bob", "NUMBER 4")
    honest.gm("turn", now=at(WEEK_2))
    forged = backup(honest, tmp_path / "restored")
    honest.mail("bob", "NUMBER 5")
    honest.gm("turn", now=at(WEEK_2 - timedelta(days=1)))
    acks = kept(honest, "bob", tmp_path / "bob-acks", "X-GM-Receipt")
    assert acknowledged(acks, turn=2) == ["count=2", "count=1"]  # by Date: #2 backdated before #1

    forged.turn(2)
    archive = ended(forged)
    assert gm_audit(archive).exit_code == 0
    result = gm_audit(archive, acks)
    assert result.exit_code == 1, result.output
    assert "order #2" in result.output and "is not the one played" in result.output

    honest.turn(2)
    assert gm_audit(ended(honest), acks).exit_code == 0


# -- the end's reason rewritten after the final mail ------------------------------------------


def test_the_ends_link_a_reason_rewritten_after_the_final_mail_is_caught(tmp_path):
    """The GM ends the campaign with one reason, every player gets the final mail; the GM
    then restores the folder from before `gm end` and ends it again with another reason."""
    honest = started(tmp_path / "spring")
    first_turn_played(honest)
    honest.mail("bob", "NUMBER 4")
    honest.turn(2)
    forged = backup(honest, tmp_path / "restored")
    told = ended(honest, "the host is moving house")
    final = kept(honest, "ann", tmp_path / "ann-final", "X-GM-End")
    assert record(told)["end"]["record_hash"] in {read(m)["X-GM-End"] for m in final.iterdir()}
    assert gm_audit(told, final).exit_code == 0

    archive = ended(forged, "ann was caught cheating")
    assert gm_audit(archive).exit_code == 0  # a consistent record: only the final mail shows it
    result = gm_audit(archive, final)
    assert result.exit_code == 1, result.output
    assert "how the campaign ended (X-GM-End in" in result.output


# -- the seed chosen in advance ------------------------------------------------------------


def test_players_entropy_a_contribution_left_out_is_caught_by_its_acknowledgement(tmp_path):
    """In classic nobody writes an order: seed and board alone decide the game, so a GM could
    try seeds offline and commit one that suits them. ann sends ENTROPY; the GM plays the
    game from a folder restored from before it came, as their seed alone decides it."""
    honest = started(tmp_path / "spring", "classic", max_turns=3)
    forged = backup(honest, tmp_path / "restored")
    honest.mail("ann", "ENTROPY four leaf clover in the rain")
    honest.gm("turn", now=at(FIRST_DEADLINE - timedelta(days=2)))
    over = FIRST_DEADLINE + timedelta(days=15)
    for game in (honest, forged):
        for week in (1, 2, 3):
            game.turn(week)
    fair, chosen = ended(honest, when=over), ended(forged, when=over)
    assert record(fair)["entropy"] == {"ann": "four leaf clover in the rain"} and record(chosen)["entropy"] == {}
    assert record(fair)["turns"][0]["draws"] != record(chosen)["turns"][0]["draws"]  # ann's words changed the game

    mail = kept(honest, "ann", tmp_path / "ann-mail")
    assert gm_audit(fair, mail).exit_code == 0
    assert gm_audit(chosen).exit_code == 0  # the GM's own game is consistent: only ann's mail shows it
    acknowledgement = kept(honest, "ann", tmp_path / "ann-ack", "X-GM-Receipt")
    result = gm_audit(chosen, acknowledgement)
    assert result.exit_code == 1, result.output
    assert "ann" in result.output and "the last order acknowledged was not played" in result.output
