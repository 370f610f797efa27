"""The ruleset interface a stranger implements from one page. A toy ("Hop")
declares only its dataclasses, start, resolve, grammar and standings; everything else
(options, storage, merge, who must write, views, archive) is gm's defaults. It returns no
draws, names two exclusive commands, and is played by mail through gm start, gm turn,
gm publish, gm reveal and gm audit."""

from __future__ import annotations

import email
import email.policy
import json
import random
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gm.boards.model import Board
from gm.cli import cli
from gm.mail.orderlang import parse_orders
from gm.mail.words import problem_text
from gm.rules import OptionsError, registry
from gm.rules.base import Outcome, Ruleset, Setup
from gm.rules.chance import Chance, ScriptedChance, SeededChance
from gm.rules.codec import from_json, to_json
from gm.rules.grammar import Command, CommandSpec, Grammar
from gm.rules.ranking import competition_places
from gm.rules.standings import BoardStanding, PieceStanding, PlayerStanding, Standings

# -- the toy -------------------------------------------------------------------------


@dataclass(frozen=True)
class HopOptions:
    max_turns: int = 20
    hold_step: int = 1


@dataclass(frozen=True)
class HopState:
    turn: int
    over: bool
    squares: Mapping[str, int]
    placings: Mapping[str, int | None]
    order: tuple[str, ...] = ()  # the seats in play order: renamed with the seat
    log: tuple[tuple[str, int], ...] = ()  # history: who moved how far, kept as it was


@dataclass(frozen=True)
class HopOrder:
    roll: bool = False
    hold: bool = False


@dataclass(frozen=True)
class Hopped:
    turn: int
    player: str
    start: int
    end: int
    kind: str = "hopped"


def _flag(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, bool]:
    return None, True


class Hop(Ruleset):
    """ROLL (a die, through gm's chance) or HOLD (a safe step); pass the last square to finish."""

    name = "hop"
    options_type = HopOptions
    state_type = HopState
    order_type = HopOrder
    event_types = (Hopped,)
    history_fields = ("log",)
    one_board = True

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        order = tuple(chance.pick(0, "order", "seats", [setup.players, tuple(reversed(setup.players))]))
        return Outcome(HopState(1, False, {p: 0 for p in setup.players}, {p: None for p in setup.players}, order), ())

    def grammar(self, options: Any = None) -> Grammar:
        return Grammar((CommandSpec("ROLL", "ROLL", _flag), CommandSpec("HOLD", "HOLD", _flag)),
                       exclusive=(("ROLL", "HOLD"),))

    def resolve(self, setup: Setup, state: HopState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        last = next(iter(setup.boards.values())).squares
        squares, placings, events, crossed, log = dict(state.squares), dict(state.placings), [], [], list(state.log)
        for player in state.order:
            if placings[player] is not None:
                continue
            order = orders.get(player, HopOrder())
            step = chance.roll(state.turn, player) if order.roll else setup.options.hold_step
            start, squares[player] = squares[player], squares[player] + step
            events.append(Hopped(state.turn, player, start, squares[player]))
            log.append((player, step))
            if squares[player] > last:
                crossed.append(player)
        placed = sum(p is not None for p in placings.values())
        placings |= dict.fromkeys(crossed, placed + 1)
        waiting = [p for p in setup.players if placings[p] is None]
        over = not waiting or state.turn >= setup.options.max_turns
        if over and waiting:
            placings |= competition_places({p: -squares[p] for p in waiting}, start=len(setup.players) - len(waiting) + 1)
        return Outcome(HopState(state.turn + 1, over, squares, placings, state.order, tuple(log)), tuple(events))

    def standings(self, setup: Setup, state: HopState) -> Standings:
        board_id, board = next(iter(setup.boards.items()))
        pieces = {p: PieceStanding(state.squares[p], state.squares[p] > board.squares, state.placings[p])
                  for p in setup.players}
        players = {p: PlayerStanding(state.placings[p] if state.over else None,
                                     state.placings[p] if state.over else None) for p in setup.players}
        return Standings(state.turn, state.over, {board_id: BoardStanding(board_id, board.squares, state.over, pieces)},
                         players)


SETUP = Setup({"A": Board.build(10)}, ("ann", "ben"), HopOptions(), 7)


@pytest.fixture
def hop_registered():
    registry.register(Hop)
    yield
    registry.unregister("hop")


# -- the role split and the defaults -------------------------------------------------


def test_base_still_exports_every_name_it_exported_before_the_role_split():
    import gm.rules.base as base

    for name in ("Setup", "Outcome", "ArchivePiece", "ArchiveBoard", "ArchiveStanding", "ArchiveTurn",
                 "ArchivePicture", "INLINE_PLAYERS", "renamed", "renamed_in", "last_resolved", "rules_end", "Ruleset"):
        assert hasattr(base, name), name


def test_ruleset_is_the_composition_of_its_roles_each_in_its_own_module():
    from gm.rules.roles.archive import ArchiveRules
    from gm.rules.roles.boards import BoardTools
    from gm.rules.roles.core import RulesCore
    from gm.rules.roles.mailviews import MailViews
    from gm.rules.roles.orders import OrdersByMail

    for role in (RulesCore, OrdersByMail, MailViews, ArchiveRules, BoardTools):
        assert issubclass(Ruleset, role)
    assert Ruleset.__abstractmethods__ == frozenset({"start", "resolve", "grammar"})


def test_options_come_from_the_options_dataclass_and_a_wrong_type_is_an_options_error():
    assert Hop.option_keys == ("max_turns", "hold_step")
    assert Hop().parse_options({"hold_step": 2}) == HopOptions(hold_step=2)
    with pytest.raises(OptionsError) as refused:
        Hop().parse_options({"max_turns": "ten", "hold_step": True})
    assert isinstance(refused.value, ValueError) and len(refused.value.problems) == 2
    assert "max_turns must be a whole number" in refused.value.problems[0]


def test_state_order_and_events_go_to_json_and_back_by_their_dataclasses():
    hop = Hop()
    state = HopState(3, False, {"ann": 4, "ben": 0}, {"ann": None, "ben": 1}, ("ben", "ann"), (("ann", 4),))
    assert hop.load_state(json.loads(json.dumps(hop.dump_state(state)))) == state
    assert hop.order_from_json(hop.order_to_json(HopOrder(roll=True))) == HopOrder(roll=True)
    assert hop.event_from_json({"turn": 1, "player": "ann", "start": 0, "end": 3, "kind": "hopped"}) == \
        Hopped(1, "ann", 0, 3)
    assert hop.empty_order() == HopOrder()


@dataclass(frozen=True)
class Inner:
    name: str
    size: float | None = None


@dataclass(frozen=True)
class Outer:
    inner: Inner
    by_square: Mapping[int, tuple[str, ...]]
    tags: frozenset[str] = field(default_factory=frozenset)
    maybe: Inner | None = None


def test_the_codec_reads_nested_dataclasses_optional_values_int_keys_and_frozensets():
    value = Outer(Inner("a", 2.5), {3: ("x", "y")}, frozenset({"b", "a"}))
    data = json.loads(json.dumps(to_json(value)))
    assert data["tags"] == ["a", "b"] and from_json(Outer, data) == value


def test_the_default_merge_sets_a_field_per_command_and_an_exclusive_command_clears_the_other():
    hop, state = Hop(), Hop().start(SETUP, SeededChance(7)).state
    rolled, problems = hop.merge(SETUP, state, "ann", HopOrder(), [Command(4, "ROLL", "ROLL", None, True)])
    assert rolled == HopOrder(roll=True) and problems == []
    held, _ = hop.merge(SETUP, state, "ann", rolled, [Command(4, "HOLD", "HOLD", None, True)])
    assert held == HopOrder(hold=True)
    assert hop.order_complete(SETUP, state, "ann", held) and not hop.order_complete(SETUP, state, "ann", HopOrder())
    assert hop.order_view(SETUP, state, "ann", held) == {"roll": False, "hold": True}


def test_in_play_and_must_order_are_read_from_the_standings():
    hop = Hop()
    state = HopState(4, False, {"ann": 11, "ben": 3}, {"ann": 1, "ben": None})
    assert not hop.in_play(SETUP, state, "ann") and hop.must_order(SETUP, state, "ben")


def test_a_seat_handed_over_renames_mappings_and_tuples_but_not_history():
    state = HopState(2, False, {"ann": 4, "ben": 1}, {"ann": None, "ben": None}, ("ben", "ann"), (("ann", 4),))
    moved = Hop().rename_player(state, "ann", "cat")
    assert moved.squares == {"cat": 4, "ben": 1} and list(moved.squares) == ["cat", "ben"]
    assert moved.order == ("ben", "cat") and moved.log == (("ann", 4),)


# -- typed standings -----------------------------------------------------------------


def test_state_json_is_derived_from_the_standings_with_the_contract_keys():
    hop = Hop()
    state = HopState(3, True, {"ann": 11, "ben": 5}, {"ann": 1, "ben": 2})
    data = hop.state_json(SETUP, state)
    assert data["boards"]["A"]["players"]["ben"] == {"square": 5, "finished": False, "placing": 2}
    assert data["players"]["ann"] == {"aggregate": 1, "place": 1} and data["over"] and data["turn"] == 3


def test_an_old_ruleset_with_state_json_only_gets_its_standings_from_it_without_a_warning():
    from toyrules import Step

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step = Step()
        setup = Setup({"A": Board.build(8)}, ("ann",), step.parse_options({}), 1)
        state = step.start(setup, SeededChance(1)).state
        standings = step.standings(setup, state)
    assert standings.boards["A"].pieces["ann"] == PieceStanding(0, False, None) and standings.turn == 1


def test_a_ruleset_class_with_neither_standings_nor_state_json_is_refused_naming_both():
    with pytest.raises(TypeError, match="standings.*state_json"):
        class Nothing(Hop):  # noqa: F841 - the class statement is what is refused
            standings = Ruleset.standings


def test_an_abstract_intermediate_class_may_leave_the_standings_to_its_subclasses():
    class Family(Ruleset):  # still abstract: start, resolve and grammar are not written
        pass

    assert Family.__abstractmethods__


# -- gm collects the draws -------------------------------------------------------------


def test_gm_takes_the_draws_from_the_chance_when_the_ruleset_returns_none():
    from gm.rules.chance import played

    hop, chance = Hop(), SeededChance(7)
    state = hop.start(SETUP, SeededChance(7)).state
    outcome = hop.resolve(SETUP, state, {"ann": HopOrder(roll=True)}, chance)
    assert outcome.draws == () and [d.kind for d in played(outcome, chance).draws] == ["dice"]


# -- exclusive commands --------------------------------------------------------------


def test_an_exclusive_group_must_name_declared_commands_each_in_one_group():
    specs = (CommandSpec("ROLL", "ROLL", _flag), CommandSpec("HOLD", "HOLD", _flag))
    with pytest.raises(ValueError, match="SKIP is not a command"):
        Grammar(specs, exclusive=(("ROLL", "SKIP"),))
    with pytest.raises(ValueError, match="two exclusive groups"):
        Grammar((*specs, CommandSpec("SKIP", "SKIP", _flag)), exclusive=(("ROLL", "HOLD"), ("SKIP", "ROLL")))
    assert Grammar(specs, exclusive=(("ROLL", "HOLD"),)).offered == ("ROLL  or  HOLD",)
    assert Grammar(specs).offered == ("ROLL", "HOLD")  # a grammar without groups lists as before


def test_a_message_naming_both_commands_of_a_group_is_refused_on_the_later_line():
    parsed = parse_orders("PLAYER ann\nPASSWORD pw\nHOLD\nROLL\n", grammar=Hop().grammar(), other_keywords=())
    assert not parsed.ok and [p.line for p in parsed.problems] == [4]
    text = problem_text("hop", parsed.problems[0].why)
    assert "ROLL and HOLD exclude each other" in text and 'line 3 says "HOLD"' in text


# -- robots and welcome ------------------------------------------------------------------


def test_a_base_robot_blunders_only_in_the_turn_it_is_told_to():
    from gm.demo.robots import Robot

    class Hopper(Robot):
        def commands(self, turn: int, public: Mapping[str, Any]) -> list[str]:
            return ["HOLD"]

    careful = Hopper(id="ann", name="Ann", email="ann@robots.example", password="pw", rng=random.Random(1))
    clumsy = Hopper(id="ben", name="Ben", email="ben@robots.example", password="pw", blunders=2)
    assert all("TURN" not in line for t in (1, 2, 3) for line in careful.order_lines(t, campaign="c", public={}))
    assert "TURN 3" in clumsy.order_lines(2, campaign="c", public={})
    assert "TURN 2" not in clumsy.order_lines(1, campaign="c", public={})
    clumsy.refused = True  # its corrected letter after the refusal holds no mistake
    assert not any(line.startswith("TURN") for line in clumsy.order_lines(2, campaign="c", public={}))


# -- played by mail ------------------------------------------------------------------------


def _campaign(folder: Path, ruleset: str = "hop", options: dict | None = None) -> dict[str, str]:
    folder.mkdir()
    (folder / "lane.yaml").write_text("squares: 8\n")
    players = {"ann": "pw-ann-1", "ben": "pw-ben-2"}
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "hops", "ruleset": ruleset, "seed": 2**70, "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {"A": "lane.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in players.items()],
        "options": options or {"max_turns": 12},
    }))
    return players


def _mail(folder: Path, number: int, player: str, password: str, lines: str) -> None:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "my hop"
    mail["Message-ID"] = f"<{number}@example.org>"
    mail.set_content(f"PLAYER {player}\nPASSWORD {password}\n{lines}")
    (folder / "mail" / "inbox" / "new" / f"{number}.eml").write_bytes(bytes(mail))


def test_a_ruleset_returning_no_draws_plays_by_mail_and_its_archive_replays_in_gm_audit(hop_registered, tmp_path):
    folder = tmp_path / "hops"
    players = _campaign(folder)
    runner = CliRunner()

    def gm(*args, now="2027-01-01T00:00:00Z", code=0):
        result = runner.invoke(cli, ["-C", str(folder), *args], env={"GM_NOW": now})
        assert result.exit_code == code, result.output
        return result.output

    gm("start")
    sent = 0
    for week in range(1, 13):
        state = json.loads(gm("state", "--json"))
        if state["over"]:
            break
        for player in players:
            if not state["boards"]["A"]["players"][player]["finished"]:
                sent += 1
                both = week == 1 and player == "ben"  # ROLL and HOLD together: refused whole
                _mail(folder, sent, player, players[player], "ROLL\nHOLD\n" if both else "ROLL\n")
        deadline = datetime(2027, 1, 8, 19, tzinfo=UTC) + timedelta(days=7 * (week - 1))
        assert f"turn {week} resolved" in gm("turn", now=deadline.strftime("%Y-%m-%dT%H:%M:%SZ"))
    record = json.loads(gm("state", "--json", now="2027-06-01T00:00:00Z"))
    assert record["over"]
    import sqlite3

    db = sqlite3.connect(folder / "gm.sqlite")
    draws = [json.loads(row[0]) for row in db.execute("select draws from turns order by turn")]
    assert draws[0] and all(d["kind"] == "dice" for d in draws[0])  # collected by gm, not returned
    boxes = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
             for p in sorted((folder / "mail" / "outbox" / "new").iterdir())]
    texts = [m.get_body(("plain",)).get_content() for m in boxes]
    refusal = next(t for t in texts if "exclude each other" in t)
    assert "line 4" in refusal and "ROLL  or  HOLD" in "\n".join(texts)
    welcome = next(t for t in texts if "Fair play" in t)
    assert "commitments to every board" in welcome  # hop commits to its board (commits_boards)
    gm("publish", now="2027-06-01T00:00:00Z")
    gm("reveal", now="2027-06-01T00:00:00Z")
    audit = runner.invoke(cli, ["audit", str(folder / "archive")])
    assert audit.exit_code == 0, audit.output


class BadOptions(Hop):
    name = "badopts"

    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        raise ValueError("option speed must be slow or fast\noption colour is not a colour")


class OwnBoard(Hop):
    """A ruleset that makes its public board from nothing, so commits to none."""

    name = "ownboard"
    commits_boards = False
    boards_optional = True

    def campaign_boards(self, boards, players, options):
        return dict(boards) or {"A": Board.build(8)}, []


def test_a_bare_value_error_from_parse_options_is_campaign_yaml_problems_one_a_line(tmp_path):
    registry.register(BadOptions)
    try:
        _campaign(tmp_path / "bad", "badopts")
        result = CliRunner().invoke(cli, ["-C", str(tmp_path / "bad"), "start"], env={"GM_NOW": "2027-01-01T00:00:00Z"})
    finally:
        registry.unregister("badopts")
    assert result.exit_code == 1 and "internal error" not in result.output
    lines = [line for line in result.output.splitlines() if "option" in line]
    assert len(lines) == 2 and all(line.startswith("Error: ") and "campaign.yaml: line 5: option" in line for line in lines), result.output


def test_the_welcome_speaks_of_board_commitments_only_when_the_ruleset_commits_to_boards(tmp_path):
    registry.register(OwnBoard)
    try:
        folder = tmp_path / "own"
        _campaign(folder, "ownboard")
        data = yaml.safe_load((folder / "campaign.yaml").read_text())
        del data["boards"]
        (folder / "campaign.yaml").write_text(yaml.safe_dump(data))
        for command in ("start", "send"):
            result = CliRunner().invoke(cli, ["-C", str(folder), command], env={"GM_NOW": "2027-01-01T00:00:00Z"})
            assert result.exit_code == 0, result.output
    finally:
        registry.unregister("ownboard")
    boxes = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
             for p in sorted((folder / "mail" / "outbox" / "new").iterdir())]
    welcome = next(m.get_body(("plain",)).get_content() for m in boxes if "Welcome" in str(m["Subject"]))
    fair = " ".join(welcome.split("Fair play")[1].split())
    assert fair.startswith(": the GM has published a commitment to the seed of every random choice.")
    assert "commitments to every board" not in welcome and not re.search(r"Board A: [0-9a-f]{16}", welcome)


def test_the_rules_layer_imports_nothing_from_mail_campaign_or_publish():
    import ast

    roots = [Path("gm/rules") / name for name in ("base.py", "standings.py", "codec.py", "options.py", "views.py",
                                                   "grammar.py", "chance.py", "__init__.py")]
    roots += sorted(Path("gm/rules/roles").glob("*.py"))
    for path in roots:
        for node in ast.walk(ast.parse((Path(__file__).parent.parent / path).read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not any(part in ("mail", "campaign", "publish") for part in node.module.split(".")), path


def test_scripted_chance_still_drives_a_toy_without_draws():
    hop = Hop()
    chance = ScriptedChance(lambda turn, kind, key, candidates: 6 if kind == "dice" else None)
    state = hop.start(SETUP, SeededChance(1)).state
    after = hop.resolve(SETUP, state, {"ann": HopOrder(roll=True), "ben": HopOrder(hold=True)}, chance).state
    assert after.squares == {"ann": 6, "ben": 1}


def test_board_from_data_reads_a_plain_mapping_from_any_yaml_reader_and_its_problems_name_no_line():
    from gm.errors import BoardError

    text = "name: Plain\nsquares: 30\nsnakes: [[17, 4]]\nladders: [[3, 12]]\n"
    plain = Hop().board_from_data(yaml.safe_load(text), "plain.yaml")  # a dict of lists, no line numbers
    assert (plain.squares, plain.snakes, plain.ladders, plain.name) == (30, ((17, 4),), ((3, 12),), "Plain")
    assert plain == Hop().board_from_data(_read_lined(text), "lined.yaml")  # the same board as gm's reader gives
    with pytest.raises(BoardError) as refused:
        Hop().board_from_data({"squares": 30, "snakes": [[40, 2]], "ladderz": []}, "built")
    assert refused.value.problems and not any(p.startswith("line ") for p in refused.value.problems)
    assert any("ladderz" in p and "did you mean 'ladders'" in p for p in refused.value.problems)


def _read_lined(text: str) -> Any:
    """The same text as gm's own YAML reader gives it (LineDict and LineList, with lines)."""
    from gm.yamlfile import LineDict, parse

    data = parse(text)
    assert isinstance(data, LineDict)
    return data
