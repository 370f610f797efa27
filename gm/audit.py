"""`gm audit`: re-adjudicate a revealed campaign from its published archive alone (issues
17 and 25; the record's format is docs/audit.md). Every commitment is recomputed from its
salt and canonical text, the game commitment from the game text, every random draw from
the seed by RULES.md 5's formula, every turn from the state before it and the orders
played with gm's own rules engine, every receipt from the order it acknowledged and every
record hash from its turn and the one before; the record must run to the campaign's end.
The first difference found is reported with its turn, board and player, what the replay
expected and what the archive holds. What the record alone cannot prove (that it is the
game announced and mailed) gm.audit_mail checks against a player's mail. Nothing here
opens a campaign's database."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .audit_checks import Difference, Seats, check_end, check_game, check_people, check_proof, shown
from .audit_shape import check_shape, key_path
from .audit_source import AUDIT_FILE, RecordMalformed, RecordUnreadable, fetch, parse
from .boards.model import Board
from .commitment import commitment, seed_text
from .errors import ProblemsError, RulesError
from .rules.base import Setup
from .rules.chance import Draw, SeededChance, pick_index, played
from .rules.options import OptionsError
from .rules.registry import UnknownRuleset, find_ruleset

__all__ = ["AUDIT_FILE", "FORMAT", "FORMATS", "Difference", "RecordUnreadable", "Replayed", "audit", "load_record"]

FORMAT = "gm-audit/2"
FORMATS = ("gm-audit/1", FORMAT)  # /1: written before the proof of issue 25; still read
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
    # for gm.audit_mail: each turn's entry by its turn, the seats' history, the last turn
    entries: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    seats: Seats | None = None
    last_turn: int | None = None


def load_record(source: str) -> dict[str, Any]:
    """The audit record of the archive at `source`: a folder (or its index.html), an
    audit.json file, or an http(s) address of the archive; RecordUnreadable when it cannot
    be read within the limits of gm.audit_source."""
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


def _what_to_install(record: Mapping[str, Any]) -> str:
    """The end of the refusal of a record whose ruleset is not installed: which distribution
    played it and the line that installs it, when the record says so."""
    from .campaign.proof import distribution_of, install_line

    played_with = record.get("ruleset_version")
    if not isinstance(played_with, str):
        return ""  # gm-audit/1: the record does not say
    wanted = _installable(distribution_of(played_with))
    if wanted is None:
        return f"; the campaign was played with {shown(played_with)}"
    return f"; the campaign was played with {played_with}: install it with {install_line(wanted)}, then audit again"


# what a record may name to be shown in a command to type: PEP 508's distribution names
# and PEP 440's version characters, so that no record puts a quote or `;` on an auditor's
# command line
_DISTRIBUTION = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?")
_VERSION = re.compile(r"[A-Za-z0-9.+!_-]{1,64}")


def _refuse_later_writer(record: Mapping[str, Any]) -> None:
    """A record written by a later gm than this one (its `written_by`) may hold what this
    gm cannot check: RecordUnreadable names the release to install."""
    from . import __version__
    from .campaign.proof import distribution_of, install_line
    from .releases import newer_than_running

    written = record.get("written_by")
    wanted = _installable(distribution_of(written)) if isinstance(written, str) else None
    if wanted and wanted["name"] == "gm" and wanted["version"] and newer_than_running(wanted["version"]):
        raise RecordUnreadable(f"the record was written by gm {wanted['version']}, a later release than this gm "
                               f"({__version__}): install it with {install_line(wanted)}, then audit again")


def _gm_release_played(record: Mapping[str, Any], name: str) -> bool:
    """For a record of one of gm's own rulesets played by a release of gm: True when the
    installed gm plays that release's rules alike (gm.releases), so the replay may go on.
    A record played with other rules, or by a later release than this gm, cannot be
    checked here: RecordUnreadable names the release to install (docs/upgrading.md). A
    gm-audit/1 record was written by gm 0.1.0, which it does not say. False for a
    ruleset from outside gm."""
    from . import __version__
    from .campaign.proof import distribution_of, install_line
    from .releases import newer_than_running, rules_release
    from .rules.registry import origin

    played_with = record.get("ruleset_version", "gm 0.1.0" if record["format"] == "gm-audit/1" else None)
    declared = origin(name)
    if not isinstance(played_with, str) or declared is None or declared[0] != "gm":
        return False
    wanted = _installable(distribution_of(played_with))
    if wanted is None or wanted["name"] != "gm" or wanted["version"] is None:
        return False
    version = wanted["version"]
    if newer_than_running(version):
        raise RecordUnreadable(f"the campaign was played with gm {version}, a later release than this gm "
                               f"({__version__}): install it with {install_line(wanted)}, then audit again")
    played, installed = rules_release(name, version), rules_release(name, __version__)
    if played is None:
        return False
    if played != installed:
        raise RecordUnreadable(f"the campaign was played with gm {version}, whose {name} rules gm {__version__} "
                               f"plays differently (changed in gm {installed}): install it with "
                               f"{install_line(wanted)}, then audit again")
    return True


def _installable(wanted: Any) -> dict[str, str | None] | None:
    """{"name", "version"} of the distribution the record says played it (its
    `ruleset_version` split by gm.campaign.proof.distribution_of, the text the game
    commitment binds), None when it names nothing an auditor could install."""
    if not isinstance(wanted, dict):
        return None
    name, version = wanted.get("name"), wanted.get("version")
    if not isinstance(name, str) or not _DISTRIBUTION.fullmatch(name):
        return None
    if version is not None and not (isinstance(version, str) and _VERSION.fullmatch(version)):
        return None
    return {"name": name, "version": version}


def _seed(record: Mapping[str, Any]) -> int:
    """The seed: a string of decimal digits in gm-audit/2, a JSON number in /1."""
    value = record["seed"]["value"]
    if record["format"] == FORMAT:
        if not isinstance(value, str) or not _SEED.fullmatch(value):
            raise ValueError(f"the seed must be written as a string of decimal digits, not {shown(value)}")
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"the seed must be a whole number, not {shown(value)}")
    return value


def _audit(record: Mapping[str, Any], where: _Where) -> Difference | Replayed:
    proof = record["format"] == FORMAT
    _refuse_later_writer(record)
    seed = record["seed"]
    value = _seed(record)
    checked, notes = [], []
    if commitment(seed["salt"], seed_text(value)) != seed["commitment"]:
        return Difference(None, "seed commitment", None, None, commitment(seed["salt"], seed_text(value)),
                          seed["commitment"])
    checked.append(("seed", seed["commitment"]))
    try:
        ruleset = find_ruleset(record["ruleset"])
    except UnknownRuleset as error:
        raise RecordUnreadable(f"{error}{_what_to_install(record)}") from None
    where.ruleset, where.key = ruleset.name, "options"
    same_rules = _gm_release_played(record, ruleset.name)
    try:
        # checked against the ruleset's limits before anything is built from them
        options = ruleset.options_from_json(record["options"])
    except (ProblemsError, OptionsError) as error:
        raise RecordUnreadable(f"the record's options are beyond what the {ruleset.name} ruleset plays: "
                               + "; ".join(_LINE.sub("", p) for p in error.problems)) from None
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
    game = record["game"] if proof else None
    where.key = "game"
    if game is not None:
        found = check_game(record)
        if found:
            return found
        checked.insert(0, ("game", game["commitment"]))
    elif proof:
        notes.append("the record holds no game commitment (the campaign was started before gm kept one): "
                     "neither the game announced nor any receipt or record hash could be checked")
    if proof:
        from .campaign.proof import distribution_of, install_line, ruleset_version

        # (not `played`: gm.rules.chance's, which collects the draws below)
        played_with = record["ruleset_version"]
        # split once: what ruleset_distribution must be and what installs the rules played. A
        # ruleset_version that is no text is split only to be compared, and fails as the record's
        # shape; with no ruleset_distribution either, it names nothing to install.
        split = (distribution_of(played_with) if isinstance(played_with, str) or "ruleset_distribution" in record
                 else None)
        if "ruleset_distribution" in record and record["ruleset_distribution"] != split:
            return Difference(None, "ruleset_distribution: the ruleset_version the game text binds, split", None,
                              None, split, record["ruleset_distribution"])
        if played_with != ruleset_version(ruleset) and same_rules:
            notes.append(f"the campaign was played with {played_with}; {ruleset_version(ruleset)} plays the "
                         f"{ruleset.name} rules alike and replayed it")
        elif played_with != ruleset_version(ruleset):
            wanted = _installable(split)
            again = f" ({install_line(wanted)} replays it with the rules played)" if wanted else ""
            notes.append(f"the campaign was played with {played_with}; {ruleset_version(ruleset)} is installed and "
                         f"replayed it{again}")
    where.key = "seats"
    seats = Seats.of(record)
    problem = seats.problem(record["players"])
    if problem:
        return Difference(None, "seats: who held each seat when", None, None, "a history seat by seat", problem)
    keys = {p: dict(k) for p, k in record.get("player_keys", {}).items()}
    start = Setup(boards, tuple(record["players"]), options, value, keys)

    def setup_for(players: Sequence[str]) -> Setup:
        renamed = {players[i]: keys[p] for i, p in enumerate(start.players) if p in keys}
        return dataclasses.replace(start, players=tuple(players), player_keys=renamed)

    draws = 0
    where.key = "opening"
    chance = SeededChance(value)
    opening = played(ruleset.start(start, chance), chance)  # gm collects the draws itself
    found = _draws(0, record["opening"]["draws"], opening.draws, value)
    if found:
        return found
    draws += len(opening.draws)
    state, players = opening.state, tuple(start.players)
    wanted = tuple(record["opening"].get("players", start.players))
    if proof and record["turns"] and wanted != seats.at(record["turns"][0]["turn"]):
        return Difference(0, "players: each seat's holder at the first turn", None, None,
                          list(seats.at(record["turns"][0]["turn"])), list(wanted))
    state, players = _seated(ruleset, state, players, wanted), wanted
    found = _states(0, ruleset.state_json(setup_for(players), state), record["opening"]["state"])
    if found:
        return found
    previous = game["commitment"] if game else None
    receipts = chain = 0
    entries = {}
    setup = setup_for(players)
    for number, entry in enumerate(record["turns"]):
        turn, where.key = entry["turn"], key_path("turns", number)
        if state.over:
            return Difference(turn, "a turn after the campaign was over", None, None, "no more turns", turn)
        wanted = tuple(entry["players"])
        state, players = _seated(ruleset, state, players, wanted), wanted
        if state.turn != turn:
            return Difference(turn, "turn number", None, None, state.turn, turn)
        setup = setup_for(players)
        if proof:
            found = check_people(turn, entry, seats, {p: ruleset.must_order(setup, state, p) for p in players})
            if found:
                return found
        orders = {}
        for player, order in entry["orders"].items():
            where.key = key_path(key_path(key_path("turns", number), "orders"), player)
            orders[player] = ruleset.order_from_json(order)
        where.key = key_path(key_path("turns", number), "orders")
        try:
            chance = SeededChance(value)
            outcome = played(ruleset.resolve(setup, state, orders, chance), chance)
        except RulesError as error:  # an order the rules cannot play was never played so
            return Difference(turn, "orders", None, None, "orders the rules can play", str(error))
        where.key = key_path("turns", number)
        found = _draws(turn, entry["draws"], outcome.draws, value)
        if found:
            return found
        draws += len(outcome.draws)
        found = _states(turn, ruleset.state_json(setup, outcome.state), entry["state"])
        if found:
            return found
        if previous is not None:
            found = check_proof(turn, entry, seats, value, previous)
            if found:
                return found
            previous = entry["record_hash"]
            receipts += sum(1 for r in entry["receipts"].values() if r is not None)
            chain += 1
        elif proof and (entry["record_hash"] is not None or entry["receipts"] is not None):
            return Difference(turn, "record hash: with no game commitment to chain from", None, None, None,
                              entry["record_hash"])
        entries[turn] = entry
        state = outcome.state
    end = record["end"] if proof else None
    where.key = "end"
    if isinstance(end, Mapping) and end.get("by") == "gm" and not state.over:
        # a seat handed over after the last turn played: the GM's end places its new holder
        wanted = seats.at(state.turn)
        state, players = _seated(ruleset, state, players, wanted), wanted
        setup = setup_for(players)
    found, final, ending = check_end(record, ruleset, setup, state, has_end=proof)
    if found:
        return found
    last = record["turns"][-1]["turn"] if record["turns"] else None
    final_json = ruleset.state_json(setup, final)
    if final is not state:  # the GM's end, replayed with the ruleset's own
        found = _states(last, final_json, record["end"]["state"])
        if found:
            return dataclasses.replace(found, what="end by the GM: " + found.what)
    return Replayed(record.get("campaign", ""), ruleset.name, len(record["turns"]), draws, tuple(checked),
                    format=record["format"], game_commitment=game["commitment"] if game else None,
                    seed_commitment=seed["commitment"], receipts=receipts, chain=chain, ending=ending,
                    standings=_standings(final_json), notes=tuple(notes), entries=entries, seats=seats,
                    last_turn=last)


def _uncommitted(ruleset: Any, entry: Mapping[str, Any], players: int, options: Any) -> Difference | None:
    """A board without a commitment is one the ruleset made from the seed (RULES.md 5: the
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


def _states(turn: int | None, expected: Any, found: Any) -> Difference | None:
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
