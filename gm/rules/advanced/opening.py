"""Turn 0 of an advanced campaign as everyone sees it (docs/rules/advanced.md, Setup: dice and order
of play): each player's die throw, the order-of-play throws round by round, and each place in the
order of play with the throws that gave it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import Setup
from ..dice.events import OpeningThrow
from ..dice.views import Named, OpeningRound
from ..dice.views import opening_view as dice_opening_view
from .building import die_for
from .teams import team_of, teams_of

__all__ = ["AdvancedOpening", "named", "opening_view", "teams_named"]


@dataclass(frozen=True)
class DieLine:
    """A player's setup throw of a d6 and the die it gave."""

    player: Named
    key: str
    roll: int
    die: int


@dataclass(frozen=True)
class OrderThrow:
    """One throw of a player's die for the order of play, and the players of their group
    who threw the same (they all threw again; none when this throw settled the place)."""

    roll: int
    tied: tuple[Named, ...] = ()


@dataclass(frozen=True)
class SeatLine:
    """A place in the order of play, and why: the player's throws for it (docs/rules/advanced.md:
    lowest first, ties thrown again within their place)."""

    seat: int
    player: Named
    team: str
    die: int
    throws: tuple[OrderThrow, ...] = ()


@dataclass(frozen=True)
class AdvancedOpening:
    """Turn 0 as everyone sees it: the die throws (listing order), the order-of-play
    throws round by round (`/2` everyone, `/3` those tied, ...) and the order of play,
    each place with the throws that gave it."""

    dice: tuple[DieLine, ...]
    rounds: tuple[OpeningRound, ...]
    order: tuple[SeatLine, ...]
    teams: tuple[tuple[str, tuple[Named, ...]], ...]


def named(player: str, names: Mapping[str, str]) -> Named:
    return Named(player, names.get(player, player))


def opening_view(setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> AdvancedOpening:
    throws = [e for e in events if isinstance(e, OpeningThrow)]
    dice = {t.player: die_for(t.roll) for t in throws if t.purpose == "die"}
    common = dice_opening_view(setup, events, names)
    reasons = _order_throws(setup, throws, names)
    return AdvancedOpening(
        dice=tuple(DieLine(named(t.player, names), t.key, t.roll, die_for(t.roll))
                   for t in throws if t.purpose == "die"),
        rounds=common.rounds,
        order=tuple(SeatLine(seat, p, team_of(setup, p.id), dice.get(p.id, 6), reasons.get(p.id, ()))
                    for seat, p in enumerate(common.order, 1)),
        teams=teams_named(setup, names),
    )


def _order_throws(setup: Setup, throws: Sequence[OpeningThrow],
                  names: Mapping[str, str]) -> dict[str, tuple[OrderThrow, ...]]:
    """Each player's order-of-play throws, each with the players it tied with: the groups of
    docs/rules/advanced.md replayed from the throws (everyone's first, then each group of equal
    throws again, within its place)."""
    rounds: dict[int, dict[str, int]] = {}
    for t in throws:
        if t.purpose == "order":
            rounds.setdefault(t.index, {})[t.player] = t.roll
    groups = [list(setup.players)]
    result: dict[str, list[OrderThrow]] = {p: [] for p in setup.players}
    for index in sorted(rounds):
        rolled = rounds[index]
        regrouped = []
        for group in groups:
            if not all(p in rolled for p in group):
                regrouped.append(group)  # settled before this round: it did not throw
                continue
            for value in sorted({rolled[p] for p in group}):
                same = [p for p in group if rolled[p] == value]
                for p in same:
                    result[p].append(OrderThrow(value, tuple(named(o, names) for o in same if o != p)))
                regrouped.append(same)
        groups = regrouped
    return {p: tuple(lines) for p, lines in result.items()}


def teams_named(setup: Setup, names: Mapping[str, str]) -> tuple[tuple[str, tuple[Named, ...]], ...]:
    return tuple((team, tuple(named(m, names) for m in members)) for team, members in teams_of(setup).items())
