"""Commitments (docs/audit.md, CONTRACT.md): published at the start, checkable by anyone at
the end. A commitment binds the GM to a board or seed without showing it."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets


def new_salt() -> str:
    """32 lowercase hex digits from a cryptographic source."""
    return secrets.token_hex(16)


def commitment(salt: str, canonical_text: str) -> str:
    return hashlib.sha256((salt + "\n" + canonical_text).encode("utf-8")).hexdigest()


def seed_text(seed: int) -> str:
    """The seed's canonical text: the seed as a decimal integer."""
    return str(int(seed))


def matches(expected: str, salt: str, canonical_text: str) -> bool:
    return hmac.compare_digest(expected.strip().lower(), commitment(salt, canonical_text))


# The proof of docs/audit.md beyond the boards and seed: one hash binds the game as announced,
# a receipt binds each acknowledged order, and a chain of record hashes binds each turn to
# every turn before it. All three are pure functions of published values, so an auditor in
# any language recomputes them from docs/audit.md.

GAME_FORMAT = "gm-game/1"
_BIG = 2**53  # JavaScript's and Go's default JSON readers round whole numbers from here


def canonical_json(value: object) -> str:
    """RFC 8785 for the values gm writes (no fractions): keys sorted by their UTF-16 code
    units, no white space, UTF-8 text, and whole numbers of 2^53 or more as decimal strings."""
    return json.dumps(_exact(value), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _exact(value: object) -> object:
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return str(value) if abs(value) >= _BIG else value
    if isinstance(value, dict):
        return {k: _exact(value[k]) for k in sorted(value, key=lambda k: str(k).encode("utf-16-be"))}
    if isinstance(value, list | tuple):
        return [_exact(item) for item in value]
    raise TypeError(f"{type(value).__name__} has no canonical JSON")


def derived_salt(seed: int, turn: int, kind: str, key: str) -> str:
    """A salt secret until the seed is revealed and recomputable by anyone after."""
    return hashlib.sha256(f"{int(seed)}:{turn}:{kind}:{key}".encode()).hexdigest()[:32]


def game_commitment(game: dict) -> str:
    """The hash of the game text `game_text` makes (docs/audit.md, the game commitment)."""
    return hashlib.sha256(canonical_json(game).encode("utf-8")).hexdigest()


def game_text(campaign: str, ruleset: str, version: str, options: dict, seats: list[str],
              player_keys: dict, boards: dict[str, str], seed_commitment: str) -> dict:
    """What the game commitment binds: everything the game is played with."""
    return {"format": GAME_FORMAT, "campaign": campaign, "ruleset": ruleset, "ruleset_version": version,
            "options": options, "seats": list(seats), "player_keys": player_keys, "boards": boards,
            "seed": seed_commitment}


def receipt(seed: int, turn: int, player: str, count: int, order: object) -> str:
    """The receipt of `player`'s standing order for `turn` after their `count`th accepted
    message for it (from 1); `order` as the audit record writes it."""
    text = canonical_json({"turn": turn, "player": player, "order": order})
    return commitment(derived_salt(seed, turn, "receipt", f"{player}/{count}"), text)


def record_hash(seed: int, previous: str, turn: int, receipts: dict[str, str | None], draws: list, state: dict) -> str:
    """The link of the record chain for the resolve of `turn`; `previous` is the hash of
    the resolve before it, or the game commitment for the first."""
    text = canonical_json({"turn": turn, "receipts": receipts, "draws": draws, "state": state})
    salt = derived_salt(seed, turn, "record", "chain")
    return hashlib.sha256((previous + "\n" + salt + "\n" + text).encode("utf-8")).hexdigest()


def end_hash(seed: int, previous: str, by: object, turn: object, reason: object) -> str:
    """The chain's last link (docs/audit.md, The end's link): binds how the campaign ended,
    `previous` being the last resolve's record hash (the game commitment when none)."""
    text = canonical_json({"end": {"by": by, "turn": turn, "reason": reason}})
    salt = derived_salt(seed, turn if isinstance(turn, int) else 0, "record", "end")
    return hashlib.sha256((previous + "\n" + salt + "\n" + text).encode("utf-8")).hexdigest()
