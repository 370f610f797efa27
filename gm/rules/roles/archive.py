"""What the published archive shows (gm publish, gm reveal; docs/rules/<ruleset>.md, What players
see).

The generic part every archive page frame, race chart and player history reads; each
`view` is the ruleset's own, read only by its templates under archive/<name>/. The
defaults make a plain archive from the ruleset's `standings` (gm.rules.standings): a
ruleset overrides them, with its own templates, to show more. `hidden_boards` decides
whether archive_boards is asked before the reveal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...boards.svg import board_svg

if TYPE_CHECKING:
    from ..standings import Standings
    from .core import Setup

__all__ = ["INLINE_PLAYERS", "ArchiveBoard", "ArchivePicture", "ArchivePiece", "ArchiveRules",
           "ArchiveStanding", "ArchiveTurn"]

# Up to this many players a turn report and the archive list every player wherever they
# tell a turn. A larger campaign's report shows the player's own pieces, the leaders and
# the top of the standings, and attaches every player's line once, as text
# (mail/<ruleset>/table.txt): listed in the body, and again in its HTML, a 2,000-player
# report was 1.6 MB. Its archive draws the leaders over the field in the race charts, names
# the leaders in the feed, and lists a player's turns on their page once the campaign is
# over (the turn pages hold every move), so a weekly publish rewrites a few pages, not one
# per player.
INLINE_PLAYERS = 50


@dataclass(frozen=True)
class ArchivePiece:
    """One player's piece on one board over one resolved turn, as everyone may see it:
    where it started and ended (0 is Start; a finished piece keeps the last square it
    stood on), whether it has finished, and its placing."""
    player: str
    name: str
    start: int
    end: int
    finished: bool
    finished_now: bool
    placing: int | None
    view: Any = None  # the ruleset's own line for this piece, for its templates


@dataclass(frozen=True)
class ArchiveBoard:
    board: str
    squares: int
    closed: bool  # at the end of the turn
    closed_now: bool
    pieces: tuple[ArchivePiece, ...]  # every player, in campaign order


@dataclass(frozen=True)
class ArchiveStanding:
    player: str
    name: str
    placings: tuple[int | None, ...]  # per board, in board order
    total: int | None  # what ranks the players, once known (e.g. a sum of placings)
    place: int | None
    figure: str | None = None  # what ranks them during play, in words (PlayerStanding.figure)


@dataclass(frozen=True)
class ArchiveTurn:
    """One resolved turn as the archive shows it."""
    turns: tuple[int, ...]  # the campaign turns it played: (5,), or (5, 6) when one resolve plays two
    boards: tuple[ArchiveBoard, ...]  # in board order
    standings: tuple[ArchiveStanding, ...]  # after the turn, placed players first
    over: bool
    next_turn: int | None
    view: Any = None  # the ruleset's public view of the turn, for its templates

    @classmethod
    def of(cls, view: Any) -> ArchiveTurn:
        """The archive's turn from a ruleset's public view that carries the generic
        fields (turns, boards, standings, over, next_turn) beside its own."""
        return cls(view.turns, view.boards, view.standings, view.over, view.next_turn, view)


@dataclass(frozen=True)
class ArchivePicture:
    """A board drawn for the archive."""
    board: str
    svg: str  # self-contained, every text in it escaped (gm.boards.svg)
    view: Any = None  # what the ruleset's templates say beside the drawing


class ArchiveRules:
    """What a ruleset gives gm's archive."""
    if TYPE_CHECKING:
        def standings(self, setup: Setup, state: Any) -> Standings: ...

    def archive_turn(self, setup: Setup, before: Any, after: Any, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        """What everyone may see of one resolved turn, from the states around it and its
        events; `names` maps player ids to the names shown. Default: from the standings."""
        first, last = self.standings(setup, before), self.standings(setup, after)
        boards = []
        for board_id, board in setup.boards.items():
            was, now = first.boards[board_id], last.boards[board_id]
            pieces = tuple(
                ArchivePiece(
                    player=p,
                    name=names.get(p, p),
                    start=was.pieces[p].square,
                    end=now.pieces[p].square,
                    finished=now.pieces[p].finished,
                    finished_now=now.pieces[p].finished and not was.pieces[p].finished,
                    placing=now.pieces[p].placing,
                )
                for p in setup.players
            )
            boards.append(ArchiveBoard(board_id, board.squares, now.closed, now.closed and not was.closed, pieces))
        return ArchiveTurn(
            turns=tuple(range(first.turn, last.turn)) or (first.turn,),
            boards=tuple(boards),
            standings=self.archive_standings(setup, after, names),
            over=last.over,
            next_turn=None if last.over else last.turn,
        )

    def archive_standings(self, setup: Setup, state: Any,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        """Each player's placings and standing now: placed players first, by place, the
        rest in campaign order."""
        now = self.standings(setup, state)
        lines = [
            ArchiveStanding(
                player=p,
                name=names.get(p, p),
                placings=tuple(now.boards[b].pieces[p].placing for b in setup.boards),
                total=now.players[p].aggregate,
                place=now.players[p].place,
                figure=now.players[p].figure,
            )
            for p in setup.players
        ]
        return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0)))

    def archive_deal(self, setup: Setup, first: Any, names: Mapping[str, str]) -> Any:
        """What was dealt secretly at start, from the state before the first turn, for the
        archive once the campaign is revealed (unleashed: every hand and the draw pile);
        None (the default) when nothing was."""
        return None

    def archive_boards(self, setup: Setup, state: Any,
                       history: Sequence[tuple[Any, Any]]) -> tuple[ArchivePicture, ...]:
        """Every board drawn, in board order, from the current state and the (before,
        after) states of every resolved turn. With `hidden_boards` it is asked only once
        the campaign is revealed; otherwise on every publish."""
        return tuple(
            ArchivePicture(board_id, board_svg(board, title=board.name or None))
            for board_id, board in setup.boards.items()
        )
