"""Unleashed's options (docs/rules/unleashed.md, Items: snakes, ladders and lampposts; Setup; Rounds
and goes; Winning and placings; Variants; CONTRACT's campaign.yaml), read from campaign.yaml with
every bad value named on its line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import ProblemsError
from ...yamlfile import is_int
from ..base import Setup
from ..options import option_names
from .cards import BLANK, DEFAULT_DECK, DEFAULT_WHITE_DOTS, read_code
from .items import MIX_KEYS, MIX_MOST, default_mix

__all__ = ["MAX_DECK", "OPTION_KEYS", "UnleashedOptions", "parse_options"]

# The most cards a deck may hold: 15 times the standard 132, and room for a board of 1,976 squares.
# The deal's shuffle records a draw over each of its M, M-1, ... positions (docs/rules/unleashed.md,
# Fairness: seeds and commitments), about M^2 / 2 numbers in the audit record: some 2 million (10
# MB) here, but 200 million for a deck of 20,000, which no machine holds. Checked before anything is
# built.
MAX_DECK = 2_000

@dataclass(frozen=True)
class UnleashedOptions:
    seating: str = "random"
    rotate_start: bool = True
    finish: str = "round"
    setup: str | None = None  # None: `board` when the board file lists items, else `players`
    pieces: int | None = None  # None: 12, or 9 without super_size, or the mix's sum
    mix: Mapping[str, int] | None = None  # S, L, P -> count
    super_size: bool = True
    simple: bool = False
    blank_removal: int = 0
    four_card_hands: bool = False
    two_card_placement: bool = False
    compulsory_play: bool = False
    snake_eyes: str = "off"
    deck: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_DECK))
    white_dots: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_WHITE_DOTS))
    max_turns: int = 200

    @property
    def most_pieces(self) -> int:
        return 14 if self.super_size else 9

    @property
    def piece_count(self) -> int:
        if self.pieces is not None:
            return self.pieces
        if self.mix is not None:
            return sum(self.mix.values())
        return 12 if self.super_size else 9

    @property
    def kind_limits(self) -> dict[str, int]:
        """How many items of each kind default picks may bring into play (6.4)."""
        return dict(self.mix) if self.mix is not None else default_mix(self.piece_count)

    @property
    def hand_size(self) -> int:
        return 4 if self.four_card_hands else 3

    @property
    def plays_per_go(self) -> int:
        return 2 if self.two_card_placement else 1

    @property
    def removed(self) -> dict[str, int]:
        """The cards taken out before the deal: white dots with `simple`, then blanks."""
        taken = dict(self.white_dots) if self.simple else {}
        if self.blank_removal:
            taken[BLANK] = taken.get(BLANK, 0) + self.blank_removal
        return taken


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


CHOICES = {
    "seating": ("random", "listed"),
    "finish": ("round", "first"),
    "setup": ("players", "random", "board"),
    "snake_eyes": ("off", "self", "evil"),
}


def _codes(raw: Any, what: str, line: int, problems: list[str]) -> dict[str, int] | None:
    if not isinstance(raw, Mapping) or not raw:
        problems.append(f"line {line}: option {what} must map card codes to counts, e.g. {{BLANK: 36, \"+1\": 9}}")
        return None
    table: dict[str, int] = {}
    for key, count in raw.items():
        code = read_code(key)
        if code is None:
            problems.append(f"line {line}: option {what}: {key!r} is no card code (BLANK, +1..+9, -1..-9, "
                            f"or an action such as MOVE-ANY or FORWARD-2)")
        elif code in table:
            problems.append(f"line {line}: option {what}: {code} is given twice")
        elif not is_int(count) or count < 0:
            problems.append(f"line {line}: option {what}: {code} needs a whole number of at least 0, not {count!r}")
        else:
            table[code] = count
    return table


OPTION_KEYS = option_names(UnleashedOptions)  # campaign.yaml's keys: the dataclass's fields


def parse_options(raw: Mapping[str, Any]) -> UnleashedOptions:
    """The options from campaign.yaml; raises ProblemsError naming every bad value."""
    line_of = getattr(raw, "line_of", lambda key: 0)
    problems: list[str] = []
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in OPTION_KEYS:
            continue
        line = line_of(key)
        if key == "snake_eyes" and value is False:
            value = "off"
        if key in CHOICES:
            if value in CHOICES[key]:
                values[key] = value
            else:
                problems.append(f"line {line}: option {key} must be {' or '.join(CHOICES[key])}, not {value!r}")
        elif key in ("rotate_start", "super_size", "simple", "four_card_hands", "two_card_placement",
                     "compulsory_play"):
            if _flag(value):
                values[key] = value
            else:
                problems.append(f"line {line}: option {key} must be true or false, not {value!r}")
        elif key in ("pieces", "blank_removal", "max_turns"):
            low = 1 if key == "max_turns" else 0
            if is_int(value) and value >= low:
                values[key] = value
            else:
                problems.append(f"line {line}: option {key} must be a whole number of at least {low}, not {value!r}")
        elif key == "mix":
            mix = _mix(value, line, problems)
            if mix is not None:
                values[key] = mix
        else:
            table = _codes(value, key, line, problems)
            if table is not None:
                values[key] = table
    if "deck" in values and "white_dots" not in values:
        values["white_dots"] = {}  # 6.2: a custom deck carries no dots unless told
    options = UnleashedOptions(**values)
    problems += _cross_checks(options, line_of)
    if problems:
        raise ProblemsError("options", problems)
    return options


def _mix(value: Any, line: int, problems: list[str]) -> dict[str, int] | None:
    if not isinstance(value, Mapping):
        problems.append(f"line {line}: option mix must be a mapping such as {{snakes: 4, ladders: 4, lampposts: 1}}")
        return None
    mix = {"S": 0, "L": 0, "P": 0}
    for key, count in value.items():
        kind = MIX_KEYS.get(key)
        if kind is None:
            problems.append(f"line {line}: option mix: {key!r} is not snakes, ladders or lampposts")
        elif not is_int(count) or not 0 <= count <= MIX_MOST[kind]:
            problems.append(f"line {line}: option mix: {key} must be a whole number from 0 to {MIX_MOST[kind]}, not {count!r}")
        else:
            mix[kind] = count
    return mix


def _cross_checks(options: UnleashedOptions, line_of: Any) -> list[str]:
    problems = []
    cards = sum(options.deck.values())
    if cards > MAX_DECK:
        problems.append(f"line {line_of('deck')}: option deck holds {cards} cards; a deck holds at most "
                        f"{MAX_DECK:,} (the standard deck 132)")
    if options.pieces is not None and not options.pieces <= options.most_pieces:
        problems.append(f"line {line_of('pieces')}: option pieces must be from 0 to {options.most_pieces}"
                        f"{'' if options.super_size else ' with super_size: false'}, not {options.pieces}")
    if options.mix is not None:
        total = sum(options.mix.values())
        if options.pieces is not None and total != options.pieces:
            problems.append(f"line {line_of('mix')}: option mix adds up to {total} items but pieces is {options.pieces}")
        elif total > options.most_pieces:
            problems.append(f"line {line_of('mix')}: option mix adds up to {total} items; at most {options.most_pieces} are played")
    for code, dots in options.white_dots.items():
        if dots > options.deck.get(code, 0):
            problems.append(f"line {line_of('white_dots')}: option white_dots gives {code} {dots} dots, "
                            f"but the deck holds {options.deck.get(code, 0)} of it")
    blanks = options.deck.get(BLANK, 0) - (options.white_dots.get(BLANK, 0) if options.simple else 0)
    if options.blank_removal > blanks:
        problems.append(f"line {line_of('blank_removal')}: option blank_removal removes {options.blank_removal} "
                        f"blanks, but the deck holds {blanks}")
    return problems


def options_of(setup: Setup) -> UnleashedOptions:
    """The campaign's options, or the defaults where a setup carries none."""
    return setup.options if setup.options is not None else UnleashedOptions()
