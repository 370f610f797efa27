"""A house ruleset is a package of its own. examples/pig-race (distribution
`gm-pig-race`, ruleset `pig`) is installed with pip like any plugin, found through its
`gm.rulesets` entry point, and played by gm's own layers: its rules core, its orders by
mail, its templates, rules page, boards and robots, the archive and the audit.

The rules core and the mail campaign pass with gm as it is; the parity tests (gm demo
--ruleset pig, rules.html, the archive's turn body, gm campaign new, gm audit) need gm to
find a plugin's templates, rules page and boards (docs/plugins.md)."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gm.boards.model import Board
from gm.mail.orderlang import parse_orders
from gm.rules import OptionsError, registry
from gm.rules.base import Setup
from gm.rules.chance import ReplayChance, ScriptedChance, SeededChance, pick_index

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pig-race"
SEED = 2**70 + 26


@pytest.fixture(scope="session", autouse=True)
def pig_installed():
    """gm-pig-race installed into gm's environment, as a GM installs a plugin (scripts/test
    installs it too; this covers a run without it)."""
    try:
        importlib.metadata.distribution("gm-pig-race")
    except importlib.metadata.PackageNotFoundError:
        install = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-e", str(EXAMPLE),
                   "-q"]
        done = subprocess.run(install, capture_output=True, text=True)
        if done.returncode != 0:  # no `wheel` in the environment: let pip build in isolation
            done = subprocess.run([a for a in install if a != "--no-build-isolation"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        importlib.invalidate_caches()
        # an editable install's path hook is read at interpreter start; this one started before it
        if importlib.util.find_spec("pig_race") is None:
            sys.path.append(str(EXAMPLE))
    yield


def rules():
    from pig_race import PigRace

    return PigRace()


def order(roll=None, hold=False):
    from pig_race import PigOrder

    return PigOrder(roll, hold)


def setup(board: Board, players=("ann", "ben", "cat"), seed=SEED, **options) -> Setup:
    return Setup({"A": board}, tuple(players), rules().parse_options(options), seed)


def scripted(faces: dict[str, int]) -> ScriptedChance:
    """Dice chosen by key (`ann/1`: ann's first die of the turn); the rest seeded."""
    return ScriptedChance(lambda turn, kind, key, candidates: faces.get(key))


def state_with(s: Setup, squares: dict[str, int], turn: int = 1):
    from pig_race import PigState

    return PigState(turn, False, dict(squares), {p: None for p in s.players})


# -- the entry point ------------------------------------------------------------------


def test_pig_is_found_by_the_entry_point_of_its_own_distribution():
    from pig_race import PigRace

    (point,) = [ep for ep in importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP) if ep.name == "pig"]
    assert point.value == "pig_race:PigRace" and point.dist.name == "gm-pig-race"
    assert importlib.metadata.version("gm-pig-race") == "0.1.0"
    assert isinstance(registry.find_ruleset("pig"), PigRace)
    assert "pig" in registry.known() and "pig" not in registry.BUILT_IN


def test_pig_ships_its_words_rules_page_and_starter_board_in_its_package():
    ruleset = rules()
    assert (Path(ruleset.templates) / "mail" / "pig" / "problems.txt").is_file()
    assert (Path(ruleset.templates) / "archive" / "pig" / "_turn_body.html").is_file()
    assert Path(ruleset.rules_page).read_text().startswith("# Pig race")
    board = ruleset.read_board(Path(ruleset.boards_folder) / ruleset.starter_board)
    assert 50 <= board.squares <= 100 and board.snakes and board.ladders


# -- the rules core -------------------------------------------------------------------


BOARD = Board.build(40, ladders=[(3, 14), (20, 31)], snakes=[(17, 6), (38, 22)])


def test_a_seeded_campaign_runs_to_its_end_and_replays_from_its_draws():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben", "cat", "dan"))
    state = ruleset.start(s, SeededChance(SEED)).state
    orders = {"ann": order(roll=5), "ben": order(roll=2), "cat": order(hold=True)}  # dan is silent
    while not state.over:
        outcome = ruleset.resolve(s, state, orders, SeededChance(SEED))
        assert ruleset.resolve(s, state, orders, ReplayChance(outcome.draws)) == outcome
        # rules.md: every die is dice/<player>/<i>, i from 1 in the turn, at sha256(seed:turn:kind:key) % 6
        for draw in outcome.draws:
            assert draw.kind == "dice" and draw.candidates == (1, 2, 3, 4, 5, 6) and draw.turn == state.turn
            assert draw.index == pick_index(SEED, draw.turn, "dice", draw.key, 6)
        assert not any(d.key.startswith(("cat/", "dan/")) for d in outcome.draws)  # HOLD throws nothing
        state = outcome.state
    assert state.turn - 1 <= 30  # max_turns' default
    assert all(state.placings[p] for p in s.players)
    finished = [p for p in s.players if state.squares[p] == 40]
    assert all(state.placings[p] <= len(finished) for p in finished)


def test_a_one_stops_the_roll_and_the_piece_does_not_move_that_turn():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben"))
    state = state_with(s, {"ann": 8, "ben": 8})
    outcome = ruleset.resolve(s, state, {"ann": order(roll=4), "ben": order(roll=2)},
                              scripted({"ann/1": 4, "ann/2": 1, "ben/1": 6, "ben/2": 5}))
    ann, ben = outcome.events[:2]
    assert ann.bust and ann.dice == (4, 1) and ann.end == 8 and outcome.state.squares["ann"] == 8
    assert [d.key for d in outcome.draws if d.key.startswith("ann")] == ["ann/1", "ann/2"]  # dice 3 and 4 never thrown
    assert not ben.bust and outcome.state.squares["ben"] == 19


def test_hold_moves_one_square_then_takes_the_ladder_there_and_a_silent_player_holds():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben", "cat"))
    state = state_with(s, {"ann": 2, "ben": 2, "cat": 9})
    outcome = ruleset.resolve(s, state, {"ann": order(hold=True), "cat": order(hold=True)}, SeededChance(SEED))
    assert outcome.state.squares == {"ann": 14, "ben": 14, "cat": 10}  # 2 -> 3, ladder to 14; ben said nothing
    ann, ben = outcome.events[:2]
    assert [(st.square, st.via) for st in ann.steps] == [(3, "hold"), (14, "ladder")]
    assert ben.silent and ben.order == "hold" and not ann.silent
    assert outcome.draws == ()


def test_a_roll_takes_the_snake_it_lands_on_once():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben"))
    state = state_with(s, {"ann": 12, "ben": 0})
    outcome = ruleset.resolve(s, state, {"ann": order(roll=1), "ben": order(hold=True)}, scripted({"ann/1": 5}))
    assert outcome.state.squares["ann"] == 6
    assert [(st.square, st.via) for st in outcome.events[0].steps] == [(17, "roll"), (6, "snake")]


def test_pieces_finishing_in_one_turn_share_the_placing_and_the_next_placing_skips():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben", "cat"))
    state = state_with(s, {"ann": 35, "ben": 39, "cat": 30})
    # ann passes 40 (35 + 3 + 4); ben holds onto 40 exactly; cat rolls 6 + 2 to 38, a snake's head
    one = ruleset.resolve(s, state, {"ann": order(roll=2), "ben": order(hold=True), "cat": order(roll=2)},
                          scripted({"ann/1": 3, "ann/2": 4, "cat/1": 6, "cat/2": 2}))
    assert one.state.placings == {"ann": 1, "ben": 1, "cat": None}
    assert one.state.squares == {"ann": 40, "ben": 40, "cat": 22} and not one.state.over
    assert ruleset.state_json(s, one.state)["boards"]["A"]["players"]["ann"] == {
        "square": 40, "finished": True, "placing": 1}
    two = ruleset.resolve(s, one.state, {"cat": order(roll=3)}, scripted({"cat/1": 6, "cat/2": 6, "cat/3": 6}))
    assert two.state.placings["cat"] == 3 and two.state.over
    assert [e.kind for e in two.events] == ["moved", "placed"]


def test_at_max_turns_the_pieces_still_racing_are_placed_by_square_ties_sharing():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben", "cat", "dan"), max_turns=1)
    state = state_with(s, {"ann": 39, "ben": 11, "cat": 11, "dan": 4})
    outcome = ruleset.resolve(s, state, {}, SeededChance(SEED))  # everyone silent: all hold
    assert outcome.state.over
    assert outcome.state.placings == {"ann": 1, "ben": 2, "cat": 2, "dan": 4}
    data = ruleset.state_json(s, outcome.state)
    assert data["players"]["dan"] == {"aggregate": 4, "place": 4}
    assert not data["boards"]["A"]["players"]["ben"]["finished"]


def test_options_default_to_30_turns_and_5_dice_and_bad_ones_are_refused():
    ruleset = rules()
    options = ruleset.parse_options({})
    assert (options.max_turns, options.max_dice) == (30, 5) and ruleset.option_keys == ("max_turns", "max_dice")
    assert ruleset.grammar(ruleset.parse_options({"max_dice": 3})).forms["ROLL"] == "ROLL <1-3>"
    with pytest.raises(OptionsError) as refused:
        ruleset.parse_options({"max_turns": 0, "max_dice": 11})
    assert refused.value.problems == ["option max_turns must be a whole number from 1 or more, not 0",
                                      "option max_dice must be a whole number from 1 to 10, not 11"]
    with pytest.raises(OptionsError) as refused:
        ruleset.parse_options({"max_dice": "many"})
    assert refused.value.problems == ["option max_dice must be a whole number, not 'many'"]


def test_state_orders_and_events_survive_their_json():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben"))
    outcome = ruleset.resolve(s, state_with(s, {"ann": 0, "ben": 0}), {"ann": order(roll=3)}, SeededChance(SEED))
    assert ruleset.load_state(json.loads(json.dumps(ruleset.dump_state(outcome.state)))) == outcome.state
    import dataclasses

    assert [ruleset.event_from_json(json.loads(json.dumps(dataclasses.asdict(e)))) for e in outcome.events] == list(
        outcome.events)
    for standing in (order(roll=4), order(hold=True), order()):
        assert ruleset.order_from_json(ruleset.order_to_json(standing)) == standing
    renamed = ruleset.rename_player(outcome.state, "ben", "bea")
    assert list(renamed.squares) == ["ann", "bea"] and renamed.squares["bea"] == outcome.state.squares["ben"]


# -- orders by mail -------------------------------------------------------------------


def read(text: str, **options):
    ruleset = rules()
    return parse_orders(text, grammar=ruleset.grammar(ruleset.parse_options(options) if options else None),
                        other_keywords=frozenset({"NUMBER"}))


def test_roll_and_hold_in_one_message_are_refused_on_the_second_line_in_the_plugins_words():
    from gm.mail.words import problem_text

    parsed = read("PLAYER ann\nPASSWORD pw\nROLL 3\nHOLD\n")
    assert not parsed.ok and [p.why.code for p in parsed.problems] == ["exclusive_commands"]
    assert problem_text("pig", parsed.problems[0].why) == (
        "line 4: HOLD and ROLL (line 3) in one message: a turn's order is ROLL or HOLD, not both")
    assert rules().grammar().alternatives == (("ROLL <1-5>", "HOLD"),)  # the help offers one or the other


def test_a_new_roll_or_hold_replaces_the_standing_other():
    ruleset = rules()
    s = setup(BOARD, ("ann", "ben"))
    state = state_with(s, {"ann": 0, "ben": 0})
    held, none = ruleset.merge(s, state, "ann", order(roll=3), read("PLAYER ann\nPASSWORD pw\nHOLD\n").commands)
    assert held == order(hold=True) and none == []
    rolled, none = ruleset.merge(s, state, "ann", held, read("PLAYER ann\nPASSWORD pw\nROLL 2\n").commands)
    assert rolled == order(roll=2) and none == []


def test_roll_takes_a_whole_number_of_dice_up_to_max_dice():
    from gm.mail.words import problem_text

    accepted = read("PLAYER ann\nPASSWORD pw\nROLL 5\n")
    assert [(c.keyword, c.value) for c in accepted.commands] == [("ROLL", 5)]
    refused = read("PLAYER ann\nPASSWORD pw\nROLL 4\n", max_dice=3)
    assert problem_text("pig", refused.problems[0].why) == (
        'line 3: ROLL needs a whole number of dice from 1 to 3, got "4"')
    bare = read("PLAYER ann\nPASSWORD pw\nHOLD 2\n")
    assert problem_text("pig", bare.problems[0].why) == 'line 3: HOLD takes no value, got "2": write HOLD alone'


# -- a whole campaign by mail through the CLI (Maildir transport, GM_NOW) ---------------

PLAYERS = {"ann": "pw-ann-1", "ben": "pw-ben-2", "cat": "pw-cat-3"}
LANE = "name: The Short Sty\nsquares: 24\nladders: [[3, 12], [9, 16]]\nsnakes: [[14, 5], [22, 10]]\n"
# cat's first message says ROLL and HOLD together: refused, so cat holds silently in turn 1
# (gm's guard refuses a turn that most of those who must write left silent, so cat writes after)
ORDERS = {"ann": "ROLL 5", "ben": "ROLL 2", "cat": "HOLD"}


@pytest.fixture(scope="module")
def by_mail(tmp_path_factory, pig_installed):
    """gm start, order mail dropped in the campaign's Maildir inbox, gm turn each week until
    the race is over, gm publish and gm reveal: nothing of gm changed for the plugin."""
    from maildirkit import START, MaildirGame

    folder = tmp_path_factory.mktemp("pig") / "sty"
    run = MaildirGame.create(folder, ruleset="pig", seed=SEED, board=LANE, board_file="sty.yaml", players=PLAYERS,
                             options={"max_turns": 12})
    run.gm("start", now=START)
    played = []  # each turn's orders, for the rules core to replay
    for week in range(1, 13):
        state = run.state()
        if state["over"]:
            break
        racing = [p for p in PLAYERS if not state["boards"]["A"]["players"][p]["finished"]]
        said = {p: ORDERS[p] for p in racing if week > 1 or p != "cat"}
        for player, text in said.items():
            run.mail(player, text)
        if week == 1:
            run.mail("cat", "ROLL 3", "HOLD")
        played.append(said)
        out = run.turn(week)
        assert f"turn {week} resolved" in out, out
    run.played = played
    run.gm("publish")
    run.gm("reveal")
    return run


def test_a_pig_campaign_by_mail_ends_as_the_rules_core_says(by_mail):
    ruleset = rules()
    s = Setup({"A": ruleset.read_board(by_mail.folder / "sty.yaml")}, tuple(PLAYERS),
              ruleset.parse_options({"max_turns": 12}), SEED)
    state = ruleset.start(s, SeededChance(SEED)).state
    for orders in by_mail.played:
        orders = {p: order(hold=True) if text == "HOLD" else order(roll=int(text.split()[1]))
                  for p, text in orders.items()}
        state = ruleset.resolve(s, state, orders, SeededChance(SEED)).state
    assert state.over
    final = by_mail.state()
    expected = ruleset.state_json(s, state)
    assert final["over"] and (final["turn"], final["boards"]) == (expected["turn"], expected["boards"])
    assert {p: (v["aggregate"], v["place"]) for p, v in final["players"].items()} == {
        p: (v["aggregate"], v["place"]) for p, v in expected["players"].items()}


def test_a_pig_campaign_by_mail_words_its_commands_and_refusals_from_the_plugin(by_mail):
    texts, kinds = by_mail.texts(), by_mail.kinds()
    assert {"welcome", "ack", "refusal", "report"} <= set(kinds), kinds
    assert any("ROLL <1-5>  or  HOLD" in t for t in texts)  # the plugin's commands reach its players
    # its reports tell each go in its own words (templates/mail/pig/_turn.txt)
    assert any("THE GOES, in order of play" in t and "- Cat had no order, so held: Start -> " in t for t in texts)
    assert any(re.search(r"^- Ann rolled [2-6, ]*1( of 5 dice)?: a 1, BUST: stays on ", t, re.MULTILINE) for t in texts)
    assert any("HOLD and ROLL (line 3) in one message: a turn's order is ROLL or HOLD, not both" in t for t in texts)
    assert not any("TRAPDOOR" in t or "NUMBER <" in t for t in texts)


# -- parity with a built-in ruleset: these need gm to find a plugin's files -----------


def test_the_archive_turn_page_is_the_plugins_own_turn_body(by_mail):
    page = (by_mail.folder / "archive" / "turn-001.html").read_text()
    assert '<h2 id="goes">The goes</h2>' in page
    assert "went bust this turn" in page.lower()
    assert 'HOLD <span class="muted">(no order)</span>' in page  # cat's refused message left it silent


def test_the_archive_rules_page_is_the_plugins_rules_md(by_mail):
    page = (by_mail.folder / "archive" / "rules.html").read_text()
    assert "Pig race" in page and "push-your-luck" in page and "a 1" in page.lower()


def test_a_pig_campaign_by_mail_passes_gm_audit_naming_its_distribution(by_mail):
    result = by_mail.gm("audit", str(by_mail.folder / "archive"), ok=False)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: sty (pig) replays exactly"), result.output
    record = json.loads(next((by_mail.folder / "archive").glob("audit*.json")).read_text())
    assert "gm-pig-race" in json.dumps(record)


def test_gm_campaign_new_writes_the_plugins_starter_board_and_options(tmp_path):
    from click.testing import CliRunner

    from gm.cli import cli

    result = CliRunner().invoke(cli, ["campaign", "new", str(tmp_path / "spring"), "--ruleset", "pig"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "spring" / "campaign.yaml").read_text()
    assert "ruleset: pig" in text and "max_dice: 5" in text and "boards/pig-sty.yaml" in text
    assert "The Pig Sty" in (tmp_path / "spring" / "boards" / "pig-sty.yaml").read_text()


@pytest.fixture(scope="module")
def demo(tmp_path_factory, pig_installed):
    from gm.demo.run import play

    folder = tmp_path_factory.mktemp("pigdemo") / "demo"
    lines: list[str] = []
    result = play(folder, ruleset="pig", echo=lines.append)
    return folder, result, lines


def test_gm_demo_plays_a_pig_race_with_the_plugins_robots(demo):
    from pig_race.robot import PigRobot

    folder, result, _ = demo
    from gm.campaign.folder import Campaign

    campaign = Campaign.open(folder)
    try:
        state = campaign.state_json()
    finally:
        campaign.close()
    assert state["over"]
    assert len(result.robots) == 6 and all(isinstance(r, PigRobot) for r in result.robots)
    assert all(r.read["report"] for r in result.robots)
    assert {r.appetite for r in result.robots} == {1, 2, 3, 4, 5}
    assert (folder / "archive" / "rules.html").is_file()


def test_a_demo_robot_sees_its_own_state_as_gm_state_json_gives_it(demo):
    _, result, _ = demo
    for robot in result.robots:  # as the last turn was written: its own square, the turn taking orders
        assert robot.state["ruleset"] == "pig" and robot.id in robot.state["players"]
        assert robot.state["boards"]["A"]["players"][robot.id]["square"] >= 0


def test_a_pig_demo_archive_passes_gm_audit(demo):
    from click.testing import CliRunner

    from gm.cli import cli

    folder, _, _ = demo
    result = CliRunner().invoke(cli, ["audit", str(folder / "archive")])
    assert result.exit_code == 0, result.output
    assert "replays exactly" in result.output


# -- board analysis (gm board analyze, gm board design) -------------------------------


def brute_force_expected_turns(board: Board, dice: int) -> float:
    """E[turns] of `always ROLL dice` for one player alone, from the rules core itself:
    every sequence of faces a turn can throw (stopping at a 1) played by pig_race.rules'
    own go from every square, its chance (1/6)^faces thrown, then (I - Q) E = 1 solved
    densely: nothing of gm's chain engine."""
    import itertools

    import numpy as np
    from pig_race import rules as core

    sequences = [seq for k in range(1, dice + 1) for seq in itertools.product(range(1, 7), repeat=k)
                 if (1 not in seq[:-1]) and (seq[-1] == 1 or k == dice)]
    n = board.squares
    q = np.zeros((n, n))
    for square in range(n):
        for seq in sequences:
            faces = {f"ann/{i}": face for i, face in enumerate(seq, 1)}
            move = core._go(1, "ann", square, order(roll=dice), n, board.jumps, scripted(faces), dice)
            assert move.dice == seq
            if not move.finished:
                q[square, move.end] += 6.0 ** -len(seq)
    return float(np.linalg.solve(np.eye(n) - q, np.ones(n))[0])


def test_pig_analysis_of_a_three_square_board_is_the_hand_computed_one():
    """N = 3, no items. ROLL 1 from Start: a 2 comes to square 2, 3-6 finish, a 1 stays;
    from 2 any face but 1 finishes. E2 = 1 + E2/6 = 6/5, E0 = 1 + E0/6 + E2/6 = 36/25.
    ROLL 2 finishes whenever no 1 shows (25/36): 36/25 too, so the tie goes to fewer
    dice; ROLL 3: 216/125. P(T = 1) under ROLL 1 is 4/6."""
    from pig_race.analysis import pig

    figures = pig(Board.build(3), until=1e-12)
    assert figures.dice == 1 and figures.policy == "always ROLL 1"
    assert figures.by_dice[1] == pytest.approx(36 / 25, rel=1e-12)
    assert figures.by_dice[2] == pytest.approx(36 / 25, rel=1e-12)
    assert figures.by_dice[3] == pytest.approx(216 / 125, rel=1e-12)
    assert figures.length.probabilities[1] == pytest.approx(4 / 6, rel=1e-12)
    mean = sum(t * p for t, p in enumerate(figures.length.probabilities))
    assert mean == pytest.approx(figures.length.expected, rel=1e-9)


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_pig_analysis_agrees_with_the_rules_core_played_face_by_face(dice):
    """The chain engine's expectation for each fixed ROLL n equals a brute force over
    every throw the rules core can make, on a board with ladders, snakes, a snake on the
    last square and a ladder up to it."""
    from pig_race.analysis import pig

    board = Board.build(30, ladders=[(3, 14), (20, 30)], snakes=[(17, 6), (29, 2), (25, 11)])
    figures = pig(board, until=1e-12)
    assert figures.by_dice[dice] == pytest.approx(brute_force_expected_turns(board, dice), rel=1e-9)
    mean = sum(t * p for t, p in enumerate(figures.length.probabilities))
    assert mean == pytest.approx(figures.length.expected, rel=1e-8)


def test_pig_policy_is_the_fastest_fixed_roll_and_the_designer_reads_the_same_number():
    ruleset = rules()
    board = ruleset.read_board(Path(ruleset.boards_folder) / ruleset.starter_board)
    figures = ruleset.board_figures(board, until=1e-3)
    finite = {d: e for d, e in figures.by_dice.items() if e is not None}
    assert set(figures.by_dice) == {1, 2, 3, 4, 5}
    assert figures.length.expected == min(finite.values()) == figures.by_dice[figures.dice]
    assert ruleset.board_expected(board) == figures.length.expected


def test_pig_analysis_says_when_a_piece_is_caught_for_good():
    """Squares 41-70 are snake heads falling 40: from Start to 40 every roll of up to five
    dice (2-30 squares) stays in 0-40 or falls back there, so no policy ever finishes.
    With heads on 41-46 alone, only ROLL 1 (2-6 squares) is caught; the policy is another."""
    from pig_race.analysis import pig

    caught = pig(Board.build(80, snakes=[(h, h - 40) for h in range(41, 71)]))
    assert caught.length.expected is None and caught.length.never == 1.0
    assert set(caught.by_dice.values()) == {None} and 40 in caught.length.caught_on
    assert caught.to_json()["never_finishes"] == 1.0
    partial = pig(Board.build(80, snakes=[(h, h - 40) for h in range(41, 47)]))
    assert partial.by_dice[1] is None and partial.dice != 1 and partial.length.expected is not None


def board_cli(*args: str):
    from click.testing import CliRunner

    from gm.cli import cli

    return CliRunner().invoke(cli, ["board", *args])


def pig_sty() -> str:
    return str(EXAMPLE / "pig_race" / "boards" / "pig-sty.yaml")


def test_gm_board_analyze_shows_pig_among_the_rulesets_with_its_policy():
    result = board_cli("analyze", pig_sty())
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    (pig_row,) = [line for line in lines if line.startswith("pig turns")]
    assert re.search(r"\d+\.\d\d \(\d+/\d+\)", pig_row)
    assert any("policy (fewest turns)" in line and "always ROLL 5" in line for line in lines)
    assert any(line.startswith("classic turns") for line in lines)


def test_gm_board_analyze_json_has_a_pig_key_and_ruleset_pig_alone_gives_the_same():
    whole = board_cli("analyze", "--json", pig_sty())
    assert whole.exit_code == 0, whole.output
    figures = json.loads(whole.output)["pig"]
    assert figures["policy"] == f"always ROLL {figures['dice']}"
    assert figures["expected_turns"] == figures["expected_turns_by_dice"][str(figures["dice"])]
    assert figures["median_turns"] <= figures["p90_turns"]
    alone = board_cli("analyze", "--json", "--ruleset", "pig", pig_sty())
    assert alone.exit_code == 0, alone.output
    assert json.loads(alone.output) == {"squares": 64, "pig": figures}
    table = board_cli("analyze", "--ruleset", "pig", pig_sty()).output
    assert "pig turns" in table and "classic" not in table and "one die" not in table


DESIGN = """\
name: Pig Pen
squares: 64
seed: 7
rules:
  - {{place: ladders, from: {{list: [4, 22]}}, to: {{squares: 10}}}}
  - {{place: snakes, random: {{count: [3, 6], shortest: 5, longest: 25, keep_free: 3}}}}
target:
  pig_expected_turns: {target}
"""


def test_gm_board_design_meets_a_pig_expected_turns_target(tmp_path):
    from pig_race.analysis import pig_expected_turns

    from gm.boards.board import load_board

    spec = tmp_path / "pen.yaml"
    spec.write_text(DESIGN.format(target="[9, 11]"))
    out = tmp_path / "pen-board.yaml"
    result = board_cli("design", str(spec), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "expected pig length" in result.output
    assert 9 <= pig_expected_turns(load_board(out)) <= 11
    spec.write_text(DESIGN.format(target="[1, 2]"))
    missed = board_cli("design", str(spec))
    assert missed.exit_code == 1
    assert missed.output.startswith("Error: ") and "target expected pig length 1..2 turns" in missed.output
