"""docs/audit.md: seats handed over in the audit record. The start's draws keep
the ids of `gm start` even when a seat changed hands before turn 1; an order a seat's new
holder inherits keeps its former holder's receipt, which that holder's mail proves; a
new holder who then writes supersedes it, which the audit says rather than fails."""

from __future__ import annotations

import re
from datetime import timedelta

from auditforger import gm_audit
from handoverkit import new_game, text_of

from gm.audit.replay import load_record
from gm.clock import iso, parse_time

BEFORE_TURN_1 = "2027-01-02T00:00:00Z"
REPLACED = "2027-01-03T00:00:00Z"
ERIN_WRITES = "2027-01-04T00:00:00Z"


def erins_password(game) -> str:
    welcome = game.outbox(kind="welcome", to="erin@example.org")[0]
    return re.search(r"Your password: (\S+)", text_of(welcome)).group(1)


def play_out(game, first: str = "2027-01-09T00:00:00Z") -> None:
    """Resolve turn after turn, a week apart, until the campaign is over; then mail it all,
    reveal and publish."""
    when = parse_time(first)
    while not game.state(iso(when))["over"]:
        game.gm("resolve", "--force", now=iso(when))
        when += timedelta(days=7)
    for command in ("send", "reveal", "publish"):
        game.gm(command, now=iso(when))


def test_5_a_seat_handed_over_before_turn_1_keeps_the_start_s_ids_in_its_draws(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "classic", options={"max_turns": 4})
    assert "1 applied" in game.order("bob", "RESIGN NONE", now=BEFORE_TURN_1)
    game.gm("player", "replace", "bob", "erin", "--name", "Erin", "--email", "erin@example.org", now=REPLACED)
    play_out(game)
    record = load_record(str(game.folder / "archive"))
    assert record["players"] == ["alice", "bob", "carol"] and record["opening"]["players"] == ["alice", "erin", "carol"]
    assert any(d["key"] == "bob/1" for d in record["opening"]["draws"])  # the order of play, thrown at gm start
    assert record["seats"][1] == [{"player": "bob", "from_turn": 1, "until_turn": 0, "dropped_turn": None},
                                  {"player": "erin", "from_turn": 1, "until_turn": None, "dropped_turn": None}]
    assert record["turns"][0]["receipts"]["erin"]["player"] == "bob"
    result = gm_audit(game.folder / "archive", "--mail", game.folder / "mail" / "outbox")
    assert result.exit_code == 0, result.output
    assert "with the mail given: the orders played: the last acknowledgement of 1 player and turn" in result.output


def test_5_a_new_holder_s_own_order_supersedes_her_predecessor_s_acknowledgement(tmp_path, monkeypatch):
    game = new_game(tmp_path, monkeypatch, "postal", options={"max_turns": 3})
    assert "1 applied" in game.order("bob", "NUMBER 2", now=BEFORE_TURN_1)
    game.gm("player", "replace", "bob", "erin", "--name", "Erin", "--email", "erin@example.org", now=REPLACED)
    assert "1 applied" in game.order("erin", "NUMBER 5", now=ERIN_WRITES, password=erins_password(game))
    play_out(game)
    record = load_record(str(game.folder / "archive"))
    assert record["turns"][0]["receipts"]["erin"] | {"receipt": ""} == {"player": "erin", "count": 1, "receipt": ""}
    bobs = game.folder.parent / "bob.eml"  # bob's mail alone: his acknowledgement gave way to erin's order
    bobs.write_bytes(bytes(next(m for m in game.outbox(kind="ack", to="bob@example.org"))))
    result = gm_audit(game.folder / "archive", "--mail", bobs)
    assert result.exit_code == 0, result.output
    assert "bob's last order for turn 1" in result.output and "gave way to one erin sent" in result.output
    everyone = gm_audit(game.folder / "archive", "--mail", game.folder / "mail" / "outbox")
    assert everyone.exit_code == 0 and "gave way" not in everyone.output


def test_5_a_new_holder_s_acknowledgement_is_after_her_predecessor_s_even_in_the_same_second(tmp_path, monkeypatch):
    """Counts start again for each writer, and one clock second can hold bob's last
    acknowledgement and erin's first: erin's is the later (bob's password stopped working
    when she took the seat), so the audit proves the order played from everyone's mail."""
    game = new_game(tmp_path, monkeypatch, "postal", options={"max_turns": 3})
    assert "1 applied" in game.order("bob", "NUMBER 2", now=REPLACED)
    game.gm("player", "replace", "bob", "erin", "--name", "Erin", "--email", "erin@example.org", now=REPLACED)
    assert "1 applied" in game.order("erin", "NUMBER 5", now=REPLACED, password=erins_password(game))
    play_out(game)
    acks = game.outbox(kind="ack")
    assert len({str(m["Date"]) for m in acks}) == 1  # the same second
    everyone = gm_audit(game.folder / "archive", "--mail", game.folder / "mail" / "outbox")
    assert everyone.exit_code == 0, everyone.output
    assert "gave way" not in everyone.output
    assert "the last acknowledgement of 1 player and turn" in everyone.output  # erin's, turn 1
