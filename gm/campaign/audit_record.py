"""What a revealed campaign publishes so that anyone can replay it and check its proof
(the format, `gm-audit/3`, is docs/audit.md): the seed and every board
with their salts and commitments, the game text the game commitment hashes, the options
and seats with who held each seat when, and for the start and every resolved turn the
orders that were played with the receipt each was acknowledged with, who sent nothing
and who had left, every random draw, the resulting state and the turn's record hash; then
how the campaign ended. Read from the store; written by gm publish as `audit.json` only
once `gm reveal` has run, since it holds every order and, for unleashed, every hand."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .. import __version__
from .campaign_end import how_it_ended
from .entropy import contributions
from .folder import Campaign
from .proof import distribution_of, end_link, ruleset_version

__all__ = ["FORMAT", "audit_record", "end_entry"]

FORMAT = "gm-audit/3"


def audit_record(campaign: Campaign) -> dict[str, Any]:
    """The whole record of a revealed campaign, JSON-ready."""
    ruleset, setup = campaign.ruleset, campaign.setup
    row = campaign.row()
    opening_setup = campaign.opening_setup()
    boards = {b["id"]: b for b in campaign.store.rows("select * from boards")}
    seats: dict[int, list[dict[str, Any]]] = {}
    for holder in campaign.holders():  # by seat, oldest holder first
        seats.setdefault(holder["seat"], []).append(holder)
    dropped = {r["id"]: r["dropped_turn"] for r in campaign.store.rows(
        "select id, dropped_turn from players where dropped_turn is not null")}
    turn_rows = campaign.store.rows("select * from turns order by turn")
    opening = json.loads(row["opening"] or "{}")
    first_players = _players_at(seats, turn_rows[0]["turn"]) if turn_rows else setup.players
    first_state = (json.loads(turn_rows[0]["state_before"]) if turn_rows else json.loads(row["state"]))
    turns = [_turn_entry(campaign, turn_row, _players_at(seats, turn_row["turn"]), dropped) for turn_row in turn_rows]
    game = row.get("game")
    played = json.loads(game)["ruleset_version"] if game else ruleset_version(ruleset)
    return {
        "format": FORMAT,
        "campaign": campaign.config.id,
        "ruleset": ruleset.name,
        # what the game text says the campaign was played with (what to install to replay
        # it); the gm of today for a campaign started before the game text was kept
        "ruleset_version": played,
        # the same, split for a program: the auditor's `pip install '<name>==<version>'`
        "ruleset_distribution": distribution_of(played),
        # the release of gm that wrote this record (docs/upgrading.md): a gm older than it
        # names it rather than read a record it may not know all of
        "written_by": f"gm {__version__}",
        # a string: a 128-bit number is rounded by JavaScript's and Go's default JSON readers
        "seed": {"value": str(setup.seed), "salt": row["seed_salt"], "commitment": row["seed_commitment"]},
        "game": {"text": game, "commitment": row["game_commitment"]} if game else None,
        "boards": [{"id": b, "canonical": boards[b]["canonical"], "salt": boards[b]["salt"],
                    "commitment": boards[b]["commitment"] or None,
                    # docs/audit.md: a board with no commitment is one the ruleset made from the seed,
                    # unless campaign.yaml names its file: a campaign begun before gm committed
                    # every board played from a file (docs/audit.md)
                    "from_seed": not boards[b]["commitment"] and b not in campaign.config.board_files}
                   for b in setup.boards],
        "options": ruleset.options_to_json(setup.options),
        "players": list(opening_setup.players),
        "player_keys": {p: dict(k) for p, k in opening_setup.player_keys.items()},
        "seats": [[{"player": r["player"], "from_turn": r["from_turn"], "until_turn": r["until_turn"],
                    "dropped_turn": dropped.get(r["player"])} for r in rows] for _, rows in sorted(seats.items())],
        "opening": {
            "draws": opening.get("draws", []),
            "players": list(first_players),
            "state": ruleset.state_json(_setup_at(setup, first_players), ruleset.load_state(first_state)),
        },
        "turns": turns,
        # docs/audit.md, What the GM cannot choose: the words mixed into the seed from turn 1
        "entropy": contributions(campaign.store),
        "end": end_entry(campaign),
    }


def _receipts(campaign: Campaign, turn_row: dict[str, Any], seats: Sequence[str] = ()) -> dict[str, Any] | None:
    """Each seat holder's receipt played in the turn with what recomputes it (docs/audit.md):
    the id that wrote the message it acknowledged (a seat's former holder, for an order the
    new holder inherited) and that message's count. None for a turn resolved before gm
    kept receipts."""
    if not turn_row.get("receipts"):
        return None
    played = json.loads(turn_row["receipts"])
    rows = campaign.store.rows(
        "select o.player, o.receipt, o.receipt_hash, m.player as writer from orders o "
        "left join messages m on m.id = o.message where o.turn = ? order by o.receipt", (turn_row["turn"],))
    last = {r["player"]: r for r in rows}  # each holder's last accepted message
    # docs/audit.md's `k` of that last message: among the seat's rows (renamed to its holder
    # now), those its writer wrote up to it, which being the holder's last is all of them;
    # counted in one walk rather than a walk per holder
    written = Counter((r["player"], r["writer"]) for r in rows)
    entries: dict[str, Any] = {}
    # seat by seat, as docs/audit.md lists seats (gm.sqlite keeps them sorted by id)
    order = [p for p in seats if p in played] + [p for p in played if p not in seats]
    for player, receipt in ((p, played[p]) for p in order):
        source = last.get(player)
        writer = (source and source["writer"]) or player
        entries[player] = None if receipt is None else {
            "player": writer,
            "count": None if source is None else written[(player, writer)],
            "receipt": receipt,
        }
    return entries


def _players_at(seats: dict[int, list[dict[str, Any]]], turn: int) -> tuple[str, ...]:
    """Each seat's holder in `turn`, in seat order."""
    return tuple(next((r["player"] for r in rows if r["from_turn"] <= turn
                       and (r["until_turn"] is None or turn <= r["until_turn"])), rows[-1]["player"])
                 for _, rows in sorted(seats.items()))


def _setup_at(setup: Any, players: tuple[str, ...]) -> Any:
    """The campaign's setup with these seat holders, each keeping their seat's keys."""
    keys = {players[i]: setup.player_keys[p] for i, p in enumerate(setup.players) if p in setup.player_keys}
    return dataclasses.replace(setup, players=players, player_keys=keys)


def _turn_entry(campaign: Campaign, turn_row: dict[str, Any], players: tuple[str, ...],
                dropped: dict[str, int]) -> dict[str, Any]:
    """One resolved turn as docs/audit.md's `turns` lists it."""
    ruleset, setup = campaign.ruleset, campaign.setup
    before = ruleset.load_state(json.loads(turn_row["state_before"]))
    after = ruleset.load_state(json.loads(turn_row["state_after"]))
    orders = json.loads(turn_row["orders"])
    gone = [p for p in players if _gone(dropped, p, turn_row["turn"])]
    return {
        "turn": turn_row["turn"],
        "players": list(players),
        "orders": orders,
        "receipts": _receipts(campaign, turn_row, players),
        # who had to write and sent nothing (docs/audit.md), and who had left (gm player drop)
        "nmr": [p for p in players if p not in orders and p not in gone
                and ruleset.must_order(_setup_at(setup, players), before, p)],
        "dropped": gone,
        "draws": json.loads(turn_row["draws"] or "[]"),
        "state": ruleset.state_json(_setup_at(setup, players), after),
        "record_hash": turn_row.get("record_hash"),
    }


def end_entry(campaign: Campaign) -> dict[str, Any] | None:
    """How the campaign ended (docs/audit.md `end`, gm.campaign.gm_end): by its rules or
    `max_turns` at its last turn played, or by the GM (`gm end`) after it, with the GM's
    reason and the state the end left, which an auditor recomputes with the ruleset's own
    end from the last turn's state, its seats held by their holders at the end. None while
    it runs."""
    state = campaign.state()
    end = how_it_ended(campaign, state)
    if end is None:
        return None
    return end.to_json() | {"state": campaign.ruleset.state_json(campaign.setup, state) if end.by == "gm" else None,
                            "record_hash": end_link(campaign, end.to_json())}


def _gone(dropped: dict[str, int], player: str, turn: int) -> bool:
    return player in dropped and dropped[player] <= turn
