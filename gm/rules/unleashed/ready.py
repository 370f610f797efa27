"""The ready order in an Unleashed player's own mail (docs/rules/unleashed.md, What players see): an
example made from the reader's own hand and the public board only (a pick for each setup choice, the
plays most likely to help them or set a rival back), for them to edit and send."""

from __future__ import annotations

from collections.abc import Callable

from ..base import Setup
from .cards import BLANK, action_type, canonical_sorted, movement
from .items import BOX, ends_ok_with, placements
from .options import UnleashedOptions, options_of
from .state import UnleashedState, item_lines

ROLL = 7  # the commonest sum of two dice: where a pawn most likely lands at its next roll
NEAR = range(2, 13)  # the squares a roll of two dice can reach, ahead of a pawn


def ready_order(setup: Setup, state: UnleashedState, player: str) -> tuple[str, ...]:
    """The lines a player may send as they stand for the next turn, built from what they
    alone hold and what everyone sees: PLACE lines in the setup turn, else one PLAY line
    for each card code in the hand, the likeliest to help first; each passes the checks on
    receipt (6.13) and is legal on the board as it stands now."""
    if not state.in_play(player):
        return ()
    if state.setup:
        return _ready_places(state, options_of(setup), player)
    return _ready_plays(state, player)


def _ready_places(state: UnleashedState, options: UnleashedOptions, player: str) -> tuple[str, ...]:
    """A ladder, a snake and a lamppost (those the mix places), each a legal placement
    with the lines above it; spread by seat, so that the players' examples differ."""
    seat = state.seats.index(player)
    limits = options.kind_limits
    placed = {item: list(ends) for item, ends in state.items.items()}
    lines: list[str] = []
    for kind in ("L", "S", "P"):
        boxed = [item for item in BOX if item[0] == kind and item not in placed]
        if not limits.get(kind) or not boxed:
            continue
        item = boxed[seat % len(boxed)]
        legal = [(low, high) for low, high in placements(state.grid, item)
                 if ends_ok_with(placed, {item: (low, high)})]
        if not legal:
            continue
        low, high = legal[(seat * 37 + len(lines) * 11) % len(legal)]
        placed[item] = [low, high]
        # a snake written head first, as it is travelled
        lines.append(f"PLACE {item} {high} {low}" if kind == "S" else f"PLACE {item} {low} {high}")
    return tuple(lines)


# the order a hand's cards are offered in: what helps the player most surely first
# (docs/rules/unleashed.md 6.8: an action card is performed by its player as soon as it is placed)
PREFERENCE = ("SWAP-PLAYERS", "EXTRA-ROLL", "BACK", "-", "MOVE-SNAKE", "MOVE-2-SNAKES", "MOVE-ANY",
              "MOVE-LADDER", "MOVE-2-LADDERS", "+", "SWAP-CARDS", BLANK, "FORWARD", "REVERSE")


def _preference(code: str) -> int:
    step = movement(code)
    kind = ("+" if step > 0 else "-") if step else action_type(code)
    return PREFERENCE.index(kind)


def _ready_plays(state: UnleashedState, player: str) -> tuple[str, ...]:
    hand = canonical_sorted(set(state.hands[player]))
    if not hand:
        return ("PLAY NONE",)
    board = _Ready(state, player)
    lines = []
    for code in sorted(hand, key=_preference):
        line = board.line(code)
        if line is not None:
            lines.append(line)
    if not lines:  # nothing worth a choice: the first card that acts with none, else no card
        lines = [line for code in hand if _acts_alone(code) and (line := board.plain(code))][:1] or ["PLAY NONE"]
    return tuple(lines)


def _acts_alone(code: str) -> bool:
    """A card that changes something with no choices: a +k or -k on the board, EXTRA-ROLL,
    BLANK. A MOVE, SWAP or BACK card's automatic choice may change nothing; FORWARD and
    REVERSE are the player's own call."""
    return bool(movement(code)) or code in ("EXTRA-ROLL", BLANK)


class _Ready:
    """A player's view of the board for their ready PLAY lines: their pawn, the others',
    which squares a card may be played on now (6.6) and on which a card would act at all
    (not under an item's entry, 6.7); each line takes a square of its own."""

    def __init__(self, state: UnleashedState, player: str):
        self.state, self.grid = state, state.grid
        at = {p: pawn.square for p, pawn in state.pawns.items() if not pawn.finished}
        self.me = at[player]
        others = [square for p, square in at.items() if p != player]
        self.leader = max(others) if others else None
        self.barred = set(others) | set(state.locked_cards)
        self.entries = {end for line in item_lines(state) for end in
                        ((line.source, line.target) if line.both_ways else (line.source,))}

    def free(self, near: int, code: str | None = None) -> int | None:
        """The square nearest `near`, ahead first, that no other pawn, no lock, no item's
        entry and no other ready line takes, and whose card is not `code` already (a card
        played over its like changes nothing)."""
        last, cards = self.grid.squares, self.state.cards
        near = min(max(near, 1), last)
        for distance in range(last):
            for square in (near + distance, near - distance):
                if 1 <= square <= last and square not in self.barred and square not in self.entries \
                        and cards[square - 1] != code:
                    return square
        return None

    def plain(self, code: str) -> str | None:
        """A PLAY line with no choices, a roll ahead of the player, or None."""
        square = self.free(self.me + ROLL, code)
        if square is None:
            return None
        self.barred.add(square)
        return f"PLAY {code} ON {square}"

    def ahead(self, of: int, wanted: Callable[[str], bool]) -> int | None:
        """The first square a roll may reach from `of` whose card is `wanted` and acts."""
        cards, last = self.state.cards, self.grid.squares
        return next((of + k for k in NEAR if of + k <= last and of + k not in self.entries
                     and wanted(cards[of + k - 1])), None)

    def line(self, code: str) -> str | None:
        """A PLAY line for a card of `code` that is worth sending, or None."""
        me, leader = self.me, self.leader
        step, kind = movement(code), action_type(code)
        square, choices = self.free(me + ROLL, code), ""
        if kind == "SWAP-PLAYERS":
            if leader is None or leader <= me:
                return None
            choices = "ME LEADER"
        elif kind == "BACK":
            if leader is None:
                return None
            choices = "LEADER"
        elif step < 0:
            if leader is None or leader <= me:  # it would wait for this pawn as much as the leader's
                return None
            square = self.free(leader + ROLL, code)
        elif kind in ("MOVE-SNAKE", "MOVE-2-SNAKES", "MOVE-ANY", "MOVE-LADDER", "MOVE-2-LADDERS"):
            choices = self.item_move(kind)
            if not choices:
                return None
        elif kind == "SWAP-CARDS":
            # a card that would set this pawn back, sent where the leader's roll may land
            red = self.ahead(me, _sets_back)
            target = leader + ROLL if leader is not None else 0
            if red is None or not 1 <= target <= self.grid.squares or target in self.entries or red == target:
                return None
            choices = f"{red} {target}"
            square = self.free(me + 1, code)
            if square in (red, target):
                return None
        elif code == BLANK:
            # cover a card that would set this pawn back, else one that would help the leader on
            covered = self.ahead(me, _sets_back)
            if covered is None and leader is not None:
                covered = self.ahead(leader, _helps)
            if covered is None or covered in self.barred:
                return None
            square = covered
        elif kind in ("FORWARD", "REVERSE"):
            return None  # helps another pawn, or turns every item about: the player's own call
        if square is None:
            return None
        self.barred.add(square)
        return f"PLAY {code} ON {square}" + (f" {choices}" if choices else "")

    def item_move(self, kind: str) -> str:
        """A triple for a MOVE card: an item that sets back (a snake; a ladder while reversed)
        entered a roll ahead of the leader, or one that helps a roll ahead of the player."""
        state = self.state
        wanted = {"MOVE-SNAKE": "S", "MOVE-2-SNAKES": "S", "MOVE-LADDER": "L", "MOVE-2-LADDERS": "L",
                  "MOVE-ANY": "SL"}[kind]
        for item in sorted(state.items):
            if item[0] not in wanted or item in state.locked_items:
                continue
            down = (item[0] == "S") != state.reversed
            if down and self.leader is None:
                continue
            aim = (self.leader if down else self.me) + ROLL
            for low, high in placements(self.grid, item):
                entry = high if down else low
                if entry == aim and [low, high] != state.items[item] and \
                        ends_ok_with(state.items, {item: (low, high)}):
                    return f"{item} {entry} {low if entry == high else high}"
        return ""


def _sets_back(code: str) -> bool:
    return movement(code) < 0 or action_type(code) == "BACK"


def _helps(code: str) -> bool:
    return movement(code) > 0 or code == "EXTRA-ROLL"
