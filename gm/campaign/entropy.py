"""The players' entropy a campaign keeps (docs/audit.md, What the GM cannot choose): one
contribution a player, open until the first resolve, a later one replacing the earlier."""

from __future__ import annotations

import secrets
from typing import Any

from ..rules.entropy import MAX_ENTROPY, entropy_hash, kept_words
from ..rules.problem import Problem, problem
from .password_words import WORDS

__all__ = ["contributions", "entropy_open", "entropy_problem", "first_report_hashes", "hashes", "invitation", "keep_entropy",
           "receipted_order"]

READY_WORDS = 6  # words of the ready ENTROPY line a welcome offers


def contributions(store: Any) -> dict[str, str]:
    """Each contributing player's words as kept, by player id (none for older campaigns)."""
    if "entropy" not in store.db.table_names():
        return {}
    return {r["player"]: r["words"] for r in store.rows("select player, words from entropy order by player")}


def entropy_open(store: Any) -> bool:
    """Contributions are taken until the first resolve."""
    return store.one("select count(*) as n from turns")["n"] == 0


def entropy_problem(store: Any, words: str) -> Problem | None:
    """Why an ENTROPY line cannot be taken, or None."""
    if not entropy_open(store):
        return problem("entropy_closed")
    kept = kept_words(words)
    if not 1 <= len(kept) <= MAX_ENTROPY:
        return problem("entropy_length", length=len(kept), most=MAX_ENTROPY)
    return None


def keep_entropy(db: Any, player: str, words: str, message: int) -> None:
    """Keep `player`'s contribution, replacing an earlier one."""
    db["entropy"].upsert({"player": player, "words": kept_words(words), "message": message}, pk="player")


def receipted_order(store: Any, player: str, standing: dict[str, Any]) -> dict[str, Any]:
    """The order text a receipt covers: the standing order, with `"entropy": words` while
    the player's contribution may still change the seed (before the first resolve)."""
    words = contributions(store).get(player) if entropy_open(store) else None
    return standing if words is None else {**standing, "entropy": words}


def invitation(store: Any) -> dict[str, Any]:
    """What a welcome says of ENTROPY: whether it is still taken, and a ready line of random
    words (the player may send it as it is, or any words of their own)."""
    words = " ".join(secrets.choice(WORDS) for _ in range(READY_WORDS))
    return {"open": entropy_open(store), "words": words, "most": MAX_ENTROPY}


def hashes(store: Any) -> dict[str, str]:
    """Each contribution's hash, by player id, as the first report lists them."""
    return {p: entropy_hash(w) for p, w in contributions(store).items()}


def first_report_hashes(campaign: Any, turn: int) -> dict[str, str]:
    """The contributions' hashes the report of `turn` lists: the first resolve's only."""
    earlier = campaign.store.one("select count(*) as n from turns where turn < ?", (turn,))["n"]
    return hashes(campaign.store) if earlier == 0 else {}

