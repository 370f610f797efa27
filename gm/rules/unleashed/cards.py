"""The cards of Unleashed (docs/rules/unleashed.md, Cards and the deck): codes, their canonical
order, the default deck and its white dots, how a code is read from an order or a YAML file, and how
players see a card (its symbol, name and colour)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

__all__ = [
    "ACTIONS",
    "BLANK",
    "DEFAULT_DECK",
    "DEFAULT_WHITE_DOTS",
    "canonical_sorted",
    "code_key",
    "is_action",
    "is_movement",
    "movement",
    "read_code",
    "sent",
    "symbol",
    "card_name",
    "card_colour",
]

BLANK = "BLANK"
# the 11 action types in the order of docs/rules/unleashed.md, Cards and the deck; FORWARD and BACK
# carry k
ACTIONS = ("EXTRA-ROLL", "SWAP-PLAYERS", "MOVE-LADDER", "MOVE-SNAKE", "MOVE-ANY", "MOVE-2-LADDERS",
           "MOVE-2-SNAKES", "SWAP-CARDS", "REVERSE", "FORWARD", "BACK")
K_RANGE = range(1, 10)

DEFAULT_DECK: dict[str, int] = {
    BLANK: 36, "+1": 9, "+2": 9, "+3": 8, "-1": 9, "-2": 9, "-3": 8,
    "EXTRA-ROLL": 5, "SWAP-PLAYERS": 4, "MOVE-LADDER": 4, "MOVE-SNAKE": 4, "MOVE-ANY": 4,
    "MOVE-2-LADDERS": 3, "MOVE-2-SNAKES": 3, "SWAP-CARDS": 4, "REVERSE": 3,
    "FORWARD-2": 2, "FORWARD-3": 2, "FORWARD-4": 1, "BACK-2": 2, "BACK-3": 2, "BACK-4": 1,
}
DEFAULT_WHITE_DOTS: dict[str, int] = {
    "SWAP-PLAYERS": 4, "MOVE-ANY": 3, "MOVE-2-LADDERS": 3, "MOVE-2-SNAKES": 3, "SWAP-CARDS": 4, "REVERSE": 3,
}

_MOVEMENT = re.compile(r"([+-])([1-9])")
_SENDS = re.compile(r"(FORWARD|BACK)-([1-9])")


def read_code(text: object) -> str | None:
    """A card code as written in an order or YAML (any case; in YAML `2` is `+2`), in its
    upper-case form, or None when it is no code."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return f"+{text}" if 1 <= text <= 9 else (f"{text}" if -9 <= text <= -1 else None)
    if not isinstance(text, str):
        return None
    code = text.strip().upper()
    if code == BLANK or code in ACTIONS[:9] or _MOVEMENT.fullmatch(code) or _SENDS.fullmatch(code):
        return code
    return None


def movement(code: str) -> int:
    """The signed step of a movement card (`+2` is 2, `-3` is -3); 0 for any other card."""
    match = _MOVEMENT.fullmatch(code)
    return int(code) if match else 0


def sent(code: str) -> tuple[str, int] | None:
    """`("FORWARD", 3)` for FORWARD-3, `("BACK", 2)` for BACK-2, else None."""
    match = _SENDS.fullmatch(code)
    return (match[1], int(match[2])) if match else None


def is_movement(code: str) -> bool:
    return movement(code) != 0


def is_action(code: str) -> bool:
    return code != BLANK and not is_movement(code)


def action_type(code: str) -> str:
    """The action of an action card: its code, less FORWARD's and BACK's k."""
    move = sent(code)
    return move[0] if move else code


def code_key(code: str) -> tuple[int, int, int]:
    """Canonical order (6.2): BLANK; green by k; red by k; the actions in their order,
    FORWARD-k and BACK-k by k."""
    if code == BLANK:
        return (0, 0, 0)
    step = movement(code)
    if step > 0:
        return (1, step, 0)
    if step < 0:
        return (2, -step, 0)
    move = sent(code)
    if move:
        return (3, ACTIONS.index(move[0]), move[1])
    return (3, ACTIONS.index(code), 0)


def canonical_sorted(codes: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(codes, key=code_key))


def expanded(counts: Mapping[str, int]) -> list[str]:
    """The cards of a code -> count table, in canonical order, copies together."""
    return [code for code in sorted(counts, key=code_key) for _ in range(counts[code])]


def less(cards: Iterable[str], taken: Mapping[str, int]) -> list[str]:
    """`cards` (in order) without `taken[code]` copies of each code (from the end of each
    run; identical cards are interchangeable)."""
    left = Counter(cards)
    left.subtract(taken)
    return expanded({code: n for code, n in left.items() if n > 0})


# -- how players see a card (views, the board's SVG) ----------------------------------

# two characters a card, so that a level of ten squares fits a phone's line in the plain
# grid; each report's legend gives the code that PLAY names for every symbol it shows
# (BoardView.legend). The HTML and SVG add colour and the full name.
SYMBOLS = {BLANK: "..", "EXTRA-ROLL": "XR", "SWAP-PLAYERS": "SP", "MOVE-LADDER": "ML", "MOVE-SNAKE": "MS",
           "MOVE-ANY": "MA", "MOVE-2-LADDERS": "2L", "MOVE-2-SNAKES": "2S", "SWAP-CARDS": "SC", "REVERSE": "RV"}
NAMES = {BLANK: "blank", "EXTRA-ROLL": "extra roll", "SWAP-PLAYERS": "swap players", "MOVE-LADDER": "move a ladder",
         "MOVE-SNAKE": "move a snake", "MOVE-ANY": "move any item", "MOVE-2-LADDERS": "move two ladders",
         "MOVE-2-SNAKES": "move two snakes", "SWAP-CARDS": "swap two cards", "REVERSE": "reverse"}


def symbol(code: str) -> str:
    """A card's two-character symbol: `..` blank, `+2`, `-3`, `XR`, `F3` (forward 3), `B2`."""
    if is_movement(code):
        return code
    move = sent(code)
    if move:
        return f"{move[0][0]}{move[1]}"
    return SYMBOLS[code]


def card_name(code: str) -> str:
    if is_movement(code):
        return f"{'forward' if code[0] == '+' else 'back'} {code[1:]}"
    move = sent(code)
    if move:
        return f"send {move[0].lower()} {move[1]}"
    return NAMES[code]


def card_colour(code: str) -> str:
    """The seed's colours: blue blank, green forward, red back, purple action."""
    if code == BLANK:
        return "blue"
    if is_movement(code):
        return "green" if code[0] == "+" else "red"
    return "purple"
