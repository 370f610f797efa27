"""An advanced campaign played (docs/rules/advanced.md): turn 0's dice and order of play, a turn of
goes (MOVE or BUILD, each one throw of the player's own die), and the end, a team placed by its
laggard."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...boards.board import START, Board
from ...boards.moving import Step, landing
from ...errors import RulesError
from ..chance import Chance
from ..dice.events import OpeningThrow, OrderOfPlay
from ..roles.core import Outcome, Setup, last_resolved
from .building import build_reason, die_for, jumps, least_successful_face
from .events import BuildTried, Built, CampaignOver, Moved, TeamPlaced
from .state import AdvancedOrder, AdvancedState
from .teams import place_teams, team_of, teams_of

__all__ = ["board_of", "end", "resolve", "start"]


def start(setup: Setup, chance: Chance) -> Outcome:
    """Each player's die, then the order of play (docs/rules/advanced.md, Setup: dice and order of
    play): all throws on turn 0, keys counting on per player."""
    players = setup.players
    throws: list[OpeningThrow] = []
    dice = {}
    for player in players:
        roll = chance.roll(0, player, 6)
        dice[player] = die_for(roll)
        throws.append(OpeningThrow(player, "die", _key(chance), roll))
    # groups of players sharing a position, lowest first; every group of two or more
    # throws again (the first round is everyone's), until every group is one player
    groups: list[list[str]] = [list(players)]
    first = True
    while first or any(len(g) > 1 for g in groups):
        throwers = {p for g in groups if len(g) > 1 or first for p in g}
        rolled = {}
        for player in players:  # listing order, so the draws follow the opening's order
            if player in throwers:
                rolled[player] = chance.roll(0, player, dice[player])
                throws.append(OpeningThrow(player, "order", _key(chance), rolled[player]))
        regrouped = []
        for group in groups:
            if len(group) == 1 and not first:
                regrouped.append(group)
                continue
            for value in sorted({rolled[p] for p in group}):
                regrouped.append([p for p in group if rolled[p] == value])
        groups, first = regrouped, False
    order = tuple(g[0] for g in groups)
    events = (*throws, OrderOfPlay(order))
    state = AdvancedState(
        turn=1, over=False, order=order, dice=dice,
        squares={p: START for p in players}, ended={p: False for p in players},
        builds={p: 0 for p in players}, placings={p: None for p in players},
        opening=tuple(sorted(throws, key=lambda t: (t.index, players.index(t.player)))),
    )
    return Outcome(state, events, tuple(chance.draws))


def resolve(setup: Setup, state: AdvancedState, orders: Mapping[str, AdvancedOrder],
            chance: Chance) -> Outcome:
    """One round (docs/rules/advanced.md): each player not in End, in order of play, has a go of one
    throw of their die; the campaign ends the moment a team is all in End."""
    if state.over:
        raise RulesError("the campaign is over; there is no turn to resolve")
    for player in orders:
        if player not in state.squares:
            raise RulesError(f"an order from {player}, who is not a player")
    board = board_of(setup)
    turn = state.turn
    squares, ended, builds = dict(state.squares), dict(state.ended), dict(state.builds)
    built = list(state.built)
    teams = teams_of(setup)
    log: list[Any] = []
    events: list[Any] = []
    winner = None
    for player in state.order:
        if ended[player]:
            continue
        order = orders.get(player) or AdvancedOrder()
        die = state.dice[player]
        roll = chance.roll(turn, player, die)
        start = squares[player]
        if order.action == "build":
            construction = builds[player] + 1
            reason = build_reason(board, built, die, construction, start, order.target, roll)  # type: ignore[arg-type]
            if reason is None:
                built.append(Built(order.item, start, order.target, player, turn))  # type: ignore[arg-type]
                builds[player] = construction
            go: Any = BuildTried(turn, player, die, roll, order.item, start, order.target,  # type: ignore[arg-type]
                                 construction, least_successful_face(die, construction), reason is None,
                                 reason)
        elif start + roll > board.squares:
            # docs/rules/advanced.md: past N is End, no bounce; landing on N is not enough
            ended[player] = True
            go = Moved(turn, player, die, roll, start, (), start, True, order.action is None)
        else:
            end, effects = landing(start + roll, jumps(board, built))
            squares[player] = end
            go = Moved(turn, player, die, roll, start, (Step(start + roll, "roll"), *effects), end, False,
                       order.action is None)
        log.append(go)
        events.append(go)
        if isinstance(go, Moved) and go.finished:
            team = team_of(setup, player)
            if all(ended[m] for m in teams[team]):
                winner = team
                break
    over = winner is not None or turn >= setup.options.max_turns
    placings: dict[str, int | None] = {p: None for p in setup.players}
    if over:
        placings = _finish(setup, turn, squares, ended, winner, events)
    new_state = AdvancedState(
        turn=turn + 1, over=over, order=state.order, dice=state.dice, squares=squares, ended=ended,
        builds=builds, built=tuple(built), winner=winner, placings=placings, opening=state.opening,
        log=tuple(log),
    )
    return Outcome(new_state, tuple(events), tuple(chance.draws))


def end(setup: Setup, state: AdvancedState) -> Outcome:
    """4.4's end after turn `max_turns`, at the GM's word (`gm end`) after the last
    resolved turn: no winner, every team placed by its laggard."""
    events: list[Any] = []
    placings = _finish(setup, last_resolved(state), state.squares, state.ended, None, events)
    return Outcome(replace(state, over=True, placings=placings), tuple(events))


def _finish(setup: Setup, turn: int, squares: Mapping[str, int], ended: Mapping[str, bool],
            winner: str | None, events: list[Any]) -> dict[str, int | None]:
    """The campaign ends after `turn` (a team won, `max_turns`, or the GM's `gm end`): each
    player's placing, their team's (place_teams), recording each team's and the end."""
    teams = teams_of(setup)
    placings: dict[str, int | None] = {p: None for p in setup.players}
    team_places = place_teams(board_of(setup), teams, squares, ended, winner)
    for team, place in sorted(team_places.items(), key=lambda tp: (tp[1], list(teams).index(tp[0]))):
        events.append(TeamPlaced(turn, team, teams[team], place, team == winner))
        for member in teams[team]:
            placings[member] = place
    events.append(CampaignOver(turn, winner, "team" if winner else "max_turns"))  # type: ignore[arg-type]
    return placings


def board_of(setup: Setup) -> Board:
    """The campaign's one board."""
    return next(iter(setup.boards.values()))


def _key(chance: Chance) -> str:
    """The dice key of the throw just drawn (`player/i`)."""
    return chance.draws[-1].key
