"""A judge (docs/deployment.md, A judge): many games behind one Maildir address, played
through `gm judge DIR turn` alone."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from gm.cli import cli


def gm(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def drop(judge: Path, name: str, text: str) -> None:
    box = judge / "mail" / "inbox" / "new"
    (box / name).write_bytes(text.encode())


def mail(sender: str, body: str, to: str = "judge@example.org", msgid: str = "") -> str:
    msgid = msgid or f"<{abs(hash((sender, body)))}@x>"
    return f"From: {sender}\nTo: {to}\nSubject: hi\nMessage-ID: {msgid}\n\n{body}\n"


def make_judge(tmp_path: Path, *games: str) -> Path:
    judge = tmp_path / "j"
    gm("judge", "new", str(judge))
    for game in games:
        gm("campaign", "new", str(judge / "campaigns" / game))
    return judge


def outbox(judge: Path) -> list[str]:
    box = judge / "mail" / "outbox" / "new"
    return [(box / name).read_text() for name in sorted(os.listdir(box))]


def test_a_game_of_a_judge_has_no_mail_key_and_mails_from_the_judges_address(tmp_path):
    judge = make_judge(tmp_path, "spring")
    assert "\nmail:" not in (judge / "campaigns" / "spring" / "campaign.yaml").read_text()
    gm("-C", str(judge / "campaigns" / "spring"), "start")
    gm("-C", str(judge / "campaigns" / "spring"), "send")
    sent = outbox(judge)
    assert len(sent) >= 3 and all("From: Snakes Judge <judge@example.org>" in m for m in sent)


def test_a_standalone_campaign_keeps_its_own_mail_key(tmp_path):
    gm("campaign", "new", str(tmp_path / "alone"))
    assert "\nmail:\n  transport: maildir" in (tmp_path / "alone" / "campaign.yaml").read_text()


def test_list_and_an_unknown_game_are_answered_with_the_games_once(tmp_path):
    judge = make_judge(tmp_path, "spring")
    gm("-C", str(judge / "campaigns" / "spring"), "start")
    drop(judge, "m1", mail("dave@example.org", "LIST"))
    drop(judge, "m2", mail("erin@example.org", "GAME nosuch\nPLAYER x"))
    out = gm("judge", str(judge), "turn")
    assert "2 answered" in out or ("1 answered list" in out and "1 answered unknown" in out)
    replies = [m for m in outbox(judge) if "The games of" in m]
    assert len(replies) == 2
    assert all("spring" in m and "Auto-Submitted: auto-replied" in m for m in replies)
    assert any("named no game" in m for m in replies)
    gm("judge", str(judge), "turn")  # a rerun answers nothing twice
    assert len([m for m in outbox(judge) if "The games of" in m]) == 2


def test_messages_are_routed_by_game_line_and_by_plus_detail(tmp_path):
    judge = make_judge(tmp_path, "spring", "autumn")
    for game in ("spring", "autumn"):
        gm("-C", str(judge / "campaigns" / game), "start")
    drop(judge, "m1", mail("x@example.org", "GAME autumn\nHELP"))
    drop(judge, "m2", mail("y@example.org", "HELP", to="judge+spring@example.org"))
    out = gm("judge", str(judge), "turn")
    assert "2 routed" in out
    assert "spring: ingest: 1 new message" in out and "autumn: ingest: 1 new message" in out


def test_the_unasked_replies_to_one_address_are_capped_over_the_judge(tmp_path):
    judge = make_judge(tmp_path, "spring")
    for n in range(8):
        drop(judge, f"m{n}", mail(f"victim+{n}@example.org", f"LIST {n}"))
    out = gm("judge", str(judge), "turn")
    assert "5 answered list" in out and "3 capped" in out


def test_a_broken_game_is_reported_and_skipped_while_the_others_go_on(tmp_path):
    judge = make_judge(tmp_path, "aaa", "zzz")
    gm("-C", str(judge / "campaigns" / "zzz"), "start")
    gm("-C", str(judge / "campaigns" / "aaa"), "start")
    (judge / "campaigns" / "aaa" / "campaign.yaml").write_text("id: [broken\n")
    out = gm("judge", str(judge), "turn")
    assert "aaa: failed:" in out and "zzz: ingest:" in out and "failed and skipped: aaa" in out


def test_record_answers_the_sender_with_its_own_record_only(tmp_path):
    judge = make_judge(tmp_path, "spring")
    gm("-C", str(judge / "campaigns" / "spring"), "start")
    drop(judge, "m1", mail("alice@example.org", "RECORD"))
    gm("judge", str(judge), "turn")
    [reply] = [m for m in outbox(judge) if "Your record" in m]
    assert "To: alice@example.org" in reply and "games joined:      1" in reply


def test_the_site_lists_every_game_and_a_page_per_player_without_addresses(tmp_path):
    judge = make_judge(tmp_path, "spring")
    gm("-C", str(judge / "campaigns" / "spring"), "start")
    gm("judge", str(judge), "publish")
    index = (judge / "site" / "index.html").read_text()
    assert "spring" in index and "campaigns/spring/archive/index.html" in index
    page = (judge / "site" / "players" / "alice.html").read_text()
    assert "Alice" in page and "@" not in page
    assert "<feed" in (judge / "site" / "feed.xml").read_text()
