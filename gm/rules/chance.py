"""Every random choice of a campaign (docs/rules/<ruleset>.md, Fairness: seeds and commitments), as
an input to the rules.

A ruleset never draws from a generator of its own: it asks a `Chance` for a pick or a die, and the
chance records each `Draw` (kind, key, candidates, index). `SeededChance` computes the index from
the seed by the formula of docs/rules/<ruleset>.md (Fairness: seeds and commitments), so a turn
replays exactly, the GM can preview without saving, and anyone holding the revealed seed can
recompute every pick with one line of any language. `ReplayChance` plays recorded draws back with no
seed at all, and `ScriptedChance` lets a test choose the dice (OpenSpiel's lesson: chance is an
input, not a side effect)."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import RulesError

T = TypeVar("T")

__all__ = ["Chance", "Draw", "ReplayChance", "ScriptedChance", "SeededChance", "pick_index", "played"]


def pick_index(seed: int, turn: int, kind: str, key: str, n: int) -> int:
    """`int(sha256(f"{seed}:{turn}:{kind}:{key}").hexdigest(), 16) % n`."""
    if n < 1:
        raise ValueError("a choice needs at least one candidate")
    digest = hashlib.sha256(f"{int(seed)}:{turn}:{kind}:{key}".encode()).hexdigest()
    return int(digest, 16) % n


@dataclass(frozen=True)
class Draw:
    """One random choice as made: `candidates[index]` was chosen."""
    turn: int
    kind: str
    key: str
    candidates: Sequence[Any]  # a tuple, or a range kept as one: a shuffle of M cards draws
    index: int                 # over ranges of M, M-1, ... numbers, which as lists take M^2/2

    @property
    def value(self) -> Any:
        return self.candidates[self.index]

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "kind": self.kind, "key": self.key,
                "candidates": list(self.candidates), "index": self.index}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Draw:
        return cls(data["turn"], data["kind"], data["key"], tuple(data["candidates"]), data["index"])


def _compact(candidates: Iterable[T]) -> Sequence[T]:
    """The candidates as a tuple, or a range kept as it is (M numbers in a few bytes)."""
    return candidates if isinstance(candidates, range) else tuple(candidates)


def _same(one: Sequence[Any], other: Sequence[Any]) -> bool:
    """Whether two lists of candidates are the same, a range and a tuple alike."""
    if isinstance(one, range) and isinstance(other, range):
        return one == other
    return len(one) == len(other) and all(a == b for a, b in zip(one, other, strict=True))


class Chance:
    """What a ruleset draws through. Subclasses say how an index is chosen; this class keeps the
    record and the dice counters (docs/rules/<ruleset>.md: `player/i`, `i` counting the dice thrown
    for that player in the turn from 1)."""

    def __init__(self) -> None:
        self.draws: list[Draw] = []
        self._dice: Counter[tuple[int, str]] = Counter()

    def _index(self, turn: int, kind: str, key: str, candidates: Sequence[Any]) -> int:
        raise NotImplementedError

    def pick(self, turn: int, kind: str, key: str, candidates: Sequence[T]) -> T:
        """One of `candidates`, which the caller lists in the order docs/rules/<ruleset>.md,
        Fairness: seeds and commitments states."""
        options = _compact(candidates)
        if not options:
            raise ValueError("a choice needs at least one candidate")
        index = self._index(turn, kind, key, options)
        self.draws.append(Draw(turn, kind, key, options, index))
        return options[index]

    def roll(self, turn: int, player: str, faces: int = 6) -> int:
        """One die of `faces` for `player`: kind `dice`, key `player/i`."""
        self._dice[turn, player] += 1
        die_faces = tuple(range(1, faces + 1))  # a few faces: a tuple, as the tests and replays list them
        return self.pick(turn, "dice", f"{player}/{self._dice[turn, player]}", die_faces)


class SeededChance(Chance):
    """Play: every index from the campaign's seed (docs/rules/<ruleset>.md, Fairness: seeds and
    commitments)."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed

    def _index(self, turn: int, kind: str, key: str, candidates: Sequence[Any]) -> int:
        return pick_index(self.seed, turn, kind, key, len(candidates))


class ReplayChance(Chance):
    """Replay: the recorded draws, asked for in the same order with the same candidates."""

    def __init__(self, draws: Iterable[Draw]) -> None:
        super().__init__()
        self._pending = list(draws)

    def _index(self, turn: int, kind: str, key: str, candidates: Sequence[Any]) -> int:
        if not self._pending:
            raise RulesError(f"the replay has no draw for {kind} {key} in turn {turn}")
        draw = self._pending.pop(0)
        if (draw.turn, draw.kind, draw.key) != (turn, kind, key) or not _same(draw.candidates, candidates):
            raise RulesError(f"the replay recorded {draw.kind} {draw.key} in turn {draw.turn} "
                             f"where the rules draw {kind} {key} in turn {turn}")
        return draw.index


class ScriptedChance(Chance):
    """Tests: `script(turn, kind, key, candidates)` returns the value wanted (or None for
    the seeded one), e.g. the faces of a scripted throw."""

    def __init__(self, script: Callable[[int, str, str, tuple[Any, ...]], Any], seed: int = 0) -> None:
        super().__init__()
        self._script = script
        self._seeded = SeededChance(seed)

    def _index(self, turn: int, kind: str, key: str, candidates: Sequence[Any]) -> int:
        wanted = self._script(turn, kind, key, candidates)
        if wanted is None:
            return self._seeded._index(turn, kind, key, candidates)
        if wanted not in candidates:
            raise ValueError(f"the script chose {wanted!r} for {kind} {key}, not one of {candidates}")
        return candidates.index(wanted)


def played(outcome: Any, chance: Chance) -> Any:
    """`outcome` (a start's or resolve's Outcome) with the draws `chance` recorded while it
    was made: gm collects them itself, so a ruleset need not return them. An outcome that
    names draws while the chance recorded none (a ruleset drawing through a chance of its
    own) keeps its own."""
    if not chance.draws:
        return outcome
    return dataclasses.replace(outcome, draws=tuple(chance.draws))
