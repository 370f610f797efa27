"""Builders for the Unleashed rules tests (docs/rules/unleashed.md): a campaign in one line, a state
built directly (every square BLANK unless a test says otherwise), orders, scripted dice,
and readers for the events of a turn.

The default campaign: players ann, bob, cat seated as listed, `setup: random`,
`super_size: false`, so the board is 5 x 8 (40 squares, Finish 41) and turn k is round k
(round 1 starts with ann, round 2 with bob, round 3 with cat). On the 5 x 8 board:
level 1 holds 1-8 in columns 0-7, level 2 holds 9-16 right to left (square s in column
16 - s), level 3 holds 17-24 left to right, level 4 holds 25-32 right to left, level 5
holds 33-40 left to right."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gm.rules.base import Outcome, Setup
from gm.rules.chance import ScriptedChance
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.options import UnleashedOptions, parse_options
from gm.rules.unleashed.orders import PlayLine, UnleashedOrder
from gm.rules.unleashed.state import Pawn, UnleashedState
from gm.yamlfile import LineDict

R = Unleashed()
P3 = ("ann", "bob", "cat")
SEED = 2**128 + 99


def options(**raw: Any) -> UnleashedOptions:
    return parse_options(LineDict(raw))


def campaign(players: Sequence[str] = P3, seed: int = SEED, **raw: Any) -> Setup:
    """A Setup on the default board for the players (5 x 8 for 3 unless told)."""
    raw.setdefault("seating", "listed")
    raw.setdefault("setup", "random")
    raw.setdefault("super_size", False)
    opts = options(**raw)
    boards, problems = R.campaign_boards({}, len(players), opts)
    assert problems == []
    return Setup(boards, tuple(players), opts, seed)


def state(setup: Setup, at: Mapping[str, int], *, cards: Mapping[int, str] | None = None,
          hands: Mapping[str, Iterable[str]] | None = None, pile: Sequence[str] | None = None,
          items: Mapping[str, Sequence[int]] | None = None, turn: int = 1,
          locked_cards: Iterable[int] = (), locked_items: Iterable[str] = (),
          reactions: Mapping[str, Mapping[str, list[str]]] | None = None, reversed: bool = False,
          finished: Mapping[str, int] | None = None) -> UnleashedState:
    """A state before `turn`: pawns on the squares of `at`, every card BLANK but `cards`
    (square -> code), hands empty but `hands`, ten blanks on the pile unless told."""
    board = next(iter(setup.boards.values()))
    rows, columns = len(board.levels), board.levels[0]
    row = ["BLANK"] * (rows * columns)
    for square, code in (cards or {}).items():
        row[square - 1] = code
    pawns = {p: Pawn(at.get(p, 0)) for p in setup.players}
    for p, overshoot in (finished or {}).items():
        pawns[p].finished, pawns[p].overshoot = True, overshoot
    return UnleashedState(
        turn=turn, rows=rows, columns=columns, seats=list(setup.players), cards=row,
        pile=list(pile) if pile is not None else ["BLANK"] * 10,
        hands={p: list((hands or {}).get(p, ())) for p in setup.players}, pawns=pawns,
        items={k: list(v) for k, v in (items or {}).items()},
        locked_cards=list(locked_cards), locked_items=list(locked_items),
        reactions={p: {a: list(t) for a, t in r.items()} for p, r in (reactions or {}).items()},
        reversed=reversed)


def dice(script: Mapping[str, Sequence[int]] | None = None, rest: int | None = None,
         seed: int = SEED) -> ScriptedChance:
    """Dice by player: `script[g]` the dice thrown in g's go in order (6.12's `g/i`);
    any other die is `rest`, and with no `rest` an unscripted die fails the test."""
    script = dict(script or {})

    def chosen(turn: int, kind: str, key: str, candidates: tuple[Any, ...]) -> Any:
        if kind != "dice":
            return None
        player, i = key.rsplit("/", 1)
        faces = script.get(player, ())
        if int(i) <= len(faces):
            return faces[int(i) - 1]
        assert rest is not None, f"die {key} of turn {turn} is not scripted"
        return rest

    return ScriptedChance(chosen, seed)


def play(card: str, square: str | int, choices: str | None = None) -> PlayLine:
    return PlayLine(card, str(square), choices)


def order(*lines: PlayLine, reactions: Mapping[str, Sequence[str]] | None = None,
          plays: bool = True) -> UnleashedOrder:
    return UnleashedOrder(True, tuple(lines) if plays else None,
                          {a: tuple(t) for a, t in (reactions or {}).items()})


def run(setup: Setup, before: UnleashedState, orders: Mapping[str, UnleashedOrder] | None = None,
        chance: ScriptedChance | None = None) -> Outcome:
    return R.resolve(setup, before, orders or {}, chance if chance is not None else dice(rest=2))


def of(out: Outcome, kind: str) -> list[Any]:
    return [e for e in out.events if e.kind == kind]


def go_of(out: Outcome, player: str) -> list[Any]:
    """The events of `player`'s go (from its GoBegun to the next), [] if none."""
    found: list[Any] = []
    inside = False
    for event in out.events:
        if event.kind == "go":
            inside = event.player == player
        if inside:
            found.append(event)
    return found


def steps(events: Iterable[Any], pawn: str | None = None) -> list[tuple[Any, ...]]:
    """(pawn, start, end, by, what) of every step, or of one pawn's as (start, end, by, what)."""
    found = [(e.pawn, e.start, e.end, e.by, e.what) for e in events if e.kind == "step"]
    return [s[1:] for s in found if s[0] == pawn] if pawn else found


def squares(out: Outcome) -> dict[str, int]:
    return {p: pawn.square for p, pawn in out.state.pawns.items()}
