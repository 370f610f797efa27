"""One round of Unleashed (docs/rules/unleashed.md, Rounds and goes; Variants): goes in seat order,
card plays, draws, rolls, moves with items and cards, actions, reactions and automatic choices,
crossings and the end of the campaign. Works on a copy of the state, drawing dice through `Chance`.

A crossing that ends the go (the go's own pawn) or the campaign (`finish: first`) stops
everything at once: it is raised as an exception and caught where that ends.

A chain of moves and actions (6.7-6.9: a pawn lands on a send, the sent pawn lands on
another...) is as long as the board and the deck make it: each pawn uses each card at most
once per go, so a go holds at most pawns x squares of them, thousands on a long board. So
no step calls the next: each returns what follows it (`Then`), and `settle` carries the
steps out from one list, depth first, with the Python stack as flat as for one step."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from ..chance import Chance
from ..grammar import CommandProblem
from .cards import action_type, canonical_sorted, is_action, movement, sent
from .choosing import Choosing
from .ending import GameOver, end_campaign
from .happenings import (
    Acted,
    Crossed,
    Drew,
    GoBegun,
    NoRoll,
    Played,
    Rolled,
    RoundBegun,
    Stepped,
)
from .items import item_kind
from .options import UnleashedOptions
from .orders import PlayLine
from .state import UnleashedState
from .words import (
    CHOICE_FORMS,
    parse_choices,
    read_spot,
    resolve_spot,
)

__all__ = ["Round"]

# what follows a step of a chain, in order: steps still to carry out, each giving its own
Then = list[Callable[[], "Then"]]


class GoOver(Exception):
    """The go's own pawn crossed: no more plays, no draw, no roll (6.5)."""


class Round(Choosing):
    """Plays one round on `state` (a copy it may change) with the players' orders:
    player -> their PLAY lines as sent, or None for NMR."""

    def __init__(self, state: UnleashedState, options: UnleashedOptions, players: Sequence[str],
                 chance: Chance, events: list[Any]):
        self.state = state
        self.options = options
        self.players = tuple(players)
        self.chance = chance
        self.events = events
        self.grid = state.grid
        self.last = self.grid.squares  # N; Finish is N + 1
        self.crossed = False

    # -- the round (6.5) ----------------------------------------------------------------

    def play(self, number: int, plays: Mapping[str, Sequence[PlayLine] | None]) -> None:
        state = self.state
        seats = state.seats
        first = (number - 1) % len(seats) if self.options.rotate_start else 0
        order = tuple(p for p in seats[first:] + seats[:first] if not state.pawns[p].finished)
        self.events.append(RoundBegun(state.turn, number, order))
        state.private = {}
        try:
            for player in order:
                if not state.pawns[player].finished:
                    self.go(player, plays.get(player))
        except GameOver:
            pass
        if self.crossed or state.turn >= self.options.max_turns:
            self.end()

    def end(self) -> None:
        end_campaign(self.state, self.events)

    # -- a go (6.5, 6.6) ----------------------------------------------------------------

    def go(self, player: str, lines: Sequence[PlayLine] | None) -> None:
        state = self.state
        self.player = player
        self.used: dict[str, set[int]] = defaultdict(set)  # pawn -> squares of cards it used this go
        self.locked = set(state.locked_cards)  # squares of cards placed in the preceding go
        self.locked_items = set(state.locked_items)
        self.placed: set[int] = set()  # squares of cards placed in this go
        self.moved: set[str] = set()  # items whose squares an action changed in this go
        self.displaced: dict[str, int] = defaultdict(int)
        self.events.append(GoBegun(state.turn, player, lines is None, tuple(sorted(self.locked)),
                                   tuple(sorted(self.locked_items))))
        private = state.private.setdefault(player, {"drew": [], "skipped": []})
        held = bool(state.hands[player])
        try:
            played = 0
            for number, line in enumerate(lines or (), 1):
                if played == self.options.plays_per_go:
                    break
                self.refused = ("", "")
                reason = self.try_play(player, line)
                if reason:
                    private["skipped"].append([number, reason])
                    if reason == "choices" and self.refused[0]:
                        private.setdefault("choices", {})[str(number)] = list(self.refused)
                else:
                    played += 1
            drawn = state.pile[:played]
            del state.pile[:played]
            state.hands[player] = list(canonical_sorted(state.hands[player] + drawn))
            private["drew"] = list(canonical_sorted(drawn))
            self.events.append(Drew(player, len(drawn)))
            if self.options.compulsory_play and held and played == 0:
                self.events.append(NoRoll(player, "compulsory_play"))
            else:
                self.settle(partial(self.roll, player, extra=False))
        except GoOver:
            pass
        finally:
            state.locked_cards = sorted(self.placed)
            state.locked_items = sorted(self.moved)

    def try_play(self, player: str, line: PlayLine) -> str | None:
        """Carry out one PLAY line if it is legal now (6.6); else why it was skipped."""
        state = self.state
        card, choices = line.card, line.choices
        if card not in state.hands[player]:
            return "not_held"
        try:
            spot = read_spot(line.square, self.players, state.former)
        except CommandProblem:  # names nobody who holds or held a seat: stale, never an error
            return "square"
        square = resolve_spot(spot, player, self.squares(), state.seats, self.last)
        if square is None:
            return "square"
        if any(p != player and sq == square for p, sq in self.squares().items()):
            return "occupied"
        if square in self.locked:
            return "locked"
        decided = None
        if is_action(card) and choices is not None:
            try:
                read = parse_choices(card, choices, self.players, state.former)
            except CommandProblem:  # stale, as above
                return "choices"
            decided = self.legal_choices(player, card, read)
            if decided is None:
                return "choices"
        state.hands[player].remove(card)
        covered = state.cards[square - 1]
        state.cards[square - 1] = card
        self.locked.discard(square)  # the locked card has left the game
        self.placed.add(square)
        for used in self.used.values():
            used.discard(square)
        self.events.append(Played(player, card, square, covered))
        if is_action(card):
            self.used[player].add(square)
            if decided is None:
                # 6.14's "automatic or not": EXTRA-ROLL and REVERSE take no choices, so
                # nothing is chosen automatically (as when landed on, see reaction())
                decided = self.automatic(player, card)
                automatic = CHOICE_FORMS[action_type(card)] != "none"
            else:
                automatic = False
            self.settle(partial(self.perform, player, card, square, decided, automatic, landed=False))
        return None

    def settle(self, first: Callable[[], Then]) -> None:
        """Carry out `first` and all it sets off, depth first (6.7: a displaced pawn
        resolves everything it lands on before the action goes on): what a step returns
        is done before anything that was waiting, in the order returned."""
        waiting: Then = [first]
        while waiting:
            waiting.extend(reversed(waiting.pop()()))

    # -- actions (6.8) --------------------------------------------------------------------

    def perform(self, actor: str, card: str, square: int, choices: tuple[Any, ...], automatic: bool,
                landed: bool) -> Then:
        state = self.state
        kind = action_type(card)
        self.events.append(Acted(actor, card, square, _choices_text(choices), automatic, landed))
        if kind == "REVERSE":
            state.reversed = not state.reversed
        elif kind == "EXTRA-ROLL":
            self.used[actor].add(square)
            return self.roll(actor, extra=True)
        elif kind in ("FORWARD", "BACK") and choices:
            target = choices[0]
            self.used[target].add(square)
            steps = sent(card)[1]
            return self.move(target, steps if kind == "FORWARD" else -steps, "send", card)
        elif kind == "SWAP-PLAYERS" and choices:
            a, b = choices
            self.used[a].add(square)
            self.used[b].add(square)
            pawn_a, pawn_b = state.pawns[a], state.pawns[b]
            was_a, was_b = pawn_a.square, pawn_b.square
            pawn_a.square, pawn_b.square = was_b, was_a
            self.displaced[a] += 1
            self.displaced[b] += 1
            self.events.append(Stepped(a, was_a, was_b, "swap", card))
            self.events.append(Stepped(b, was_b, was_a, "swap", card))
            # a's arrival in full first (all it sets off too), then b's, unless a's displaced b
            return [partial(self.arrive, a, set()), partial(self.arrive_unless_displaced, b, self.displaced[b])]
        elif kind == "SWAP-CARDS" and choices:
            s, t = choices
            cards = state.cards
            cards[s - 1], cards[t - 1] = cards[t - 1], cards[s - 1]
            for marks in (self.locked, self.placed, *self.used.values()):
                _swap_member(marks, s, t)
        elif kind.startswith("MOVE") and choices:
            for item, low, high in choices:
                if tuple(state.items[item]) != (low, high):
                    self.moved.add(item)
                state.items[item] = [low, high]
        return []

    def arrive_unless_displaced(self, pawn: str, mark: int) -> Then:
        """SWAP-PLAYERS' second pawn resolves its arrival unless it was displaced in any
        way (`displaced` past `mark`) during the first one's, or has crossed (6.8)."""
        if self.displaced[pawn] != mark or self.state.pawns[pawn].finished:
            return []
        return self.arrive(pawn, set())

    # -- rolls and moves (6.5, 6.7, 6.11) ---------------------------------------------------

    def roll(self, roller: str, extra: bool) -> Then:
        dice = (self.chance.roll(self.state.turn, self.player), self.chance.roll(self.state.turn, self.player))
        variant = self.options.snake_eyes if dice == (1, 1) and self.options.snake_eyes != "off" else None
        self.events.append(Rolled(self.player, roller, dice, extra, variant))
        if variant == "self":
            self.to_start(roller)
        elif variant == "evil":
            target, _ = self.reaction(roller, "SNAKE-EYES")
            if target:
                self.to_start(target[0])
        else:
            return self.move(roller, sum(dice), "roll")
        return []

    def to_start(self, pawn: str) -> None:
        piece = self.state.pawns[pawn]
        self.displaced[pawn] += 1
        self.events.append(Stepped(pawn, piece.square, 0, "snake_eyes"))
        piece.square = 0

    def move(self, pawn: str, steps: int, by: str, what: str = "") -> Then:
        """A new move of `steps` (signed) from where the pawn stands; its arrival follows."""
        self.displaced[pawn] += 1
        if self.step(pawn, steps, by, what):
            return [partial(self.arrive, pawn, set())]
        return []

    def step(self, pawn: str, steps: int, by: str, what: str = "") -> bool:
        """Move the pawn `steps`; False when it crossed the finish line."""
        piece = self.state.pawns[pawn]
        start = piece.square
        if steps > 0 and start + steps > self.last + 1:
            self.cross(pawn, start + steps - (self.last + 1))
            return False
        piece.square = max(0, start + steps)
        self.events.append(Stepped(pawn, start, piece.square, by, what))
        return True

    def cross(self, pawn: str, overshoot: int) -> None:
        piece = self.state.pawns[pawn]
        piece.finished, piece.overshoot = True, overshoot
        self.crossed = True
        self.events.append(Crossed(pawn, piece.square, overshoot))
        if self.options.finish == "first":
            raise GameOver
        if pawn == self.player:
            raise GoOver

    def arrive(self, pawn: str, travelled: set[str]) -> Then:
        """Resolve what the pawn arrives on (6.7): items first, then cards, until it stops
        or lands on an action card, whose action follows."""
        state = self.state
        piece = state.pawns[pawn]
        while not piece.finished:
            here = piece.square
            entry = self.entry(here, travelled)
            if entry is not None:
                item, end = entry
                travelled.add(item)
                piece.square = end
                self.events.append(Stepped(pawn, here, end, "item", item))
                continue
            if not 1 <= here <= self.last:
                return []
            card = state.cards[here - 1]
            if card == "BLANK" or here in self.used[pawn]:
                return []
            self.used[pawn].add(here)
            step = movement(card)
            if step:
                if not self.step(pawn, step, "card", card):
                    return []
                continue
            decided, automatic = self.reaction(pawn, card)
            return self.perform(pawn, card, here, decided, automatic, landed=True)
        return []

    def entry(self, square: int, travelled: set[str]) -> tuple[str, int] | None:
        """The item the pawn travels from `square`, and where to (6.7 step 1)."""
        reverse = self.state.reversed
        found = []
        for item, (low, high) in self.state.items.items():
            if item in travelled:
                continue
            kind = item_kind(item)
            if kind == "P":
                if square in (low, high):
                    found.append((item, high if square == low else low))
            elif (kind == "S") != reverse:  # a snake, or a ladder reversed: in at the top
                if square == high:
                    found.append((item, low))
            elif square == low:
                found.append((item, high))
        if len(found) > 1:  # two chained lampposts, neither travelled: climb
            return max(found, key=lambda entry: entry[1])
        return found[0] if found else None


def _choices_text(choices: Sequence[Any]) -> str:
    words = []
    for choice in choices:
        if isinstance(choice, tuple):
            words.append(f"{choice[0]} {choice[1]} {choice[2]}")
        else:
            words.append(str(choice))
    return " ".join(words)


def _swap_member(marks: set[int], s: int, t: int) -> None:
    has_s, has_t = s in marks, t in marks
    marks.discard(s)
    marks.discard(t)
    if has_s:
        marks.add(t)
    if has_t:
        marks.add(s)


