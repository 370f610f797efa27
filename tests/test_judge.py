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


def test_a_game_not_yet_started_is_said_to_wait_for_its_start_not_to_have_failed(tmp_path):
    """A game as `gm campaign new` writes it (its sign-up block a comment) waits for gm start."""
    judge = make_judge(tmp_path, "spring")
    out = gm("judge", str(judge), "turn")
    assert "spring: not started (gm -C ... start)" in out
    assert "failed" not in out


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
    again = gm("judge", str(judge), "turn")  # each message is handed over once
    assert "judge ingest: no new mail" in again and "spring: ingest: no new mail" in again


def test_a_players_own_mail_from_a_game_is_not_counted_in_the_judges_caps(tmp_path):
    """Only unasked replies count towards the five a day to one address: alice's welcome
    and new passwords were hers, so her LIST is still answered."""
    judge = make_judge(tmp_path, "spring")
    game = str(judge / "campaigns" / "spring")
    gm("-C", game, "start")
    for _ in range(4):
        gm("-C", game, "player", "password", "alice")
    gm("-C", game, "send")
    assert sum("To: alice@example.org" in m for m in outbox(judge)) == 5
    drop(judge, "m1", mail("alice@example.org", "LIST"))
    out = gm("judge", str(judge), "turn")
    assert "1 answered list" in out and "capped" not in out


def test_the_judges_unasked_replies_in_all_are_capped_at_caps_unasked_per_day(tmp_path):
    judge = make_judge(tmp_path, "spring")
    (judge / "judge.yaml").write_text((judge / "judge.yaml").read_text() + "caps: {unasked_per_day: 2}\n")
    for n in range(4):
        drop(judge, f"m{n}", mail(f"stranger{n}@example.org", "LIST"))
    out = gm("judge", str(judge), "turn")
    assert "2 answered list" in out and "2 capped" in out


def flooded(tmp_path: Path) -> tuple[Path, str]:
    """A judge sent eight LIST mails from one address (+tags aside) and run: the judge and
    its output."""
    judge = make_judge(tmp_path, "spring")
    for n in range(8):
        drop(judge, f"m{n}", mail(f"victim+{n}@example.org", f"LIST {n}"))
    return judge, gm("judge", str(judge), "turn")


def test_the_unasked_replies_to_one_address_are_capped_over_the_judge(tmp_path):
    _, out = flooded(tmp_path)
    assert "5 answered list" in out and "3 capped" in out


def test_a_broken_game_is_reported_and_skipped_while_the_others_go_on(tmp_path):
    judge = make_judge(tmp_path, "aaa", "zzz")
    gm("-C", str(judge / "campaigns" / "zzz"), "start")
    gm("-C", str(judge / "campaigns" / "aaa"), "start")
    (judge / "campaigns" / "aaa" / "campaign.yaml").write_text("id: [broken\n")
    out = gm("judge", str(judge), "turn")
    assert "aaa: failed:" in out and "zzz: ingest:" in out and "failed and skipped: aaa" in out
    status = gm("judge", str(judge), "status")
    assert "aaa: broken" in status and "zzz: running, turn 1" in status and "orders in 0 of 3" in status


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


def test_signup_min_ontime_refuses_a_join_from_an_address_often_late_in_the_judges_games(tmp_path):
    from gm.campaign.config.values import SignupConfig
    from gm.campaign.record import MIN_DUE, Record, below_min_ontime

    judge = make_judge(tmp_path, "spring")
    assert below_min_ontime(judge, "alice@example.org", 0.8) is None  # no turns due yet
    assert below_min_ontime(None, "alice@example.org", 0.8) is None  # a standalone campaign
    assert SignupConfig().min_ontime is None
    assert Record(due=MIN_DUE, on_time=5).on_time_share == 0.5


def test_the_judges_own_replies_are_automatic_replies_threaded_to_the_message(tmp_path):
    judge = make_judge(tmp_path, "spring")
    drop(judge, "m1", mail("dave@example.org", "LIST", msgid="<asked@x>"))
    gm("judge", str(judge), "turn")
    [reply] = outbox(judge)
    assert "Auto-Submitted: auto-replied" in reply and "In-Reply-To: <asked@x>" in reply
    assert "To: dave@example.org" in reply


def test_auto_replies_and_the_judges_own_mail_are_never_answered(tmp_path):
    judge = make_judge(tmp_path, "spring")
    drop(judge, "m1", "From: bot@example.org\nTo: judge@example.org\nAuto-Submitted: auto-replied\n"
                      "Message-ID: <b@x>\n\nLIST\n")
    drop(judge, "m2", mail("judge@example.org", "LIST"))
    out = gm("judge", str(judge), "turn")
    assert "2 kept unanswered" in out and outbox(judge) == []


def _past_game(judge: Path, address: str, due: int, on_time: int) -> None:
    """A finished game of the judge's in which `address` had `due` turns and ordered `on_time`."""
    import sqlite3

    folder = judge / "campaigns" / "old"
    folder.mkdir()
    (folder / "campaign.yaml").write_text("id: old\n")
    conn = sqlite3.connect(folder / "gm.sqlite")
    conn.executescript("create table players (id, name, email, seat, from_turn, until_turn, dropped_turn);"
                       "create table turns (turn); create table orders (turn, player, message);"
                       "create table campaign (state, ended);")
    conn.execute("insert into players values ('late', 'Late', ?, 0, 1, null, null)", (address,))
    conn.executemany("insert into turns values (?)", [(t,) for t in range(1, due + 1)])
    conn.executemany("insert into orders values (?, 'late', 1)", [(t,) for t in range(1, on_time + 1)])
    conn.execute("insert into campaign values ('{\"over\": true}', null)")
    conn.commit()
    conn.close()


def test_a_join_from_an_address_below_min_ontime_is_refused_saying_why(tmp_path):
    from gm.campaign.record import below_min_ontime

    judge = make_judge(tmp_path, "open")
    yaml_path = judge / "campaigns" / "open" / "campaign.yaml"
    text = yaml_path.read_text()
    head, _, rest = text.partition("players:")
    yaml_path.write_text(head + "signup: {open: true, min_ontime: 0.8}\nplayers: []\n" +
                         rest.split("options:", 1)[1].join(["options:", ""]))
    _past_game(judge, "late@example.org", due=10, on_time=2)
    assert below_min_ontime(judge, "late@example.org", 0.8) == (0.2, 10)
    drop(judge, "m1", mail("late@example.org", "JOIN open\nNAME Late Larry"))
    drop(judge, "m2", mail("new@example.org", "JOIN open\nNAME New Nora"))
    out = gm("judge", str(judge), "turn")
    assert "2 routed" in out
    sent = outbox(judge)
    [late] = [m for m in sent if "To: late@example.org" in m]
    [new] = [m for m in sent if "To: new@example.org" in m]
    assert "on time" in late and "20%" in late
    assert "CONFIRM" in new


def test_a_judge_on_imap_fetches_each_message_once_into_its_inbox_timed_by_internaldate(tmp_path, monkeypatch):
    from datetime import UTC, datetime

    from gm.judge import imapfetch
    from gm.judge.layout import load_judge
    from gm.mail.imap import Fetched

    moved: list[list[int]] = []
    when = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)

    class FakeInbox:
        uidvalidity = 7

        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def uids(self):
            return [3, 4]

        def fetch(self, uids):
            yield [Fetched(uid, mail("dave@example.org", f"LIST {uid}").encode(), when) for uid in uids]

        def move_processed(self, uids):
            moved.append(list(uids))

    monkeypatch.setattr(imapfetch, "ImapInbox", FakeInbox)
    monkeypatch.setattr(imapfetch, "login_for", lambda *args: "secret")
    judge = load_judge(make_judge(tmp_path))
    assert imapfetch.fetch_into_inbox(judge) == 2
    box = judge.folder / "mail" / "inbox" / "new"
    assert sorted(os.listdir(box)) == ["imap-7-3", "imap-7-4"] and moved == [[3, 4]]
    assert os.path.getmtime(box / "imap-7-3") == when.timestamp()
    imapfetch.fetch_into_inbox(judge)  # the server's move was lost: the same files, not twice
    assert sorted(os.listdir(box)) == ["imap-7-3", "imap-7-4"]


def _signup_game(judge: Path, game: str) -> None:
    yaml_path = judge / "campaigns" / game / "campaign.yaml"
    head, _, rest = yaml_path.read_text().partition("players:")
    yaml_path.write_text(head + "signup: {open: true}\nplayers: []\n" + "options:" + rest.split("options:", 1)[1])


def test_a_confirm_goes_to_the_game_whose_code_it_is_and_a_reply_to_the_game_it_answers(tmp_path):
    import re

    judge = make_judge(tmp_path, "aaa", "open")
    gm("-C", str(judge / "campaigns" / "aaa"), "start")
    _signup_game(judge, "open")
    drop(judge, "m1", mail("nora@example.org", "JOIN open\nNAME Nora North"))
    gm("judge", str(judge), "turn")
    [code_mail] = [m for m in outbox(judge) if "To: nora@example.org" in m]
    code = re.search(r"CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})", code_mail).group(1)
    drop(judge, "m2", mail("nora@example.org", f"CONFIRM {code}"))
    out = gm("judge", str(judge), "turn")
    assert "1 routed" in out and "open: ingest: 1 new message" in out
    welcome_id = re.search(r"Message-ID: (<[^>]+>)", next(m for m in outbox(judge) if "To: alice@" in m)).group(1)
    drop(judge, "m3", f"From: alice@example.org\nTo: judge@example.org\nSubject: Re: welcome\n"
                      f"Message-ID: <r@x>\nIn-Reply-To: {welcome_id}\n\nHELP\n")
    out = gm("judge", str(judge), "turn")
    assert "1 routed" in out and "aaa: ingest: 1 new message" in out


def test_a_game_locked_by_another_command_is_reported_and_skipped(tmp_path, monkeypatch):
    from gm.campaign import store
    from gm.campaign.store import command_lock

    monkeypatch.setattr(store, "LOCK_WAIT_SECONDS", 0)
    judge = make_judge(tmp_path, "aaa", "zzz")
    for game in ("aaa", "zzz"):
        gm("-C", str(judge / "campaigns" / game), "start")
    with command_lock(judge / "campaigns" / "aaa"):
        out = gm("judge", str(judge), "turn")
    assert "aaa: failed:" in out and "zzz: ingest:" in out
