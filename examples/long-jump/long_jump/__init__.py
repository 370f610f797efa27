"""Long jump: each turn JUMP n squares (2 to 12); two dice must throw at least n, else a fault."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gm.rules import OptionsError
from gm.rules.base import ArchiveTurn, Outcome, Ruleset, Setup, last_resolved
from gm.rules.chance import Chance
from gm.rules.grammar import CommandProblem, CommandSpec, Grammar, whole_number
from gm.rules.ranking import place_the_rest
from gm.rules.standings import BoardStanding, PieceStanding, PlayerStanding, Standings

HERE = Path(__file__).parent
SHORTEST = 2  # the shortest jump, and a silent player's
FAULTS_OUT = 3  # the fault in a row that sends a piece back to Start


@dataclass(frozen=True)
class LongJumpOptions:  # campaign.yaml `options:`
    max_turns: int = 40
    max_jump: int = 12

    def __post_init__(self) -> None:
        problems = []
        if not SHORTEST <= self.max_jump <= 12:
            problems.append(f"option max_jump must be from 2 to 12, not {self.max_jump}")
        if self.max_turns < 1:
            problems.append(f"option max_turns must be at least 1, not {self.max_turns}")
        if problems:
            raise OptionsError(problems)


@dataclass(frozen=True)
class LongJumpState:
    turn: int  # the turn taking orders
    over: bool
    squares: Mapping[str, int]  # 0 is Start
    faults: Mapping[str, int]  # faults in a row, 0 to 2
    placings: Mapping[str, int | None]


@dataclass(frozen=True)
class LongJumpOrder:
    jump: int | None = None  # JUMP <n>; None: nothing sent (a jump of 2)


@dataclass(frozen=True)
class Jumped:
    turn: int
    player: str
    asked: int  # the n of JUMP n
    dice: tuple[int, ...]  # the two dice thrown, first die first
    made: bool  # the dice's sum was at least n
    start: int
    landed: int  # where the jump came down (start when a fault), before any snake or ladder
    end: int  # after any snake or ladder, or Start after a third fault; the last square when finished
    faults: int  # faults in a row after this jump
    back_to_start: bool  # this was the third fault in a row
    silent: bool  # the player sent no JUMP: a jump of 2
    finished: bool
    kind: str = "jumped"


@dataclass(frozen=True)
class Placed:
    turn: int
    player: str
    placing: int
    by_square: bool  # placed by square at the end (not by finishing)
    kind: str = "placed"


# --- what the reports and the archive show --------------------------------------------


@dataclass(frozen=True)
class JumpLine:
    player: str
    name: str
    asked: int
    dice: tuple[int, ...]
    thrown: int
    made: bool
    start: int
    landed: int
    end: int
    via: str | None  # "ladder", "snake" or None
    faults: int
    back_to_start: bool
    silent: bool
    finished: bool


@dataclass(frozen=True)
class PieceLine:
    player: str
    name: str
    square: int
    faults: int
    finished: bool
    placing: int | None


@dataclass(frozen=True)
class LongJumpView:
    campaign: str
    title: str
    turns: tuple[int, ...]
    boards: tuple[Any, ...]
    standings: tuple[Any, ...]
    over: bool
    next_turn: int | None
    squares: int  # the last square
    jumps: tuple[JumpLine, ...]
    pieces: tuple[PieceLine, ...]


def _read_jump(args: tuple[str, ...], rest: str, most: int) -> tuple[None, int]:
    value = whole_number(args[0], SHORTEST, most) if len(args) == 1 else None
    if value is None:
        raise CommandProblem("jump_not_whole", most=most, value=rest)
    return None, value


def _follow(board: Any, square: int) -> int:
    """The square a piece landing on `square` ends on: each snake or ladder at most once per move."""
    taken: set[int] = set()
    while square in board.jumps and square not in taken:
        taken.add(square)
        square = board.jumps[square]
    return square


def _place_by_square(turn: int, squares: Mapping[str, int], placings: dict[str, int | None],
                     events: list[Any]) -> None:
    """The pieces still jumping placed after the finishers, highest square first, ties shared."""
    for player, placing in place_the_rest(placings, squares).items():
        placings[player] = placing
        events.append(Placed(turn, player, placing, True))


class LongJump(Ruleset):
    name = "longjump"
    options_type = LongJumpOptions
    state_type = LongJumpState
    order_type = LongJumpOrder
    event_types = (Jumped, Placed)
    one_board = True
    silence_is_order = True  # a silent player jumps 2: a quiet week is no unread mailbox
    templates = str(HERE / "templates")
    rules_page = str(HERE / "rules.md")
    boards_folder = str(HERE / "boards")
    starter_board = "long-jump-pit.yaml"
    starter_options = (
        "  max_turns: 40              # then the rest are placed by square\n"
        "  max_jump: 12               # the longest JUMP (2 to 12)\n"
    )

    # --- the rules ---------------------------------------------------------------------

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        players = setup.players
        return Outcome(LongJumpState(1, False, dict.fromkeys(players, 0), dict.fromkeys(players, 0),
                                     dict.fromkeys(players)), ())

    def resolve(self, setup: Setup, state: LongJumpState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        board = next(iter(setup.boards.values()))
        last = board.squares
        squares, faults, placings = dict(state.squares), dict(state.faults), dict(state.placings)
        events: list[Any] = []
        finishers = []
        for player in setup.players:  # in campaign.yaml order
            if placings[player] is not None:
                continue
            order = orders.get(player)
            asked = order.jump if order is not None and order.jump is not None else None
            silent = asked is None
            asked = SHORTEST if asked is None else asked
            dice = (chance.roll(state.turn, player), chance.roll(state.turn, player))
            start = squares[player]
            made = sum(dice) >= asked
            back = False
            if made:
                landed = start + asked
                end = landed if landed >= last else _follow(board, landed)
                faults[player] = 0
            else:
                landed = end = start
                faults[player] += 1
                if faults[player] >= FAULTS_OUT:
                    end, faults[player], back = 0, 0, True
            finished = end >= last
            squares[player] = min(end, last)
            events.append(Jumped(state.turn, player, asked, dice, made, start, landed, squares[player],
                                 faults[player], back, silent, finished))
            if finished:
                finishers.append(player)
        placed = sum(p is not None for p in placings.values())
        for player in finishers:  # finishing in the same turn shares the placing
            placings[player] = placed + 1
            events.append(Placed(state.turn, player, placed + 1, False))
        over = all(p is not None for p in placings.values()) or state.turn >= setup.options.max_turns
        if over:
            _place_by_square(state.turn, squares, placings, events)
        return Outcome(LongJumpState(state.turn + 1, over, squares, faults, placings), tuple(events))

    def end(self, setup: Setup, state: LongJumpState) -> Outcome:  # gm end: as max_turns would have
        turn, placings, events = last_resolved(state), dict(state.placings), []
        _place_by_square(turn, state.squares, placings, events)
        return Outcome(dataclasses.replace(state, over=True, placings=placings), tuple(events))

    def grammar(self, options: Any = None) -> Grammar:
        most = (options or LongJumpOptions()).max_jump
        return Grammar((CommandSpec("JUMP", f"JUMP <{SHORTEST}-{most}>", _read_jump),), context=most)

    def standings(self, setup: Setup, state: LongJumpState) -> Standings:
        board_id, board = next(iter(setup.boards.items()))
        pieces = {p: PieceStanding(state.squares[p], state.squares[p] >= board.squares, state.placings[p])
                  for p in setup.players}
        final = {p: state.placings[p] if state.over else None for p in setup.players}
        return Standings(state.turn, state.over,
                         {board_id: BoardStanding(board_id, board.squares, state.over, pieces)},
                         {p: PlayerStanding(aggregate=final[p], place=final[p]) for p in setup.players})

    def state_json(self, setup: Setup, state: LongJumpState) -> dict[str, Any]:
        return super().state_json(setup, state) | {"faults": dict(state.faults)}

    def state_notes(self, setup: Setup, state: LongJumpState) -> Mapping[str, str]:
        return {p: f"{n} fault{'s' * (n != 1)} in a row" for p, n in state.faults.items() if n}

    # --- what players read -------------------------------------------------------------

    def public_view(self, setup: Setup, before: Any, after: Any, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> LongJumpView:
        base = super().archive_turn(setup, before, after, events, names)
        board = next(iter(setup.boards.values()))
        jumps = []
        for event in events:
            if not isinstance(event, Jumped):
                continue
            via = None
            if event.made and event.landed != event.end and event.landed < board.squares:
                via = "ladder" if event.end > event.landed else "snake"
            jumps.append(JumpLine(event.player, names.get(event.player, event.player), event.asked,
                                  tuple(event.dice), sum(event.dice), event.made, event.start, event.landed,
                                  event.end, via, event.faults, event.back_to_start, event.silent,
                                  event.finished))
        state = after if after is not None else before
        pieces = tuple(PieceLine(p, names.get(p, p), state.squares[p], state.faults[p],
                                 state.squares[p] >= board.squares, state.placings[p])
                       for p in setup.players) if state is not None else ()
        return LongJumpView(campaign, title, base.turns, base.boards, base.standings, base.over, base.next_turn,
                            board.squares, tuple(jumps), pieces)

    def archive_turn(self, setup: Setup, before: Any, after: Any, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        return ArchiveTurn.of(self.public_view(setup, before, after, events, names, "", ""))
