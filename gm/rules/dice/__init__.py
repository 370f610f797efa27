"""What docs/rules/classic.md makes common to the dice rulesets: one public board, an order of play
fixed before turn 1, a turn that is one round of goes, dice drawn as `<player>/<i>`, bouncing back
from N, finishing on N, the end of the campaign (a) (b) (c) with its placings, and RESIGN.

`Dice` is the base class of `classic` and `doubles` (and the template for `advanced`): a
subclass says how the order of play is found (`seat`) and what one go is (`go`), using
`throw`, `move` and the `Race` a turn is resolved on. Its mail and archive words are the
templates under templates/mail/dice/ and templates/archive/dice/, found through the class's
`name`s (gm.publish.archive.template_rulesets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from ...errors import RulesError
from ...resources import shipped_file
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
from ..commands import Grammar
from ..problem import Problem
from ..resign import resign_problems
from ..standings import BoardStanding, PieceStanding, PlayerStanding, Standings
from . import views
from .events import CampaignOver, OpeningThrow, OrderOfPlay, Placed, Resigned, Thrown, log_json
from .options import DIE, DiceOptions
from .orders import dice_grammar
from .race import Race
from .state import DiceOrder, DicePiece, DiceState

__all__ = ["Dice"]


# -- the ruleset ------------------------------------------------------------------------


class Dice(Ruleset):
    """docs/rules/classic.md, common to classic and doubles; not a ruleset a campaign names."""

    name = "dice"
    # its files, named as a plugin names its own (gm.rules.files, docs/plugins.md)
    templates = shipped_file("templates")
    boards_folder = shipped_file("boards")
    options_type: ClassVar[type] = DiceOptions
    state_type = DiceState
    order_type = DiceOrder
    event_types = (OpeningThrow, OrderOfPlay, Resigned, Thrown, Placed, CampaignOver)
    one_board = True
    hidden_boards = False
    # nobody must write (docs/rules/classic.md, Commands): a turn waits for its deadline
    resolves_early = False
    silence_is_order = True  # silence keeps a player in the race: nothing to resign
    dice_per_throw: ClassVar[int] = 1

    # -- what a subclass says ---------------------------------------------------------

    def seat(self, setup: Setup, chance: Chance) -> tuple[tuple[str, ...], tuple[OpeningThrow, ...]]:
        """The order of play, and the turn-0 throws that found it (docs/rules/<ruleset>.md)."""
        return tuple(setup.players), ()

    def go(self, setup: Setup, race: Race, player: str, chance: Chance) -> None:
        """One go of `player`: every throw it makes, recorded on `race` (race.record)."""
        raise NotImplementedError

    def throw(self, chance: Chance, turn: int, player: str) -> tuple[int, ...]:
        """One throw: `dice_per_throw` dice, first die first (docs/rules/classic.md)."""
        return tuple(chance.roll(turn, player, DIE) for _ in range(self.dice_per_throw))

    # -- options, start, resolve ------------------------------------------------------

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        if len(setup.boards) != 1:
            raise RulesError(f"the {self.name} ruleset plays exactly one board")
        order, throws = self.seat(setup, chance)
        listing = {p: i for i, p in enumerate(setup.players)}
        opening = tuple(sorted(throws, key=lambda t: (t.index, listing[t.player])))
        state = DiceState(1, False, order, {p: DicePiece() for p in setup.players}, opening=opening)
        return Outcome(state, (*throws, OrderOfPlay(order)), tuple(chance.draws))

    def resolve(self, setup: Setup, state: DiceState, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        """One turn, one round (docs/rules/classic.md): resignations first, then each player in play
        has one go in order of play, until the campaign ends."""
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

    # -- orders (docs/rules/classic.md, Commands) ---------------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        return dice_grammar()

    def order_problems(self, setup: Setup, state: DiceState, player: str, order: DiceOrder) -> list[Problem]:
        """RESIGN from a player no longer in play is refused (RESIGN NONE never is): the
        default merge refuses it on its line."""
        return resign_problems(order, state.in_play(player))

    def order_view(self, setup: Setup, state: DiceState, player: str, order: DiceOrder) -> dict[str, Any]:
        piece = state.pieces[player]
        return {"resign": order.resign, "in_play": state.in_play(player), "square": piece.square}

    def order_text(self, order: DiceOrder) -> str:
        return "RESIGN" if order.resign else "-"

    def in_play(self, setup: Setup, state: DiceState, player: str) -> bool:
        return state.in_play(player)

    def must_order(self, setup: Setup, state: DiceState, player: str) -> bool:
        # nobody must write: the turn waits only for its deadline (docs/rules/classic.md, Commands)
        return False

    def order_complete(self, setup: Setup, state: DiceState, player: str, order: DiceOrder) -> bool:
        return True

    # -- standings, and gm state --json (CONTRACT: the dice rulesets) ----------------

    def standings(self, setup: Setup, state: DiceState) -> Standings:
        """The one board, closed once the campaign is over; each placing counts as the
        player's aggregate and place once it is."""
        board_id, board = next(iter(setup.boards.items()))
        pieces = {p: PieceStanding(pc.square, pc.finished, pc.placing) for p, pc in state.pieces.items()}
        return Standings(state.turn, state.over, {board_id: BoardStanding(board_id, board.squares, state.over, pieces)},
                         {p: PlayerStanding(pc.placing if state.over else None, pc.placing if state.over else None,
                                            pc.resigned) for p, pc in state.pieces.items()})

    # CONTRACT's dice keys (order of play, opening throws, the last turn's log) beside the standings'
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

    def rename_player(self, state: DiceState, old: str, new: str) -> DiceState:
        # the log and the opening throws are history: who held the seat then
        return replace(state, order=renamed_in(state.order, old, new), pieces=renamed(state.pieces, old, new),
                       winner=new if state.winner == old else state.winner)

    # -- what everyone sees (docs/rules/classic.md, What players see): views.py,
    # templates/{mail,archive}/dice/ ----

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        """The public facts the dice templates word the rules from."""
        board = next(iter(setup.boards.values()))
        return {"ruleset": self.name, "dice": self.dice_per_throw, "squares": board.squares,
                "snakes": board.snakes, "ladders": board.ladders,
                "options": setup.options, "players": len(setup.players),
                "enter_on_one": getattr(setup.options, "enter_on_one", False),
                "finishers": setup.options.finishers_needed(len(setup.players))}

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        return views.opening_view(setup, events, names)

    def public_view(self, setup: Setup, before: DiceState, after: DiceState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        return views.public_turn(self, setup, before, after, events, names, campaign, title)

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


