"""Advanced Snakes & Ladders (RULES.md 4.1, 4.4; seed 003): teams, a die of each player's
own, and snakes and ladders built during play.

Turn 0 gives every player a die (a d6 throw: 1-3 a d6, 4-5 a d8, 6 a d12) and the order
of play (throws of that die, lowest first, ties thrown again within their position).
Each turn every player not in End has one go, in that order: a MOVE, or a BUILD of a
snake or a ladder from their square down to a lower one. A team wins the moment its
last member reaches End; the other teams are placed by their laggard.

The orders' grammar is in orders.py, what players see in views.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...boards.model import START, Board
from ...errors import RulesError
from ...resources import shipped_file
from ..base import (
    ArchivePicture,
    ArchiveStanding,
    ArchiveTurn,
    Outcome,
    Ruleset,
    Setup,
    last_resolved,
    renamed,
    renamed_in,
)
from ..chance import Chance
from ..dice import OpeningThrow, OrderOfPlay
from ..dice import parse_dice_options as parse_dice_options
from ..events import event_reader as event_reader
from ..geometry import steps
from ..grammar import Command, Grammar
from ..moving import Step, landing
from ..problem import Problem, problem
from ..ranking import competition_places as competition_places
from . import views
from .building import DIE_FOR_THROW as DIE_FOR_THROW
from .building import REASONS as REASONS
from .building import build_reason as build_reason
from .building import die_for as die_for
from .building import item_ends as item_ends
from .building import items as items
from .building import jumps as jumps
from .building import least_successful_face as least_successful_face
from .events import BuildTried as BuildTried
from .events import Built as Built
from .events import CampaignOver as CampaignOver
from .events import Moved as Moved
from .events import TeamPlaced as TeamPlaced
from .events import event_from_json as event_from_json
from .events import log_entry as log_entry
from .options import AdvancedOptions as AdvancedOptions
from .options import parse_advanced_options as parse_advanced_options
from .orders import advanced_grammar
from .orders import merge as merge_order
from .state import AdvancedOrder as AdvancedOrder
from .state import AdvancedState as AdvancedState
from .teams import TEAM_ID as TEAM_ID
from .teams import place_teams as place_teams
from .teams import team_of as team_of
from .teams import teams_of as teams_of

__all__ = [
    "Advanced",
    "AdvancedOptions",
    "AdvancedOrder",
    "AdvancedState",
    "BuildTried",
    "Built",
    "CampaignOver",
    "Moved",
    "OpeningThrow",
    "OrderOfPlay",
    "TeamPlaced",
    "die_for",
    "least_successful_face",
    "teams_of",
]


# -- the ruleset ------------------------------------------------------------------------


class Advanced(Ruleset):
    name = "advanced"
    # its files, named as a plugin names its own (gm.ruleset_files, docs/plugins.md)
    templates = shipped_file("templates")
    rules_page = shipped_file("docs", "rules", "advanced.md")
    boards_folder = shipped_file("boards")
    starter_board = "advanced.yaml"  # the seed's own board (RULES.md 4.4)
    option_keys = ("max_turns",)
    player_keys = ("team",)
    placed_keys = ("team",)  # a team is placed by its laggard: the GM places who joins by mail
    one_board = True
    hidden_boards = False
    silence_is_order = True  # no order means MOVE (docs/rules/advanced.md, Orders)
    weak_seed_refused = True
    starter_options = "  max_turns: 200\n"

    def parse_options(self, raw: Mapping[str, Any]) -> AdvancedOptions:
        return parse_advanced_options(raw)

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """RULES.md 4.4: a team id names no player outside the team (a player without a
        team is the team named by their id); teams are written as ids."""
        problems = []
        team = {}
        for player, values in players:
            value = values.get("team")
            if value is None:
                team[player] = player
            elif not (isinstance(value, str) and TEAM_ID.fullmatch(value)):
                problems.append(f"player {player}: team must be an id (letters, digits, '-', '_' or '.'), "
                                f"not {value!r}")
            else:
                team[player] = value
        spelled: dict[str, str] = {}
        for player, name in team.items():
            first = spelled.setdefault(name.casefold(), name)
            if first != name:
                problems.append(f"player {player}: team {name} differs from team {first} only in case; "
                                "write it the same way")
        # a player without a team is a team of one: nobody else may name their id either
        explicit = {p for p, values in players if values.get("team") is not None}
        ids = {player.casefold(): player for player in team}
        reported = set()
        for player, name in team.items():
            other = ids.get(name.casefold())
            if other is None or other == player or name.casefold() in reported:
                continue
            if other not in explicit or team[other].casefold() != name.casefold():
                reported.add(name.casefold())
                problems.append(f"player {player}: team {name} is the id of player {other}, "
                                "who is not in it (docs/rules/advanced.md, Teams)")
        return problems

    # -- turn 0 ---------------------------------------------------------------------

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """Each player's die, then the order of play (RULES.md 4.4 Setup): all throws on
        turn 0, keys counting on per player."""
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

    # -- a turn ---------------------------------------------------------------------

    def resolve(self, setup: Setup, state: AdvancedState, orders: Mapping[str, AdvancedOrder],
                chance: Chance) -> Outcome:
        """One round (RULES.md 4.4): each player not in End, in order of play, has a go of
        one throw of their die; the campaign ends the moment a team is all in End."""
        if state.over:
            raise RulesError("the campaign is over; there is no turn to resolve")
        for player in orders:
            if player not in state.squares:
                raise RulesError(f"an order from {player}, who is not a player")
        board = _board(setup)
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
                # RULES.md 4.4: past N is End, no bounce; landing on N is not enough
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

    def end(self, setup: Setup, state: AdvancedState) -> Outcome:
        """4.4's end after turn `max_turns`, at the GM's word (`gm end`) after the last
        resolved turn: no winner, every team placed by its laggard."""
        events: list[Any] = []
        placings = _finish(setup, last_resolved(state), state.squares, state.ended, None, events)
        return Outcome(replace(state, over=True, placings=placings), tuple(events))

    # -- orders (RULES.md 4.5; the grammar in orders.py) ------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        return advanced_grammar()

    def merge(self, setup: Setup, state: AdvancedState, player: str, standing: AdvancedOrder,
              commands: Iterable[Command]) -> tuple[AdvancedOrder, list[Problem]]:
        """The action the message names replaces the standing one (RULES.md 4.5); a second
        action is refused on its line. Whether the action can be played from the player's
        square is order_problems' (the desk tells it on the action's line)."""
        return merge_order(standing, commands)

    def order_problems(self, setup: Setup, state: AdvancedState, player: str,
                       order: AdvancedOrder) -> list[Problem]:
        """RULES.md 4.5, refused on receipt: any order from a player in End; a build from
        Start, to a square outside 1..s-1, from or to a square holding an item end, or to
        a square further than half the die's size (beyond any throw)."""
        if order.action is None:
            return []
        if state.ended[player]:
            return [problem("in_end")]
        if order.action != "build":
            return []
        board = _board(setup)
        start, target = state.squares[player], order.target
        assert target is not None
        if start == START:
            return [problem("build_from_start", item=order.item, target=target)]
        ends = item_ends(board, state.built)
        problems = []
        if start in ends:
            item, end = ends[start]
            problems.append(problem("own_square_taken", square=start, item=item, end=end))
        if not 1 <= target < start:
            problems.append(problem("target_not_below", item=order.item, target=target, square=start))
            return problems
        if target in ends:
            item, end = ends[target]
            problems.append(problem("target_taken", target=target, item=item, end=end))
        die = state.dice[player]
        most = die // 2
        if steps(board, start, target, limit=most) is None:
            problems.append(problem("too_far", target=target, square=start, die=die, most=most,
                                    steps=steps(board, start, target)))
        return problems

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

    def empty_order(self) -> AdvancedOrder:
        return AdvancedOrder()

    def order_to_json(self, order: AdvancedOrder) -> dict[str, Any]:
        return {"action": order.action, "item": order.item, "target": order.target}

    def order_from_json(self, data: Mapping[str, Any]) -> AdvancedOrder:
        return AdvancedOrder(data.get("action"), data.get("item"), data.get("target"))

    def in_play(self, setup: Setup, state: AdvancedState, player: str) -> bool:
        return state.in_play(player)

    def must_order(self, setup: Setup, state: AdvancedState, player: str) -> bool:
        """Players in play who sent nothing are NMR: reminded, and moved (MOVE)."""
        return state.in_play(player)

    def order_complete(self, setup: Setup, state: AdvancedState, player: str, order: AdvancedOrder) -> bool:
        return order.action is not None

    # -- gm state --json (CONTRACT.md, the dice rulesets) ---------------------------

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

    def dump_state(self, state: AdvancedState) -> dict[str, Any]:
        import dataclasses

        return {
            "turn": state.turn,
            "over": state.over,
            "order": list(state.order),
            "dice": dict(state.dice),
            "squares": dict(state.squares),
            "ended": dict(state.ended),
            "builds": dict(state.builds),
            "built": [dataclasses.asdict(b) for b in state.built],
            "winner": state.winner,
            "placings": dict(state.placings),
            "opening": [dataclasses.asdict(t) for t in state.opening],
            "log": [dataclasses.asdict(go) for go in state.log],
        }

    def rename_player(self, state: AdvancedState, old: str, new: str) -> AdvancedState:
        import dataclasses

        # the log, the opening throws and who built what are history: who held the seat then
        return dataclasses.replace(
            state, order=renamed_in(state.order, old, new), dice=renamed(state.dice, old, new),
            squares=renamed(state.squares, old, new), ended=renamed(state.ended, old, new),
            builds=renamed(state.builds, old, new), placings=renamed(state.placings, old, new),
            winner=new if state.winner == old else state.winner)

    def load_state(self, data: Mapping[str, Any]) -> AdvancedState:
        return AdvancedState(
            turn=data["turn"],
            over=data["over"],
            order=tuple(data["order"]),
            dice=dict(data["dice"]),
            squares=dict(data["squares"]),
            ended=dict(data["ended"]),
            builds=dict(data["builds"]),
            built=tuple(Built(**b) for b in data["built"]),
            winner=data["winner"],
            placings=dict(data["placings"]),
            opening=tuple(event_from_json(t) for t in data["opening"]),
            log=tuple(event_from_json(go) for go in data["log"]),
        )

    # -- views (RULES.md 4.6; views.py, templates/mail/advanced/, templates/archive/advanced/)

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        return event_from_json(data)

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        return views.opening_view(setup, events, names)

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
        board = _board(setup)
        return {"squares": board.squares, "max_turns": setup.options.max_turns,
                "teams": {t: list(m) for t, m in teams_of(setup).items()}}


def _finish(setup: Setup, turn: int, squares: Mapping[str, int], ended: Mapping[str, bool],
            winner: str | None, events: list[Any]) -> dict[str, int | None]:
    """The campaign ends after `turn` (a team won, `max_turns`, or the GM's `gm end`): each
    player's placing, their team's (place_teams), recording each team's and the end."""
    teams = teams_of(setup)
    placings: dict[str, int | None] = {p: None for p in setup.players}
    team_places = place_teams(_board(setup), teams, squares, ended, winner)
    for team, place in sorted(team_places.items(), key=lambda tp: (tp[1], list(teams).index(tp[0]))):
        events.append(TeamPlaced(turn, team, teams[team], place, team == winner))
        for member in teams[team]:
            placings[member] = place
    events.append(CampaignOver(turn, winner, "team" if winner else "max_turns"))  # type: ignore[arg-type]
    return placings


def _board(setup: Setup) -> Board:
    return next(iter(setup.boards.values()))


def _key(chance: Chance) -> str:
    """The dice key of the throw just drawn (`player/i`)."""
    return chance.draws[-1].key
