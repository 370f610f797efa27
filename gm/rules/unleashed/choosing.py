"""The choices an Unleashed action takes (docs/rules/unleashed.md, Actions; Reactions and automatic
choices): the player's choices checked against the pawns and items now, the first legal standing
reaction, else the automatic choice. A part of `play.Round`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..grammar import CommandProblem
from .cards import action_type
from .items import Grid, ends_ok_with, fits_reach, is_long, item_kind, oriented
from .state import UnleashedState
from .words import CHOICE_FORMS, Triple, parse_choices, resolve_player, resolve_spot

__all__ = ["Choosing"]

# which items each move action may name
MOVABLE = {"MOVE-SNAKE": "S", "MOVE-LADDER": "L", "MOVE-ANY": "SLP", "MOVE-2-SNAKES": "S", "MOVE-2-LADDERS": "L"}


class Choosing:
    """The choices of a round's actions, read on the round's state (`play.Round`)."""

    state: UnleashedState
    players: tuple[str, ...]
    grid: Grid
    last: int
    locked_items: set[str]
    # why the last choices were not legal, and which item or word: ("", "") when unknown
    refused: tuple[str, str] = ("", "")

    def squares(self) -> dict[str, int]:
        """Pawns in play -> square."""
        return {p: pawn.square for p, pawn in self.state.pawns.items() if not pawn.finished}

    def legal_choices(self, actor: str, card: str, choices: Sequence[Any]) -> tuple[Any, ...] | None:
        """The choices resolved against the pawns now, or None when they are not legal."""
        state = self.state
        kind = action_type(card)
        form = CHOICE_FORMS[kind]
        squares = self.squares()
        if form == "player":
            target = resolve_player(choices[0], actor, squares, state.seats)
            if target is None or target == actor:
                return self.refuse("self" if target == actor else "no_pawn", str(choices[0]))
            return (target,)
        if form == "players":
            a, b = (resolve_player(word, actor, squares, state.seats) for word in choices)
            if a is None or b is None:
                return self.refuse("no_pawn", str(choices[0] if a is None else choices[1]))
            if a == b or squares[a] == squares[b]:
                return self.refuse("same_square", "")
            return (a, b)
        if form == "squares":
            s, t = (resolve_spot(spot, actor, squares, state.seats, self.last) for spot in choices)
            return (s, t) if s is not None and t is not None and s != t else None
        if form in ("triple", "triples"):
            return self.legal_moves(actor, kind, choices)
        return ()

    def refuse(self, why: str, which: str) -> None:
        """Choices not legal now: why and which, for the player's report (the skip reasons
        of templates/mail/unleashed/problems.txt)."""
        self.refused = (why, which)
        return None

    def legal_moves(self, actor: str, kind: str, triples: Sequence[Triple]) -> tuple[Any, ...] | None:
        state = self.state
        if len({t.item for t in triples}) != len(triples):
            return self.refuse("twice", triples[0].item)
        squares = self.squares()
        placed = {}
        for triple in triples:
            if item_kind(triple.item) not in MOVABLE[kind]:
                return self.refuse("kind", triple.item)
            if triple.item not in state.items:
                return self.refuse("not_placed", triple.item)
            if triple.item in self.locked_items:
                return self.refuse("item_locked", triple.item)
            a = resolve_spot(triple.a, actor, squares, state.seats, self.last)
            b = resolve_spot(triple.b, actor, squares, state.seats, self.last)
            if a is None or b is None:
                return self.refuse("no_square", triple.item)
            if not fits_reach(self.grid, triple.item, a, b):
                return self.refuse("long_reach" if is_long(triple.item) else "short_reach", triple.item)
            placed[triple.item] = oriented(self.grid, a, b)
        if not ends_ok_with(state.items, placed):
            return self.refuse("ends", "")
        return tuple((item, low, high) for item, (low, high) in placed.items())

    def automatic(self, actor: str, card: str) -> tuple[Any, ...]:
        """6.9's automatic choice (the empty tuple: nothing happens)."""
        kind = action_type(card)
        squares = self.squares()
        seats = self.state.seats
        if kind in ("FORWARD", "BACK", "SNAKE-EYES"):
            target = resolve_player("LAST" if kind == "FORWARD" else "LEADER", actor, squares, seats)
            return (target,) if target is not None else ()
        if kind == "SWAP-PLAYERS":
            leader = resolve_player("LEADER", actor, squares, seats)
            if leader is not None and squares[leader] > squares.get(actor, 0):
                return (actor, leader)
        return ()

    def reaction(self, actor: str, card: str) -> tuple[tuple[Any, ...], bool]:
        """The first legal standing reaction of `actor` for this action, else the automatic
        choice (and True)."""
        kind = action_type(card)
        if CHOICE_FORMS.get(kind, "none") == "none":
            return (), False
        for text in self.state.reactions.get(actor, {}).get(kind, []):
            try:
                choices = parse_choices(kind, text, self.players, self.state.former)
            except CommandProblem:
                continue  # names nobody who holds or held a seat: stale, skipped like an illegal one
            decided = self.legal_choices(actor, card, choices)
            if decided is not None:
                return decided, False
        return self.automatic(actor, card), True
