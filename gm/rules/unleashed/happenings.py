"""What an Unleashed turn tells everyone (docs/rules/unleashed.md, What players see), as events: the
seats, setup picks, each round and go in order, every card played, action performed, roll, step of a
move, crossing and draw. None holds a hand, a line number or a reaction list: what only one player
may know lives in the state's `private`, never here."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EVENTS"]


@dataclass(frozen=True)
class Seated:
    seats: tuple[str, ...]
    kind: str = "seats"


@dataclass(frozen=True)
class Picked:
    """A setup pick (6.4): `player` None at gm start (setup: random) or for the board's items."""

    pick: int
    player: str | None
    item: str
    lower: int
    upper: int
    default: bool
    kind: str = "pick"


@dataclass(frozen=True)
class RoundBegun:
    turn: int
    round: int
    order: tuple[str, ...]  # the goes in order (pawns in play)
    kind: str = "round"


@dataclass(frozen=True)
class GoBegun:
    turn: int
    player: str
    nmr: bool
    locked_cards: tuple[int, ...]
    locked_items: tuple[str, ...]
    kind: str = "go"


@dataclass(frozen=True)
class Played:
    """A card placed from a hand: what it covered, its choices as resolved, automatic or not."""

    player: str
    card: str
    square: int
    covered: str
    kind: str = "play"


@dataclass(frozen=True)
class Acted:
    """An action performed by `actor` from the card on `square` (placed or landed on):
    its choices as resolved (empty: nothing happened), automatic or from a line or a
    reaction."""

    actor: str
    card: str
    square: int
    choices: str
    automatic: bool
    landed: bool
    kind: str = "action"


@dataclass(frozen=True)
class Rolled:
    """Two dice thrown by `roller` in `player`'s go; `snake_eyes` the variant applied."""

    player: str
    roller: str
    dice: tuple[int, ...]
    extra: bool
    snake_eyes: str | None = None
    kind: str = "roll"


@dataclass(frozen=True)
class Stepped:
    """One step of a move: `pawn` from `start` to `end` `by` a roll, a send, a swap, a card
    (`what` its code), an item (`what` its id) or snake eyes."""

    pawn: str
    start: int
    end: int
    by: str
    what: str = ""
    kind: str = "step"


@dataclass(frozen=True)
class Crossed:
    pawn: str
    start: int
    overshoot: int
    kind: str = "cross"


@dataclass(frozen=True)
class Drew:
    player: str
    count: int
    kind: str = "drew"


@dataclass(frozen=True)
class NoRoll:
    player: str
    reason: str  # "compulsory_play"
    kind: str = "no_roll"


@dataclass(frozen=True)
class Ended:
    """The campaign is over: the winners (6.10) and every placing, in seat order."""

    winners: tuple[str, ...]
    placings: tuple[tuple[str, int], ...]
    kind: str = "end"


EVENTS = (Seated, Picked, RoundBegun, GoBegun, Played, Acted, Rolled, Stepped, Crossed, Drew, NoRoll, Ended)
