"""Advanced Snakes & Ladders (docs/rules/advanced.md): teams, a die of each player's own, and snakes
and ladders built during play.

Turn 0 gives every player a die (a d6 throw: 1-3 a d6, 4-5 a d8, 6 a d12) and the order
of play (throws of that die, lowest first, ties thrown again within their position).
Each turn every player not in End has one go, in that order: a MOVE, or a BUILD of a
snake or a ladder from their square down to a lower one. A team wins the moment its
last member reaches End; the other teams are placed by their laggard.

The package: `options`, `state`, `events`, `teams`, `building` (dice and building),
`orders` (the order commands), `turn` (turn 0, a turn, the end), `views` and `drawing`
(what players see) and `robot` (the demo's players). This module ties them to gm's
ruleset interface, as docs/plugins.md tells a plugin to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...resources import shipped_file
from ..base import (
    ArchivePicture,
    ArchiveStanding,
    ArchiveTurn,
    Outcome,
    Ruleset,
    Setup,
    renamed,
    renamed_in,
)
from ..chance import Chance
from ..commands import Command, Grammar
from ..dice.events import OpeningThrow, OrderOfPlay
from ..problem import Problem
from ..standings import BoardStanding, PieceStanding, PlayerStanding, Standings
from . import turn, views
from .building import items, least_successful_face
from .events import BuildTried, CampaignOver, Moved, TeamPlaced, log_entry
from .opening import opening_view
from .options import AdvancedOptions
from .orders import advanced_grammar, merge, order_problems
from .state import AdvancedOrder, AdvancedState
from .teams import team_of, team_problems, teams_of

__all__ = ["Advanced"]


class Advanced(Ruleset):
    name = "advanced"
    # its files, named as a plugin names its own (gm.rules.files, docs/plugins.md)
    templates = shipped_file("templates")
    rules_page = shipped_file("docs", "rules", "advanced.md")
    boards_folder = shipped_file("boards")
    starter_board = "advanced.yaml"  # the seed's own board (docs/rules/advanced.md, The board)
    options_type = AdvancedOptions
    state_type = AdvancedState
    order_type = AdvancedOrder
    event_types = (OpeningThrow, OrderOfPlay, Moved, BuildTried, TeamPlaced, CampaignOver)
    player_keys = ("team",)
    placed_keys = ("team",)  # a team is placed by its laggard: the GM places who joins by mail
    one_board = True
    hidden_boards = False
    silence_is_order = True  # no order means MOVE (docs/rules/advanced.md, Commands)
    weak_seed_refused = True
    starter_options = "  max_turns: 200\n"

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """A team id names no player outside the team (docs/rules/advanced.md, Teams)."""
        return team_problems(players)

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """Each player's die, then the order of play (docs/rules/advanced.md, Setup: dice and order
        of play)."""
        return turn.start(setup, chance)

    def resolve(self, setup: Setup, state: AdvancedState, orders: Mapping[str, AdvancedOrder],
                chance: Chance) -> Outcome:
        return turn.resolve(setup, state, orders, chance)

    def end(self, setup: Setup, state: AdvancedState) -> Outcome:
        """No winner, every team placed by its laggard (docs/rules/advanced.md, The end and
        placings)."""
        return turn.end(setup, state)

    def standings(self, setup: Setup, state: AdvancedState) -> Standings:
        """The one board, closed once the campaign is over; each player's team placing
        counts as their aggregate and place once it is."""
        board_id, board = next(iter(setup.boards.items()))
        final = state.placings if state.over else {}
        pieces = {p: PieceStanding(state.squares[p], state.ended[p], state.placings.get(p)) for p in setup.players}
        return Standings(state.turn, state.over, {board_id: BoardStanding(board_id, board.squares, state.over, pieces)},
                         {p: PlayerStanding(final.get(p), final.get(p)) for p in setup.players})

    # -- orders (orders.py) ---------------------------------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        return advanced_grammar()

    # one action a turn: a second action in a message is refused on its line
    def merge(self, setup: Setup, state: AdvancedState, player: str, standing: AdvancedOrder,
              commands: Iterable[Command]) -> tuple[AdvancedOrder, list[Problem]]:
        return merge(standing, commands)

    def order_problems(self, setup: Setup, state: AdvancedState, player: str,
                       order: AdvancedOrder) -> list[Problem]:
        return order_problems(setup, state, player, order)

    def order_view(self, setup: Setup, state: AdvancedState, player: str, order: AdvancedOrder) -> dict[str, Any]:
        """The action standing, with what the player needs to judge a build: square, die,
        construction number, least successful face and the farthest reach."""
        die = state.dice[player]
        construction = state.builds[player] + 1
        return {
            "action": order.action,
            "item": order.item,
            "target": order.target,
            "square": state.squares[player],
            "in_end": state.ended[player],
            "die": die,
            "construction": construction,
            "needed": least_successful_face(die, construction),
            "most_steps": die // 2,
            "complete": order.action is not None,
        }

    def order_text(self, order: AdvancedOrder) -> str:
        return str(order) if order.action else "-"

    def in_play(self, setup: Setup, state: AdvancedState, player: str) -> bool:
        return state.in_play(player)

    def must_order(self, setup: Setup, state: AdvancedState, player: str) -> bool:
        """Players in play who sent nothing are NMR: reminded, and moved (MOVE)."""
        return state.in_play(player)

    def order_complete(self, setup: Setup, state: AdvancedState, player: str, order: AdvancedOrder) -> bool:
        return order.action is not None

    # -- gm state --json: CONTRACT.md's dice keys, teams and builds beside the standings'

    def state_json(self, setup: Setup, state: AdvancedState) -> dict[str, Any]:
        board_id, board = next(iter(setup.boards.items()))
        snakes, ladders = items(board, state.built)
        teams = teams_of(setup)
        seats = {p: i for i, p in enumerate(state.order, 1)}
        placing = state.placings
        return {
            "turn": state.turn,
            "over": state.over,
            "order": list(state.order),
            "winner": state.winner,
            "teams": {
                team: {"members": list(members), "finished": all(state.ended[m] for m in members),
                       "placing": placing.get(members[0])}
                for team, members in teams.items()
            },
            "boards": {board_id: {
                "squares": board.squares,
                "closed": state.over,
                "trapdoor": None,
                "snakes": [list(s) for s in snakes],
                "ladders": [list(ladder) for ladder in ladders],
                "built": [
                    {"kind": b.item, "from": b.travel()[0], "to": b.travel()[1], "by": b.by, "turn": b.turn}
                    for b in state.built
                ],
                "players": {
                    p: {"square": state.squares[p], "finished": state.ended[p], "placing": placing.get(p)}
                    for p in setup.players
                },
            }},
            "players": {
                p: {
                    "numbers_left": None,
                    "aggregate": placing.get(p) if state.over else None,
                    "place": placing.get(p) if state.over else None,
                    "seat": seats[p],
                    "die": state.dice[p],
                    "team": team_of(setup, p),
                    "builds": state.builds[p],
                    "resigned": False,
                }
                for p in setup.players
            },
            "opening": [
                {"player": t.player, "purpose": t.purpose, "key": t.key, "roll": t.roll} for t in state.opening
            ],
            "log": [log_entry(go) for go in state.log],
        }

    def rename_player(self, state: AdvancedState, old: str, new: str) -> AdvancedState:
        # the log, the opening throws and who built what are history: who held the seat then
        return dataclasses.replace(
            state, order=renamed_in(state.order, old, new), dice=renamed(state.dice, old, new),
            squares=renamed(state.squares, old, new), ended=renamed(state.ended, old, new),
            builds=renamed(state.builds, old, new), placings=renamed(state.placings, old, new),
            winner=new if state.winner == old else state.winner)

    # -- views (views.py, templates/mail/advanced/, templates/archive/advanced/) --------

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        return opening_view(setup, events, names)

    def public_view(self, setup: Setup, before: AdvancedState, after: AdvancedState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        return views.public_turn(setup, before, after, events, names, campaign, title)

    def player_view(self, setup: Setup, player: str, name: str, state: AdvancedState,
                    events: Sequence[Any], order: AdvancedOrder | None) -> Any:
        return views.own_facts(setup, player, name, state, events, order)

    def archive_turn(self, setup: Setup, before: AdvancedState, after: AdvancedState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        view = self.public_view(setup, before, after, events, names, "", "")
        return ArchiveTurn.of(view)

    def archive_standings(self, setup: Setup, state: AdvancedState,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        return views.standings(setup, state, names)

    def archive_boards(self, setup: Setup, state: AdvancedState,
                       history: Sequence[tuple[Any, Any]]) -> tuple[ArchivePicture, ...]:
        return views.board_pictures(setup, state, history)

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        board = turn.board_of(setup)
        return {"squares": board.squares, "max_turns": setup.options.max_turns,
                "teams": {t: list(m) for t, m in teams_of(setup).items()}}
