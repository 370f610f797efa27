"""What RULES.md 4.1 makes common to the dice rulesets: one public board, an order of play
fixed before turn 1, a turn that is one round of goes, dice drawn as `<player>/<i>`,
bouncing back from N, finishing on N, the end of the campaign (a) (b) (c) with its
placings, and RESIGN.

`Dice` is the base class of `classic` and `doubles` (and the template for `advanced`): a
subclass says how the order of play is found (`seat`) and what one go is (`go`), using
`throw`, `move` and the `Race` a turn is resolved on. Its mail and archive words are the
templates under templates/mail/dice/ and templates/archive/dice/, found through the class's
`name`s (gm.publish.archive.template_rulesets).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from ...errors import ProblemsError, RulesError
from ...yamlfile import is_int
from ..base import (
    ArchivePiece,
    ArchiveTurn,
    Outcome,
    Ruleset,
    Setup,
    last_resolved,
    renamed,
    renamed_in,
)
from ..chance import Chance
from ..events import event_reader
from ..grammar import Command, Grammar
from ..moving import Finish, Step, aim, landing
from ..problem import Problem, problem
from ..ranking import competition_places

__all__ = [
    "DIE",
    "CampaignOver",
    "Dice",
    "DiceOptions",
    "DiceOrder",
    "DicePiece",
    "DiceState",
    "OpeningThrow",
    "OrderOfPlay",
    "Placed",
    "Race",
    "Resigned",
    "Thrown",
    "event_from_json",
    "parse_dice_options",
]

DIE = 6  # classic and doubles throw d6 (RULES.md 4.2, 4.3)
START = 0

# -- options ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceOptions:
    """RULES.md 4.1 options with their defaults (CONTRACT's campaign.yaml)."""

    close_after: int | Literal["all"] = 1
    max_turns: int = 200

    def finishers_needed(self, players: int) -> int:
        """End (a): how many finishers end the campaign; `all` and a number above the
        number of players count as the number of players."""
        return players if self.close_after == "all" else min(self.close_after, players)  # type: ignore[type-var]


OPTION_CHECKS: dict[str, tuple[Any, str]] = {
    "close_after": (lambda v: v == "all" or (is_int(v) and v >= 1), "a whole number of at least 1, or all"),
    "max_turns": (lambda v: is_int(v) and v >= 1, "a whole number of at least 1"),
    "enter_on_one": (lambda v: isinstance(v, bool), "true or false"),
}


def parse_dice_options(raw: Mapping[str, Any], cls: type = DiceOptions) -> Any:
    """`cls` (a dataclass of options) from campaign.yaml's options; raises ProblemsError
    naming every bad value with its line. Keys that are not `cls`'s fields are left to
    the campaign layer, which refuses them as unknown (Ruleset.option_keys)."""
    line_of = getattr(raw, "line_of", lambda key: 0)
    fields = cls.__dataclass_fields__
    values, problems = {}, []
    for key, value in raw.items():
        if key not in fields:
            continue
        valid, expected = OPTION_CHECKS[key]
        if valid(value):
            values[key] = value
        else:
            problems.append(f"line {line_of(key)}: option {key} must be {expected}, not {value!r}")
    if problems:
        raise ProblemsError("options", problems)
    return cls(**values)


# -- events -----------------------------------------------------------------------------


@dataclass(frozen=True)
class OpeningThrow:
    """A turn-0 throw (RULES.md 4.1): `key` is its dice key, `purpose` `order` (the order
    of play) or `die` (advanced's die size)."""

    player: str
    purpose: str
    key: str
    roll: int
    kind: str = "opening_throw"

    @property
    def index(self) -> int:
        return int(self.key.rpartition("/")[2])


@dataclass(frozen=True)
class OrderOfPlay:
    order: tuple[str, ...]
    kind: str = "order_of_play"


@dataclass(frozen=True)
class Resigned:
    turn: int
    player: str
    square: int
    kind: str = "resign"


@dataclass(frozen=True)
class Thrown:
    """One throw of a go: its faces, where the piece stood, the square the throw reached
    (after any bounce, `via` roll) and each snake or ladder taken, where it ended, whether
    it finished, whether it earns another throw, and why it was not moved (`skip`:
    `needs-one`, `third-double-six`)."""

    turn: int
    player: str
    dice: tuple[int, ...]
    start: int
    steps: tuple[Step, ...]
    end: int
    bounced: bool = False
    finished: bool = False
    again: bool = False
    skip: str | None = None
    kind: str = "throw"


@dataclass(frozen=True)
class Placed:
    """A placing: on finishing (`how` `finished`), or when the campaign ends (`square` for
    a player still in play, `resigned` for one who resigned)."""

    turn: int
    player: str
    placing: int
    how: str
    kind: str = "placed"


@dataclass(frozen=True)
class CampaignOver:
    """End (RULES.md 4.1): `reason` `close_after` (a), `in_play` (b) or `max_turns` (c)."""

    turn: int
    reason: str
    winner: str | None
    kind: str = "campaign_over"


# an event as stored (`dataclasses.asdict`), read back
event_from_json = event_reader(OpeningThrow, OrderOfPlay, Resigned, Thrown, Placed, CampaignOver)


# -- state and orders -------------------------------------------------------------------


@dataclass(frozen=True)
class DicePiece:
    """A player's piece: `square` 0 is Start; a finisher stays on N."""

    square: int = START
    finished: bool = False
    placing: int | None = None
    resigned: bool = False


@dataclass(frozen=True)
class DiceState:
    """Between turns. `turn` is the next turn to resolve; `opening` every turn-0 throw
    (sorted by die index, then listing order); `log` the last resolved turn's resignations
    and throws, in play order (CONTRACT's `gm state --json`)."""

    turn: int
    over: bool
    order: tuple[str, ...]
    pieces: Mapping[str, DicePiece]
    winner: str | None = None
    opening: tuple[OpeningThrow, ...] = ()
    log: tuple[Any, ...] = ()

    def in_play(self, player: str) -> bool:
        piece = self.pieces[player]
        return not self.over and not piece.finished and not piece.resigned


@dataclass(frozen=True)
class DiceOrder:
    """What a player sent for a turn: whether they resign (RULES.md 4.5)."""

    resign: bool = False


# -- a turn being resolved --------------------------------------------------------------


class Race:
    """The pieces while one turn is resolved (mutable, private to `resolve`): moves,
    finishes, resignations and the end of the campaign, recording every event."""

    def __init__(self, setup: Setup, state: DiceState, turn: int):
        self.setup = setup
        self.board = next(iter(setup.boards.values()))
        self.turn = turn
        self.square = {p: piece.square for p, piece in state.pieces.items()}
        self.finished = {p: piece.finished for p, piece in state.pieces.items()}
        self.placing = {p: piece.placing for p, piece in state.pieces.items()}
        self.resigned = {p: piece.resigned for p, piece in state.pieces.items()}
        self.winner = state.winner
        self.over = False
        self.events: list[Any] = []
        self.log: list[Any] = []

    def in_play(self, player: str) -> bool:
        return not self.finished[player] and not self.resigned[player]

    def players_in_play(self) -> list[str]:
        return [p for p in self.setup.players if self.in_play(p)]

    def resign(self, player: str) -> None:
        self.resigned[player] = True
        event = Resigned(self.turn, player, self.square[player])
        self.events.append(event)
        self.log.append(event)

    def move(self, player: str, dice: tuple[int, ...], *, finish: Finish = Finish.BOUNCE) -> Thrown:
        """RULES.md 4.1 Moving and Finishing: the throw's sum from the piece's square,
        bounced back from N (and off Start on a short board), then its snakes and ladders;
        a move that ends on N finishes and is placed next. `again` is the go's to set."""
        start = self.square[player]
        target = aim(finish, start, sum(dice), self.board.squares)
        end, effects = landing(target.square, self.board.jumps)
        self.square[player] = end
        finished = end == self.board.squares
        throw = Thrown(self.turn, player, dice, start, (Step(target.square, "roll"), *effects), end,
                       bounced=target.bounced, finished=finished)
        if finished:
            self.finished[player] = True
            self.placing[player] = sum(1 for p in self.finished if self.finished[p])
            self.winner = self.winner or player
        return throw

    def not_moved(self, player: str, dice: tuple[int, ...], skip: str) -> Thrown:
        square = self.square[player]
        return Thrown(self.turn, player, dice, square, (), square, skip=skip)

    def record(self, throw: Thrown) -> None:
        self.events.append(throw)
        self.log.append(throw)
        if throw.finished:
            self.events.append(Placed(self.turn, throw.player, self.placing[throw.player], "finished"))

    def check_end(self, options: DiceOptions, *, last_of_turn: bool = False) -> bool:
        """End (RULES.md 4.1): (a) enough finishers, (b) nobody or only one in play (with
        more than one player), (c) `max_turns` played (asked only at the end of the round)."""
        if self.over:
            return True
        players = len(self.setup.players)
        in_play = len(self.players_in_play())
        if sum(self.finished.values()) >= options.finishers_needed(players):
            reason = "close_after"
        elif in_play == 0 or (in_play == 1 and players > 1):
            reason = "in_play"
        elif last_of_turn and self.turn >= options.max_turns:
            reason = "max_turns"
        else:
            return False
        self.end(reason)
        return True

    def end(self, reason: str) -> None:
        """Place everyone not yet placed after the finishers: those still in play by
        square, then those who resigned, further first, competition ranking throughout."""
        placed = sum(1 for p in self.setup.players if self.placing[p] is not None)
        for how, group in (("square", False), ("resigned", True)):
            waiting = {p: -self.square[p] for p in self.setup.players
                       if self.placing[p] is None and self.resigned[p] == group}
            for player, place in competition_places(waiting, start=placed + 1).items():
                self.placing[player] = place
                self.events.append(Placed(self.turn, player, place, how))
            placed += len(waiting)
        self.over = True
        self.events.append(CampaignOver(self.turn, reason, self.winner))

    def state(self, before: DiceState) -> DiceState:
        return DiceState(
            turn=self.turn + 1,
            over=self.over,
            order=before.order,
            pieces={p: DicePiece(self.square[p], self.finished[p], self.placing[p], self.resigned[p])
                    for p in self.setup.players},
            winner=self.winner,
            opening=before.opening,
            log=tuple(self.log),
        )


# -- the ruleset ------------------------------------------------------------------------


class Dice(Ruleset):
    """RULES.md 4.1, common to classic and doubles; not a ruleset a campaign names."""

    name = "dice"
    options_type: ClassVar[type] = DiceOptions
    option_keys: ClassVar[tuple[str, ...]] = tuple(DiceOptions.__dataclass_fields__)
    one_board = True
    hidden_boards = False
    resolves_early = False  # nobody must write (RULES.md 4.5): a turn waits for its deadline
    dice_per_throw: ClassVar[int] = 1

    # -- what a subclass says ---------------------------------------------------------

    def seat(self, setup: Setup, chance: Chance) -> tuple[tuple[str, ...], tuple[OpeningThrow, ...]]:
        """The order of play, and the turn-0 throws that found it (RULES.md 4.2-4.4)."""
        return tuple(setup.players), ()

    def go(self, setup: Setup, race: Race, player: str, chance: Chance) -> None:
        """One go of `player`: every throw it makes, recorded on `race` (race.record)."""
        raise NotImplementedError

    def throw(self, chance: Chance, turn: int, player: str) -> tuple[int, ...]:
        """One throw: `dice_per_throw` dice, first die first (RULES.md 4.1)."""
        return tuple(chance.roll(turn, player, DIE) for _ in range(self.dice_per_throw))

    # -- options, start, resolve ------------------------------------------------------

    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        return parse_dice_options(raw, self.options_type)

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        if len(setup.boards) != 1:
            raise RulesError(f"the {self.name} ruleset plays exactly one board")
        order, throws = self.seat(setup, chance)
        listing = {p: i for i, p in enumerate(setup.players)}
        opening = tuple(sorted(throws, key=lambda t: (t.index, listing[t.player])))
        state = DiceState(1, False, order, {p: DicePiece() for p in setup.players}, opening=opening)
        return Outcome(state, (*throws, OrderOfPlay(order)), tuple(chance.draws))

    def resolve(self, setup: Setup, state: DiceState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        """One turn, one round (RULES.md 4.1): resignations first, then each player in
        play has one go in order of play, until the campaign ends."""
        if state.over:
            raise RulesError("the campaign is over; there is no turn to resolve")
        for player in orders:
            if player not in state.pieces:
                raise RulesError(f"an order from {player}, who is not a player")
        race = Race(setup, state, state.turn)
        for player in state.order:
            order = orders.get(player)
            if order is not None and order.resign and race.in_play(player):
                race.resign(player)
        if not race.check_end(setup.options):
            for player in state.order:
                if race.in_play(player):
                    self.go(setup, race, player, chance)
                    if race.check_end(setup.options):
                        break
            race.check_end(setup.options, last_of_turn=True)
        return Outcome(race.state(state), tuple(race.events), tuple(chance.draws))

    def end(self, setup: Setup, state: DiceState) -> Outcome:
        """End (c) at the GM's word (`gm end`): the campaign ends after the last resolved
        turn as if it were turn `max_turns`, those not yet placed placed by Race.end. The
        state keeps that turn's log, as resolve's last turn would."""
        race = Race(setup, state, last_resolved(state))
        race.end("max_turns")
        return Outcome(replace(race.state(state), log=state.log), tuple(race.events))

    # -- orders (RULES.md 4.5) ----------------------------------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        from .orders import dice_grammar

        return dice_grammar()

    def merge(self, setup: Setup, state: DiceState, player: str, standing: DiceOrder,
              commands: Iterable[Command]) -> tuple[DiceOrder, list[Problem]]:
        """RESIGN sets the standing resignation, RESIGN NONE withdraws it (accepted when
        there is nothing to withdraw); a RESIGN from a player no longer in play is refused."""
        order, problems = standing, []
        for command in commands:
            if command.keyword != "RESIGN":
                continue
            if command.value and not state.in_play(player):
                problems.append(problem("resign_not_in_play", line=command.line))
                continue
            order = DiceOrder(resign=command.value)
        return order, problems

    def order_problems(self, setup: Setup, state: DiceState, player: str, order: DiceOrder) -> list[Problem]:
        if order.resign and not state.in_play(player):
            return [problem("resign_not_in_play")]
        return []

    def order_view(self, setup: Setup, state: DiceState, player: str, order: DiceOrder) -> dict[str, Any]:
        piece = state.pieces[player]
        return {"resign": order.resign, "in_play": state.in_play(player), "square": piece.square}

    def order_text(self, order: DiceOrder) -> str:
        return "RESIGN" if order.resign else "-"

    def empty_order(self) -> DiceOrder:
        return DiceOrder()

    def order_to_json(self, order: DiceOrder) -> dict[str, Any]:
        return {"resign": order.resign}

    def order_from_json(self, data: Mapping[str, Any]) -> DiceOrder:
        return DiceOrder(bool(data.get("resign", False)))

    def in_play(self, setup: Setup, state: DiceState, player: str) -> bool:
        return state.in_play(player)

    def must_order(self, setup: Setup, state: DiceState, player: str) -> bool:
        return False  # nobody must write: the turn waits only for its deadline (RULES.md 4.5)

    def order_complete(self, setup: Setup, state: DiceState, player: str, order: DiceOrder) -> bool:
        return True

    # -- gm state --json (CONTRACT: the dice rulesets) ----------------------------------

    def state_json(self, setup: Setup, state: DiceState) -> dict[str, Any]:
        board_id, board = next(iter(setup.boards.items()))
        seats = {p: i + 1 for i, p in enumerate(state.order)}
        final = {p: piece.placing if state.over else None for p, piece in state.pieces.items()}
        return {
            "turn": state.turn,
            "over": state.over,
            "order": list(state.order),
            "winner": state.winner,
            "teams": None,
            "boards": {board_id: {
                "squares": board.squares,
                "closed": state.over,
                "trapdoor": None,
                "snakes": [list(s) for s in board.snakes],
                "ladders": [list(ladder) for ladder in board.ladders],
                "built": [],
                "players": {p: {"square": pc.square, "finished": pc.finished, "placing": pc.placing}
                            for p, pc in state.pieces.items()},
            }},
            "players": {p: {"numbers_left": None, "aggregate": final[p], "place": final[p],
                            "seat": seats[p], "die": DIE, "team": None, "builds": None,
                            "resigned": pc.resigned}
                        for p, pc in state.pieces.items()},
            "opening": [{"player": t.player, "purpose": t.purpose, "key": t.key, "roll": t.roll}
                        for t in state.opening],
            "log": [log_json(e) for e in state.log],
        }

    def dump_state(self, state: DiceState) -> dict[str, Any]:
        from dataclasses import asdict

        return {
            "turn": state.turn,
            "over": state.over,
            "order": list(state.order),
            "pieces": {p: [pc.square, pc.finished, pc.placing, pc.resigned] for p, pc in state.pieces.items()},
            "winner": state.winner,
            "opening": [asdict(t) for t in state.opening],
            "log": [asdict(e) for e in state.log],
        }

    def rename_player(self, state: DiceState, old: str, new: str) -> DiceState:
        # the log and the opening throws are history: who held the seat then
        return replace(state, order=renamed_in(state.order, old, new), pieces=renamed(state.pieces, old, new),
                       winner=new if state.winner == old else state.winner)

    def load_state(self, data: Mapping[str, Any]) -> DiceState:
        return DiceState(
            turn=data["turn"],
            over=data["over"],
            order=tuple(data["order"]),
            pieces={p: DicePiece(*pc) for p, pc in data["pieces"].items()},
            winner=data["winner"],
            opening=tuple(event_from_json(t) for t in data["opening"]),
            log=tuple(event_from_json(e) for e in data["log"]),
        )

    # -- what everyone sees (RULES.md 4.6): views.py, templates/{mail,archive}/dice/ ----

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        return event_from_json(data)

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        """The public facts the dice templates word the rules from."""
        board = next(iter(setup.boards.values()))
        return {"ruleset": self.name, "dice": self.dice_per_throw, "squares": board.squares,
                "snakes": board.snakes, "ladders": board.ladders,
                "options": setup.options, "players": len(setup.players),
                "enter_on_one": getattr(setup.options, "enter_on_one", False),
                "finishers": setup.options.finishers_needed(len(setup.players))}

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        from .views import opening_view

        return opening_view(setup, events, names)

    def public_view(self, setup: Setup, before: DiceState, after: DiceState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        from .views import public_turn

        return public_turn(self, setup, before, after, events, names, campaign, title)

    def archive_turn(self, setup: Setup, before: DiceState, after: DiceState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        """The generic turn (each piece's start, end and placing) with the throw-by-throw
        view for templates/archive/dice/, each piece's own throws on its line."""
        turn = super().archive_turn(setup, before, after, events, names)
        view = self.public_view(setup, before, after, events, names, campaign="", title="")
        goes = {go.player: go for go in view.goes}
        boards = tuple(
            replace(b, pieces=tuple(
                ArchivePiece(p.player, p.name, p.start, p.end, p.finished, p.finished_now, p.placing,
                             goes.get(p.player))
                for p in b.pieces))
            for b in turn.boards
        )
        return replace(turn, boards=boards, view=view)


def log_json(event: Any) -> dict[str, Any]:
    """An entry of `gm state --json`'s `log` (CONTRACT)."""
    if isinstance(event, Resigned):
        return {"player": event.player, "action": "resign"}
    return {
        "player": event.player, "action": "move", "dice": list(event.dice), "from": event.start,
        "steps": [{"square": s.square, "via": s.via} for s in event.steps], "to": event.end,
        "bounced": event.bounced, "finished": event.finished, "again": event.again,
        "skip": event.skip, "nmr": False,
    }
