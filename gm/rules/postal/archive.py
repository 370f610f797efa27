"""What the published archive shows of a postal campaign (docs/rules/postal.md, What players see;
templates/archive/postal/): each turn's boards and standings, and every board drawn with the squares
that were trapdoors once the campaign is revealed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...boards.board import Board
from ...boards.svg import Mark, board_svg
from ..roles.archive import ArchiveBoard, ArchivePicture, ArchivePiece, ArchiveStanding, ArchiveTurn
from .state import PostalState

__all__ = ["TRAPDOOR_COLOUR", "archive_boards", "archive_standings", "archive_turn"]

TRAPDOOR_COLOUR = "#4a2a6b"  # how the archive frames an elected trapdoor


def archive_turn(view: Any) -> ArchiveTurn:
    """The public turn report from the players' PublicTurn `view`: start and end squares and
    placings; its `view` adds the NMR marks and next turn's trapdoors."""
    boards = tuple(
        ArchiveBoard(line.board, line.squares, line.closed, line.closed_now, tuple(
            ArchivePiece(p.player, p.name, p.start, p.end, p.finished, p.finished_now, p.placing, p)
            for p in line.pieces
        ))
        for line in view.boards
    )
    return ArchiveTurn(view.turns, boards, archive_standings(view.standings), view.over, view.next_turn, view)


def archive_standings(lines: Iterable[Any]) -> tuple[ArchiveStanding, ...]:
    """The players' standing lines as the archive reads them: the aggregate is the total."""
    return tuple(ArchiveStanding(s.player, s.name, s.placings, s.aggregate, s.place) for s in lines)


def archive_boards(boards: Mapping[str, Board],
                   history: Sequence[tuple[PostalState, PostalState]]) -> tuple[ArchivePicture, ...]:
    """Each board drawn with every square that was a trapdoor in some turn."""
    in_force: dict[str, set[int]] = {b: set() for b in boards}
    for before, _ in history:
        for b, board_state in before.boards.items():
            if board_state.trapdoor:
                in_force[b].add(board_state.trapdoor)
    return tuple(
        ArchivePicture(b, board_svg(board, marks=[Mark(t, "trapdoor", TRAPDOOR_COLOUR) for t in sorted(in_force[b])],
                                    title=board.name or None),
                       {"trapdoors": tuple(sorted(in_force[b]))})
        for b, board in boards.items()
    )
