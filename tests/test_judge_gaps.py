"""A standalone campaign's own notifications (docs/campaign.md, notify): `notify:` in its
campaign.yaml is queued in its own store once and sent by `gm turn` until the endpoint takes
it; a failing endpoint is retried at the next run, never stops a turn, and `gm status` shows it."""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta
from pathlib import Path

from click.testing import CliRunner
from maildirkit import FIRST_DEADLINE, MaildirGame
from test_judge import _signup_game, drop, flooded, gm, mail, make_judge, outbox
from test_judge_webhooks import endpoint  # noqa: F401 - the fixture
from test_turn import all_orders_in

from gm.campaign.record import record_of
from gm.campaign.signup import unique
from gm.campaign.signup.codes import code_for
from gm.campaign.signup.unique import others_codes
from gm.cli import cli
from gm.judge.caps import open_places
from gm.judge.games import Game
from gm.judge.layout import load_judge
from gm.judge.site import players_of


def with_hook(campaign, url: str, fmt: str = "json") -> None:
    path = campaign.folder / "campaign.yaml"
    path.write_text(path.read_text() + f"notify:\n  webhooks:\n    - {{url: \"{url}\", format: {fmt}}}\n")


def test_a_standalone_campaigns_start_and_turn_are_posted_exactly_once_after_failures(campaign, endpoint):  # noqa: F811
    hook = endpoint(failures=1)
    with_hook(campaign, hook.url)
    first = campaign("turn", now="2027-01-02T11:00:00Z")  # the endpoint fails: the turn goes on
    assert "webhooks: 0 delivered, 1 kept for the next run" in first and "publish:" in first
    assert "webhook " + hook.url + ": start waiting after 1 tries (HTTP 500)" in \
        campaign("status", now="2027-01-02T11:01:00Z")
    all_orders_in(campaign)
    second = campaign("turn", now="2027-01-02T12:00:00Z")
    assert "webhooks: 2 delivered" in second
    campaign("turn", now="2027-01-02T12:05:00Z")  # nothing new: nothing posted again
    assert [(body["event"], body["turn"]) for body in hook.taken] == [("start", 1), ("turn", 1)]
    assert hook.taken[1]["campaign"] == "trio" and hook.taken[1]["url"] is None
    assert "waiting after" not in campaign("status", now="2027-01-02T12:06:00Z")


def test_a_standalone_campaigns_unreachable_endpoint_never_stops_the_turn(campaign):
    with_hook(campaign, "http://127.0.0.1:9/closed")
    all_orders_in(campaign)
    out = campaign("turn", now="2027-01-02T12:00:00Z")
    assert "resolve: turn 1" in out or "resolved" in out
    assert "kept for the next run" in out.splitlines()[-1]
    rows = sqlite3.connect(campaign.folder / "gm.sqlite").execute(
        "select event, turn, status from webhooks order by id").fetchall()
    assert rows == [("start", 0, "queued"), ("turn", 1, "queued")]


def test_a_campaign_without_notify_says_nothing_of_webhooks(campaign):
    out = campaign("turn", now="2027-01-02T11:00:00Z")
    assert "webhooks" not in out


def test_a_problem_in_judge_yaml_mail_read_by_a_game_is_said_against_judge_yaml(tmp_path):
    judge = make_judge(tmp_path, "spring")
    path = judge / "judge.yaml"
    path.write_text(path.read_text().replace("transport: maildir", "transport: pigeon"))
    result = CliRunner().invoke(cli, ["-C", str(judge / "campaigns" / "spring"), "status"])
    assert result.exit_code == 1
    assert f"{path}: line" in result.output and "mail transport must be maildir or imap+smtp" in result.output
    assert "campaign.yaml" not in result.output


def _code_in(judge, sender: str) -> str:
    [code_mail] = [m for m in outbox(judge) if f"To: {sender}" in m]
    return re.search(r"CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})", code_mail).group(1)


def test_a_games_sign_up_code_is_one_no_other_game_of_the_judge_issued(tmp_path):
    judge = make_judge(tmp_path, "aaa", "open")
    _signup_game(judge, "open")
    drop(judge, "m1", mail("nora@example.org", "JOIN open\nNAME Nora North"))
    gm("judge", str(judge), "turn")
    code = _code_in(judge, "nora@example.org").replace("-", "")
    # the judge's other games see it as taken; the game that issued it does not
    assert code in others_codes(judge, judge / "campaigns" / "aaa")
    assert code not in others_codes(judge, judge / "campaigns" / "open")


def test_a_sign_up_code_clashing_with_another_games_is_made_again_and_still_confirms(tmp_path, monkeypatch):
    class FirstTaken:
        """Another game holds the request's plain code (a 40-bit clash, forced here)."""

        asked = 0

        def __contains__(self, code):
            FirstTaken.asked += 1
            return FirstTaken.asked == 1

    monkeypatch.setattr(unique, "others_codes", lambda judge, folder: FirstTaken())
    judge = make_judge(tmp_path, "aaa", "open")
    _signup_game(judge, "open")
    drop(judge, "m1", mail("nora@example.org", "JOIN open\nNAME Nora North"))
    gm("judge", str(judge), "turn")
    code = _code_in(judge, "nora@example.org")
    db = sqlite3.connect(judge / "campaigns" / "open" / "gm.sqlite")
    [(message, salt)] = db.execute("select message, salt from signup_code_salts").fetchall()
    key = bytes.fromhex(db.execute("select key from signup_key").fetchone()[0])
    assert salt == 1 and code.replace("-", "") != code_for(key, message, "nora@example.org")
    drop(judge, "m2", mail("nora@example.org", f"CONFIRM {code}"))
    out = gm("judge", str(judge), "turn")
    assert "1 routed" in out and "open: ingest: 1 new message" in out
    assert db.execute("select count(*) from signups").fetchone()[0] == 1


def test_a_judges_game_counts_the_judges_own_list_replies_in_its_cap_to_one_address(tmp_path):
    judge = make_judge(tmp_path, "open")
    _signup_game(judge, "open")
    for i in range(5):
        drop(judge, f"l{i}", mail("dave+x@example.org", "LIST", msgid=f"<l{i}@x>"))
    assert "5 answered list" in gm("judge", str(judge), "turn")
    drop(judge, "j1", mail("dave@example.org", "JOIN open\nNAME Dave Dee"))
    gm("judge", str(judge), "turn")
    db = sqlite3.connect(judge / "campaigns" / "open" / "gm.sqlite")
    assert db.execute("select outcome from messages").fetchall() == [("capped",)]
    assert not [m for m in outbox(judge) if "To: dave@example.org" in m]


def test_the_judges_cap_in_all_grows_by_the_sign_up_places_open_across_its_games(tmp_path):
    judge = make_judge(tmp_path, "started", "open")
    gm("-C", str(judge / "campaigns" / "started"), "start")
    assert open_places(load_judge(judge)) == 0
    _signup_game(judge, "open")
    yaml_path = judge / "campaigns" / "open" / "campaign.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("signup: {open: true}", "signup: {open: true, max_players: 4}"))
    places = open_places(load_judge(judge))
    assert places == 4 + 4  # four places, and as many waiting
    drop(judge, "j1", mail("nora@example.org", "JOIN open\nNAME Nora North"))
    gm("judge", str(judge), "turn")
    drop(judge, "c1", mail("nora@example.org", f"CONFIRM {_code_in(judge, 'nora@example.org')}"))
    gm("judge", str(judge), "turn")
    assert open_places(load_judge(judge)) == places - 1


def test_the_gm_is_told_once_a_utc_day_when_a_judges_cap_holds_replies_back(tmp_path):
    judge, out = flooded(tmp_path)
    assert "5 answered list" in out and "3 capped" in out
    notes = [m for m in outbox(judge) if "Replies held back by the caps" in m]
    assert len(notes) == 1 and "To: judge@example.org" in notes[0] and "victim" not in notes[0]
    # the note names the judge's own status command, which counts them and says who sent them
    assert f"gm judge {judge} status" in " ".join(notes[0].split())
    status = gm("judge", str(judge), "status")
    assert "CAPS: 3 messages not answered past the judge's caps" in status
    assert {f"victim+{n}@example.org" for n in (5, 6, 7)} <= set(re.findall(r"from (\S+),", status))
    drop(judge, "m9", mail("victim+9@example.org", "LIST 9"))
    gm("judge", str(judge), "turn")
    assert len([m for m in outbox(judge) if "Replies held back by the caps" in m]) == 1


def test_the_judges_site_counts_a_players_turns_as_their_record_does(tmp_path):
    """docs/deployment.md, The player record: an order for the turn still open is not yet a
    turn ordered on time, on the player's page as in RECORD."""
    board = (Path(__file__).resolve().parent.parent / "boards" / "small.yaml").read_text()
    (tmp_path / "j" / "campaigns").mkdir(parents=True)
    game = MaildirGame.create(tmp_path / "j" / "campaigns" / "spring", ruleset="postal", seed=2**130 + 7,
                              board=board, players={"ann": "pw-ann", "bob": "pw-bob"})
    game.gm("start", now="2027-01-01T00:00:00Z")
    game.mail("ann", "NUMBER 1")
    game.mail("bob", "NUMBER 2")
    game.turn(1)
    game.mail("ann", "NUMBER 3")  # for turn 2, still open
    game.gm("ingest", now=(FIRST_DEADLINE + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    record = record_of(tmp_path / "j", "ann@example.org")
    [row] = players_of([Game("spring", game.folder, title="Spring", state="running")])["ann"]
    assert (row["due"], row["on_time"]) == (record.due, record.on_time) == (1, 1)
