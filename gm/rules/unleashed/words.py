"""What an Unleashed order line says (docs/rules/unleashed.md, Order mail), as values: player words,
squares (absolute or relative to a pawn), item triples and each action's choices; read from the
words of a line, written back in the one canonical form the acknowledgement and
`gm state --json --player` show, and resolved against the pawns as they stand.

A choice list is kept as its canonical text (`"P1 ME+8 carol-3"`), so orders and the
standing reactions store as plain strings and read back through the same parser.

Orders are kept as sent (their receipts, docs/rules/unleashed.md, Fairness: seeds and commitments,
must still match), so a stored line may name a seat's former holder (`gm player replace`). The
readers take `former` (an id that held a seat -> the seat's present holder) and read such an id as
the holder now."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from ..grammar import MAX_DIGITS, CommandProblem, whole_number
from .cards import action_type
from .items import BOX

__all__ = [
    "CHOICE_FORMS",
    "KEYWORDS",
    "REACTIONS",
    "Spot",
    "Triple",
    "as_read",
    "choice_text",
    "read_choices",
    "read_player",
    "read_spot",
]

KEYWORDS = ("ME", "LEADER", "LAST", "NEXT")
# REACT's action names (6.13): FORWARD and BACK take one list for every k
REACTIONS = ("FORWARD", "BACK", "SWAP-PLAYERS", "SWAP-CARDS", "MOVE-LADDER", "MOVE-SNAKE", "MOVE-ANY",
             "MOVE-2-LADDERS", "MOVE-2-SNAKES", "SNAKE-EYES")
# what each action's choices are: players, squares or item triples
CHOICE_FORMS = {
    "FORWARD": "player", "BACK": "player", "SNAKE-EYES": "player", "SWAP-PLAYERS": "players",
    "SWAP-CARDS": "squares", "MOVE-LADDER": "triple", "MOVE-SNAKE": "triple", "MOVE-ANY": "triple",
    "MOVE-2-LADDERS": "triples", "MOVE-2-SNAKES": "triples", "EXTRA-ROLL": "none", "REVERSE": "none",
}
_RELATIVE = re.compile(r"(.+?)([+-])([0-9]+)")
_PAIR = re.compile(r"([0-9]+)-([0-9]+)")
NO_FORMER: Mapping[str, str] = MappingProxyType({})  # no seat has changed hands


@dataclass(frozen=True)
class Spot:
    """A square as written: `word` None for an absolute square `offset`, else a player
    word (an id, or ME, LEADER, LAST, NEXT) and the signed distance from that pawn."""

    word: str | None
    offset: int

    def text(self) -> str:
        if self.word is None:
            return str(self.offset)
        return f"{self.word}{'+' if self.offset >= 0 else '-'}{abs(self.offset)}"


@dataclass(frozen=True)
class Triple:
    item: str
    a: Spot
    b: Spot

    def text(self) -> str:
        return f"{self.item} {self.a.text()} {self.b.text()}"


Choice = str | Spot | Triple


def read_player(word: str, players: Sequence[str], former: Mapping[str, str] = NO_FORMER) -> str:
    """A player word: a keyword in upper case, or a player id as in campaign.yaml (any
    case written); the id of a seat's former holder is read as its present holder."""
    upper = word.upper()
    if upper in KEYWORDS:
        return upper
    folded = word.casefold()
    for player in players:
        if player.casefold() == folded:
            return player
    for old, holder in former.items():  # ids are unique without case (gm player replace)
        if old.casefold() == folded:
            return holder
    raise CommandProblem("unknown_player", word=word, players=list(players))


def read_spot(word: str, players: Sequence[str], former: Mapping[str, str] = NO_FORMER) -> Spot:
    """An integer square, or `<player word>+k` / `<player word>-k`."""
    number = whole_number(word, 0)
    if number is not None:
        return Spot(None, number)
    match = _RELATIVE.fullmatch(word)
    if match and len(match[3]) <= MAX_DIGITS:
        player = read_player(match[1], players, former)
        return Spot(player, int(match[3]) * (1 if match[2] == "+" else -1))
    raise CommandProblem("not_a_square", word=word)


def _read_item(word: str) -> str:
    item = word.upper()
    if item not in BOX:
        raise CommandProblem("unknown_item", word=word)
    return item


def _read_triples(words: list[str], players: Sequence[str], former: Mapping[str, str],
                  most: int) -> tuple[Triple, ...]:
    triples = []
    i = 0
    while i < len(words):
        item = _read_item(words[i])
        i += 1
        pair = _PAIR.fullmatch(words[i]) if i < len(words) else None
        if pair and len(pair[1]) <= MAX_DIGITS and len(pair[2]) <= MAX_DIGITS:
            triples.append(Triple(item, Spot(None, int(pair[1])), Spot(None, int(pair[2]))))
            i += 1
            continue
        if i >= len(words):
            raise CommandProblem("triple_needs_squares", item=item)
        a = read_spot(words[i], players, former)
        i += 1
        if i < len(words) and words[i].upper() in ("TO", "-"):
            i += 1
        if i >= len(words):
            raise CommandProblem("triple_needs_squares", item=item)
        triples.append(Triple(item, a, read_spot(words[i], players, former)))
        i += 1
    if len(triples) > most:
        raise CommandProblem("too_many_triples", most=most)
    return tuple(triples)


def read_choices(action: str, words: Sequence[str], players: Sequence[str],
                 former: Mapping[str, str] = NO_FORMER) -> tuple[Choice, ...]:
    """The choices of `action` (an action card code or a REACT action) from the words
    after it; raises CommandProblem when they are not of the action's form. No words:
    the empty tuple (the caller says whether that is allowed)."""
    kind = action_type(action) if action not in CHOICE_FORMS else action
    form = CHOICE_FORMS[kind]
    words = list(words)
    if not words:
        return ()
    if form == "none":
        raise CommandProblem("takes_no_choices", card=action)
    if form in ("player", "players"):
        want = 1 if form == "player" else 2
        if len(words) != want:
            raise CommandProblem("wrong_choices", action=kind, form=form)
        return tuple(read_player(word, players, former) for word in words)
    if form == "squares":
        if len(words) != 2:
            raise CommandProblem("wrong_choices", action=kind, form=form)
        return tuple(read_spot(word, players, former) for word in words)
    return _read_triples(words, players, former, 1 if form == "triple" else 2)


def choice_text(choices: Sequence[Choice]) -> str:
    """The canonical text of a choice list (CONTRACT: words joined by one space, keywords
    and items upper case, ids as in campaign.yaml, triples less TO and -)."""
    return " ".join(c if isinstance(c, str) else c.text() for c in choices)


def parse_choices(action: str, text: str, players: Sequence[str],
                  former: Mapping[str, str] = NO_FORMER) -> tuple[Choice, ...]:
    """Choices read back from their canonical text."""
    return read_choices(action, text.split(), players, former)


def as_read(action: str, text: str, players: Sequence[str], former: Mapping[str, str]) -> str:
    """A stored choice text as the go will read it (a former holder's id as the seat's
    holder now), for showing a standing order; a text that cannot be read, as stored."""
    if not former:
        return text
    try:
        return choice_text(parse_choices(action, text, players, former))
    except CommandProblem:
        return text


# -- resolving words against the pawns (6.13) ---------------------------------------------


def resolve_player(word: str, actor: str, squares: Mapping[str, int], seats: Sequence[str]) -> str | None:
    """The player a word means now, or None when it means nobody in play. `squares` holds
    the pawns in play only; ties go to the lowest seat."""
    if word == "ME":
        return actor if actor in squares else None
    if word not in KEYWORDS:
        return word if word in squares else None
    others = [p for p in seats if p in squares and p != actor]
    if not others:
        return None
    if word == "LEADER":
        return max(others, key=lambda p: (squares[p], -seats.index(p)))
    if word == "LAST":
        return min(others, key=lambda p: (squares[p], seats.index(p)))
    here = squares.get(actor, 0)
    ahead = [p for p in others if squares[p] > here]
    if not ahead:
        return resolve_player("LEADER", actor, squares, seats)
    return min(ahead, key=lambda p: (squares[p], seats.index(p)))


def resolve_spot(spot: Spot, actor: str, squares: Mapping[str, int], seats: Sequence[str],
                 last_square: int) -> int | None:
    """The square a spot means now, or None when it is outside 1..N or its pawn is not
    in play."""
    if spot.word is None:
        value = spot.offset
    else:
        player = resolve_player(spot.word, actor, squares, seats)
        if player is None:
            return None
        value = squares[player] + spot.offset
    return value if 1 <= value <= last_square else None
