"""Pig race's rules core (rules.md): options, state, orders, events, the start and one
turn's resolve. Pure: state and orders in, state and events out; every die is drawn
through gm's `Chance` (`chance.roll(turn, player)`: kind `dice`, key `player/i`), so a
turn replays exactly from its draws."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gm.rules import OptionsError
from gm.rules.base import Outcome, Setup
from gm.rules.chance import Chance
from gm.rules.moving import Step, landing
from gm.rules.ranking import place_the_rest

__all__ = ["DEFAULTS", "Moved", "PigOptions", "PigOrder", "PigState", "Placed", "resolve", "start"]

MOST_DICE = 10  # the largest max_dice an option may set


@dataclass(frozen=True)
class PigOptions:
    """campaign.yaml's options (gm checks each value's type; the bounds are checked here)."""

    max_turns: int = 30
    max_dice: int = 5

    def __post_init__(self) -> None:
        problems = []
        if self.max_turns < 1:
            problems.append(f"option max_turns must be a whole number from 1 or more, not {self.max_turns!r}")
        if not 1 <= self.max_dice <= MOST_DICE:
            problems.append(f"option max_dice must be a whole number from 1 to {MOST_DICE}, not {self.max_dice!r}")
        if problems:
            raise OptionsError(problems)


DEFAULTS = PigOptions()


@dataclass(frozen=True)
class PigState:
    """`squares`: 0 is Start, the last square N once finished; `placings`: set on
    finishing, and for every piece when the campaign ends."""

    turn: int
    over: bool
    squares: Mapping[str, int]
    placings: Mapping[str, int | None]


@dataclass(frozen=True)
class PigOrder:
    """A standing order: ROLL n (`roll`), HOLD (`hold`), or nothing (HOLD is played). Each
    field is named after its command, so gm's default merge sets it (and, ROLL and HOLD
    being exclusive, clears the other)."""

    roll: int | None = None
    hold: bool = False


@dataclass(frozen=True)
class Moved:
    """One player's go: `order` "roll" or "hold" (`silent` when they sent nothing),
    `asked` the dice ordered, `dice` the faces thrown, `bust` when a 1 showed; `steps` the
    squares the piece reached (the move, then a snake or ladder); `finished` when it
    reached or passed the last square."""

    turn: int
    player: str
    order: str
    asked: int
    dice: tuple[int, ...]
    bust: bool
    start: int
    end: int
    steps: tuple[Step, ...]
    finished: bool
    silent: bool
    kind: str = "moved"


@dataclass(frozen=True)
class Placed:
    """A placing given: on finishing (`finished`), or by square when the campaign ends
    at max_turns."""

    turn: int
    player: str
    placing: int
    finished: bool
    kind: str = "placed"


def start(setup: Setup) -> Outcome:
    """Every piece off the board, on Start (square 0); nothing is drawn."""
    return Outcome(PigState(1, False, {p: 0 for p in setup.players}, {p: None for p in setup.players}), ())


def resolve(setup: Setup, state: PigState, orders: Mapping[str, PigOrder], chance: Chance) -> Outcome:
    """One turn: each player in play, in campaign order, rolls or holds; those reaching
    the last square this turn share the next placing; at the end the rest are placed by
    square."""
    board = next(iter(setup.boards.values()))
    squares, placings = dict(state.squares), dict(state.placings)
    events: list[Any] = []
    finishers: list[str] = []
    for player in setup.players:
        if placings[player] is not None:
            continue
        order = orders.get(player) or PigOrder()
        move = _go(state.turn, player, squares[player], order, board.squares, board.jumps, chance,
                   setup.options.max_dice)
        events.append(move)
        squares[player] = move.end
        if move.finished:
            finishers.append(player)
    placed = sum(p is not None for p in placings.values())
    for player in finishers:  # one placing for all who finish this turn; the next skips as many
        placings[player] = placed + 1
        events.append(Placed(state.turn, player, placed + 1, True))
    waiting = [p for p in setup.players if placings[p] is None]
    over = not waiting or state.turn >= setup.options.max_turns
    if over and waiting:
        for player, placing in place_the_rest(placings, squares).items():
            placings[player] = placing
            events.append(Placed(state.turn, player, placing, False))
    return Outcome(PigState(state.turn + 1, over, squares, placings), tuple(events), tuple(chance.draws))


def _go(turn: int, player: str, square: int, order: PigOrder, last: int, jumps: Mapping[int, int],
        chance: Chance, max_dice: int) -> Moved:
    silent = order.roll is None and not order.hold
    if order.roll is None:  # HOLD, said or silent: one square
        dice: tuple[int, ...] = ()
        kind, asked, distance = "hold", 0, 1
    else:
        kind, asked = "roll", min(order.roll, max_dice)
        thrown = []
        for _ in range(asked):
            thrown.append(chance.roll(turn, player))
            if thrown[-1] == 1:
                break
        dice = tuple(thrown)
        if dice[-1] == 1:
            return Moved(turn, player, kind, asked, dice, True, square, square, (), False, silent)
        distance = sum(dice)
    reached = square + distance
    if reached >= last:  # reaching or passing the last square finishes: no snake bites there
        return Moved(turn, player, kind, asked, dice, False, square, last, (Step(last, kind),), True, silent)
    end, effects = landing(reached, jumps)
    finished = end >= last  # a ladder up to the last square finishes too
    return Moved(turn, player, kind, asked, dice, False, square, end, (Step(reached, kind), *effects), finished,
                 silent)
