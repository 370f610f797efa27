"""`gm audit`: re-adjudicate a revealed campaign from its published archive alone (issue
17; the record's format is docs/audit.md). Every commitment is recomputed from its salt
and canonical text, every random draw from the seed by RULES.md 5's formula, and every
turn from the state before it and the orders played, with gm's own rules engine; the first
difference found is reported with its turn, board and player, what the replay expected
and what the archive holds. Nothing here opens a campaign's database."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .audit_source import AUDIT_FILE, RecordUnreadable, fetch, parse
from .boards.board import Board
from .commitment import commitment, seed_text
from .errors import RulesError
from .rules.base import Setup
from .rules.chance import Draw, SeededChance, pick_index
from .rules.registry import UnknownRuleset, find_ruleset

__all__ = ["AUDIT_FILE", "FORMAT", "Difference", "RecordUnreadable", "audit", "load_record"]

FORMAT = "gm-audit/1"


@dataclass(frozen=True)
class Difference:
    """The first place where the archive and the replay disagree."""

    turn: int | None  # None: the commitments, before any turn; 0: the start
    what: str  # e.g. "state", "draw 3", "seed commitment"
    board: str | None
    player: str | None
    expected: Any
    found: Any

    def __str__(self) -> str:
        where = ["start" if self.turn == 0 else f"turn {self.turn}" if self.turn is not None else "commitments"]
        where += [f"board {self.board}"] if self.board else []
        where += [f"player {self.player}"] if self.player else []
        return (f"{', '.join(where)}: {self.what}: the replay gives {_shown(self.expected)}, "
                f"the archive holds {_shown(self.found)}")


@dataclass(frozen=True)
class Replayed:
    """What a clean audit checked, for the report."""

    campaign: str
    ruleset: str
    turns: int
    draws: int
    commitments: tuple[tuple[str, str], ...]  # what, commitment: for the player to compare


def load_record(source: str) -> dict[str, Any]:
    """The audit record of the archive at `source`: a folder (or its index.html), an
    audit.json file, or an http(s) address of the archive; RecordUnreadable when it cannot
    be read within the limits of gm.audit_source."""
    record = parse(fetch(source))
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordUnreadable(f"not an audit record of format {FORMAT} (found {record.get('format')!r})"
                               if isinstance(record, dict) else "the audit record is not a JSON object")
    return record


def audit(record: Mapping[str, Any]) -> Difference | Replayed:
    """Replay the record; the first Difference, or what was checked when all agree."""
    try:
        return _audit(record)
    except (RecursionError, OverflowError, MemoryError) as error:
        # what no honest record asks of the replay: the auditor stops rather than be exhausted
        raise RecordUnreadable(f"the record cannot be replayed within this machine's limits "
                               f"({type(error).__name__})") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        # a record whose shape is wrong cannot be replayed: that is a finding too
        return Difference(None, "the record's shape", None, None, f"the format {FORMAT}", f"{type(error).__name__}: {error}")


def _audit(record: Mapping[str, Any]) -> Difference | Replayed:
    seed = record["seed"]
    value = int(seed["value"])
    checked = []
    if commitment(seed["salt"], seed_text(value)) != seed["commitment"]:
        return Difference(None, "seed commitment", None, None, commitment(seed["salt"], seed_text(value)),
                          seed["commitment"])
    checked.append(("seed", seed["commitment"]))
    boards = {}
    for entry in record["boards"]:
        if entry.get("commitment"):
            made = commitment(entry["salt"], entry["canonical"])
            if made != entry["commitment"]:
                return Difference(None, "board commitment", entry["id"], None, made, entry["commitment"])
            checked.append((f"board {entry['id']}", entry["commitment"]))
        boards[entry["id"]] = Board.from_canonical(entry["canonical"])
    try:
        ruleset = find_ruleset(record["ruleset"])
    except UnknownRuleset as error:
        raise RecordUnreadable(str(error)) from None
    options = ruleset.options_from_json(record["options"])
    keys = {p: dict(k) for p, k in record.get("player_keys", {}).items()}
    start = Setup(boards, tuple(record["players"]), options, value, keys)

    def setup_for(players: Sequence[str]) -> Setup:
        renamed = {players[i]: keys[p] for i, p in enumerate(start.players) if p in keys}
        return dataclasses.replace(start, players=tuple(players), player_keys=renamed)

    draws = 0
    opening = ruleset.start(start, SeededChance(value))
    found = _draws(0, record["opening"]["draws"], opening.draws, value)
    if found:
        return found
    draws += len(opening.draws)
    state, players = opening.state, tuple(start.players)
    wanted = tuple(record["opening"].get("players", start.players))
    state, players = _seated(ruleset, state, players, wanted), wanted
    found = _states(0, ruleset.state_json(setup_for(players), state), record["opening"]["state"])
    if found:
        return found
    for entry in record["turns"]:
        turn = entry["turn"]
        wanted = tuple(entry["players"])
        state, players = _seated(ruleset, state, players, wanted), wanted
        if state.turn != turn:
            return Difference(turn, "turn number", None, None, state.turn, turn)
        setup = setup_for(players)
        orders = {p: ruleset.order_from_json(o) for p, o in entry["orders"].items()}
        try:
            outcome = ruleset.resolve(setup, state, orders, SeededChance(value))
        except RulesError as error:  # an order the rules cannot play was never played so
            return Difference(turn, "orders", None, None, "orders the rules can play", str(error))
        found = _draws(turn, entry["draws"], outcome.draws, value)
        if found:
            return found
        draws += len(outcome.draws)
        found = _states(turn, ruleset.state_json(setup, outcome.state), entry["state"])
        if found:
            return found
        state = outcome.state
    return Replayed(record.get("campaign", ""), ruleset.name, len(record["turns"]), draws, tuple(checked))


def _seated(ruleset: Any, state: Any, before: Sequence[str], now: Sequence[str]) -> Any:
    """The state with each seat's holder as of now (gm player replace between turns)."""
    for old, new in zip(before, now, strict=True):
        if old != new:
            state = ruleset.rename_player(state, old, new)
    return state


def _draws(turn: int, recorded: Sequence[Mapping[str, Any]], made: Sequence[Draw], seed: int) -> Difference | None:
    """Each recorded draw recomputed by RULES.md 5's formula, then against the replay's."""
    for number, data in enumerate(recorded, 1):
        draw = Draw.from_json(data)
        index = pick_index(seed, draw.turn, draw.kind, draw.key, len(draw.candidates))
        if index != draw.index:
            return Difference(turn, f"draw {number} ({draw.kind} {draw.key}): its index by the seed formula", None,
                              _player_of(draw.key), index, draw.index)
    for number, (data, draw) in enumerate(zip(recorded, made, strict=False), 1):
        mine = draw.to_json()
        theirs = json.loads(json.dumps(data))
        if json.loads(json.dumps(mine)) != theirs:
            return Difference(turn, f"draw {number}", None, _player_of(draw.key),
                              f"{draw.kind} {draw.key} -> {draw.value!r}", _draw_text(theirs))
    if len(recorded) != len(made):
        return Difference(turn, "the number of draws", None, None, len(made), len(recorded))
    return None


def _draw_text(data: Mapping[str, Any]) -> str:
    try:
        return f"{data['kind']} {data['key']} -> {data['candidates'][data['index']]!r}"
    except (KeyError, IndexError, TypeError):
        return repr(data)


def _player_of(key: str) -> str | None:
    head = key.split("/")[0]
    return head if head and not head.isdigit() else None


def _states(turn: int, expected: Any, found: Any) -> Difference | None:
    """The first place where two `gm state --json` objects differ."""
    for path, mine, theirs in _differences(json.loads(json.dumps(expected)), found, ()):
        board = player = None
        if len(path) >= 2 and path[0] == "boards":
            board = path[1]
            if len(path) >= 4 and path[2] == "players":
                player = path[3]
        elif len(path) >= 2 and path[0] == "players":
            player = path[1]
        return Difference(turn, "state " + ".".join(str(p) for p in path), board, player, mine, theirs)
    return None


def _differences(mine: Any, theirs: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in list(mine) + [k for k in theirs if k not in mine]:
            if key not in mine or key not in theirs:
                yield (*path, key), mine.get(key, "(absent)"), theirs.get(key, "(absent)")
            else:
                yield from _differences(mine[key], theirs[key], (*path, key))
    elif isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            yield from _differences(a, b, (*path, index))
    elif mine != theirs:
        yield path, mine, theirs


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 200 else text[:197] + "..."
