"""The players' entropy a campaign keeps (docs/audit.md, What the GM cannot choose): one
contribution a player, open until the first resolve, a later one replacing the earlier."""

from __future__ import annotations

from typing import Any

from ..rules.entropy import MAX_ENTROPY, kept_words
from ..rules.problem import Problem, problem

__all__ = ["contributions", "entropy_open", "entropy_problem", "keep_entropy", "receipted_order"]


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
