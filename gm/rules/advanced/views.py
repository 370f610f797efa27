"""What players of the advanced game see (docs/rules/advanced.md, What players see): everything once
a turn is resolved. The turn-0 throws (each die, the order of play and its re-throws); each go in
order of play: the throw, its route (snakes and ladders, built ones too), a build's kind, squares,
throw, least successful face and whether it was built or why not; NMR marks; who reached End; the
board with every item, built ones marked with builder and turn; teams and placings. Orders stay
secret until resolved: a player's own view holds only their own.

Whether a BUILD is legal depends on steps between squares (docs/rules/advanced.md), which only the
board's shape tells: so the welcome and every report carry the board drawn as `gm board show` draws
it (gm.boards.text), with the pieces and every item marked (`BoardDrawing`), and a player's own view
lists the squares a build from their square could reach.

The views keep the generic shapes (`boards`, `standings`, `in_play`, `facts`) beside
their own, so that gm's generic templates (the GM's report) read them too; the words
are in templates/mail/advanced/ and templates/archive/advanced/.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...boards.model import START, Board
from ...boards.moving import Step
from ...boards.svg import board_svg
from ...boards.text import Window
from ..base import ArchiveBoard, ArchivePicture, ArchivePiece, ArchiveStanding, Setup
from ..dice.views import Named
from ..geometry import within
from .building import item_ends, least_successful_face
from .drawing import (
    BoardDrawing,
    drawing,
    fits_mail,
    piece_marks,
    with_items,
)
from .events import BuildTried, Built, CampaignOver, Moved
from .opening import named
from .state import AdvancedOrder, AdvancedState
from .teams import place_teams, team_of, teams_of

__all__ = [
    "AdvancedTurn",
    "GoLine",
    "ItemLine",
    "OwnFacts",
    "TeamLine",
    "board_pictures",
    "own_facts",
    "public_turn",
    "standings",
]


@dataclass(frozen=True)
class Reach:
    """The squares a BUILD from the player's square could end on at `steps` steps (lower,
    free of item ends), and the least throw that builds there: the least successful face,
    or twice the steps when that is more (a throw of r reaches r // 2 steps)."""
    steps: int
    least_throw: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class GoLine:
    """One go: a MOVE (`steps`: the square the throw reached, then each snake or ladder)
    or a BUILD (`item` from `start` to `target`, `built` or the failed check `reason`)."""
    player: str
    name: str
    team: str
    action: str  # move or build
    die: int
    roll: int
    start: int
    end: int
    steps: tuple[Step, ...] = ()
    finished: bool = False  # reached End with this throw
    nmr: bool = False
    item: str | None = None
    target: int | None = None
    construction: int | None = None
    needed: int | None = None
    built: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class ItemLine:
    """A snake or ladder on the board, `start` to `end` in the direction of travel; a
    built one with its builder and turn."""
    item: str
    start: int
    end: int
    by: Named | None = None
    turn: int | None = None


@dataclass(frozen=True)
class TeamLine:
    team: str
    members: tuple[Named, ...]
    in_end: int  # members in End
    finished: bool  # every member in End
    laggard: int  # the square of its member furthest behind (0 Start; End counts as N + 1)
    placing: int | None


@dataclass(frozen=True)
class BoardItems:
    """What the archive says beside the board's drawing: every item, built ones with
    builder and turn."""
    items: tuple[ItemLine, ...]

    @property
    def built(self) -> tuple[ItemLine, ...]:
        return tuple(i for i in self.items if i.by is not None)


@dataclass(frozen=True)
class AdvancedTurn:
    """The public report of one resolved turn."""
    campaign: str
    title: str
    turns: tuple[int, ...]
    board: str
    squares: int
    goes: tuple[GoLine, ...]  # in order of play
    boards: tuple[ArchiveBoard, ...]  # the generic shape: each piece's start and end
    items: tuple[ItemLine, ...]  # every snake and ladder after the turn
    built_now: tuple[ItemLine, ...]
    teams: tuple[TeamLine, ...]
    standings: tuple[ArchiveStanding, ...]
    over: bool
    end_reason: str | None  # team or max_turns
    winner: TeamLine | None
    next_turn: int | None
    drawing: BoardDrawing | None = None  # the board after the turn; None when too large for mail

    @property
    def any_nmr(self) -> bool:
        return any(go.nmr for go in self.goes)


@dataclass(frozen=True)
class OwnFacts:
    """What only the addressed player knows or needs: their order as played, and what
    they may order next (their square, die, next construction and its least face)."""
    player: str
    name: str
    in_play: bool
    team: str
    teammates: tuple[Named, ...]
    square: int
    in_end: bool
    die: int
    builds: int
    construction: int
    needed: int
    most_steps: int
    # this turn's order as played, whole: "move", "build snake 41", "nmr" (None: no go)
    played: str | None
    facts: tuple[tuple[str, Any], ...] = ()  # the generic shape; nothing beyond the fields above
    # why no BUILD can be ordered now: start, end, or own-square (then `own_end`: the item
    # and end on the player's square); None when one can
    no_build: str | None = None
    own_end: tuple[str, str] | None = None
    reach: tuple[Reach, ...] = ()  # the squares a BUILD could end on, by steps
    mark: str = ""  # the piece's mark in the drawing
    around: BoardDrawing | None = None  # the board around the piece, when mail cannot draw it whole
    # the whole board now, for mail between reports (a welcome, a reminder), when mail can
    # draw it: a report has it in its public part; pieces are named by id there
    board: BoardDrawing | None = None
    items: tuple[ItemLine, ...] = ()  # beside `board`: every snake and ladder, built ones with builder


def _item_lines(setup: Setup, built: Sequence[Built], names: Mapping[str, str]) -> tuple[ItemLine, ...]:
    board = next(iter(setup.boards.values()))
    lines = [ItemLine("snake", head, tail) for head, tail in board.snakes]
    lines += [ItemLine("ladder", foot, top) for foot, top in board.ladders]
    lines += [ItemLine(b.item, *b.travel(), named(b.by, names), b.turn) for b in built]
    return tuple(sorted(lines, key=lambda line: (min(line.start, line.end), line.item)))


def _team_lines(setup: Setup, state: AdvancedState, names: Mapping[str, str]) -> tuple[TeamLine, ...]:
    n = next(iter(setup.boards.values())).squares
    return tuple(
        TeamLine(team, tuple(named(m, names) for m in members), sum(state.ended[m] for m in members),
                 all(state.ended[m] for m in members),
                 min(n + 1 if state.ended[m] else state.squares[m] for m in members),
                 state.placings.get(members[0]))
        for team, members in teams_of(setup).items()
    )


def _go_line(setup: Setup, go: Any, names: Mapping[str, str]) -> GoLine:
    team = team_of(setup, go.player)
    name = names.get(go.player, go.player)
    if isinstance(go, Moved):
        return GoLine(go.player, name, team, "move", go.die, go.roll, go.start, go.end, go.steps,
                      go.finished, go.nmr)
    assert isinstance(go, BuildTried)
    return GoLine(go.player, name, team, "build", go.die, go.roll, go.start, go.start, item=go.item,
                  target=go.target, construction=go.construction, needed=go.needed, built=go.built,
                  reason=go.reason)


def standings(setup: Setup, state: AdvancedState, names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
    """Each player's placing (their team's) once the campaign is over; while it runs, the
    place their team holds now, as the end would place it (docs/rules/advanced.md, The
    end and placings: by its member on the lowest square). By place, ties in campaign order."""
    if state.over:
        places = {p: state.placings.get(p) for p in setup.players}
    else:
        board = next(iter(setup.boards.values()))
        teams = teams_of(setup)
        by_team = place_teams(board, teams, state.squares, state.ended, None)
        places = {m: by_team[team] for team, members in teams.items() for m in members}
    lines = [
        ArchiveStanding(p, names.get(p, p), (state.placings.get(p),),
                        state.placings.get(p) if state.over else None, places.get(p))
        for p in setup.players
    ]
    return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0)))


def public_turn(setup: Setup, before: AdvancedState, after: AdvancedState, events: Sequence[Any],
                names: Mapping[str, str], campaign: str, title: str) -> AdvancedTurn:
    board_id, board = next(iter(setup.boards.items()))
    goes = tuple(_go_line(setup, e, names) for e in events if isinstance(e, Moved | BuildTried))
    by_player = {go.player: go for go in goes}
    pieces = tuple(
        ArchivePiece(p, names.get(p, p), before.squares[p], after.squares[p], after.ended[p],
                     after.ended[p] and not before.ended[p], after.placings.get(p), by_player.get(p))
        for p in setup.players
    )
    teams = _team_lines(setup, after, names)
    over = next((e for e in events if isinstance(e, CampaignOver)), None)
    return AdvancedTurn(
        campaign=campaign,
        title=title,
        turns=(before.turn,),
        board=board_id,
        squares=board.squares,
        goes=goes,
        boards=(ArchiveBoard(board_id, board.squares, after.over, after.over and not before.over, pieces),),
        items=_item_lines(setup, after.built, names),
        built_now=tuple(ItemLine(b.item, *b.travel(), named(b.by, names), b.turn)
                        for b in after.built[len(before.built):]),
        teams=teams,
        standings=standings(setup, after, names),
        over=after.over,
        end_reason=over.reason if over else None,
        winner=next((t for t in teams if t.team == after.winner), None),
        next_turn=None if after.over else after.turn,
        drawing=drawing(setup, after.squares, after.ended, after.built, names) if fits_mail(board) else None,
    )


def own_facts(setup: Setup, player: str, name: str, state: AdvancedState, events: Sequence[Any],
              order: AdvancedOrder | None) -> OwnFacts:
    team = team_of(setup, player)
    names = setup.names
    go = next((e for e in events if isinstance(e, Moved | BuildTried) and e.player == player), None)
    played = None
    if go is not None:
        played = ("nmr" if go.nmr else "move") if isinstance(go, Moved) else f"build {go.item} {go.target}"
    die = state.dice[player]
    construction = state.builds[player] + 1
    needed = least_successful_face(die, construction)
    square = state.squares[player]
    board = with_items(setup, state.built)
    ends = item_ends(board, ())
    no_build = "end" if state.ended[player] else "start" if square == START else "own-square" if square in ends else None
    reach: tuple[Reach, ...] = ()
    around = None
    if no_build is None:
        reach = _reach(board, square, die // 2, needed, ends)
    whole = fits_mail(board)
    if not state.ended[player] and square != START and not whole:
        around = drawing(setup, state.squares, state.ended, state.built, names,
                         Window.around(board, square, die // 2))
    return OwnFacts(
        player=player,
        name=name,
        in_play=state.in_play(player),
        team=team,
        teammates=tuple(named(m, names) for m in teams_of(setup)[team] if m != player),
        square=square,
        in_end=state.ended[player],
        die=die,
        builds=state.builds[player],
        construction=construction,
        needed=needed,
        most_steps=die // 2,
        played=played,
        no_build=no_build,
        own_end=ends.get(square) if no_build == "own-square" else None,
        reach=reach,
        mark=piece_marks(setup.players)[player],
        around=around,
        board=drawing(setup, state.squares, state.ended, state.built, names) if whole and not events else None,
        items=_item_lines(setup, state.built, names) if not events else (),
    )


def _reach(board: Board, square: int, most: int, needed: int, ends: Mapping[int, Any]) -> tuple[Reach, ...]:
    """The last three checks of docs/rules/advanced.md (Building), answered for every target at
    once: the squares below `square`, free of item ends, at most `most` steps away, grouped by
    steps."""
    found = within(board, square, most)
    by_steps: dict[int, list[int]] = {}
    for target, distance in found.items():
        if 1 <= target < square and target not in ends:
            by_steps.setdefault(distance, []).append(target)
    return tuple(Reach(d, max(needed, 2 * d), tuple(sorted(by_steps[d]))) for d in sorted(by_steps))


def board_pictures(setup: Setup, state: AdvancedState, history: Sequence[tuple[Any, Any]]) -> tuple[ArchivePicture, ...]:
    """The board with every snake and ladder in play, built ones included; the view lists
    each item, built ones with builder and turn (gm.boards.svg draws items, not labels)."""
    board_id, board = next(iter(setup.boards.items()))
    drawn = with_items(setup, state.built)
    lines = _item_lines(setup, state.built, setup.names)
    return (ArchivePicture(board_id, board_svg(drawn, title=board.name or None), BoardItems(lines)),)
