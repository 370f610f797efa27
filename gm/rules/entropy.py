"""Players' entropy (docs/audit.md, What the GM cannot choose): the words players send with
`ENTROPY` before the first resolve are mixed into the seed every draw from turn 1 on uses, so
a GM alone cannot pick a seed in advance by simulating the game offline. Turn 0's draws and
every salt (receipts, record hashes) keep the GM's seed; without contributions the seed is the
GM's, so every campaign played before replays unchanged."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

__all__ = ["MAX_ENTROPY", "draw_seed", "entropy_hash", "kept_words", "mixed_seed"]

MAX_ENTROPY = 200  # characters of one contribution, as kept


def kept_words(words: str) -> str:
    """The words as kept: trimmed, every run of spaces made one."""
    return " ".join(str(words).split())


def entropy_hash(words: str) -> str:
    """The sha256 hex digest of a contribution as kept (the first report lists it)."""
    return hashlib.sha256(kept_words(words).encode()).hexdigest()


def mixed_seed(gm_seed: int, contributions: Mapping[str, str]) -> int:
    """`int(sha256(f"{gm_seed}" + "".join(f"\\n{id}:{h}" ...)).hexdigest(), 16)`, ids sorted;
    the GM's seed itself when nobody contributed."""
    if not contributions:
        return int(gm_seed)
    text = f"{int(gm_seed)}" + "".join(f"\n{p}:{entropy_hash(contributions[p])}" for p in sorted(contributions))
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def draw_seed(gm_seed: int, turn: int, contributions: Mapping[str, str]) -> int:
    """The seed the draws of `turn` use: the GM's for turn 0, the mixed one after."""
    return int(gm_seed) if turn < 1 else mixed_seed(gm_seed, contributions)
