"""What a revealed campaign publishes so that anyone can replay it (issue 17; the format is
docs/audit.md): the seed and every board with their salts and commitments, the options and
seats, and for the start and every resolved turn the orders that were played, who sent
nothing and who had left, every random draw and the resulting state. Read from the
store; written by gm publish as `audit.json` only once `gm reveal` has run, since it holds
every order and, for unleashed, every hand."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .campaign import Campaign

__all__ = ["FORMAT", "audit_record"]

FORMAT = "gm-audit/1"


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

    def players_at(turn: int) -> tuple[str, ...]:
        """Each seat's holder in `turn`, in seat order."""
        return tuple(next((r["player"] for r in rows if r["from_turn"] <= turn
                           and (r["until_turn"] is None or turn <= r["until_turn"])), rows[-1]["player"])
                     for _, rows in sorted(seats.items()))

    def setup_at(players: tuple[str, ...]) -> Any:
        keys = {players[i]: setup.player_keys[p] for i, p in enumerate(setup.players) if p in setup.player_keys}
        return dataclasses.replace(setup, players=players, player_keys=keys)

    opening = json.loads(row["opening"] or "{}")
    first_players = players_at(turn_rows[0]["turn"]) if turn_rows else setup.players
    first_state = (json.loads(turn_rows[0]["state_before"]) if turn_rows else json.loads(row["state"]))
    turns = []
    for turn_row in turn_rows:
        players = players_at(turn_row["turn"])
        before = ruleset.load_state(json.loads(turn_row["state_before"]))
        after = ruleset.load_state(json.loads(turn_row["state_after"]))
        orders = json.loads(turn_row["orders"])
        gone = [p for p in players if _gone(dropped, p, turn_row["turn"])]
        turns.append({
            "turn": turn_row["turn"],
            "players": list(players),
            "orders": orders,
            # who had to write and sent nothing (RULES.md 2.4), and who had left (gm player drop)
            "nmr": [p for p in players if p not in orders and p not in gone
                    and ruleset.must_order(setup_at(players), before, p)],
            "dropped": gone,
            "draws": json.loads(turn_row["draws"] or "[]"),
            "state": ruleset.state_json(setup_at(players), after),
        })
    return {
        "format": FORMAT,
        "campaign": campaign.config.id,
        "ruleset": ruleset.name,
        "seed": {"value": campaign.config.seed, "salt": row["seed_salt"], "commitment": row["seed_commitment"]},
        "boards": [{"id": b, "canonical": boards[b]["canonical"], "salt": boards[b]["salt"],
                    "commitment": boards[b]["commitment"] or None} for b in setup.boards],
        "options": ruleset.options_to_json(setup.options),
        "players": list(opening_setup.players),
        "player_keys": {p: dict(k) for p, k in opening_setup.player_keys.items()},
        "opening": {
            "draws": opening.get("draws", []),
            "players": list(first_players),
            "state": ruleset.state_json(setup_at(first_players), ruleset.load_state(first_state)),
        },
        "turns": turns,
    }


def _gone(dropped: dict[str, int], player: str, turn: int) -> bool:
    return player in dropped and dropped[player] <= turn
