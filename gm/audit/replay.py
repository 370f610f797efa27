"""`gm audit`: re-adjudicate a revealed campaign from its published archive alone (issues
17 and 25; the record's format is docs/audit.md). Every commitment is recomputed from its
salt and canonical text, the game commitment from the game text, every random draw from
the seed by docs/audit.md's formula, every turn from the state before it and the orders
played with gm's own rules engine, every receipt from the order it acknowledged and every
record hash from its turn and the one before; the record must run to the campaign's end.
The first difference found is reported with its turn, board and player, what the replay
expected and what the archive holds. What the record alone cannot prove (that it is the
game announced and mailed) gm.audit.mail checks against a player's mail. Nothing here
opens a campaign's database."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..boards.model import Board
from ..commitment import commitment, seed_text
from ..errors import ProblemsError, RulesError
from ..rules.base import Setup
from ..rules.chance import SeededChance, played
from ..rules.entropy import draw_seed
from ..rules.options import OptionsError
from ..rules.registry import UnknownRuleset, find_ruleset
from .checks import (
    Difference,
    Seats,
    check_end,
    check_end_link,
    check_game,
    check_people,
    check_proof,
    shown,
)
from .compare import draws, states
from .installed import gm_release_played, refuse_later_writer, version_notes, what_to_install
from .shape import check_shape, key_path
from .source import FORMAT, RecordMalformed, RecordUnreadable, fetch, parse
from .strict import check_options

__all__ = ["FORMAT", "FORMATS", "Replayed", "audit", "load_record"]

PROOF_FORMATS = ("gm-audit/2", FORMAT)  # the formats whose record holds its proof
FORMATS = ("gm-audit/1", *PROOF_FORMATS)  # /1: written before the record held its proof; still read
_SEED = re.compile(r"[0-9]{1,100}")
_LINE = re.compile(r"^line \d+: ")  # a problem's place in campaign.yaml, which a record has not


@dataclass(frozen=True)
class Replayed:
    """What a clean audit checked, for the report and for checking mail against it."""

    campaign: str
    ruleset: str
    turns: int
    draws: int
    commitments: tuple[tuple[str, str], ...]  # what, commitment: for the player to compare
    format: str = FORMAT
    game_commitment: str | None = None  # recomputed from the game text; None: the record has none
    seed_commitment: str = ""
    receipts: int = 0  # receipts recomputed from the orders played
    chain: int = 0  # record hashes recomputed
    ending: str = ""  # how the campaign ended, in words
    standings: tuple[tuple[int | None, str], ...] = ()  # (place, player) from the last state
    notes: tuple[str, ...] = ()  # what the record alone could not show
    # for gm.audit.mail: each turn's entry by its turn, the seats' history, the last turn
    entries: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    seats: Seats | None = None
    last_turn: int | None = None
    end_hash: str | None = None  # the end's link (gm-audit/3), recomputed


def load_record(source: str) -> dict[str, Any]:
    """The audit record of the archive at `source`: a folder (or its index.html), an
    audit.json file, or an http(s) address of the archive; RecordUnreadable when it cannot
    be read within the limits of gm.audit.source."""
    record = parse(fetch(source))
    if not isinstance(record, dict) or record.get("format") not in FORMATS:
        raise RecordUnreadable(f"not an audit record of format {' or '.join(FORMATS)} (found {record.get('format')!r})"
                               if isinstance(record, dict) else "the audit record is not a JSON object")
    return record


def audit(record: Mapping[str, Any]) -> Difference | Replayed:
    """Replay the record; the first Difference, or what was checked when all agree.
    RecordMalformed when the record is of another shape than docs/audit.md's (checked
    before anything is replayed), RecordUnreadable when it cannot be replayed within this
    machine's limits."""
    check_shape(record)
    where = _Where()
    try:
        return _audit(record, where)
    except (RecursionError, OverflowError, MemoryError) as error:
        # what no honest record asks of the replay: the auditor stops rather than be exhausted
        raise RecordUnreadable(f"the record cannot be replayed within this machine's limits "
                               f"({type(error).__name__})") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        # what the shape leaves to the ruleset (an order's or an option's insides) and the
        # ruleset could not read: named by the key the replay was reading
        raise RecordMalformed(f"the record's shape: {where.key}: a value the {where.ruleset} rules cannot "
                              "read") from None


@dataclass
class _Where:
    """Which key of the record the replay is reading, for what the shape cannot say."""

    key: str = "the record"
    ruleset: str = "ruleset's"


def _seed(record: Mapping[str, Any]) -> int:
    """The seed: a string of decimal digits in gm-audit/2, a JSON number in /1."""
    value = record["seed"]["value"]
    if record["format"] in PROOF_FORMATS:
        if not isinstance(value, str) or not _SEED.fullmatch(value):
            raise ValueError(f"the seed must be written as a string of decimal digits, not {shown(value)}")
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"the seed must be a whole number, not {shown(value)}")
    return value


def _audit(record: Mapping[str, Any], where: _Where) -> Difference | Replayed:
    """Check the commitments and the releases, then replay the opening, every turn and the
    end: the first Difference, or what was checked."""
    proof = record["format"] in PROOF_FORMATS
    refuse_later_writer(record)
    seed, value = record["seed"], _seed(record)
    if commitment(seed["salt"], seed_text(value)) != seed["commitment"]:
        return Difference(None, "seed commitment", None, None, commitment(seed["salt"], seed_text(value)),
                          seed["commitment"])
    try:
        ruleset = find_ruleset(record["ruleset"])
    except UnknownRuleset as error:
        raise RecordUnreadable(f"{error}{what_to_install(record)}") from None
    where.ruleset, where.key = ruleset.name, "options"
    same_rules = gm_release_played(record, ruleset.name)
    try:
        # checked against the ruleset's limits before anything is built from them
        options = ruleset.options_from_json(record["options"])
    except (ProblemsError, OptionsError) as error:
        raise RecordUnreadable(f"the record's options are beyond what the {ruleset.name} ruleset plays: "
                               + "; ".join(_LINE.sub("", p) for p in error.problems)) from None
    if record["format"] == FORMAT:
        check_options(record, ruleset.options_to_json(options))
    checked: list[tuple[str, str]] = [("seed", seed["commitment"])]
    notes: list[str] = []
    boards = _boards(record, ruleset, options, where, checked, notes)
    if isinstance(boards, Difference):
        return boards
    game = record["game"] if proof else None
    where.key = "game"
    found = _game(record, game, proof, checked, notes)
    if not found and proof:
        found = version_notes(record, ruleset, same_rules, notes)
    if found:
        return found
    where.key = "seats"
    seats = Seats.of(record)
    problem = seats.problem(record["players"])
    if problem:
        return Difference(None, "seats: who held each seat when", None, None, "a history seat by seat", problem)
    keys = {p: dict(k) for p, k in record.get("player_keys", {}).items()}
    run = _Replay(record, where, ruleset, Setup(boards, tuple(record["players"]), options, value, keys), keys,
                  seats, proof, previous=game["commitment"] if game else None,
                  entropy=dict(record.get("entropy") or {}))
    found = run.opening() or run.turns()
    if found:
        return found
    return run.end(checked, notes, game)


def _boards(record: Mapping[str, Any], ruleset: Any, options: Any, where: _Where, checked: list[tuple[str, str]],
            notes: list[str]) -> dict[str, Board] | Difference:
    """Every board of the record, its commitment checked (or, without one, that it is the
    board the seed made)."""
    proof = record["format"] in PROOF_FORMATS
    boards = {}
    for number, entry in enumerate(record["boards"]):
        where.key = key_path("boards", number)
        if entry["commitment"] is not None:
            made = commitment(entry["salt"], entry["canonical"])
            if made != entry["commitment"]:
                return Difference(None, "board commitment", entry["id"], None, made, entry["commitment"])
            checked.append((f"board {entry['id']}", entry["commitment"]))
        elif proof and entry.get("from_seed") is not True and record["game"] is None:
            # begun before gm committed every board played from a file (docs/audit.md): the
            # board was public from the start, shown in every welcome mail, and bound by nothing
            notes.append(f"board {entry['id']} was played from a file without a commitment (the campaign "
                         "was started before gm committed every board): it is checked against nothing")
        elif proof:
            found = _uncommitted(ruleset, entry, len(record["players"]), options)
            if found:
                return found
        try:
            boards[entry["id"]] = Board.from_canonical(entry["canonical"])
        except ProblemsError as error:
            raise RecordUnreadable(f"board {entry['id']} of the record is no board gm plays: "
                                   + "; ".join(error.problems)) from None
    return boards


def _game(record: Mapping[str, Any], game: Any, proof: bool, checked: list[tuple[str, str]],
          notes: list[str]) -> Difference | None:
    """The game commitment recomputed from the game text, when the record has one."""
    if game is not None:
        found = check_game(record)
        if found:
            return found
        checked.insert(0, ("game", game["commitment"]))
    elif proof:
        notes.append("the record holds no game commitment (the campaign was started before gm kept one): "
                     "neither the game announced nor any receipt or record hash could be checked")
    return None


@dataclass
class _Replay:
    """The replay under way: the state and seats reached, and what was checked so far."""

    record: Mapping[str, Any]
    where: _Where
    ruleset: Any
    start: Setup
    keys: dict[str, dict[str, Any]]
    seats: Seats
    proof: bool
    previous: str | None  # the last record hash (the game commitment before turn 1)
    state: Any = None
    players: tuple[str, ...] = ()
    draws: int = 0
    receipts: int = 0
    chain: int = 0
    entries: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    entropy: dict[str, str] = field(default_factory=dict)  # the players' words (gm-audit/3)

    def setup_for(self, players: Sequence[str]) -> Setup:
        renamed = {players[i]: self.keys[p] for i, p in enumerate(self.start.players) if p in self.keys}
        return dataclasses.replace(self.start, players=tuple(players), player_keys=renamed)

    def seated(self, wanted: Sequence[str]) -> None:
        self.state, self.players = _seated(self.ruleset, self.state, self.players, wanted), tuple(wanted)

    def opening(self) -> Difference | None:
        record, ruleset, start = self.record, self.ruleset, self.start
        self.where.key = "opening"
        chance = SeededChance(start.seed)
        opening = played(ruleset.start(start, chance), chance)  # gm collects the draws itself
        found = draws(0, record["opening"]["draws"], opening.draws, start.seed)
        if found:
            return found
        self.draws += len(opening.draws)
        self.state, self.players = opening.state, tuple(start.players)
        wanted = tuple(record["opening"].get("players", start.players))
        if self.proof and record["turns"] and wanted != self.seats.at(record["turns"][0]["turn"]):
            return Difference(0, "players: each seat's holder at the first turn", None, None,
                              list(self.seats.at(record["turns"][0]["turn"])), list(wanted))
        self.seated(wanted)
        return states(0, ruleset.state_json(self.setup_for(self.players), self.state), record["opening"]["state"])

    def turns(self) -> Difference | None:
        for number, entry in enumerate(self.record["turns"]):
            found = self.turn(number, entry)
            if found:
                return found
        return None

    def turn(self, number: int, entry: Mapping[str, Any]) -> Difference | None:
        ruleset, where = self.ruleset, self.where
        turn, where.key = entry["turn"], key_path("turns", number)
        if self.state.over:
            return Difference(turn, "a turn after the campaign was over", None, None, "no more turns", turn)
        self.seated(tuple(entry["players"]))
        if self.state.turn != turn:
            return Difference(turn, "turn number", None, None, self.state.turn, turn)
        setup = self.setup_for(self.players)
        if self.proof:
            must = {p: ruleset.must_order(setup, self.state, p) for p in self.players}
            found = check_people(turn, entry, self.seats, must)
            if found:
                return found
        orders = {}
        for player, order in entry["orders"].items():
            where.key = key_path(key_path(key_path("turns", number), "orders"), player)
            orders[player] = ruleset.order_from_json(order)
        where.key = key_path(key_path("turns", number), "orders")
        seed = draw_seed(setup.seed, turn, self.entropy)
        try:
            chance = SeededChance(seed)
            outcome = played(ruleset.resolve(setup, self.state, orders, chance), chance)
        except RulesError as error:  # an order the rules cannot play was never played so
            return Difference(turn, "orders", None, None, "orders the rules can play", str(error))
        where.key = key_path("turns", number)
        found = (draws(turn, entry["draws"], outcome.draws, seed)
                 or states(turn, ruleset.state_json(setup, outcome.state), entry["state"]))
        if found:
            return found
        self.draws += len(outcome.draws)
        found = self.chained(turn, entry)
        if found:
            return found
        self.entries[turn] = entry
        self.state = outcome.state
        return None

    def chained(self, turn: int, entry: Mapping[str, Any]) -> Difference | None:
        """The turn's receipts and record hash, chained from the one before."""
        if self.previous is not None:
            first = turn == self.record["turns"][0]["turn"]  # the receipts ENTROPY words are part of
            found = check_proof(turn, entry, self.seats, self.start.seed, self.previous,
                                self.entropy if first else {})
            if found:
                return found
            self.previous = entry["record_hash"]
            self.receipts += sum(1 for r in entry["receipts"].values() if r is not None)
            self.chain += 1
        elif self.proof and (entry["record_hash"] is not None or entry["receipts"] is not None):
            return Difference(turn, "record hash: with no game commitment to chain from", None, None, None,
                              entry["record_hash"])
        return None

    def end(self, checked: list[tuple[str, str]], notes: list[str], game: Any) -> Difference | Replayed:
        record, ruleset = self.record, self.ruleset
        end = record["end"] if self.proof else None
        self.where.key = "end"
        setup = self.setup_for(self.players)
        if isinstance(end, Mapping) and end.get("by") == "gm" and not self.state.over:
            # a seat handed over after the last turn played: the GM's end places its new holder
            self.seated(self.seats.at(self.state.turn))
            setup = self.setup_for(self.players)
        found, final, ending = check_end(record, ruleset, setup, self.state, has_end=self.proof)
        if not found and record["format"] == FORMAT:
            found = check_end_link(end, self.start.seed, self.previous)
            self.chain += found is None and end is not None and self.previous is not None
        if found:
            return found
        last = record["turns"][-1]["turn"] if record["turns"] else None
        final_json = ruleset.state_json(setup, final)
        if final is not self.state:  # the GM's end, replayed with the ruleset's own
            found = states(last, final_json, record["end"]["state"])
            if found:
                return dataclasses.replace(found, what="end by the GM: " + found.what)
        return Replayed(record.get("campaign", ""), ruleset.name, len(record["turns"]), self.draws, tuple(checked),
                        format=record["format"], game_commitment=game["commitment"] if game else None,
                        seed_commitment=record["seed"]["commitment"], receipts=self.receipts, chain=self.chain,
                        ending=ending, standings=_standings(final_json), notes=tuple(notes),
                        entries=self.entries, seats=self.seats, last_turn=last,
                        end_hash=end.get("record_hash") if isinstance(end, Mapping) and record["format"] == FORMAT
                        and self.previous is not None else None)


def _uncommitted(ruleset: Any, entry: Mapping[str, Any], players: int, options: Any) -> Difference | None:
    """A board without a commitment is one the ruleset made from the seed (docs/audit.md: the
    seed binds it), which the record must say and which must be the ruleset's own default;
    any other is a board the GM could have changed unseen."""
    if entry.get("from_seed") is not True:
        return Difference(None, "board commitment: every board played from a file is committed", entry["id"],
                          None, "a commitment", None)
    made = {} if ruleset.commits_boards else ruleset.campaign_boards({}, players, options)[0]
    default = made.get(entry["id"])
    if default is None or default.canonical_text() != entry["canonical"]:
        return Difference(None, "board made from the seed: the ruleset's own default board", entry["id"], None,
                          default.canonical_text() if default else "no board the ruleset makes from the seed",
                          entry["canonical"])
    return None


def _standings(state: Mapping[str, Any]) -> tuple[tuple[int | None, str], ...]:
    """(place, player) from a state's `players`, best first; a player without a place last."""
    places = {p: facts.get("place") for p, facts in state.get("players", {}).items()}
    return tuple(sorted(((place, p) for p, place in places.items()),
                        key=lambda item: (item[0] is None, item[0] or 0, item[1])))


def _seated(ruleset: Any, state: Any, before: Sequence[str], now: Sequence[str]) -> Any:
    """The state with each seat's holder as of now (gm player replace between turns)."""
    for old, new in zip(before, now, strict=True):
        if old != new:
            state = ruleset.rename_player(state, old, new)
    return state
