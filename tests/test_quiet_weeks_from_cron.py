"""A quiet week in a ruleset where silence is a legal order (advanced: no order means MOVE;
classic and doubles: nobody has to write; the example plugins: a silent pig holds, a silent
long jumper jumps 2) is no sign of an unread mailbox: `gm turn` from cron resolves it at
its deadline and exits 0. Where silence is a missed move (postal's NMR number, unleashed's
NMR round), more than half of the orders missing still stops the turn (exit 1) for the GM
to look. Either way `gm status` says beforehand what `gm turn` will do."""

from __future__ import annotations

import pytest
from handoverkit import new_game

from gm.rules.registry import find_ruleset

AFTER = "2027-01-08T00:05:00Z"
# one player of three writes; the other two say nothing
ONE_ORDER = {"advanced": "MOVE", "pig": "HOLD", "longjump": "JUMP 3", "classic": None, "doubles": None}


@pytest.mark.parametrize("ruleset", sorted(ONE_ORDER))
def test_gm_turn_resolves_a_quiet_week_where_silence_is_an_order_and_exits_0(tmp_path, monkeypatch, ruleset):
    assert find_ruleset(ruleset).silence_is_order
    game = new_game(tmp_path, monkeypatch, ruleset)
    for week in range(3):
        deadline = f"2027-01-{8 + 7 * week:02d}T00:00:00Z"
        if ONE_ORDER[ruleset]:
            game.order("alice", ONE_ORDER[ruleset], now=f"2027-01-{6 + 7 * week:02d}T10:00:00Z")
        after = deadline.replace("00:00:00Z", "00:05:00Z")
        status = game.gm("status", now=after)
        assert f"gm turn: resolves turn {week + 1}" in status
        lines = game.gm("turn", now=after).splitlines()  # exit 0, or the kit fails the test
        assert lines[1].startswith(f"resolve: turn {week + 1} resolved"), lines


@pytest.mark.parametrize(("ruleset", "order"), [("postal", "NUMBER 3"), ("unleashed", "PLAY NONE")])
def test_where_silence_is_a_missed_move_most_orders_missing_stop_the_turn_and_gm_status_says_so(
        tmp_path, monkeypatch, ruleset, order):
    assert not find_ruleset(ruleset).silence_is_order
    # unleashed's items placed by seeded picks: turn 1 is round 1
    game = new_game(tmp_path, monkeypatch, ruleset, options={"setup": "random"} if ruleset == "unleashed" else None)
    game.order("alice", order, now="2027-01-06T10:00:00Z")
    assert "gm turn: not yet: turn 1 waits for bob, carol" in game.gm("status", now="2027-01-07T10:00:00Z")
    status = game.gm("status", now=AFTER)
    assert "gm turn: refuses turn 1: 2 of the 3 players who must send an order have none" in status
    lines = game.gm("turn", now=AFTER, code=1).splitlines()
    assert lines[1].startswith("resolve: refused: 2 of the 3 players who must send an order have none")
    assert "gm turn: refuses turn 1" in game.gm("status", now=AFTER)  # still: nothing was resolved
