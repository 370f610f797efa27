"""A dishonest GM's forger, for the tests of `gm audit`: it changes a revealed
campaign's audit record and makes it consistent again the way such a GM would, replaying
the game with gm's own rules engine and remaking every receipt, record hash, game text and
game commitment by docs/audit.md's formulas as docs/audit.md states them, written out here
rather than taken from gm.commitment (so a forgery that passes proves gm uses the
documented formulas)."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from gm.audit.source import AUDIT_FILE
from gm.boards.model import Board
from gm.cli import cli
from gm.rules.base import Setup, rules_end
from gm.rules.chance import SeededChance
from gm.rules.registry import find_ruleset

DELETED = object()  # an order the forger removes: the player is said to have sent nothing


def gm_audit(*args: Any) -> Any:
    return CliRunner().invoke(cli, ["audit", *map(str, args)])


def tampered(archive: Path, tmp_path: Path, change: Any) -> Path:
    """A copy of `archive` whose audit record `change` edited (in place), nothing remade."""
    copy_ = tmp_path / "copy"
    shutil.copytree(archive, copy_)
    record = json.loads((copy_ / AUDIT_FILE).read_text())
    change(record)
    (copy_ / AUDIT_FILE).write_text(json.dumps(record))
    return copy_


def published(record: dict[str, Any], archive: Path, tmp_path: Path) -> Path:
    """A copy of the archive folder `archive` (or of `archive`/archive) holding `record`
    as its audit record."""
    source = archive / "archive" if (archive / "archive").is_dir() else archive
    copy_ = tmp_path / "archive"
    shutil.copytree(source, copy_)
    (copy_ / AUDIT_FILE).write_text(json.dumps(record))
    return copy_


def standings(record: dict[str, Any]) -> dict[str, Any]:
    return {p: facts["place"] for p, facts in record["turns"][-1]["state"]["players"].items()}


def canonical(value: Any) -> str:
    """docs/audit.md: RFC 8785 (sorted keys, no white space, UTF-8). The values here hold no
    number of 2^53 or more and only ASCII keys, so Python's sort is RFC 8785's."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def salt(seed: int, turn: int, kind: str, key: str) -> str:
    return sha256(f"{seed}:{turn}:{kind}:{key}")[:32]


def receipt(seed: int, turn: int, player: str, count: int, order: Any) -> str:
    text = canonical({"turn": turn, "player": player, "order": order})
    return sha256(salt(seed, turn, "receipt", f"{player}/{count}") + "\n" + text)


def link(seed: int, previous: str, turn: int, receipts: dict[str, Any], draws: list, state: dict) -> str:
    text = canonical({"turn": turn, "receipts": receipts, "draws": draws, "state": state})
    return sha256(previous + "\n" + salt(seed, turn, "record", "chain") + "\n" + text)


def mixed(seed: int, entropy: dict[str, str]) -> int:
    """docs/audit.md, Players' entropy: the seed every draw from turn 1 on uses."""
    if not entropy:
        return seed
    return int(sha256(f"{seed}" + "".join(f"\n{p}:{sha256(entropy[p])}" for p in sorted(entropy))), 16)


def end_link(seed: int, previous: str, end: dict[str, Any]) -> str:
    """docs/audit.md, The end's link: the chain's last link."""
    text = canonical({"end": {"by": end["by"], "turn": end["turn"], "reason": end["reason"]}})
    return sha256(previous + "\n" + salt(seed, end["turn"] or 0, "record", "end") + "\n" + text)


def forge(record: dict[str, Any], *, orders: dict[int, dict[str, Any]] | None = None,
          options: dict[str, Any] | None = None, seats: list[str] | None = None,
          boards: dict[str, str] | None = None,
          writers: dict[int, dict[str, tuple[str, int]]] | None = None) -> dict[str, Any]:
    """The record as a GM who changed `orders` (turn -> player -> order, or DELETED),
    `options`, the seat order or a board's canonical text would publish it: replayed from
    the start with gm's rules, every receipt, record hash and the game text remade;
    `writers` (turn -> player -> (writer, count)) says which acknowledged message a changed
    order claims to be. A seat handed over keeps its history (unless `seats` reorders
    them: then no seat may have changed hands)."""
    ruleset = find_ruleset(record["ruleset"])
    seed = int(record["seed"]["value"])
    new = copy.deepcopy(record)
    new["options"] |= options or {}
    if seats:
        new["seats"] = [record["seats"][record["players"].index(p)] for p in seats]
        new["players"] = list(seats)
    for entry in new["boards"]:
        if boards and entry["id"] in boards:
            entry["canonical"] = boards[entry["id"]]
    setup = Setup({b["id"]: Board.from_canonical(b["canonical"]) for b in new["boards"]}, tuple(new["players"]),
                  ruleset.options_from_json(new["options"]), seed, record["player_keys"])
    game = json.loads(record["game"]["text"]) | {
        "options": new["options"], "seats": new["players"],
        "boards": {b["id"]: b["commitment"] for b in new["boards"] if b["commitment"] is not None}}
    new["game"] = {"text": canonical(game), "commitment": sha256(canonical(game))}
    start = setup

    def seated(state: Any, holders: tuple[str, ...], players: Any) -> tuple[Any, Any]:
        """The state and setup with each seat's holder as of `players` (gm player replace)."""
        players = tuple(players) if players and not seats else start.players
        for old, now in zip(holders, players, strict=True):
            if old != now:
                state = ruleset.rename_player(state, old, now)
        keys = {players[i]: start.player_keys[p] for i, p in enumerate(start.players) if p in start.player_keys}
        return state, dataclasses.replace(start, players=players, player_keys=keys)

    opening = ruleset.start(setup, SeededChance(seed))
    state, setup = seated(opening.state, start.players, record["opening"]["players"])
    new["opening"] = {"draws": [d.to_json() for d in opening.draws], "players": list(setup.players),
                      "state": ruleset.state_json(setup, state)}
    written = {t["turn"]: t for t in record["turns"]}
    previous, new["turns"] = new["game"]["commitment"], []
    while not state.over:
        turn = state.turn
        old = written.get(turn, {"orders": {}, "receipts": {}})
        state, setup = seated(state, setup.players, old.get("players"))
        played = dict(old["orders"]) | (orders or {}).get(turn, {})
        played = {p: o for p, o in played.items() if o is not DELETED}
        outcome = ruleset.resolve(setup, state, {p: ruleset.order_from_json(o) for p, o in played.items()},
                                  SeededChance(mixed(seed, record.get("entropy") or {})))
        receipts = {}
        for player in setup.players:
            given = old["receipts"].get(player) or {"player": player, "count": 1}
            if player in (writers or {}).get(turn, {}):
                given = dict(zip(("player", "count"), writers[turn][player], strict=True))
            entropy = (record.get("entropy") or {}) if turn == 1 else {}
            order = played.get(player, {}) | ({"entropy": entropy[given["player"]]} if given["player"] in entropy else {})
            receipts[player] = None if player not in played else {
                "player": given["player"], "count": given["count"],
                "receipt": receipt(seed, turn, given["player"], given["count"], order)}
        draws = [d.to_json() for d in outcome.draws]
        after = ruleset.state_json(setup, outcome.state)
        previous = link(seed, previous, turn, {p: r and r["receipt"] for p, r in receipts.items()}, draws, after)
        new["turns"].append({
            "turn": turn, "players": list(setup.players), "orders": played, "receipts": receipts,
            "nmr": [p for p in setup.players if p not in played and ruleset.must_order(setup, state, p)],
            "dropped": [], "draws": draws, "state": after, "record_hash": previous})
        state = outcome.state
    by, turn = rules_end(setup, state)
    new["end"] = {"by": by, "turn": turn, "reason": None, "state": None}
    if record["format"] == "gm-audit/3":
        new["end"]["record_hash"] = end_link(seed, previous, new["end"])
    return new
