"""What `gm start` fixes (CONTRACT.md "Fixed at start"): the campaign id, ruleset, seed,
options, players and every board's canonical text. The copy lives in the campaign's
database; from then on the game is played from it, never from the files, and every
command compares campaign.yaml and the board files with it and refuses when they differ.

The comparison is of meaning, not of bytes: comments, key order and options written out
at their defaults change nothing. Keys CONTRACT.md lists as free (title, mail, timezone,
turn_days, observers, archive_url, a player's name and timezone) are not part of it, nor
is a player's `password`, which only `gm start` reads (afterwards passwords change by
`gm player password` or a player's RESET)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from ..boards.model import Board
from .config.values import CampaignConfig


@dataclass(frozen=True)
class Fixed:
    """The stored copy. `boards` keeps campaign.yaml's order (id -> canonical text);
    `players` the seats in order, as (id, registered address)."""

    id: str
    ruleset: str
    seed: int
    options: dict[str, Any]
    players: tuple[tuple[str, str], ...]
    boards: dict[str, str]
    player_keys: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)  # the ruleset's (team)
    # how many of `players`, the last ones, joined by mail (docs/rules/, Joining by mail): campaign.yaml
    # need not list them (config.load_config is given them, gm.campaign.folder.joined_players)
    joined: int = 0

    @classmethod
    def of(cls, config: CampaignConfig, seed: int) -> Fixed:
        return cls(
            id=config.id,
            ruleset=config.ruleset_name,
            seed=seed,
            options=effective_options(config),
            players=tuple((p.id, p.email) for p in config.players),
            boards={b: board.canonical_text() for b, board in config.boards.items()},
            player_keys={p.id: dict(p.extra) for p in config.players if p.extra},
            joined=config.joined,
        )

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        if not self.joined:
            del data["joined"]  # the copy of a campaign without sign-ups, as it was before them
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Fixed:
        data = json.loads(text)
        data["players"] = tuple(tuple(p) for p in data["players"])
        return cls(**data)


def effective_options(config: CampaignConfig) -> dict[str, Any]:
    """Every option as it is played, defaults filled in, so that writing an option out at
    its default is not a change."""
    options = config.options
    ruleset = dataclasses.asdict(options) if dataclasses.is_dataclass(options) else dict(options or {})
    return ruleset | {
        "max_order_text": config.max_order_text,
        "allow_other_senders": config.allow_other_senders,
        "max_message_bytes": config.max_message_bytes,
    }


# Per seat (in campaign.yaml's order), every id and every address it has had: after `gm
# player` changes a seat, campaign.yaml may still show it as at start or as it is now.
Seats = tuple[tuple[frozenset[str], frozenset[str]], ...]


def differences(fixed: Fixed, config: CampaignConfig, seats: Seats | None = None) -> list[str]:
    """What campaign.yaml and the board files say differently from the stored copy, one
    short phrase each, naming the key or board (empty when they agree)."""
    found = []
    if config.id != fixed.id:
        found.append(f"id ({fixed.id!r} at start)")
    if config.ruleset_name != fixed.ruleset:
        found.append(f"ruleset ({fixed.ruleset} at start)")
    # a campaign.yaml without a seed plays the one drawn at start
    if config.seed is not None and config.seed != fixed.seed:
        found.append("seed")
    now = effective_options(config)
    found += [f"options.{key}" for key in sorted(set(now) | set(fixed.options))
              if now.get(key) != fixed.options.get(key)]
    found += _player_differences(fixed.players, tuple((p.id, p.email) for p in config.players), seats)
    seated = dict(fixed.players)  # once: a dict per player made opening 500 players quadratic
    found += [f"player {p.id} ({key})" for p in config.players if p.id in seated
              for key in sorted(set(p.extra) | set(fixed.player_keys.get(p.id, {})))
              if p.extra.get(key) != fixed.player_keys.get(p.id, {}).get(key)]
    found += _board_differences(fixed.boards, {b: board.canonical_text() for b, board in config.boards.items()})
    return found


def _player_differences(before: tuple[tuple[str, str], ...], now: tuple[tuple[str, str], ...],
                        seats: Seats | None = None) -> list[str]:
    """campaign.yaml's players against the seats fixed at start: each seat may be listed
    under any id and any address it has had (`seats`; at start, its one id and address)."""
    if seats is None:
        seats = tuple((frozenset({player}), frozenset({email})) for player, email in before)
    owner = {player: seat for seat, (ids, _) in enumerate(seats) for player in ids}
    found = [f"player {p} (added)" for p, _ in now if p not in owner]
    listed = {owner[p] for p, _ in now if p in owner}
    found += [f"player {before[seat][0]} (removed)" for seat in range(len(seats)) if seat not in listed]
    found += [f"player {p} (email)" for p, email in now if p in owner and email not in seats[owner[p]][1]]
    if not found and [owner[p] for p, _ in now] != list(range(len(seats))):
        found.append("players (order)")
    return found


def _board_differences(before: dict[str, str], now: dict[str, str]) -> list[str]:
    found = []
    owners = {text: board for board, text in before.items()}
    for board, text in now.items():
        if board not in before:
            found.append(f"board {board} (added)")
        elif text != before[board]:
            other = owners.get(text)
            found.append(f"board {board} (now the board {other} was at start)" if other
                         else f"board {board} (its file differs from the board committed at start)")
    found += [f"board {b} (removed)" for b in before if b not in now]
    if not found and list(before) != list(now):
        found.append("boards (order)")
    return found


def played_config(config: CampaignConfig, fixed: Fixed) -> CampaignConfig:
    """The configuration the game is played from: campaign.yaml's free keys, with the
    seed and boards of the stored copy (the caller has checked that nothing else differs)."""
    boards = {b: Board.from_canonical(text) for b, text in fixed.boards.items()}
    return dataclasses.replace(config, seed=fixed.seed, boards=boards)
