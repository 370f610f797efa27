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

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ...boards.board import START, Board
from ...errors import RulesError
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
from ..dice import OpeningThrow, OrderOfPlay, parse_dice_options
from ..events import event_reader
from ..geometry import steps
from ..grammar import Command, Grammar
from ..moving import Step, landing
from ..problem import Problem, problem
from ..ranking import competition_places

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

# RULES.md 4.4 Setup: the d6 throw that gives each player their die
DIE_FOR_THROW = {1: 6, 2: 6, 3: 6, 4: 8, 5: 8, 6: 12}
TEAM_ID = re.compile(r"\w[\w.-]*")  # fullmatch: `$` would pass "red\n"
REASONS = ("roll", "lower", "own-square", "target", "distance")


def die_for(throw: int) -> int:
    """The die a setup throw of a d6 gives (RULES.md 4.4)."""
    return DIE_FOR_THROW[throw]


def least_successful_face(size: int, construction: int) -> int:
    """The least throw of a d`size` that builds the player's `construction`th item: the
    build succeeds when 6r > size * (min(k, 4) + 1) (RULES.md 4.4)."""
    return size * (min(construction, 4) + 1) // 6 + 1


# -- options ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AdvancedOptions:
    max_turns: int = 200


def parse_advanced_options(raw: Mapping[str, Any]) -> AdvancedOptions:
    """Options from campaign.yaml (RULES.md 4.1's checks); raises ProblemsError naming
    each bad one with its line."""
    return parse_dice_options(raw, AdvancedOptions)


# -- teams ------------------------------------------------------------------------------


def teams_of(setup: Setup) -> dict[str, tuple[str, ...]]:
    """Team id -> its members, both in the order of `players` (RULES.md 4.4: a team is
    listed where its first member is; a player without a team is a team of one named by
    their id)."""
    teams: dict[str, list[str]] = {}
    for player in setup.players:
        teams.setdefault(team_of(setup, player), []).append(player)
    return {team: tuple(members) for team, members in teams.items()}


def team_of(setup: Setup, player: str) -> str:
    team = setup.player_keys.get(player, {}).get("team")
    return player if team is None else str(team)


# -- state, orders, events --------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    """An item built in play: `start` is the builder's square (a snake's head, a ladder's
    top), `target` the lower square (a snake's tail, a ladder's foot)."""

    item: Literal["snake", "ladder"]
    start: int
    target: int
    by: str
    turn: int

    def travel(self) -> tuple[int, int]:
        """From and to in the direction of travel (CONTRACT.md `built`)."""
        return (self.start, self.target) if self.item == "snake" else (self.target, self.start)


@dataclass(frozen=True)
class Moved:
    """A MOVE go: the throw, the route (`steps`: the square the throw reaches, then each
    snake or ladder) and the end; a throw past N reaches End (`finished`, no steps)."""

    turn: int
    player: str
    die: int
    roll: int
    start: int
    steps: tuple[Step, ...]
    end: int
    finished: bool
    nmr: bool
    kind: str = "moved"


@dataclass(frozen=True)
class BuildTried:
    """A BUILD go: what was ordered from which square, the throw, the construction
    number and least successful face, and whether it was built or the first check that
    failed (`reason`, RULES.md 4.4)."""

    turn: int
    player: str
    die: int
    roll: int
    item: Literal["snake", "ladder"]
    start: int
    target: int
    construction: int
    needed: int
    built: bool
    reason: str | None
    kind: str = "build"


@dataclass(frozen=True)
class TeamPlaced:
    turn: int
    team: str
    members: tuple[str, ...]
    placing: int
    won: bool
    kind: str = "team_placed"


@dataclass(frozen=True)
class CampaignOver:
    turn: int
    winner: str | None
    reason: Literal["team", "max_turns"]
    kind: str = "campaign_over"


# an event as stored (`dataclasses.asdict`), read back
event_from_json = event_reader(OpeningThrow, OrderOfPlay, Moved, BuildTried, TeamPlaced, CampaignOver)


@dataclass(frozen=True)
class AdvancedState:
    """Between turns. `turn` is the next turn to resolve; `order` the order of play;
    `squares` each piece's square (0 Start; for a piece in End, the last square it stood
    on); `log` the goes of the last resolved turn (Moved and BuildTried events)."""

    turn: int
    over: bool
    order: tuple[str, ...]
    dice: Mapping[str, int]
    squares: Mapping[str, int]
    ended: Mapping[str, bool]
    builds: Mapping[str, int]
    built: tuple[Built, ...] = ()
    winner: str | None = None
    placings: Mapping[str, int | None] = field(default_factory=dict)
    opening: tuple[OpeningThrow, ...] = ()
    log: tuple[Any, ...] = ()

    def in_play(self, player: str) -> bool:
        return not self.over and not self.ended[player]


@dataclass(frozen=True)
class AdvancedOrder:
    """A player's action for the turn: `move`, or `build` a snake or ladder to `target`;
    `action` None when nothing was sent (NMR: a MOVE is played)."""

    action: Literal["move", "build"] | None = None
    item: Literal["snake", "ladder"] | None = None
    target: int | None = None

    def __str__(self) -> str:
        """As the player wrote it (the GM's report lists orders with it)."""
        if self.action == "build":
            return f"BUILD {str(self.item).upper()} {self.target}"
        return "MOVE" if self.action == "move" else "nothing (NMR: MOVE)"


# -- items on the board -----------------------------------------------------------------


def items(board: Board, built: Iterable[Built]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Every snake as (head, tail) and ladder as (foot, top), board file and built, sorted."""
    snakes = list(board.snakes)
    ladders = list(board.ladders)
    for b in built:
        if b.item == "snake":
            snakes.append((b.start, b.target))
        else:
            ladders.append((b.target, b.start))
    return sorted(snakes), sorted(ladders)


def item_ends(board: Board, built: Iterable[Built]) -> dict[int, tuple[str, str]]:
    """Square -> (item, end) for every end of every item: head, tail, foot, top."""
    snakes, ladders = items(board, built)
    ends: dict[int, tuple[str, str]] = {}
    for head, tail in snakes:
        ends[head], ends[tail] = ("snake", "head"), ("snake", "tail")
    for foot, top in ladders:
        ends[foot], ends[top] = ("ladder", "foot"), ("ladder", "top")
    return ends


def jumps(board: Board, built: Iterable[Built]) -> dict[int, int]:
    snakes, ladders = items(board, built)
    return dict(snakes) | dict(ladders)


def build_reason(board: Board, built: Iterable[Built], die: int, construction: int,
                 start: int, target: int, roll: int) -> str | None:
    """The first check of RULES.md 4.4 that a build fails, in its order, or None when the
    item is built: roll, lower, own-square, target, distance."""
    if 6 * roll <= die * (min(construction, 4) + 1):
        return "roll"
    if not 1 <= target < start:
        return "lower"
    ends = item_ends(board, built)
    if start in ends:
        return "own-square"
    if target in ends:
        return "target"
    reach = roll // 2
    if steps(board, start, target, limit=reach) is None:
        return "distance"
    return None


# -- the ruleset ------------------------------------------------------------------------


class Advanced(Ruleset):
    name = "advanced"
    starter_board = "advanced.yaml"  # the seed's own board (RULES.md 4.4)
    option_keys = ("max_turns",)
    player_keys = ("team",)
    one_board = True
    hidden_boards = False
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
        from .orders import advanced_grammar  # it imports this module

        return advanced_grammar()

    def merge(self, setup: Setup, state: AdvancedState, player: str, standing: AdvancedOrder,
              commands: Iterable[Command]) -> tuple[AdvancedOrder, list[Problem]]:
        """The action the message names replaces the standing one (RULES.md 4.5); a second
        action is refused on its line. Whether the action can be played from the player's
        square is order_problems' (the desk tells it on the action's line)."""
        from .orders import merge  # it imports this module

        return merge(standing, commands)

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
        """RULES.md 4.5: players in play who sent nothing count for resolve's rule."""
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
        from .views import opening_view

        return opening_view(setup, events, names)

    def public_view(self, setup: Setup, before: AdvancedState, after: AdvancedState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        from .views import public_turn

        return public_turn(setup, before, after, events, names, campaign, title)

    def player_view(self, setup: Setup, player: str, name: str, state: AdvancedState,
                    events: Sequence[Any], order: AdvancedOrder | None) -> Any:
        from .views import own_facts

        return own_facts(setup, player, name, state, events, order)

    def archive_turn(self, setup: Setup, before: AdvancedState, after: AdvancedState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        view = self.public_view(setup, before, after, events, names, "", "")
        return ArchiveTurn.of(view)

    def archive_standings(self, setup: Setup, state: AdvancedState,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        from .views import standings

        return standings(setup, state, names)

    def archive_boards(self, setup: Setup, state: AdvancedState,
                       history: Sequence[tuple[Any, Any]]) -> tuple[ArchivePicture, ...]:
        from .views import board_pictures

        return board_pictures(setup, state, history)

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        board = _board(setup)
        return {"squares": board.squares, "max_turns": setup.options.max_turns,
                "teams": {t: list(m) for t, m in teams_of(setup).items()}}


def place_teams(board: Board, teams: Mapping[str, tuple[str, ...]], squares: Mapping[str, int],
                ended: Mapping[str, bool], winner: str | None) -> dict[str, int]:
    """RULES.md 4.4 End: the winner 1; every other team by its laggard (its member on the
    lowest square, Start 0, a member in End past N), further first, competition ranking
    from 2 (from 1 without a winner)."""
    laggards = {
        team: min(board.squares + 1 if ended[m] else squares[m] for m in members)
        for team, members in teams.items()
        if team != winner
    }
    places = competition_places({team: -laggard for team, laggard in laggards.items()},
                                start=1 if winner is None else 2)
    return ({winner: 1} if winner is not None else {}) | places


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


def log_entry(go: Any) -> dict[str, Any]:
    """One go as CONTRACT.md's `log` gives it."""
    if isinstance(go, Moved):
        return {"player": go.player, "action": "move", "dice": [go.roll], "from": go.start,
                "steps": [{"square": s.square, "via": s.via} for s in go.steps], "to": go.end,
                "bounced": False, "finished": go.finished, "again": False, "skip": None, "nmr": go.nmr}
    return {"player": go.player, "action": "build", "kind": go.item, "target": go.target, "dice": [go.roll],
            "from": go.start, "construction": go.construction, "needed": go.needed, "built": go.built,
            "reason": go.reason}


def _board(setup: Setup) -> Board:
    return next(iter(setup.boards.values()))


def _key(chance: Chance) -> str:
    """The dice key of the throw just drawn (`player/i`)."""
    return chance.draws[-1].key
