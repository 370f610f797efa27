"""The Long jump house ruleset (examples/long-jump), written from docs/plugins.md alone.

Installs the package as the page says (pip, editable, into the running environment, when
absent), then plays its rules core with chosen and seeded dice, `gm demo --ruleset
longjump` and a whole campaign by mail on the Maildir transport, each audited.
"""

from __future__ import annotations

import email.utils
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "examples" / "long-jump"
GM = str(Path(sys.executable).with_name("gm"))


def _installed() -> bool:
    return any(ep.name == "longjump" for ep in importlib.metadata.entry_points(group="gm.rulesets"))


@pytest.fixture(scope="module", autouse=True)
def long_jump_installed() -> None:
    if not _installed():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--no-deps", "-e", str(PACKAGE)], check=True)
        importlib.invalidate_caches()
    assert _installed()


# --- the rules core ----------------------------------------------------------------------


def _game(squares: int = 30, ladders=(), snakes=(), players=("ann", "ben", "cat"), **options):
    import long_jump

    from gm.rules.base import Setup

    rules = long_jump.LongJump()
    with tempfile.TemporaryDirectory() as folder:  # a board file, read as gm reads one
        path = Path(folder) / "board.yaml"
        path.write_text(f"squares: {squares}\nladders: {[list(x) for x in ladders]}\n"
                        f"snakes: {[list(x) for x in snakes]}\n")
        board = rules.read_board(path)
    setup = Setup(boards={"A": board}, players=tuple(players),
                  options=long_jump.LongJumpOptions(**options), seed=20270301,
                  player_keys={p: {} for p in players})
    return long_jump, rules, setup


def _dice(*faces_by_player: tuple[str, tuple[int, ...]]):
    """A ScriptedChance throwing the given faces for each player, in order, turn after turn."""
    from gm.rules.chance import ScriptedChance

    queues = {player: list(faces) for player, faces in faces_by_player}

    def script(turn, kind, key, candidates):
        assert kind == "dice"
        return queues[key.split("/")[0]].pop(0)

    return ScriptedChance(script)


def _start(rules, setup):
    from gm.rules.chance import SeededChance

    return rules.start(setup, SeededChance(setup.seed)).state


def test_a_made_jump_takes_the_ladder_and_a_fault_stays():
    lj, rules, setup = _game(ladders=[(5, 14)], players=("ann", "ben"))
    state = _start(rules, setup)
    orders = {"ann": lj.LongJumpOrder(5), "ben": lj.LongJumpOrder(9)}
    out = rules.resolve(setup, state, orders, _dice(("ann", (2, 3)), ("ben", (4, 4))))
    ann, ben = out.events
    assert (ann.made, ann.dice, ann.landed, ann.end, ann.faults) == (True, (2, 3), 5, 14, 0)
    assert (ben.made, ben.dice, ben.end, ben.faults) == (False, (4, 4), 0, 1)
    assert out.state.squares == {"ann": 14, "ben": 0} and out.state.faults == {"ann": 0, "ben": 1}
    assert out.state.turn == 2 and not out.state.over


def test_a_silent_player_jumps_two():
    lj, rules, setup = _game(players=("ann",))
    out = rules.resolve(setup, _start(rules, setup), {}, _dice(("ann", (1, 1))))
    (jump,) = out.events
    assert (jump.asked, jump.silent, jump.made, jump.end) == (2, True, True, 2)


def test_three_faults_in_a_row_send_the_piece_to_start_and_clear_the_count():
    lj, rules, setup = _game(players=("ann",))
    state = _start(rules, setup)
    state = rules.resolve(setup, state, {"ann": lj.LongJumpOrder(6)}, _dice(("ann", (3, 3)))).state
    assert state.squares["ann"] == 6
    seen = []
    for _ in range(3):
        out = rules.resolve(setup, state, {"ann": lj.LongJumpOrder(12)}, _dice(("ann", (6, 5))))
        state = out.state
        seen.append((out.events[0].faults, out.events[0].back_to_start, state.squares["ann"]))
    assert seen == [(1, False, 6), (2, False, 6), (0, True, 0)]
    assert state.faults["ann"] == 0


def test_a_made_jump_clears_the_faults():
    lj, rules, setup = _game(players=("ann",))
    state = _start(rules, setup)
    for faces, n in (((1, 1), 12), ((1, 1), 12), ((6, 6), 12), ((1, 1), 12), ((1, 2), 12)):
        state = rules.resolve(setup, state, {"ann": lj.LongJumpOrder(n)}, _dice(("ann", faces))).state
    assert (state.squares["ann"], state.faults["ann"]) == (12, 2)


def test_finishing_in_the_same_turn_shares_the_placing():
    lj, rules, setup = _game(squares=20, players=("ann", "ben", "cat"))
    state = _start(rules, setup)
    state = rules.resolve(setup, state, {p: lj.LongJumpOrder(10) for p in setup.players},
                          _dice(("ann", (5, 5)), ("ben", (5, 5)), ("cat", (5, 5)))).state
    orders = {"ann": lj.LongJumpOrder(12), "ben": lj.LongJumpOrder(10), "cat": lj.LongJumpOrder(4)}
    out = rules.resolve(setup, state, orders, _dice(("ann", (6, 6)), ("ben", (6, 4)), ("cat", (2, 2))))
    assert out.state.placings == {"ann": 1, "ben": 1, "cat": None}
    assert [(e.player, e.placing) for e in out.events if e.kind == "placed"] == [("ann", 1), ("ben", 1)]
    out = rules.resolve(setup, out.state, {"cat": lj.LongJumpOrder(6)}, _dice(("cat", (3, 3))))
    assert out.state.placings == {"ann": 1, "ben": 1, "cat": 3} and out.state.over


def test_max_turns_places_the_rest_by_square_ties_shared():
    lj, rules, setup = _game(squares=50, players=("ann", "ben", "cat", "dan"), max_turns=1)
    orders = {"ann": lj.LongJumpOrder(8), "ben": lj.LongJumpOrder(8), "cat": lj.LongJumpOrder(3)}
    out = rules.resolve(setup, _start(rules, setup), orders,
                        _dice(("ann", (4, 4)), ("ben", (6, 6)), ("cat", (1, 2)), ("dan", (1, 1))))
    assert out.state.over and out.state.placings == {"ann": 1, "ben": 1, "cat": 3, "dan": 4}


def test_end_places_as_max_turns_would():
    lj, rules, setup = _game(squares=50, players=("ann", "ben"))
    state = rules.resolve(setup, _start(rules, setup), {"ann": lj.LongJumpOrder(8)},
                          _dice(("ann", (4, 4)), ("ben", (1, 1)))).state
    out = rules.end(setup, state)
    assert out.state.over and out.state.turn == state.turn and out.state.placings == {"ann": 1, "ben": 2}


def test_options_are_checked():
    import long_jump

    from gm.rules import OptionsError

    with pytest.raises(OptionsError):
        long_jump.LongJumpOptions(max_jump=13)
    assert long_jump.LongJumpOptions() == long_jump.LongJumpOptions(max_turns=40, max_jump=12)


def _seeded_game(seed: int):
    from gm.rules.chance import SeededChance

    lj, rules, setup = _game(squares=60, ladders=[(4, 15), (31, 42)], snakes=[(24, 9), (58, 40)],
                             players=("ann", "ben", "cat", "dan"))
    state = rules.start(setup, SeededChance(seed)).state
    history = []
    while not state.over:
        orders = {p: lj.LongJumpOrder(2 + (state.turn + i) % 9) for i, p in enumerate(setup.players)
                  if p != "dan" or state.turn % 3}
        out = rules.resolve(setup, state, orders, SeededChance(seed))
        history.append(out)
        state = out.state
    return rules, setup, history


def test_seeded_play_to_the_end_and_its_replay_is_equal():
    rules, setup, history = _seeded_game(1234567)
    final = history[-1].state
    assert final.over and all(p is not None for p in final.placings.values())
    assert len(history) <= setup.options.max_turns
    assert any(not e.made for out in history for e in out.events if e.kind == "jumped")
    assert _seeded_game(1234567)[2] == history
    for out in history:  # what gm stores reads back equal
        assert rules.load_state(rules.dump_state(out.state)) == out.state


# --- gm demo and a campaign by mail -----------------------------------------------------------


def _gm(campaign: Path | None, *args: str, now: str | None = None, check: bool = True):
    env = dict(os.environ)
    env.pop("GM_NOW", None)
    if now:
        env["GM_NOW"] = now
    command = [GM, *(["-C", str(campaign)] if campaign else []), *args]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, (command, result.stdout, result.stderr)
    return result


def test_gm_demo_plays_to_the_end_and_its_archive_passes_the_audit(tmp_path):
    demo = tmp_path / "demo"
    result = _gm(None, "demo", str(demo), "--ruleset", "longjump", "--quiet")
    assert "Final standings" in result.stdout
    assert json.loads(_gm(demo, "state", "--json").stdout)["over"]
    assert "Every jump" in (demo / "archive" / "turn-001.html").read_text()
    _gm(None, "audit", str(demo / "archive"))


PLAYERS = (("ann", "ann@example.org", "ann-secret-41"), ("ben", "ben@example.org", "ben-secret-42"),
           ("cat", "cat@example.org", "cat-secret-43"))


def _campaign(folder: Path) -> None:
    (folder / "boards").mkdir(parents=True)
    (folder / "boards" / "pit.yaml").write_text(
        "name: A short pit\nsquares: 30\nladders: [[3, 12], [14, 22]]\nsnakes: [[19, 6], [27, 17]]\n")
    players = "".join(f"  - {{id: {p}, name: {p.title()}, email: {mail}, password: \"{pw}\"}}\n"
                      for p, mail, pw in PLAYERS)
    (folder / "campaign.yaml").write_text(
        "id: jump-2027\ntitle: Long Jump 2027\nruleset: longjump\nseed: 98765432109876543210987654321\n"
        "boards:\n  A: boards/pit.yaml\nplayers:\n" + players +
        "options:\n  max_turns: 12\n  max_jump: 10\n"
        "first_deadline: \"2027-03-01 18:00\"\ntimezone: UTC\nturn_days: 7\n"
        "mail:\n  transport: maildir\n  from: \"Jump GM <gm@example.org>\"\n")


def _drop_mail(folder: Path, name: str, sender: str, body: str, received: datetime) -> None:
    """A message delivered into the campaign's inbox (mail/inbox/new), received at `received`."""
    new = folder / "mail" / "inbox" / "new"
    new.mkdir(parents=True, exist_ok=True)
    text = (f"From: {sender}\nTo: gm@example.org\nSubject: orders\n"
            f"Date: {email.utils.format_datetime(received)}\n"
            f"Message-ID: <{name}@example.org>\nContent-Type: text/plain; charset=utf-8\n\n{body}\n")
    path = new / f"{name}.eml"
    path.write_text(text)
    os.utime(path, (received.timestamp(), received.timestamp()))


def _deadline(state: dict) -> datetime:
    return datetime.fromisoformat(state["deadline"].replace("Z", "+00:00")).astimezone(UTC)


def test_a_campaign_by_mail_on_the_maildir_transport_to_the_end_and_audited(tmp_path):
    folder = tmp_path / "jump"
    _campaign(folder)
    _gm(folder, "start", now="2027-02-20T12:00Z")
    _gm(folder, "send", now="2027-02-20T12:01Z")
    refused = False
    for _ in range(20):
        state = json.loads(_gm(folder, "state", "--json").stdout)
        if state["over"]:
            break
        turn, deadline = state["turn"], _deadline(state)
        board = state["boards"]["A"]
        for i, (player, mail, password) in enumerate(PLAYERS):
            piece = board["players"][player]
            if piece["finished"] or (player == "cat" and turn % 2 == 0):
                continue  # cat is silent every other turn: a jump of 2
            if player == "ben" and not refused:  # a wrong JUMP is refused, then corrected
                _drop_mail(folder, f"t{turn}-{player}-bad", mail,
                           f"PLAYER {player}\nPASSWORD {password}\nTURN {turn}\nJUMP 11",
                           deadline - timedelta(hours=3))
                refused = True
            n = 4 + (turn + i) % 5
            _drop_mail(folder, f"t{turn}-{player}", mail,
                       f"GAME jump-2027\nPLAYER {player}\nPASSWORD {password}\nTURN {turn}\nJUMP {n}",
                       deadline - timedelta(hours=2))
        now = (deadline + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%MZ")
        _gm(folder, "turn", now=now)
        assert json.loads(_gm(folder, "state", "--json").stdout)["turn"] == turn + 1
    state = json.loads(_gm(folder, "state", "--json").stdout)
    assert state["over"] and all(p["place"] for p in state["players"].values())
    assert set(state["faults"]) == {"ann", "ben", "cat"}

    outbox = "\n".join(p.read_text(errors="replace") for p in (folder / "mail" / "outbox" / "new").iterdir())
    assert "JUMP needs a whole number of squares from 2 to 10" in outbox  # the refusal, in our words
    assert "faults in a row" in outbox  # the reports tell every piece's faults

    _gm(folder, "reveal", now="2027-06-01T12:00Z")
    archive = folder / "archive"
    turn_page = (archive / "turn-001.html").read_text()
    assert "Every jump" in turn_page and "JUMP " in turn_page and "made" in turn_page
    rules_page = (archive / "rules.html").read_text()
    assert "Long jump" in rules_page and "Third fault in a row" in rules_page
    _gm(None, "audit", str(archive))


def test_undo_and_gm_end_replay_in_the_audit(tmp_path):
    folder = tmp_path / "ended"
    _campaign(folder)
    _gm(folder, "start", now="2027-02-20T12:00Z")
    _gm(folder, "resolve", "--force", now="2027-02-21T12:00Z")
    _gm(folder, "undo", now="2027-02-21T12:05Z")
    _gm(folder, "resolve", "--force", now="2027-02-21T12:10Z")
    _gm(folder, "end", "--reason", "a test", now="2027-02-22T12:00Z")
    state = json.loads(_gm(folder, "state", "--json").stdout)
    assert state["over"] and state["end"]["by"] == "gm" and state["turn"] == 2
    assert sorted(p["place"] for p in state["players"].values())[0] == 1
    _gm(folder, "reveal", now="2027-02-22T12:05Z")
    _gm(None, "audit", str(folder / "archive"))
