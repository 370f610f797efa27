"""The checks of `gm audit` beyond the replay itself (docs/audit.md): that the game
text hashes to the game commitment and says what the record plays with, that every board
is committed or made from the seed, that the seats' history explains who played each
turn and who had left, that the record lists who had to write and did not, that every receipt is
recomputed from the order played and every record hash from the turn and the one before,
and that the record runs to the campaign's end. Each check returns the first Difference
or None; none opens a database or trusts a value it can recompute."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..commitment import canonical_json, end_hash, game_commitment, game_text, receipt, record_hash
from ..errors import RulesError
from ..rules.base import last_resolved, rules_end

__all__ = ["Difference", "Seats", "check_end", "check_game", "check_people", "check_proof", "flat_receipts",
           "shown"]


# the record's key for the players who had to write and sent nothing (docs/audit.md)
SILENT = "nmr"


@dataclass(frozen=True)
class Difference:
    """The first place where the archive and the replay disagree."""

    turn: int | None  # None: the commitments, before any turn; 0: the start
    what: str  # e.g. "state", "draw 3", "seed commitment"
    board: str | None
    player: str | None
    expected: Any
    found: Any
    # what `expected` and `found` are: the mail's (gm.audit.mail) against the replay's
    labels: tuple[str, str] = ("the replay gives", "the archive holds")

    def __str__(self) -> str:
        where = ["start" if self.turn == 0 else f"turn {self.turn}" if self.turn is not None else "commitments"]
        where += [f"board {self.board}"] if self.board else []
        where += [f"player {self.player}"] if self.player else []
        return (f"{', '.join(where)}: {self.what}: {self.labels[0]} {shown(self.expected)}, "
                f"{self.labels[1]} {shown(self.found)}")


def shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 200 else text[:197] + "..."


# -- the game commitment ------------------------------------------------------------------


def check_game(record: Mapping[str, Any]) -> Difference | None:
    """The game text is canonical, hashes to the game commitment, and every field of it is
    what the record plays with (docs/audit.md)."""
    game = record["game"]
    text, claimed = game["text"], game["commitment"]
    try:
        fields = json.loads(text)
    except ValueError:
        fields = None
    if not isinstance(fields, dict):
        return Difference(None, "game text: the canonical JSON of an object (docs/audit.md)", None, None,
                          "an object", text)
    if canonical_json(fields) != text:
        return Difference(None, "game text: canonical JSON (docs/audit.md)", None, None, canonical_json(fields), text)
    made = game_commitment(fields)  # the text is canonical, so this is the hash of the text itself
    if made != claimed:
        return Difference(None, "game commitment", None, None, made, claimed)
    boards = {b["id"]: b["commitment"] for b in record["boards"] if b["commitment"] is not None}
    # built as gm.campaign.proof.new_game builds it, so the two cannot drift apart; the seats
    # as the record writes them, since game_text's list() would turn a hostile string into seats
    expected = {**game_text(record["campaign"], record["ruleset"], record["ruleset_version"], record["options"],
                            [], record["player_keys"], boards, record["seed"]["commitment"]),
                "seats": record["players"]}
    for key, value in expected.items():
        # compared as canonical JSON: the game text writes big numbers as strings
        if canonical_json(fields.get(key)) != canonical_json(value):
            return Difference(None, f"game text: {key}, which the game commitment binds", None, None,
                              value, fields.get(key, "(absent)"))
    extra = sorted(set(fields) - set(expected))
    if extra:
        return Difference(None, "game text: keys", None, None, sorted(expected), sorted(fields))
    return None


# -- the seats ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Holder:
    player: str
    seat: int
    from_turn: int
    until_turn: int | None  # the last turn held; None for the seat's holder at the end
    dropped_turn: int | None  # the turn from which they had left (gm player drop)


class Seats:
    """The record's `seats`: who held each seat when, and who left when."""

    def __init__(self, holders: Sequence[Holder], players: int):
        self.holders = tuple(holders)
        self.count = players
        self.by_player = {h.player: h for h in holders}

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Seats:
        """From `seats` (gm-audit/2), or, for a record without it, each seat held by its
        first holder throughout and nobody leaving."""
        players = list(record["players"])
        if "seats" not in record:
            return cls([Holder(p, seat, 1, None, None) for seat, p in enumerate(players)], len(players))
        holders = [Holder(str(h["player"]), seat, int(h["from_turn"]),
                          None if h["until_turn"] is None else int(h["until_turn"]),
                          None if h["dropped_turn"] is None else int(h["dropped_turn"]))
                   for seat, rows in enumerate(record["seats"]) for h in rows]
        return cls(holders, len(record["seats"]))

    def problem(self, players: Sequence[str]) -> str | None:
        """What makes the history impossible, or None: each seat starts with the player
        listed for it, its holders follow each other turn by turn, and an id holds one seat."""
        if self.count != len(players):
            return f"{self.count} seats for {len(players)} players"
        if len(self.by_player) != len(self.holders):
            return "an id holds two seats"
        for seat, first in enumerate(players):
            rows = [h for h in self.holders if h.seat == seat]
            if not rows or rows[0].player != first or rows[0].from_turn != 1:
                return f"seat {seat + 1} does not start with {first} at turn 1"
            for before, after in zip(rows, rows[1:], strict=False):
                if before.until_turn is None or after.from_turn != before.until_turn + 1:
                    return f"seat {seat + 1}: {after.player} does not follow {before.player} turn by turn"
            if rows[-1].until_turn is not None:
                return f"seat {seat + 1}: nobody holds it after turn {rows[-1].until_turn}"
        return None

    def at(self, turn: int) -> tuple[str, ...]:
        """Each seat's holder in `turn`, in seat order."""
        held = {h.seat: h.player for h in self.holders
                if h.from_turn <= turn and (h.until_turn is None or turn <= h.until_turn)}
        return tuple(held.get(seat, "") for seat in range(self.count))

    def gone(self, players: Sequence[str], turn: int) -> list[str]:
        """The holders of `turn` who had left the game by then."""
        return [p for p in players if (h := self.by_player.get(p)) and h.dropped_turn is not None
                and h.dropped_turn <= turn]

    def wrote_for(self, writer: str, holder: str, turn: int) -> bool:
        """Whether `writer`'s message could stand for `holder`'s seat in `turn`: their own, or
        that of a former holder of the seat replaced while `turn` was open (docs/audit.md: the
        new holder inherits the order, which keeps its receipt)."""
        if writer == holder:
            return True
        mine, theirs = self.by_player.get(holder), self.by_player.get(writer)
        return bool(mine and theirs and mine.seat == theirs.seat and theirs.until_turn == turn - 1
                    and mine.from_turn == turn)

    def later(self, one: str, other: str) -> bool:
        """Whether `one` held `other`'s seat after them (the history lists holders oldest
        first: two may share a `from_turn` when a seat changed hands twice in a turn)."""
        first, second = self.by_player.get(one), self.by_player.get(other)
        return bool(first and second and first.seat == second.seat
                    and self.holders.index(first) > self.holders.index(second))

    def seat_of(self, player: str) -> int | None:
        found = self.by_player.get(player)
        return found.seat if found else None


# -- each turn ----------------------------------------------------------------------------


def check_people(turn: int, entry: Mapping[str, Any], seats: Seats, must: Mapping[str, bool]) -> Difference | None:
    """Who played the turn, who had left and who had to write and did not: `players` the
    seats' holders of that turn, `dropped` the holders who had left by then (and sent
    nothing that counts), and SILENT those who had to write (`must`, by the rules from the
    state before the turn) and are absent from `orders` and not gone."""
    players, orders = list(entry["players"]), entry["orders"]
    if list(seats.at(turn)) != players:
        return Difference(turn, "players: each seat's holder by the seats' history", None, None,
                          list(seats.at(turn)), players)
    gone = seats.gone(players, turn)
    if list(entry["dropped"]) != gone:
        return Difference(turn, "dropped: the holders who had left by the seats' history", None, None,
                          gone, entry["dropped"])
    for player in orders:
        if player not in players:
            return Difference(turn, "orders: of a player who holds no seat this turn", None, player,
                              "an order of a seat's holder", player)
        if player in gone:
            return Difference(turn, "orders: of a player who had left the game", None, player, "no order",
                              orders[player])
    silent = [p for p in players if p not in orders and p not in gone and must[p]]
    if list(entry[SILENT]) != silent:
        return Difference(turn, f"{SILENT}: the players who had to write and are absent from orders", None, None,
                          silent, entry[SILENT])
    return None


def flat_receipts(entry: Mapping[str, Any]) -> dict[str, str | None]:
    """The turn's receipts as the record hash reads them: player -> receipt or null."""
    return {p: (r["receipt"] if r is not None else None) for p, r in entry["receipts"].items()}


def check_proof(turn: int, entry: Mapping[str, Any], seats: Seats, seed: int, previous: str,
                entropy: Mapping[str, str] | None = None) -> Difference | None:
    """Each receipt played recomputed from the order played (its writer's id and message
    count as given; with `"entropy": words` for a writer who sent ENTROPY, in the first
    turn: `entropy` is empty for the others), a null receipt for each holder without an order, and the turn's record
    hash from the one before (`previous`: the game commitment for the first)."""
    receipts, orders = entry["receipts"], entry["orders"]
    if receipts is None:
        return Difference(turn, "receipts", None, None, "a receipt or null for each seat's holder", None)
    if sorted(receipts) != sorted(entry["players"]):
        return Difference(turn, "receipts: one for each seat's holder", None, None, sorted(entry["players"]),
                          sorted(receipts))
    for player in entry["players"]:
        given = receipts[player]
        if player not in orders:
            if given is not None:
                return Difference(turn, "receipt of a player with no order played", None, player, None, given)
            continue
        if given is None:
            return Difference(turn, "receipt of the order played", None, player, "a receipt", None)
        writer, count = given["player"], given["count"]
        if not seats.wrote_for(writer, player, turn):
            return Difference(turn, "receipt: written by a holder of the seat in this turn", None, player,
                              player, writer)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            return Difference(turn, "receipt: the message count", None, player, "a whole number from 1", count)
        order = orders[player] if writer not in (entropy or {}) else {**orders[player], "entropy": entropy[writer]}
        made = receipt(seed, turn, writer, count, order)
        if made != given["receipt"]:
            return Difference(turn, f"receipt of the order played ({writer}'s message {count})", None, player,
                              made, given["receipt"])
    made = record_hash(seed, previous, turn, flat_receipts(entry), entry["draws"], entry["state"])
    if made != entry["record_hash"]:
        return Difference(turn, "record hash (the record chain)", None, None, made, entry["record_hash"])
    return None


# -- the end ------------------------------------------------------------------------------


def check_end_link(end: Any, seed: int, previous: str | None) -> Difference | None:
    """gm-audit/3: the end (by, turn, reason) is the chain's last link, chained to the last
    resolve's record hash, so that no reason is rewritten after the fact."""
    if not isinstance(end, Mapping) or previous is None:
        return None
    made = end_hash(seed, previous, end["by"], end["turn"], end["reason"])
    if made != end.get("record_hash"):
        return Difference(end["turn"], "end: the chain's last link (by, turn and reason)", None, None, made,
                          end.get("record_hash"))
    return None


def check_end(record: Mapping[str, Any], ruleset: Any, setup: Any, state: Any, *, has_end: bool) -> tuple[
        Difference | None, Any, str]:
    """The record runs to the campaign's end: the last state over by the rules (or
    `max_turns`), or an `end` by the GM (`gm end`) after the last turn played, replayed with
    the ruleset's own end (whose state the caller compares with the record's). Returns the
    first Difference, the final state and how the campaign ended, in words. `has_end`: the
    record says how it ended (gm-audit/2)."""
    turns = record["turns"]
    last = turns[-1]["turn"] if turns else None
    end = record["end"] if has_end else None
    claimed = {"by": end.get("by"), "turn": end.get("turn")} if isinstance(end, Mapping) else end
    if not isinstance(end, Mapping) or end.get("by") != "gm":
        if not state.over:
            stops = f"the record stops at turn {last}" if last is not None else "the record holds no turn"
            return Difference(last, "the end", None, None, "a campaign over by its rules, max_turns or gm end",
                              f"{stops}, the campaign is not over"), state, ""
        by, turn = rules_end(setup, state)
        if has_end and claimed != {"by": by, "turn": turn}:
            return Difference(last, "end: how the campaign ended", None, None, {"by": by, "turn": turn},
                              claimed), state, ""
        if has_end and end.get("state") is not None:  # docs/audit.md: null unless the GM ended it
            return Difference(last, "end: state", None, None, None, "a state after the last turn played"), state, ""
        return None, state, f"by its rules at turn {turn}" if by == "rules" else f"at max_turns, turn {turn}"
    if state.over:
        return Difference(last, "end: how the campaign ended", None, None, "by its rules",
                          "by the GM (gm end)"), state, ""
    try:
        turn = last_resolved(state)
        ended = ruleset.end(setup, state)
    except RulesError as error:
        return Difference(last, "end by the GM", None, None, "an end the rules allow", str(error)), state, ""
    if end.get("turn") != turn:
        return Difference(last, "end: the turn the GM ended the campaign after", None, None, turn,
                          end.get("turn")), state, ""
    reason = end.get("reason")
    return None, ended.state, f"by the GM after turn {turn}" + (f" ({shown(reason)})" if reason else "")
