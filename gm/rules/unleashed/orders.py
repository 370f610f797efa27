"""Unleashed's order commands (docs/rules/unleashed.md, Order mail): `PLAY`, `REACT` and `PLACE`,
read from a plain mail line by line, checked on receipt as far as the rules allow without the go,
and merged into the round's standing order. What only the go can judge (pawns, locks, items in play,
Ends, resolved squares) is left to it: such a line is skipped there, not refused here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ..grammar import Command, CommandProblem, CommandSpec, Grammar, whole_number
from ..problem import Problem, problem
from .cards import action_type, is_action, read_code
from .items import BOX, Grid, fits_reach
from .words import (
    CHOICE_FORMS,
    REACTIONS,
    Spot,
    Triple,
    as_read,
    choice_text,
    read_choices,
    read_spot,
)

__all__ = ["FORMS", "PlayLine", "UnleashedOrder", "merge", "unleashed_grammar"]

FORMS = {
    "PLAY": "PLAY <card> ON <square> [choices]  or  PLAY NONE",
    "REACT": "REACT <action> <choices>  or  REACT <action> NONE",
    "PLACE": "PLACE <item> <square> <square>",
}


@dataclass(frozen=True)
class PlayLine:
    """One PLAY line as accepted: the card, the square and the choices in canonical text
    (None when left out). Stored as `[card, square, choices]`."""

    json_row: ClassVar[bool] = True

    card: str
    square: str
    choices: str | None = None

    def text(self) -> str:
        tail = f" {self.choices}" if self.choices else ""
        return f"PLAY {self.card} ON {self.square}{tail}"

    def as_read(self, players: Sequence[str], former: Mapping[str, str]) -> PlayLine:
        """The line as the go will read it: a seat's former holder named as its holder now
        (docs/rules/unleashed.md, Fairness: seeds and commitments); what cannot be read stays as
        sent (the go skips it)."""
        if not former:
            return self
        try:
            square = read_spot(self.square, players, former).text()
        except CommandProblem:
            square = self.square
        choices = self.choices and as_read(self.card, self.choices, players, former)
        return PlayLine(self.card, square, choices)


@dataclass(frozen=True)
class UnleashedOrder:
    """A player's order for the round: whether any message was accepted (else NMR), the
    play list (None: no PLAY line sent; empty: PLAY NONE), the reaction lists it
    replaces (action -> canonical choice texts; empty: NONE) and the setup list."""

    sent: bool = False
    plays: tuple[PlayLine, ...] | None = None
    reactions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    places: tuple[tuple[str, int, int], ...] | None = None


# -- readers: the form of each line (the grammar) ---------------------------------------


def _read_play(args: tuple[str, ...], rest: str, context: object) -> tuple[None, tuple[str, ...]]:
    if len(args) == 1 and args[0].upper() == "NONE":
        return None, ("NONE",)
    card = read_code(args[0]) if args else None
    if card is None:
        raise CommandProblem("play_needs_card", rest=rest)
    if len(args) < 3 or args[1].upper() != "ON":
        raise CommandProblem("play_needs_on", card=card, rest=rest)
    if not is_action(card) and len(args) > 3:
        raise CommandProblem("takes_no_choices", card=card)
    return None, (card, *args[2:])


def _read_react(args: tuple[str, ...], rest: str, context: object) -> tuple[str, tuple[str, ...]]:
    action = _reaction_name(args[0]) if args else None
    if action is None:
        raise CommandProblem("react_needs_action", rest=rest, actions=list(REACTIONS))
    if len(args) == 1:
        raise CommandProblem("react_needs_choices", action=action)
    if len(args) == 2 and args[1].upper() == "NONE":
        return action, ("NONE",)
    return action, tuple(args[1:])


def _reaction_name(word: str) -> str | None:
    upper = word.upper()
    if upper in REACTIONS:
        return upper
    code = read_code(upper)
    if code and code.startswith(("FORWARD-", "BACK-")):
        return action_type(code)
    return None


def _read_place(args: tuple[str, ...], rest: str, context: object) -> tuple[None, tuple[str, ...]]:
    if len(args) != 3:
        raise CommandProblem("place_form", rest=rest)
    item = args[0].upper()
    if item not in BOX:
        raise CommandProblem("unknown_item", word=args[0])
    return None, (item, args[1], args[2])


def unleashed_grammar() -> Grammar:
    """PLAY, REACT and PLACE, each a list kept line by line in order."""
    return Grammar(commands=(
        CommandSpec("PLAY", FORMS["PLAY"], _read_play, repeatable=True),
        CommandSpec("REACT", FORMS["REACT"], _read_react, repeatable=True),
        CommandSpec("PLACE", FORMS["PLACE"], _read_place, repeatable=True),
    ), strict_signature=True)


# -- merge: what the lines mean in this campaign (6.13's checks on receipt) ---------------


@dataclass(frozen=True)
class Receipt:
    """What the receipt checks read: the players (campaign.yaml order), the sender, the
    grid, the sender's hand, whether this is the setup turn, the snake-eyes option, and
    the seats' former holders (an id -> the seat's holder now, read as the holder)."""

    players: Sequence[str]
    sender: str
    grid: Grid
    hand: Sequence[str]
    setup_turn: bool
    evil: bool
    former: Mapping[str, str] = field(default_factory=dict)


def _spot(word: str, receipt: Receipt) -> Spot:
    spot = read_spot(word, receipt.players, receipt.former)
    if spot.word is None and not receipt.grid.on_board(spot.offset):
        raise CommandProblem("square_off_board", square=spot.offset, last=receipt.grid.squares)
    return spot


def _checked_choices(action: str, words: Sequence[str], receipt: Receipt) -> tuple[Any, ...]:
    """The choices of `action` read and checked as far as receipt can (6.13)."""
    choices = read_choices(action, words, receipt.players, receipt.former)
    kind = action_type(action) if action not in CHOICE_FORMS else action
    form = CHOICE_FORMS[kind]
    me = {"ME", receipt.sender}
    if form == "player" and choices[0] in me:
        raise CommandProblem("not_yourself", action=kind)
    if form == "players" and ({choices[0], choices[1]} <= me or choices[0] == choices[1]):
        raise CommandProblem("same_players")
    if form == "squares":
        for spot in choices:
            if spot.word is None and not receipt.grid.on_board(spot.offset):
                raise CommandProblem("square_off_board", square=spot.offset, last=receipt.grid.squares)
        if choices[0] == choices[1]:
            raise CommandProblem("same_squares")
    if form in ("triple", "triples"):
        if len({t.item for t in choices}) != len(choices):
            raise CommandProblem("same_items")
        for triple in choices:
            _check_triple(kind, triple, receipt)
    return choices


def _check_triple(kind: str, triple: Triple, receipt: Receipt) -> None:
    wanted = {"MOVE-SNAKE": "S", "MOVE-2-SNAKES": "S", "MOVE-LADDER": "L", "MOVE-2-LADDERS": "L"}.get(kind)
    if wanted and triple.item[0] != wanted:
        raise CommandProblem("wrong_item_kind", action=kind, item=triple.item)
    for spot in (triple.a, triple.b):
        if spot.word is None and not receipt.grid.on_board(spot.offset):
            raise CommandProblem("square_off_board", square=spot.offset, last=receipt.grid.squares)
    if triple.a.word is None and triple.b.word is None and not fits_reach(
            receipt.grid, triple.item, triple.a.offset, triple.b.offset):
        raise CommandProblem("out_of_reach", item=triple.item, a=triple.a.offset, b=triple.b.offset)


def _play(command: Command, receipt: Receipt) -> PlayLine:
    card, square, *words = command.value
    if card not in receipt.hand:
        raise CommandProblem("not_in_hand", card=card, hand=list(receipt.hand))
    spot = _spot(square, receipt)
    choices = _checked_choices(card, words, receipt) if words else ()
    return PlayLine(card, spot.text(), choice_text(choices) if words else None)


def _place(command: Command, receipt: Receipt) -> tuple[str, int, int]:
    item, a, b = command.value
    if not receipt.setup_turn:
        raise CommandProblem("place_after_setup")
    squares = []
    for word in (a, b):
        square = whole_number(word, 0)
        if square is None:  # absolute squares only (6.13): no player word, no relative square
            raise CommandProblem("place_absolute", word=word)
        if not receipt.grid.on_board(square):
            raise CommandProblem("square_off_board", square=square, last=receipt.grid.squares)
        squares.append(square)
    if not fits_reach(receipt.grid, item, *squares):
        raise CommandProblem("out_of_reach", item=item, a=squares[0], b=squares[1])
    return item, squares[0], squares[1]


def merge(standing: UnleashedOrder, commands: Iterable[Command], receipt: Receipt) -> tuple[UnleashedOrder, list[Problem]]:
    """The standing order with one message's lines applied (6.13), and every problem."""
    problems: list[Problem] = []
    plays: list[PlayLine] = []
    places: list[tuple[str, int, int]] = []
    reactions: dict[str, list[str]] = {}
    seen_plays = seen_places = False
    lines: dict[str, list[Command]] = {"PLAY": [], "PLACE": [], "REACT": []}
    for command in commands:
        if command.keyword in lines:
            lines[command.keyword].append(command)
    for command in lines["PLAY"]:
        seen_plays = True
        if receipt.setup_turn:
            problems.append(problem("no_play_in_setup", line=command.line))
            continue
        if command.value == ("NONE",):
            if len(lines["PLAY"]) > 1:
                problems.append(problem("none_not_alone", line=command.line, command="PLAY"))
            continue
        try:
            plays.append(_play(command, receipt))
        except CommandProblem as error:
            problems.append(error.problem.on_line(command.line))
    for command in lines["PLACE"]:
        seen_places = True
        try:
            places.append(_place(command, receipt))
        except CommandProblem as error:
            problems.append(error.problem.on_line(command.line))
    by_action: dict[str, list[Command]] = {}
    for command in lines["REACT"]:
        by_action.setdefault(command.target, []).append(command)
    for action, commands_of in by_action.items():
        reactions[action] = []
        for command in commands_of:
            if action == "SNAKE-EYES" and not receipt.evil:
                problems.append(problem("snake_eyes_off", line=command.line))
                continue
            if command.value == ("NONE",):
                if len(commands_of) > 1:
                    problems.append(problem("none_not_alone", line=command.line, command=f"REACT {action}"))
                continue
            try:
                reactions[action].append(choice_text(_checked_choices(action, command.value, receipt)))
            except CommandProblem as error:
                problems.append(error.problem.on_line(command.line))
    if problems:
        return standing, problems
    merged = replace(standing, sent=True)
    if seen_plays:
        merged = replace(merged, plays=tuple(plays))
    if seen_places:
        merged = replace(merged, places=tuple(places))
    if reactions:
        merged = replace(merged, reactions={**standing.reactions, **{a: tuple(t) for a, t in reactions.items()}})
    return merged, []
