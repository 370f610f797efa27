"""A second, independent checker of gm's audit record, written from docs/audit.md alone.

The project asks that docs/audit.md suffice for a checker written by someone who never read
gm's code. This is that checker: standard library only, it reads an `audit.json` of format
`gm-audit/2` (and optionally players' mail) and checks everything the page specifies that
needs no rules engine: the canonical JSON, the commitments, the game text against the
record, every draw by the seed formula, the draws' shape per ruleset as the page states
it, the seats' history against the turns' `players`, `nmr` and `dropped`, every receipt
and the record chain, the record running to its end, and the mail's `X-GM-` headers.
What only a replay with the rules can prove (the states, the candidates of a choice, who
the rules required an order of, the end of a `gm end`) is listed as not checked. It reads
a local archive folder or audit.json (no http), and format gm-audit/2 only.

    python tests/audit_reference.py ARCHIVE_OR_AUDIT_JSON [--mail PATH ...]
        [--game-commitment HEX] [--seed-commitment HEX]

exits 0 (ok), 1 (a difference: the first one is printed) or 3 (could not be checked).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["Verdict", "canonical", "check", "main"]

FORMAT = "gm-audit/3"
FORMATS = ("gm-audit/2", FORMAT)
GAME_FORMAT = "gm-game/1"
KNOWN_RULESETS = ("postal", "classic", "doubles", "advanced", "unleashed")
DICE_RULESETS = ("classic", "doubles", "advanced")

# The limits of docs/audit.md's "Limits" and "Checking mail".
RECORD_CAP = 64 * 1024 * 1024
MAX_DEPTH = 32
MAX_DIGITS = 100
HEADER_CAP = 256 * 1024
MAX_MESSAGES = 1_000_000

HEX64 = re.compile(r"[0-9a-f]{64}\Z")
HEX32 = re.compile(r"[0-9a-f]{32}\Z")
DECIMAL = re.compile(r"(0|[1-9][0-9]*)\Z")
TOP_KEYS = ("format", "campaign", "ruleset", "ruleset_version", "seed", "game", "boards",
            "options", "players", "player_keys", "seats", "opening", "turns", "end")
GAME_KEYS = {"format", "campaign", "ruleset", "ruleset_version", "options", "seats",
             "player_keys", "boards", "seed"}
DRAW_KEYS = {"turn", "kind", "key", "candidates", "index"}
BOARD_KEYS = {"chains", "ladders", "levels", "name", "offsets", "serpentine", "snakes", "squares"}
UNLEASHED_BOARD_KEYS = BOARD_KEYS | {"cards", "lampposts", "listed"}

# "The state recorded": the keys every ruleset's state holds, and those it adds.
STATE_KEYS = {
    "top": {"turn", "over", "boards", "players"},
    "board": {"squares", "closed", "trapdoor", "players"},
    "piece": {"square", "finished", "placing"},
    "player": {"numbers_left", "aggregate", "place"},
}
DICE_STATE_KEYS = {
    "top": {"order", "winner", "teams", "opening", "log"},
    "board": {"snakes", "ladders", "built"},
    "piece": set(),
    "player": {"seat", "die", "team", "builds", "resigned"},
}
UNLEASHED_STATE_KEYS = {
    "top": {"setup", "winners"},
    "board": {"rows", "columns", "cards", "items", "reversed", "locked_cards",
              "locked_items", "draw_pile"},
    "piece": {"overshoot", "seat", "hand_size"},
    "player": {"seat", "hand"},
}
ORDER_KEYS = {
    "postal": {"numbers", "trapdoors"},
    "classic": {"resign"},
    "doubles": {"resign"},
    "advanced": {"action", "item", "target"},
    "unleashed": {"sent", "plays", "reactions", "places"},
}

NOT_CHECKED_RULES = ("the states, the candidates of every choice and who the rules required "
                     "an order of (a replay with the ruleset's rules engine)")
NOT_CHECKED_ORDERS = "orders not checked against any receipt"
NOT_CHECKED_GAME = "the game announced not checked"
NOT_CHECKED_HISTORY = "the history not checked against the reports mailed"


class Unreadable(Exception):
    """The record or the mail cannot be checked at all (gm audit's exit 3)."""


class Difference(Exception):
    """The record, or the mail, differs from what the formulas give (gm audit's exit 1)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome: `status` ok, fail or unreadable; `reason` the first failure."""

    status: str
    reason: str | None = None
    not_checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def exit_code(self) -> int:
        return {"ok": 0, "fail": 1, "unreadable": 3}[self.status]


# ---------------------------------------------------------------- hashing and canonical JSON


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw_hash(seed: int, turn: int, kind: str, key: str) -> str:
    """The one expression behind every random choice and every salt."""
    return sha(f"{seed}:{turn}:{kind}:{key}")


def salt_of(seed: int, turn: int, kind: str, key: str) -> str:
    return draw_hash(seed, turn, kind, key)[:32]


def commitment(salt: str, text: str) -> str:
    return sha(salt + "\n" + text)


def canonical(value: Any) -> str:
    """RFC 8785 as the page states it, with a whole number of 2^53 or more as a string."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        # The page says "2^53 or more"; JavaScript loses precision symmetrically, so the
        # same is done below -2^53 (gm's records hold no such negative number).
        return json.dumps(str(value)) if abs(value) >= 2**53 else str(value)
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(f"{value!r} has no canonical form in a gm record")
        return canonical(int(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise ValueError("an object key that is not a string")
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(f"{canonical(key)}:{canonical(value[key])}" for key in keys) + "}"
    raise ValueError(f"{type(value).__name__} is not JSON")


# ---------------------------------------------------------------- reading the record


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Two values under one key would let two readers see two different records.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of more than {MAX_DIGITS} digits")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_DIGITS + 8:
        raise ValueError(f"a number of more than {MAX_DIGITS} digits")
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is not a finite number")
    return number


def _refuse_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    depth = deepest = 0
    for bracket in _BRACKETS.finditer(_STRINGS.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def parse_json(text: str, what: str) -> Any:
    """JSON within the page's limits: 32 levels, 100 digits, finite, one value per key."""
    if _depth(text) > MAX_DEPTH:
        raise Unreadable(f"{what}: JSON nested more than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_refuse_constant, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as error:
        raise Unreadable(f"{what}: not JSON within the limits ({error})") from None


def load_record(source: str | Path) -> Any:
    path = Path(source)
    if path.is_dir():
        path = path / "audit.json"
    try:
        with path.open("rb") as stream:
            data = stream.read(RECORD_CAP + 1)
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror or error}") from None
    if len(data) > RECORD_CAP:
        raise Unreadable(f"{path}: more than {RECORD_CAP // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable(f"{path}: not UTF-8") from None
    return parse_json(text, str(path))


# ---------------------------------------------------------------- shape helpers


def _kind_ok(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds)


def get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """obj[key], which must be of `kind`: a record of another shape cannot be checked
    (the page's "Limits": gm audit's exit 3)."""
    if not isinstance(obj, dict) or key not in obj:
        raise Unreadable(f"the record's shape: {where} has no {key!r}")
    value = obj[key]
    if not _kind_ok(value, kind):
        raise Unreadable(f"the record's shape: {where}'s {key!r} is {value!r}")
    return value


def need(condition: bool, reason: str) -> None:
    if not condition:
        raise Difference(reason)


# ---------------------------------------------------------------- the record


@dataclass
class Holder:
    player: str
    seat: int
    from_turn: int
    until_turn: int | None
    dropped_turn: int | None

    def holds(self, turn: int) -> bool:
        return self.from_turn <= turn and (self.until_turn is None or turn <= self.until_turn)


class RecordCheck:
    """Every check of docs/audit.md on the record alone, in the page's order."""

    def __init__(self, record: Any, verdict_lists: tuple[list[str], list[str], list[str]]):
        if not isinstance(record, dict):
            raise Unreadable("the record is not a JSON object")
        self.record = record
        self.not_checked, self.notes, self.checked = verdict_lists
        fmt = record.get("format")
        if fmt not in FORMATS:
            raise Unreadable(f"format {fmt!r}: this checker reads {' and '.join(FORMATS)} only")
        self.v3 = fmt == FORMAT
        self.entropy = record.get("entropy", {}) if self.v3 else {}
        need(isinstance(self.entropy, dict) and all(isinstance(w, str) for w in self.entropy.values()),
             "entropy is not an object of words")
        for key in TOP_KEYS:
            if key not in record:
                raise Unreadable(f"the record's shape: it has no {key!r}")
        self.ruleset = get(record, "ruleset", str, "the record")
        self.known = self.ruleset in KNOWN_RULESETS
        self.options = get(record, "options", dict, "the record")
        self.players = get(record, "players", list, "the record")
        self.turns = get(record, "turns", list, "the record")
        self.game = record["game"]
        self.seed = 0
        self.cut_short = False
        self.board_ids: list[str] = []

    def run(self) -> None:
        self.check_seed()
        self.check_boards()
        self.check_game()
        self.check_seats()
        self.check_opening()
        self.check_turns()
        self.check_end()

    # 1. the seed's commitment and each board's

    def check_seed(self) -> None:
        seed = get(self.record, "seed", dict, "the record")
        value = get(seed, "value", str, "seed")
        if not DECIMAL.match(value):
            raise Unreadable(f"the record's shape: the seed {value!r} is not decimal digits")
        if len(value) > MAX_DIGITS:
            raise Unreadable(f"the record's shape: the seed has more than {MAX_DIGITS} digits")
        salt = get(seed, "salt", str, "seed")
        held = get(seed, "commitment", str, "seed")
        need(bool(HEX32.match(salt)), f"the seed's salt {salt!r} is not 32 lowercase hex digits")
        given = commitment(salt, value)
        need(given == held, f"the seed's commitment: its salt and value give {given}, "
                            f"the record holds {held}")
        if self.v3 and (value != "0" and value.startswith("0")):
            raise Unreadable("seed.value: over a limit (a leading zero)")
        self.seed = int(value)
        # docs/audit.md, Players' entropy: the seed of every draw from turn 1 on
        mixed = f"{self.seed}" + "".join(f"\n{p}:{sha(self.entropy[p])}" for p in sorted(self.entropy))
        self.draw_seed = int(sha(mixed), 16) if self.entropy else self.seed
        self.checked.append("the seed's commitment")

    def check_boards(self) -> None:
        boards = get(self.record, "boards", list, "the record")
        need(bool(boards), "the record holds no board")
        for number, board in enumerate(boards, 1):
            where = f"board {number}"
            board_id = get(board, "id", str, where)
            where = f"board {board_id}"
            need(board_id not in self.board_ids, f"board {board_id} is listed twice")
            self.board_ids.append(board_id)
            text = get(board, "canonical", str, where)
            from_seed = get(board, "from_seed", bool, where)
            held = get(board, "commitment", (str, type(None)), where)
            salt = get(board, "salt", (str, type(None)), where)
            if from_seed:
                need(self.ruleset == "unleashed" or not self.known,
                     f"{where} says it was made from the seed, which {self.ruleset} never does")
                need(len(boards) == 1, f"{where} is made from the seed beside other boards")
                self.not_checked.append(f"that {where}, made from the seed, is the ruleset's "
                                        "default (the rules engine makes it)")
            if held is None:
                need(from_seed, f"{where} has no commitment and was not made from the seed")
            else:
                need(salt is not None and bool(HEX32.match(salt)),
                     f"{where}: its salt {salt!r} is not 32 lowercase hex digits")
                given = commitment(salt, text)
                need(given == held, f"{where}'s commitment: its salt and canonical text give "
                                    f"{given}, the record holds {held}")
            self.check_canonical_board(text, from_seed, where)
        self.checked.append("every board's commitment")

    def check_canonical_board(self, text: str, from_seed: bool, where: str) -> None:
        try:
            parsed = parse_json(text, f"{where}'s canonical text")
        except Unreadable as error:
            raise Difference(str(error)) from None
        need(isinstance(parsed, dict) and canonical(parsed) == text,
             f"{where}: its canonical text is not canonical JSON")
        if not self.known:
            return
        keys = BOARD_KEYS
        if self.ruleset == "unleashed":
            # A board file's items come `listed`; the default board has no file, and gm
            # writes no `listed` for it (the page does not say so).
            keys = UNLEASHED_BOARD_KEYS - ({"listed"} if from_seed else set())
        need(set(parsed) == keys, f"{where}: its canonical text holds {sorted(parsed)}, "
                                  f"not {sorted(keys)}")
        for item in ("snakes", "ladders"):
            pairs = parsed[item]
            need(isinstance(pairs, list) and pairs == sorted(pairs),
                 f"{where}: its {item} are not sorted")

    # 1, 7. the game text and its commitment

    def check_game(self) -> None:
        if self.game is None:
            self.not_checked.append("the game commitment, the receipts and the record hashes "
                                    "(a record of a campaign started before gm kept them)")
            return
        text = get(self.game, "text", str, "game")
        held = get(self.game, "commitment", str, "game")
        given = sha(text)
        need(given == held, f"the game commitment: the game text hashes to {given}, "
                            f"the record holds {held}")
        try:
            parsed = parse_json(text, "the game text")
        except Unreadable as error:
            raise Difference(str(error)) from None
        need(isinstance(parsed, dict) and canonical(parsed) == text,
             "the game text is not canonical JSON")
        need(set(parsed) == GAME_KEYS, f"the game text holds {sorted(parsed)}, "
                                       f"not {sorted(GAME_KEYS)}")
        committed = {board["id"]: board["commitment"] for board in self.record["boards"]
                     if board["commitment"] is not None}
        expected = {
            "format": GAME_FORMAT,
            "campaign": self.record["campaign"],
            "ruleset": self.ruleset,
            "ruleset_version": self.record["ruleset_version"],
            "options": self.options,
            "seats": self.players,
            "player_keys": self.record["player_keys"],
            "boards": committed,
            "seed": self.record["seed"]["commitment"],
        }
        for key, value in expected.items():
            need(canonical(parsed[key]) == canonical(value),
                 f"the game text's {key} is {canonical(parsed[key])}, the record plays with "
                 f"{canonical(value)}")
        self.checked.append("the game commitment and the game text against the record")

    # 4. the seats

    def check_seats(self) -> None:
        players = self.players
        need(bool(players) and all(isinstance(p, str) for p in players)
             and len(set(players)) == len(players), "players is not a list of distinct ids")
        keys = get(self.record, "player_keys", dict, "the record")
        need(set(keys) <= set(players), f"player_keys names {sorted(set(keys) - set(players))}, "
                                        "who are not in players")
        seats = get(self.record, "seats", list, "the record")
        need(len(seats) == len(players), f"seats lists {len(seats)} seats for "
                                         f"{len(players)} players")
        self.seats: list[list[Holder]] = []
        self.holder_of: dict[str, Holder] = {}
        for number, history in enumerate(seats):
            where = f"seat {number + 1}"
            need(isinstance(history, list) and bool(history), f"{where} has no holder")
            holders = []
            for entry in history:
                holder = Holder(
                    get(entry, "player", str, where), number,
                    get(entry, "from_turn", int, where),
                    get(entry, "until_turn", (int, type(None)), where),
                    get(entry, "dropped_turn", (int, type(None)), where))
                need(holder.player not in self.holder_of,
                     f"{holder.player} holds more than one seat")
                self.holder_of[holder.player] = holder
                holders.append(holder)
            need(holders[0].player == players[number],
                 f"{where}'s first holder is {holders[0].player}, players says {players[number]}")
            need(holders[0].from_turn == 1, f"{where}'s first holder starts at turn "
                                            f"{holders[0].from_turn}, not 1")
            for before, after in zip(holders, holders[1:], strict=False):
                need(before.until_turn is not None
                     and after.from_turn == before.until_turn + 1,
                     f"{where}: {after.player} holds it from turn {after.from_turn}, "
                     f"{before.player} until {before.until_turn}")
            need(holders[-1].until_turn is None,
                 f"{where}: its last holder {holders[-1].player} has an until_turn")
            for holder in holders:
                if holder.until_turn is not None:
                    need(holder.until_turn >= holder.from_turn - 1,
                         f"{where}: {holder.player} holds it until before their first turn")
                if holder.dropped_turn is not None:
                    need(holder.dropped_turn >= holder.from_turn and (
                        holder.until_turn is None or holder.dropped_turn <= holder.until_turn),
                        f"{where}: {holder.player} left at turn {holder.dropped_turn}, "
                        "outside their holding")
            self.seats.append(holders)

    def holders_at(self, turn: int) -> list[str]:
        found = []
        for holders in self.seats:
            held = [holder.player for holder in holders if holder.holds(turn)]
            found.append(held[-1] if held else holders[-1].player)
        return found

    def end_holders(self) -> list[str]:
        return [holders[-1].player for holders in self.seats]

    # the states as recorded: their keys, and whom they are keyed by

    def check_state(self, state: Any, holders: list[str], where: str) -> None:
        need(isinstance(state, dict), f"{where}: the state is not an object")
        layers = [STATE_KEYS]
        if self.ruleset in DICE_RULESETS:
            layers.append(DICE_STATE_KEYS)
        elif self.ruleset == "unleashed":
            layers.append(UNLEASHED_STATE_KEYS)
        keys = {level: set().union(*(layer[level] for layer in layers)) for level in STATE_KEYS}

        def exact(obj: Any, level: str, what: str) -> None:
            need(isinstance(obj, dict), f"{where}: {what} is not an object")
            if self.known:
                need(set(obj) == keys[level], f"{where}: {what} holds {sorted(obj)}, "
                                              f"not {sorted(keys[level])}")
            else:
                need(set(obj) >= keys[level], f"{where}: {what} lacks "
                                              f"{sorted(keys[level] - set(obj))}")

        exact(state, "top", "the state")
        need(_kind_ok(state["turn"], int) and _kind_ok(state["over"], bool),
             f"{where}: the state's turn or over is not a number or a truth value")
        need(isinstance(state["boards"], dict) and list(state["boards"]) == self.board_ids,
             f"{where}: the state's boards are {list(state['boards'])}, "
             f"the record's {self.board_ids}")
        need(isinstance(state["players"], dict) and sorted(state["players"]) == sorted(holders),
             f"{where}: the state is keyed by {sorted(state['players'])}, the seats' holders "
             f"are {sorted(holders)}")
        for player, facts in state["players"].items():
            exact(facts, "player", f"player {player}")
        for board_id, board in state["boards"].items():
            exact(board, "board", f"board {board_id}")
            need(isinstance(board["players"], dict)
                 and sorted(board["players"]) == sorted(holders),
                 f"{where}: board {board_id} is keyed by {sorted(board['players'])}, the "
                 f"seats' holders are {sorted(holders)}")
            for player, piece in board["players"].items():
                exact(piece, "piece", f"board {board_id}'s piece of {player}")

    # the start

    def check_opening(self) -> None:
        opening = get(self.record, "opening", dict, "the record")
        draws = get(opening, "draws", list, "opening")
        holders = get(opening, "players", list, "opening")
        need(holders == self.holders_at(1), f"the opening's players are {holders}, the seats "
                                            f"say {self.holders_at(1)}")
        self.check_state(opening.get("state"), holders, "the opening")
        need(opening["state"]["turn"] == 1, f"the opening state's turn is "
                                            f"{opening['state']['turn']}, not 1")
        for draw in draws:
            self.check_draw(draw, 0, "the opening")
        DrawShape(self).opening(draws, opening["state"])

    # 3. random choices by the seed formula

    def check_draw(self, draw: Any, turn: int, where: str) -> None:
        need(isinstance(draw, dict) and set(draw) == DRAW_KEYS,
             f"{where}: a draw does not hold exactly {sorted(DRAW_KEYS)}")
        kind, key, candidates, index = (draw["kind"], draw["key"], draw["candidates"],
                                        draw["index"])
        need(isinstance(kind, str) and isinstance(key, str), f"{where}: a draw's kind or key "
                                                             "is not a string")
        label = f"{where}: draw {kind} {key}"
        need(draw["turn"] == turn and _kind_ok(draw["turn"], int),
             f"{label} is of turn {draw['turn']!r}, not {turn}")
        need(isinstance(candidates, list) and bool(candidates), f"{label} has no candidates")
        need(_kind_ok(index, int), f"{label}: its index {index!r} is not a number")
        seed = self.seed if turn == 0 else self.draw_seed
        given = int(draw_hash(seed, turn, kind, key), 16) % len(candidates)
        need(index == given, f"{label}: the seed gives index {given} among "
                             f"{len(candidates)}, the record holds {index}")

    # the turns: players, orders, nmr, dropped, draws, receipts and the record chain

    def check_turns(self) -> None:
        previous_state = self.record["opening"]["state"]
        previous_players = self.record["opening"]["players"]
        chain = self.game["commitment"] if self.game is not None else None
        self.turn_entries: dict[int, dict[str, Any]] = {}
        for entry in self.turns:
            need(isinstance(entry, dict), "a turn is not an object")
            turn = get(entry, "turn", int, "a turn")
            where = f"turn {turn}"
            need(turn == previous_state["turn"],
                 f"{where} follows a state whose next turn is {previous_state['turn']}")
            need(not previous_state["over"], f"{where} is played after the campaign was over")
            players = get(entry, "players", list, where)
            need(players == self.holders_at(turn), f"{where}: its players are {players}, the "
                                                   f"seats say {self.holders_at(turn)}")
            orders = get(entry, "orders", dict, where)
            nmr = get(entry, "nmr", list, where)
            dropped = get(entry, "dropped", list, where)
            draws = get(entry, "draws", list, where)
            self.check_state(entry.get("state"), players, where)
            state = entry["state"]
            self.check_people(turn, players, orders, nmr, dropped)
            for draw in draws:
                self.check_draw(draw, turn, where)
            renamed = dict(zip(previous_players, players, strict=True))
            DrawShape(self).turn(entry, previous_state, renamed)
            chain = self.check_receipts_and_chain(entry, chain, first=entry is self.turns[0])
            self.turn_entries[turn] = entry
            previous_state, previous_players = state, players
        self.chain = chain
        self.checked.append("every random choice by the seed formula")
        self.checked.append("the seats' holders, dropped and nmr of every turn")
        if self.game is not None:
            self.checked.append("every receipt from the order played, and the record chain")

    def check_people(self, turn: int, players: list[str], orders: dict[str, Any],
                     nmr: list[Any], dropped: list[Any]) -> None:
        where = f"turn {turn}"
        left = [player for player in players
                if self.holder_of[player].dropped_turn is not None
                and self.holder_of[player].dropped_turn <= turn]
        need(dropped == left, f"{where}: dropped is {dropped}, the seats say {left}")
        for player, order in orders.items():
            need(player in players, f"{where}: an order of {player}, who held no seat")
            need(player not in left, f"{where}: the order of {player}, who had left, is played")
            if self.known:
                need(isinstance(order, dict) and set(order) == ORDER_KEYS[self.ruleset],
                     f"{where}: {player}'s order is not a {self.ruleset} order")
        silent = [player for player in players if player not in orders and player not in left]
        need(all(player in silent for player in nmr),
             f"{where}: nmr names {[p for p in nmr if p not in silent]}, who sent an order "
             "or had left (or held no seat)")
        need(nmr == [player for player in silent if player in nmr],
             f"{where}: nmr {nmr} is not in seat order")
        if self.ruleset in ("classic", "doubles"):
            need(not nmr, f"{where}: nmr lists {nmr}, but nobody has to write in "
                          f"{self.ruleset}")

    def check_receipts_and_chain(self, entry: dict[str, Any], chain: str | None, first: bool = False) -> str | None:
        turn, players, orders = entry["turn"], entry["players"], entry["orders"]
        where = f"turn {turn}"
        receipts = entry.get("receipts")
        record_hash = entry.get("record_hash")
        if self.game is None:
            need(record_hash is None and receipts is None,
                 f"{where} has receipts or a record hash, the record no game to chain from")
            return None
        need(isinstance(receipts, dict) and sorted(receipts) == sorted(players),
             f"{where}: receipts are not one per seat's holder")
        flat: dict[str, str | None] = {}
        for player in players:
            receipt = receipts[player]
            if player not in orders:
                need(receipt is None, f"{where}: {player} has a receipt but no order played")
                flat[player] = None
                continue
            need(isinstance(receipt, dict), f"{where}: {player}'s order played has no receipt")
            writer = get(receipt, "player", str, f"{where}'s receipt of {player}")
            count = get(receipt, "count", int, f"{where}'s receipt of {player}")
            held = get(receipt, "receipt", str, f"{where}'s receipt of {player}")
            need(count >= 1, f"{where}: {player}'s receipt counts message {count}")
            former = self.holder_of.get(writer)
            need(writer == player or (
                former is not None and former.seat == self.holder_of[player].seat
                and former.until_turn == turn - 1),
                f"{where}: {player}'s order is acknowledged to {writer}, neither {player} nor "
                "the seat's holder before the handover")
            order = orders[player]
            if first and writer in self.entropy:  # an ENTROPY line's words are in the receipts of turn 1
                order = {**order, "entropy": self.entropy[writer]}
            text = canonical({"turn": turn, "player": writer, "order": order})
            given = commitment(salt_of(self.seed, turn, "receipt", f"{writer}/{count}"), text)
            need(given == held, f"{where}: the receipt of {player}'s order played is {given}, "
                                f"the record holds {held}")
            flat[player] = held
        text = canonical({"turn": turn, "receipts": flat, "draws": entry["draws"],
                          "state": entry["state"]})
        given = sha(f"{chain}\n{salt_of(self.seed, turn, 'record', 'chain')}\n{text}")
        need(given == record_hash, f"{where}: the record hash is {given}, the record holds "
                                   f"{record_hash}")
        return given

    # 6. the end

    def check_end(self) -> None:
        end = get(self.record, "end", dict, "the record")
        by = get(end, "by", str, "end")
        end_turn = get(end, "turn", int, "end")
        need(by in ("rules", "max_turns", "gm"), f"the end is by {by!r}")
        if by != "gm":
            need(end.get("state") is None, f"an end by {by} holds a state")
        # A gm end comes after a resolved turn too, so a record without one never ends.
        need(bool(self.turns), "the record holds no turn")
        last = self.turns[-1]
        state = last["state"]
        # "The last turn played" is one before the last state's `turn`: the second half of
        # a postal double turn, whose `turn` moved by two, even when that half was not
        # played (the first half found by the page's reader, the second by gm's record).
        last_played = state["turn"] - 1
        limit = self.options.get("max_turns")
        reached = _kind_ok(limit, int) and last["turn"] <= limit <= last_played
        if by != "gm":
            need(state["over"], f"the record stops at turn {last['turn']}, the campaign is "
                                "not over")
        if by == "rules":
            need(not reached, f"the last turn played reached max_turns {limit}, yet the end "
                              "is by the rules")
            need(end_turn == last_played, f"the end by the rules is at turn {end_turn}, the "
                                          f"last turn played is {last_played}")
        elif by == "max_turns":
            need(reached, f"the end is by max_turns {limit}, which turn {last['turn']} did not "
                          "reach")
            need(end_turn == limit, f"the end by max_turns is at turn {end_turn}, max_turns is "
                                    f"{limit}")
        else:
            need(not state["over"], f"the end is the GM's, but turn {last['turn']} left the "
                                    "campaign over")
            need(end_turn == last_played, f"the GM's end is after turn {end_turn}, the last "
                                          f"turn played is {last_played}")
        if by == "gm":
            self.check_state(end.get("state"), self.end_holders(), "the end")
            self.not_checked.append("the state the GM's end left (the ruleset's end for a "
                                    "campaign cut short)")
            self.cut_short = True
        if self.v3:  # docs/audit.md, The end's link
            reason = end.get("reason")
            need(reason is None or isinstance(reason, str), "end.reason is neither text nor null")
            if getattr(self, "chain", None) is not None:
                text = canonical({"end": {"by": by, "turn": end_turn, "reason": reason}})
                given = sha(f"{self.chain}\n{salt_of(self.seed, end_turn, 'record', 'end')}\n{text}")
                need(given == end.get("record_hash"), f"the end's link is {given}, the record holds "
                                                      f"{end.get('record_hash')}")
        self.checked.append("the record runs to the campaign's end")


class DrawShape:
    """The order and keys of the draws as docs/audit.md's "Random choices" states them."""

    def __init__(self, check: RecordCheck):
        self.check = check
        self.ruleset = check.ruleset

    def opening(self, draws: list[dict[str, Any]], state: dict[str, Any]) -> None:
        where = "the opening"
        # Turn 0's keys name the ids at gm start, even for a seat handed over before turn 1;
        # the opening state is keyed by the holders at turn 1.
        players = self.check.players
        holders = dict(zip(players, self.check.record["opening"]["players"], strict=True))
        state = {**state, "players": {p: state["players"][holders[p]] for p in players}}
        if self.ruleset == "postal":
            need(not draws, f"{where}: postal draws nothing before turn 1")
        elif self.ruleset == "doubles":
            need(not draws, f"{where}: doubles draws nothing before turn 1")
        elif self.ruleset == "classic":
            self.rolloff(draws, players, where)
        elif self.ruleset == "advanced":
            self.advanced_opening(draws, players, state, where)
        elif self.ruleset == "unleashed":
            self.unleashed_opening(draws, where)

    def turn(self, entry: dict[str, Any], before: dict[str, Any],
             renamed: dict[str, str]) -> None:
        where = f"turn {entry['turn']}"
        draws = entry["draws"]
        if self.ruleset == "postal":
            self.postal(entry, where)
        elif self.ruleset in DICE_RULESETS:
            self.dice_turn(draws, entry["players"], before, renamed, where)
        elif self.ruleset == "unleashed":
            self.unleashed_turn(draws, entry["players"], where)

    # helpers

    @staticmethod
    def face(draw: dict[str, Any]) -> Any:
        return draw["candidates"][draw["index"]]

    def die_key(self, draw: dict[str, Any], players: list[str], where: str) -> tuple[str, int]:
        need(draw["kind"] == "dice", f"{where}: a draw of kind {draw['kind']!r}, not dice")
        player, _, count = draw["key"].rpartition("/")
        need(player in players and DECIMAL.match(count) is not None and count != "0",
             f"{where}: the die key {draw['key']!r} is not <player>/<i> of a seat's holder")
        return player, int(count)

    def counting(self, draws: list[dict[str, Any]], players: list[str], where: str,
                 start: dict[str, int] | None = None) -> dict[str, int]:
        """Each player's dice count on from 1 (or from where turn 0 left them)."""
        counts = dict(start or {})
        for draw in draws:
            player, count = self.die_key(draw, players, where)
            counts[player] = counts.get(player, 0) + 1
            need(count == counts[player], f"{where}: {draw['key']} comes where "
                                          f"{player}/{counts[player]} is due")
        return counts

    @staticmethod
    def faces(draw: dict[str, Any], size: int, where: str) -> None:
        need(draw["candidates"] == list(range(1, size + 1)),
             f"{where}: {draw['key']}'s candidates are not the faces 1 to {size}")

    # classic: the roll-off; advanced: the die and the order of play

    def rolloff(self, draws: list[dict[str, Any]], players: list[str], where: str) -> None:
        self.counting(draws, players, where)
        throwing, position = list(players), 0
        while True:
            round_draws = draws[position:position + len(throwing)]
            need([self.die_key(d, players, where)[0] for d in round_draws] == throwing,
                 f"{where}: the roll-off's throws are not {throwing} in listing order")
            for draw in round_draws:
                self.faces(draw, 6, where)
            position += len(throwing)
            best = max(self.face(draw) for draw in round_draws)
            throwing = [self.die_key(d, players, where)[0] for d in round_draws
                        if self.face(d) == best]
            if len(throwing) == 1:
                break
        need(position == len(draws), f"{where}: throws after the roll-off was decided")

    def advanced_opening(self, draws: list[dict[str, Any]], players: list[str],
                         state: dict[str, Any], where: str) -> None:
        self.counting(draws, players, where)
        sizes = draws[:len(players)]
        need([self.die_key(d, players, where)[0] for d in sizes] == players,
             f"{where}: the throws for the dice are not everyone's, in listing order")
        die = {}
        for draw in sizes:
            self.faces(draw, 6, where)
            face = self.face(draw)
            die[self.die_key(draw, players, where)[0]] = 6 if face <= 3 else 8 if face <= 5 else 12
        for player, size in die.items():
            need(state["players"][player]["die"] == size,
                 f"{where}: {player} threw for a d{size}, the state gives a "
                 f"d{state['players'][player]['die']}")
        # The order of play: everyone, then each group sharing a position throws again.
        throws: dict[str, list[Any]] = {player: [] for player in players}
        throwing, position = list(players), len(players)
        while throwing:
            round_draws = draws[position:position + len(throwing)]
            need([self.die_key(d, players, where)[0] for d in round_draws] == throwing,
                 f"{where}: the throws for the order of play are not {throwing}")
            for draw in round_draws:
                player = self.die_key(draw, players, where)[0]
                self.faces(draw, die[player], where)
                throws[player].append(self.face(draw))
            position += len(throwing)
            throwing = [p for p in players
                        if sum(1 for q in players if throws[q] == throws[p]) > 1]
        need(position == len(draws), f"{where}: throws after the order of play was decided")

    # each turn of the dice games: every go in the order of play

    def dice_turn(self, draws: list[dict[str, Any]], players: list[str],
                  before: dict[str, Any], renamed: dict[str, str], where: str) -> None:
        self.counting(draws, players, where)
        order = [renamed.get(player, player) for player in before["order"]]
        gos: list[tuple[str, list[dict[str, Any]]]] = []
        for draw in draws:
            player = self.die_key(draw, players, where)[0]
            if gos and gos[-1][0] == player:
                gos[-1][1].append(draw)
            else:
                gos.append((player, [draw]))
        goers = [player for player, _ in gos]
        need(len(set(goers)) == len(goers) and all(p in order for p in goers)
             and goers == sorted(goers, key=order.index),
             f"{where}: the goes {goers} are not in the order of play {order}")
        board = next(iter(before["boards"].values()))
        previous = {renamed.get(p, p): piece for p, piece in board["players"].items()}
        facts = {renamed.get(p, p): fact for p, fact in before["players"].items()}
        for player, dice in gos:
            need(not previous[player]["finished"],
                 f"{where}: {player} throws, but their piece had finished")
            if self.ruleset == "classic":
                for draw in dice:
                    self.faces(draw, 6, where)
                need(all(self.face(d) == 6 for d in dice[:-1]),
                     f"{where}: {player} threw again after a throw that was not a six")
            elif self.ruleset == "doubles":
                for draw in dice:
                    self.faces(draw, 6, where)
                need(len(dice) % 2 == 0, f"{where}: {player} threw an odd number of dice")
                pairs = [dice[i:i + 2] for i in range(0, len(dice), 2)]
                need(all(self.face(a) == self.face(b) for a, b in pairs[:-1]),
                     f"{where}: {player} threw again after a throw that was not a double")
            else:
                need(len(dice) == 1, f"{where}: {player} threw {len(dice)} dice in one go")
                self.faces(dice[0], facts[player]["die"], where)
        if self.ruleset == "advanced":
            moving = [p for p in order if not previous[p]["finished"]]
            need(goers == moving, f"{where}: the goes are {goers}, the players not in End "
                                  f"{moving}")

    # postal: the NMR numbers, then the trapdoor ties

    def postal(self, entry: dict[str, Any], where: str) -> None:
        players, draws = entry["players"], entry["draws"]
        kinds = [draw["kind"] for draw in draws]
        need(set(kinds) <= {"nmr", "trapdoor"}, f"{where}: a draw of kind other than nmr or "
                                                "trapdoor")
        need(kinds == sorted(kinds), f"{where}: a trapdoor tie is drawn before an NMR number")
        hands = []
        for draw in (d for d in draws if d["kind"] == "nmr"):
            player, _, board = draw["key"].partition("/")
            need(player in players and (not board or board in self.check.board_ids),
                 f"{where}: the NMR key {draw['key']!r} is not a seat's holder (and board)")
            # "those who sent none": no number for that hand, whatever else they sent.
            order = entry["orders"].get(player)
            need(order is None or (board or "*") not in order["numbers"],
                 f"{where}: a number is drawn for {draw['key']}, whose order played holds one")
            # One who sent nothing and had a choice to make had to write (nmr), unless they
            # had left; a single candidate may be a forced number, which is no NMR.
            if order is None and len(draw["candidates"]) > 1:
                need(player in entry["nmr"] or player in entry["dropped"],
                     f"{where}: a number is drawn for {player}, who sent nothing, yet nmr "
                     "does not list them")
            hands.append((players.index(player), board))
            numbers = draw["candidates"]
            need(numbers == sorted(set(numbers)) and set(numbers) <= set(range(1, 7)),
                 f"{where}: the numbers of {draw['key']} are not held numbers, ascending")
        need(hands == sorted(hands) and len(set(hands)) == len(hands),
             f"{where}: the NMR numbers are not drawn player by player in seat order")
        ties = [draw for draw in draws if draw["kind"] == "trapdoor"]
        if ties:
            need(not entry["state"]["over"], f"{where}: a trapdoor tie is drawn, but the "
                                             "campaign did not go on")
        order = [draw["key"] for draw in ties]
        need(all(key in self.check.board_ids for key in order)
             and order == sorted(order, key=self.check.board_ids.index)
             and len(set(order)) == len(order),
             f"{where}: the trapdoor ties are not board by board in board order")
        for draw in ties:
            squares = draw["candidates"]
            need(len(squares) >= 2 and squares == sorted(set(squares)),
                 f"{where}: the tie on {draw['key']} is not of several squares, ascending")

    # unleashed: the shuffles and picks at the start, then the dice go by go

    def shuffle(self, draws: list[dict[str, Any]], kind: str, where: str) -> None:
        keys = [draw["key"] for draw in draws]
        need(keys == [str(i) for i in range(len(draws), 0, -1)],
             f"{where}: the {kind} shuffle's keys are not M-1 down to 1")
        for draw in draws:
            need(draw["candidates"] == list(range(int(draw["key"]) + 1)),
                 f"{where}: the {kind} shuffle's draw {draw['key']} is not among 0..i")

    def unleashed_opening(self, draws: list[dict[str, Any]], where: str) -> None:
        kinds = [draw["kind"] for draw in draws]
        rank = {"seats": 0, "deck": 1, "setup": 2}
        need(all(kind in rank for kind in kinds)
             and kinds == sorted(kinds, key=rank.__getitem__),
             f"{where}: the draws are not the seats, then the deck, then the setup picks")
        seats = [d for d in draws if d["kind"] == "seats"]
        random_seats = self.check.options.get("seating") == "random"
        need(bool(seats) == (random_seats and len(self.check.players) > 1),
             f"{where}: the seats are shuffled {'without' if seats else 'despite'} "
             "seating: random")
        if seats:
            need(len(seats) == len(self.check.players) - 1,
                 f"{where}: the seats' shuffle is not of the {len(self.check.players)} players")
            self.shuffle(seats, "seats", where)
        self.shuffle([d for d in draws if d["kind"] == "deck"], "deck", where)
        picks = [d["key"] for d in draws if d["kind"] == "setup"]
        need(not picks or self.check.options.get("setup") == "random",
             f"{where}: setup picks at the start without setup: random")
        need(picks == [str(i) for i in range(1, len(picks) + 1)],
             f"{where}: the setup picks are not numbered from 1")

    def unleashed_turn(self, draws: list[dict[str, Any]], players: list[str],
                       where: str) -> None:
        picks = [d for d in draws if d["kind"] == "setup"]
        dice = [d for d in draws if d["kind"] == "dice"]
        need(len(picks) + len(dice) == len(draws), f"{where}: a draw of kind other than "
                                                   "setup or dice")
        need(not picks or draws[0]["turn"] == 1, f"{where}: setup picks after the setup turn")
        numbers = [int(d["key"]) if DECIMAL.match(d["key"]) else 0 for d in picks]
        need(all(numbers) and numbers == sorted(set(numbers)),
             f"{where}: the setup picks' numbers do not rise from 1")
        self.counting(dice, players, where)
        gos: list[str] = []
        for draw in dice:
            self.faces(draw, 6, where)
            player = self.die_key(draw, players, where)[0]
            if not gos or gos[-1] != player:
                need(player not in gos, f"{where}: {player} has two goes in one round")
                gos.append(player)
        for player in gos:
            thrown = sum(1 for d in dice if d["key"].rpartition("/")[0] == player)
            need(thrown % 2 == 0, f"{where}: {player}'s go threw an odd number of dice")


# ---------------------------------------------------------------- mail


@dataclass(frozen=True)
class Acknowledgement:
    turn: int
    player: str
    count: int
    receipt: str
    date: datetime
    serial: int
    source: str


@dataclass
class Mail:
    games: list[tuple[str, str]] = field(default_factory=list)
    records: list[tuple[int, str, str]] = field(default_factory=list)
    acks: list[Acknowledgement] = field(default_factory=list)
    ends: list[tuple[str, str]] = field(default_factory=list)
    messages: int = 0
    skipped: int = 0


_EPOCH = datetime.min.replace(tzinfo=UTC)


def _unfold(value: str) -> str:
    return re.sub(r"\r?\n(?=[ \t])", "", value).strip()


def _fields(value: str) -> dict[str, str] | None:
    """`turn=3; player=ann; receipt=HEX` as a dict; None when not in that form. Hex is
    read in either case, as gm reads it."""
    parts = [part.strip() for part in value.split(";")]
    result = {}
    for part in parts:
        name, sep, text = part.partition("=")
        if not sep or name in result:
            return None
        result[name] = text.lower() if HEX64.match(text.lower()) else text
    return result


def _date(value: str | None) -> datetime:
    if not value:
        return _EPOCH
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return _EPOCH
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _take(mail: Mail, header: bytes, source: str) -> None:
    mail.messages += 1
    if mail.messages > MAX_MESSAGES:
        raise Unreadable(f"more than {MAX_MESSAGES:,} messages")
    message = BytesHeaderParser(policy=compat32).parsebytes(header)
    date = _date(message.get("Date"))
    for raw in message.get_all("X-GM-Game") or []:
        value = _unfold(str(raw)).lower()
        if HEX64.match(value):
            mail.games.append((value, source))
        else:
            mail.skipped += 1
    for raw in message.get_all("X-GM-Record") or []:
        parts = _fields(_unfold(str(raw)))
        if (parts is not None and set(parts) == {"turn", "hash"}
                and DECIMAL.match(parts["turn"]) and HEX64.match(parts["hash"])):
            mail.records.append((int(parts["turn"]), parts["hash"], source))
        else:
            mail.skipped += 1
    for raw in message.get_all("X-GM-End") or []:
        value = _unfold(str(raw)).lower()
        if HEX64.match(value):
            mail.ends.append((value, source))
        else:
            mail.skipped += 1
    for raw in message.get_all("X-GM-Receipt") or []:
        parts = _fields(_unfold(str(raw)))
        if (parts is not None and set(parts) - {"count"} == {"turn", "player", "receipt"}
                and DECIMAL.match(parts["turn"]) and parts["player"]
                and HEX64.match(parts["receipt"])
                and ("count" not in parts or DECIMAL.match(parts["count"]))):
            mail.acks.append(Acknowledgement(
                int(parts["turn"]), parts["player"], int(parts.get("count", "0")),
                parts["receipt"], date, len(mail.acks), source))
        else:
            mail.skipped += 1


def _header_of(stream: BinaryIO) -> bytes:
    """A message's header block, at most HEADER_CAP bytes of it."""
    data = b""
    while len(data) < HEADER_CAP:
        chunk = stream.read(min(65536, HEADER_CAP - len(data)))
        if not chunk:
            break
        data += chunk
        for end in (b"\r\n\r\n", b"\n\n"):
            at = data.find(end)
            if at >= 0:
                return data[:at + len(end)]
    return data


def _mbox(stream: BinaryIO, mail: Mail, source: str) -> None:
    """Read an mbox line by line, keeping only each message's header block."""
    header: list[bytes] | None = None
    size = 0
    at_line_start = previous_blank = True
    number = 0
    while True:
        line = stream.readline(65536)
        if not line:
            break
        whole = line.endswith(b"\n")
        starts = at_line_start
        at_line_start = whole
        if starts and line.startswith(b"From ") and previous_blank:
            if header is not None:
                _take(mail, b"".join(header), f"{source} #{number}")
            number += 1
            header, size = [], 0
            previous_blank = False
            continue
        blank = starts and line in (b"\n", b"\r\n")
        if header is not None and blank:
            _take(mail, b"".join(header) + b"\n", f"{source} #{number}")
            header = None
        elif header is not None and size < HEADER_CAP:
            kept = line[:HEADER_CAP - size]
            header.append(kept)
            size += len(kept)
        if starts:
            previous_blank = blank
    if header is not None:
        _take(mail, b"".join(header), f"{source} #{number}")


def _read_file(path: Path, mail: Mail) -> None:
    try:
        with path.open("rb") as stream:
            if stream.read(5) == b"From ":
                stream.seek(0)
                _mbox(stream, mail, str(path))
            else:
                stream.seek(0)
                _take(mail, _header_of(stream), str(path))
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror or error}") from None


def _walk(path: Path) -> Iterator[Path]:
    # "a folder of such files": its files, not its subfolders (as gm reads it).
    if path.is_dir():
        maildir = [path / sub for sub in ("cur", "new") if (path / sub).is_dir()]
        for folder in maildir or [path]:
            for child in sorted(folder.iterdir()):
                if child.is_file() and not child.is_symlink():
                    yield child
    elif path.is_file():
        yield path
    else:
        raise Unreadable(f"{path}: no such file or folder")


def read_mail(paths: list[str | Path]) -> Mail:
    mail = Mail()
    for path in paths:
        for file in _walk(Path(path)):
            _read_file(file, mail)
    return mail


class MailCheck:
    """docs/audit.md's "Checking mail": every X-GM- header held against the record."""

    def __init__(self, check: RecordCheck, mail: Mail):
        self.check, self.mail = check, mail

    def run(self) -> None:
        check = self.check
        game = check.game
        if game is None:
            check.not_checked.append("the mail (a record without a game commitment)")
            return
        for value, source in self.mail.games:
            need(value == game["commitment"], f"{source}: X-GM-Game {value} is not the "
                                              f"record's game commitment {game['commitment']}")
        last = check.turns[-1]["turn"] if check.turns else 0
        for turn, value, source in self.mail.records:
            entry = check.turn_entries.get(turn)
            need(turn <= last, f"{source}: X-GM-Record of turn {turn}: the record stops at "
                               f"turn {last}")
            need(entry is not None, f"{source}: X-GM-Record of turn {turn}, a turn the record "
                                    "does not hold")
            need(value == entry["record_hash"], f"{source}: turn {turn}'s record hash is "
                 f"{value} in the mail, {entry['record_hash']} in the record")
        self.acknowledgements(last)
        end = check.record["end"]
        for value, source in self.mail.ends:
            need(check.record["format"] == "gm-audit/3" and value == end.get("record_hash"),
                 f"{source}: X-GM-End {value} is not the end's link of the record "
                 f"{end.get('record_hash')}")
        if self.mail.skipped:
            check.notes.append(f"{self.mail.skipped} X-GM- header(s) not in gm's form skipped")
        check.checked.append(f"{self.mail.messages} message(s) of mail against the record")

    def acknowledgements(self, last: int) -> None:
        check = self.check
        # (turn, seat) -> the acknowledgements to the seat's holder of the turn, and to a
        # holder before a handover made while the turn was open.
        own: dict[tuple[int, int], list[Acknowledgement]] = {}
        inherited: dict[tuple[int, int], list[Acknowledgement]] = {}
        for ack in self.mail.acks:
            holder = check.holder_of.get(ack.player)
            need(holder is not None, f"{ack.source}: an acknowledgement to {ack.player}, who "
                                     "held no seat")
            if ack.turn > last:
                check.notes.append(f"{ack.player}'s order for turn {ack.turn} was acknowledged "
                                   f"but never played: the record ends at turn {last}")
                continue
            entry = check.turn_entries.get(ack.turn)
            need(entry is not None, f"{ack.source}: an acknowledgement for turn {ack.turn}, "
                                    "a turn the record does not hold")
            key = (ack.turn, holder.seat)
            if entry["players"][holder.seat] == ack.player:
                own.setdefault(key, []).append(ack)
            else:
                need(holder.until_turn == ack.turn - 1,
                     f"{ack.source}: an acknowledgement to {ack.player} for turn {ack.turn}, "
                     "when they did not hold the seat")
                inherited.setdefault(key, []).append(ack)
        for key in sorted(own.keys() | inherited.keys()):
            turn, seat = key
            entry = check.turn_entries[turn]
            player = entry["players"][seat]
            played = entry["receipts"][player]
            acks = own.get(key) or inherited[key]
            # the highest count is the last, whatever Date the GM wrote (an older gm's mail
            # has no count: 0 here, and its Date orders it)
            latest = max(acks, key=lambda a: (a.count, a.date, a.serial))
            if played is None:
                need(not (player in entry["dropped"] and check.record["format"] == "gm-audit/3"),
                     f"{latest.source}: turn {turn}: {latest.player}'s order was acknowledged "
                     f"with {latest.receipt}, the record says {player} had left the game")
                if player in entry["dropped"]:
                    check.notes.append(f"turn {turn}: {latest.player}'s acknowledged order is "
                                       f"not played: {player} had left the game")
                    continue
                raise Difference(f"{latest.source}: turn {turn}: {latest.player}'s order was "
                                 f"acknowledged with {latest.receipt}, the record plays none "
                                 f"for {player}")
            if key not in own and played["player"] == player:
                check.not_checked.append(f"turn {turn}: {latest.player}'s acknowledged order gave "
                                   f"way to {player}'s own (only {player}'s mail shows it)")
                continue
            need(latest.receipt == played["receipt"],
                 f"{latest.source}: turn {turn}: {latest.player}'s last acknowledgement is "
                 f"{latest.receipt}, the record plays {played['receipt']} for {player}")


# ---------------------------------------------------------------- the verdict


def check(source: str | Path | dict[str, Any], mail: list[str | Path] | tuple[()] = (), *,
          game_commitment: str | None = None,
          seed_commitment: str | None = None) -> Verdict:
    """Check a record (an archive folder, an audit.json, or its parsed JSON) and mail."""
    not_checked: list[str] = [NOT_CHECKED_RULES]
    notes: list[str] = []
    checked: list[str] = []
    lists = (not_checked, notes, checked)
    record: Any = None
    try:
        record = source if isinstance(source, dict) else load_record(source)
        letters = read_mail(list(mail)) if mail else None
        audit = RecordCheck(record, lists)
        audit.run()
        if game_commitment is not None:
            held = audit.game["commitment"] if audit.game else None
            need(held == game_commitment.lower(), f"the game commitment is {held}, not the "
                                                  f"announced {game_commitment}")
            checked.append("the game commitment announced")
        if seed_commitment is not None:
            held = record["seed"]["commitment"]
            need(held == seed_commitment.lower(), f"the seed's commitment is {held}, not the "
                                                  f"announced {seed_commitment}")
            checked.append("the seed's commitment announced")
        if letters is None:
            not_checked.append(NOT_CHECKED_ORDERS)
            not_checked.append(NOT_CHECKED_HISTORY)
            if game_commitment is None:
                not_checked.append(NOT_CHECKED_GAME)
            if audit.cut_short:
                not_checked.append("whether the campaign was cut short: the reports mailed "
                                   "after a gm end would show it")
        else:
            MailCheck(audit, letters).run()
    except Unreadable as error:
        # docs/audit.md, A record of the wrong shape: gm-audit/3's is refused (a difference)
        refused = (str(error).startswith("the record's shape") and isinstance(record, dict)
                   and record.get("format") == FORMAT)
        return Verdict("fail" if refused else "unreadable", str(error), not_checked, notes, checked)
    except Difference as error:
        return Verdict("fail", str(error), not_checked, notes, checked)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        # A value of another type than the page's, somewhere no check looked first.
        reason = f"the record's shape: {type(error).__name__}: {error}"
        return Verdict("unreadable", reason, not_checked, notes, checked)
    return Verdict("ok", None, not_checked, notes, checked)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", help="an archive folder or its audit.json")
    parser.add_argument("--mail", nargs="+", action="extend", default=[],
                        help=".eml, mbox, Maildir or a folder of them")
    parser.add_argument("--game-commitment")
    parser.add_argument("--seed-commitment")
    args = parser.parse_args(argv)
    verdict = check(args.record, args.mail, game_commitment=args.game_commitment,
                    seed_commitment=args.seed_commitment)
    for line in verdict.checked:
        print(f"checked: {line}")
    for line in verdict.notes:
        print(f"note: {line}")
    for line in verdict.not_checked:
        print(f"not checked: {line}")
    print("ok" if verdict.ok else f"{verdict.status}: {verdict.reason}")
    return verdict.exit_code


if __name__ == "__main__":
    sys.exit(main())
