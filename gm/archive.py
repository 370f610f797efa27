"""The published archive (`gm publish`), phase one: what every page shows, as a pure step.

`load_archive(campaign)` reads what may be published into an `ArchiveInput`; `build_site`
turns it into pages (path, template, context) without touching a file, so the whole site
can be checked before a byte is written (archive_write.py writes it; Pelican's two phases).

Before `gm reveal` the input holds only what RULES.md 2.6 lets players see: board ids and
sizes, commitments and the public turns (start and end squares, NMR marks, trapdoors
announced, placings). Board names, layouts, salts and the seed enter only once revealed.
Nobody's numbers or routes ever do.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .archive_chart import Chart, Series, race_chart
from .views import PieceLine, PublicTurn, StandingLine, public_turn, standings


@dataclass(frozen=True)
class BoardPublic:
    id: str
    squares: int
    commitment: str
    closed: bool


@dataclass(frozen=True)
class RevealedBoard:
    id: str
    name: str
    squares: int
    salt: str
    canonical: str
    commitment: str
    svg: str  # drawn by gm.boardsvg, which escapes every text it writes
    trapdoors: tuple[int, ...]  # every square that was a trapdoor during the campaign
    canonical_file: str


@dataclass(frozen=True)
class Revealed:
    seed: int
    seed_salt: str
    seed_commitment: str
    revealed_at: str
    boards: tuple[RevealedBoard, ...]


@dataclass(frozen=True)
class PlayerPublic:
    id: str
    name: str


@dataclass(frozen=True)
class ArchiveInput:
    """Everything the archive may show. Nothing hidden has a field here until revealed."""

    campaign: str
    title: str
    ruleset: str
    players: tuple[PlayerPublic, ...]
    boards: tuple[BoardPublic, ...]
    seed_commitment: str
    turns: tuple[PublicTurn, ...]
    standings: tuple[StandingLine, ...]
    over: bool
    next_turn: int | None
    deadline: str | None
    revealed: Revealed | None = None


@dataclass(frozen=True)
class Page:
    """One file of the site: rendered from `template` with `context`, or raw `data`."""

    path: str
    template: str | None
    context: Mapping[str, Any] = field(default_factory=dict)
    data: bytes | None = None


@dataclass(frozen=True)
class HistoryRow:
    label: str  # the turn's label: "3" or "5-6"
    page: str
    piece: PieceLine  # the public start and end of that turn


@dataclass(frozen=True)
class PlayerBoardHistory:
    board: str
    squares: int
    rows: tuple[HistoryRow, ...]
    placing: int | None


# -- reading what may be published --------------------------------------------------------


def load_archive(campaign: Any) -> ArchiveInput:
    """The archive's input from an opened campaign: public facts, and the revealed ones
    only once `gm reveal` has run."""
    from .boardsvg import board_svg
    from .campaign import deadline_text
    from .turns import turn_events

    config, setup, ruleset = campaign.config, campaign.setup, campaign.ruleset
    names = campaign.names()
    row = campaign.row()
    board_rows = {b["id"]: b for b in campaign.store.rows("select * from boards")}
    state = campaign.state()
    turns, in_force = [], {b: set() for b in config.boards}
    for turn_row in campaign.store.rows("select * from turns order by turn"):
        before = ruleset.load_state(json.loads(turn_row["state_before"]))
        after = ruleset.load_state(json.loads(turn_row["state_after"]))
        for b, board_state in before.boards.items():
            if board_state.trapdoor:
                in_force[b].add(board_state.trapdoor)
        turns.append(
            public_turn(
                setup=setup, campaign=config.id, title=config.title, before=before,
                after=after, events=turn_events(turn_row), names=names,
            )
        )
    boards = tuple(
        BoardPublic(b, board.squares, board_rows[b]["commitment"], state.boards[b].closed)
        for b, board in config.boards.items()
    )
    revealed = None
    if row["revealed_at"]:
        revealed = Revealed(
            seed=config.seed,
            seed_salt=row["seed_salt"],
            seed_commitment=row["seed_commitment"],
            revealed_at=row["revealed_at"],
            boards=tuple(
                RevealedBoard(
                    id=b,
                    name=board.name,
                    squares=board.squares,
                    salt=board_rows[b]["salt"],
                    canonical=board_rows[b]["canonical"],
                    commitment=board_rows[b]["commitment"],
                    svg=board_svg(board, trapdoors=sorted(in_force[b]), title=board.name or None),
                    trapdoors=tuple(sorted(in_force[b])),
                    canonical_file=f"board-{b}.json",
                )
                for b, board in config.boards.items()
            ),
        )
    deadline = None if state.over else deadline_text(campaign.deadline(), config.timezone)
    return ArchiveInput(
        campaign=config.id,
        title=config.title,
        ruleset=config.ruleset_name,
        players=tuple(PlayerPublic(p.id, p.name) for p in config.players),
        boards=boards,
        seed_commitment=row["seed_commitment"],
        turns=tuple(turns),
        standings=standings(setup, state, names),
        over=state.over,
        next_turn=None if state.over else state.turn,
        deadline=deadline["utc"] if deadline else None,
        revealed=revealed,
    )


# -- the pure step: pages -------------------------------------------------------------------


def turn_label(turn: PublicTurn) -> str:
    return "-".join(str(t) for t in (turn.turns[0], turn.turns[-1])) if len(turn.turns) > 1 else str(turn.turns[0])


def turn_page(turn: PublicTurn) -> str:
    return f"turn-{turn.turns[0]:03d}.html"


def player_page(player_id: str) -> str:
    # ids are letters, digits, '-', '_' and '.' (config.py), safe in a file name and a URL
    return f"player-{player_id}.html"


def _histories(data: ArchiveInput, player: str) -> tuple[PlayerBoardHistory, ...]:
    histories = []
    for index, board in enumerate(data.boards):
        rows = []
        for turn in data.turns:
            line = turn.boards[index]
            piece = next(p for p in line.pieces if p.player == player)
            if (piece.finished and not piece.finished_now) or (line.closed and not line.closed_now):
                continue  # nothing more happens to a finished piece or on a closed board
            rows.append(
                HistoryRow(turn_label(turn), turn_page(turn), piece)
            )
        placing = next((s.placings[index] for s in data.standings if s.player == player), None)
        histories.append(PlayerBoardHistory(board.id, board.squares, tuple(rows), placing))
    return tuple(histories)


def charts(data: ArchiveInput) -> tuple[Chart, ...]:
    """A race chart per board from the public turns: each piece's square after each turn."""
    result = []
    for index, board in enumerate(data.boards):
        series = []
        for player in data.players:
            squares, finished_from = [0], None
            for turn in data.turns:
                line = turn.boards[index]
                if line.closed and not line.closed_now:
                    break  # the board closed: its race is over
                piece = next(p for p in line.pieces if p.player == player.id)
                squares.append(piece.end)
                if piece.finished and finished_from is None:
                    finished_from = len(squares) - 1
            series.append(Series(player.id, player.name, tuple(squares), finished_from))
        result.append(race_chart(board.id, board.squares, series))
    return tuple(result)


def build_site(data: ArchiveInput) -> tuple[Page, ...]:
    """Every page of the archive, with its context. Pure: same input, same pages."""
    turn_links = tuple((turn_label(t), turn_page(t)) for t in data.turns)
    site = {
        "campaign": data.campaign,
        "title": data.title,
        "players": data.players,
        "boards": data.boards,
        "turn_links": turn_links,
        "player_links": tuple((p.name, player_page(p.id)) for p in data.players),
        "revealed": data.revealed,
        "over": data.over,
    }
    board_charts = charts(data)
    pages = [
        Page("index.html", "archive/index.html", site | {
            "page": "index",
            "standings": data.standings,
            "board_ids": tuple(b.id for b in data.boards),
            "charts": board_charts,
            "seed_commitment": data.seed_commitment,
            "next_turn": data.next_turn,
            "deadline": data.deadline,
            "last_turn": data.turns[-1].turns[-1] if data.turns else None,
            "ruleset": data.ruleset,
        }),
        Page("boards.html", "archive/boards.html", site | {
            "page": "boards",
            "seed_commitment": data.seed_commitment,
        }),
    ]
    for index, turn in enumerate(data.turns):
        previous = turn_links[index - 1] if index > 0 else None
        following = turn_links[index + 1] if index + 1 < len(turn_links) else None
        pages.append(Page(turn_page(turn), "archive/turn.html", site | {
            "page": "turn", "view": turn, "label": turn_label(turn),
            "previous": previous, "next": following,
        }))
    for player in data.players:
        line = next(s for s in data.standings if s.player == player.id)
        pages.append(Page(player_page(player.id), "archive/player.html", site | {
            "page": "player", "player": player, "standing": line,
            "histories": _histories(data, player.id),
            "chart_colour": _colour_of(board_charts, player.id),
        }))
    if data.revealed:
        for board in data.revealed.boards:
            # the exact canonical text, byte for byte, so anyone can hash the file itself
            pages.append(Page(board.canonical_file, None, data=board.canonical.encode("utf-8")))
    return tuple(pages)


def _colour_of(board_charts: Sequence[Chart], player: str) -> str | None:
    for chart in board_charts:
        for line in chart.lines:
            if line.player == player:
                return line.colour
    return None
