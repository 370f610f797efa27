"""The published archive (`gm publish`), phase one: what every page shows, as a pure step.

`load_archive(campaign)` reads what may be published from a campaign's store and passes it
to `assemble`, which asks the campaign's ruleset for its public views into an
`ArchiveInput`; `build_site` turns that into pages (path, template, context) without
touching a file, so the whole site can be checked before a byte is written
(gm.publish.write writes it; Pelican's two phases).

This module owns the pages (`build_site`); the values are gm.publish.archive_values's
and reading a campaign into them gm.publish.archive_load's.

The archive knows no ruleset. It asks the ruleset, through gm.rules.base:

* `event_from_json(data)`: each stored event, read back for `archive_turn`;
* `archive_turn(setup, before, after, events, names)`: each resolved turn as everyone
  may see it (`ArchiveTurn`: each piece's start, end and placing, the standings after it,
  and the ruleset's own `view` for its templates);
* `archive_standings(setup, state, names)`: the standings now;
* `archive_boards(setup, state, history)`: every board drawn, asked for before the reveal
  only when the ruleset's `hidden_boards` is false (its page under docs/rules/, What
  players see);
* its standings (Ruleset.standings): the turn, whether it is over, each
  board's `closed` and each piece's square.

Each has a default in gm.rules.base that reads the ruleset's typed standings, so a
ruleset with nothing of its own gets a plain archive from the generic templates. Pages name
their templates generically; `template_rulesets` gives the lookup order (gm.publish.render).

While the boards are hidden the input holds only what players may see (the ruleset's page
under docs/rules/, What players see): board ids and sizes, commitments and the public
turns. Board names and drawings enter only once revealed, with the salts and the seed.
Nobody's secret orders ever do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import markdown
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup

from ..audit.source import AUDIT_FILE
from ..pagenames import numbered_page, turn_page
from ..rules.base import (
    INLINE_PLAYERS,
    ArchivePiece,
    ArchiveStanding,
    ArchiveTurn,
)
from .archive_values import (
    ArchiveInput,
    BoardSummary,
    HistoryRow,
    Page,
    PlayerBoardHistory,
    TurnSummary,
    digest,
    turn_positions,
)
from .chart import COLOURS, Chart, FieldAt, Series, race_chart

# -- the pure step: pages -------------------------------------------------------------------

FEED = "feed.xml"
RULES_PAGE = "rules.html"
SAFE_LINK = re.compile(r"^(https?://|mailto:|#|[A-Za-z0-9_./-]*(#[A-Za-z0-9_.-]*)?\Z)")


class _SafeLinks(Treeprocessor):
    """Drops a link's or an image's target unless SAFE_LINK allows it."""

    def run(self, root):
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value is not None and not SAFE_LINK.match(value.strip()):
                    del element.attrib[attribute]


def rules_html(text: str) -> Markup:
    """The rules' Markdown as HTML for the archive's frame. The docs are ours, but raw HTML in
    them is shown as text rather than passed through, and a link or image to anything but
    the web, mail, an anchor or a relative path loses its target (no javascript: URL)."""
    md = markdown.Markdown(extensions=["tables", "toc"], output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_SafeLinks(md), "safe_links", 0)
    return Markup(md.convert(text))


def turn_label(turn: ArchiveTurn | TurnSummary) -> str:
    return "-".join(str(t) for t in (turn.turns[0], turn.turns[-1])) if len(turn.turns) > 1 else str(turn.turns[0])


def player_page(player_id: str) -> str:
    # ids are letters, digits, '-', '_' and '.' (config.py), safe in a file name and a URL
    return f"player-{player_id}.html"


def crowded(data: ArchiveInput) -> bool:
    """Too many players to list each one wherever a turn is told (INLINE_PLAYERS)."""
    return len(data.players) > INLINE_PLAYERS


def _board_of(turn: ArchiveTurn, board: str) -> Any:
    return next(line for line in turn.boards if line.board == board)


def _pieces_by_player(data: ArchiveInput) -> tuple[tuple[Mapping[str, ArchivePiece], ...], ...]:
    """For each turn, for each board in board order, each player's piece by id: read once
    per publish instead of searching every line for every player."""
    return tuple(
        tuple({piece.player: piece for piece in _board_of(turn, board.id).pieces} for board in data.boards)
        for turn in data.turns
    )


def _histories(data: ArchiveInput, player: str,
               pieces: Sequence[Sequence[Mapping[str, ArchivePiece]]] | None = None,
               standing: ArchiveStanding | None = None) -> tuple[PlayerBoardHistory, ...]:
    pieces = _pieces_by_player(data) if pieces is None else pieces
    if standing is None:
        standing = next((s for s in data.standings if s.player == player), None)
    histories = []
    for index, board in enumerate(data.boards):
        rows = []
        for turn, by_board in zip(data.turns, pieces, strict=True):
            line = _board_of(turn, board.id)
            piece = by_board[index][player]
            if (piece.finished and not piece.finished_now) or (line.closed and not line.closed_now):
                continue  # nothing more happens to a finished piece or on a closed board
            rows.append(HistoryRow(turn_label(turn), turn_page(turn), piece))
        placing = standing.placings[index] if standing is not None else None
        histories.append(PlayerBoardHistory(board.id, board.squares, tuple(rows), placing))
    return tuple(histories)


def _raced(data: ArchiveInput, index: int) -> list[BoardSummary]:
    """Board `index` after each turn of its race: up to the turn that closed it."""
    raced = []
    for summary in data.summaries:
        line = summary.boards[index]
        if line.closed and not line.closed_now:
            break  # the board closed: its race is over
        raced.append(line)
    return raced


def leaders(line: BoardSummary) -> list[int]:
    """The players (their indexes in campaign order) furthest on along a board: the placed
    by placing, then the rest by square, the campaign's order between equals."""
    def key(i: int) -> tuple[int, int, int]:
        if line.finished[i]:
            return (0, line.placings[i] or 0, i)
        return (1, -line.ends[i], i)

    return sorted(range(len(line.ends)), key=key)


CHARTED_LEADERS = len(COLOURS)  # a crowded campaign's chart draws one line per colour


def charts(data: ArchiveInput) -> tuple[Chart, ...]:
    """A race chart per board from the public turns: each piece's square after each turn;
    in a crowded campaign the leaders' pieces over the field's range and median."""
    result = []
    for index, board in enumerate(data.boards):
        raced = _raced(data, index)
        drawn: Sequence[int] = range(len(data.players))
        if crowded(data):
            drawn = leaders(raced[-1])[:CHARTED_LEADERS] if raced else ()
        series = []
        for i in drawn:
            squares, finished_from = [0], None
            for line in raced:
                squares.append(line.ends[i])
                if line.finished[i] and finished_from is None:
                    finished_from = len(squares) - 1
            series.append(Series(data.players[i].id, data.players[i].name, tuple(squares), finished_from))
        spread = None
        if crowded(data):
            spread = [FieldAt(0, 0, 0)]
            for line in raced:
                # a finished piece is charted on the finish line, one above the last square
                at = sorted(board.squares + 1 if done else end for end, done in zip(line.ends, line.finished, strict=True))
                spread.append(FieldAt(at[0], at[len(at) // 2], at[-1]))
        result.append(race_chart(board.id, board.squares, series, spread))
    return tuple(result)


FEED_LEADERS = 5  # a crowded campaign's feed entry names the five pieces furthest on per board


def feed_entry(data: ArchiveInput, index: int) -> dict[str, Any]:
    """One turn as the feed tells it, from its summary: who finished, and where the pieces
    stand (the leaders, in a crowded campaign)."""
    summary = data.summaries[index]
    boards = []
    for line in summary.boards:
        shown = leaders(line)[:FEED_LEADERS] if crowded(data) else range(len(line.ends))
        boards.append({
            "board": line.board,
            "closed_now": line.closed_now,
            "crossed": tuple((summary.names[i], line.placings[i]) for i in range(len(line.ends))
                             if line.finished_now[i]),
            "pieces": tuple({"name": summary.names[i], "end": line.ends[i], "finished": line.finished[i],
                             "placing": line.placings[i]} for i in shown),
        })
    return {
        "label": turn_label(summary),
        "page": turn_page(summary),
        "resolved_at": data.resolved_at[index] if index < len(data.resolved_at) else data.started_at,
        "over": summary.over,
        "next_turn": summary.next_turn,
        "boards": tuple(boards),
        "leaders_only": crowded(data),
    }


def build_site(data: ArchiveInput) -> tuple[Page, ...]:
    """Every page of the archive, with its context. Pure: same input, same pages. A page
    whose digest is known is made only if it must be rendered (gm.publish.write)."""
    site = _site(data)
    # a turn's page shows its own record, not the boards as they stand now
    turn_site = {name: value for name, value in site.items() if name != "boards"}
    site_digest = digest(repr(site)) if data.turn_digests else ""
    turn_site_digest = digest(repr(turn_site)) if data.turn_digests else ""
    board_charts = charts(data)
    pages = [
        *_front_pages(data, site, site_digest, board_charts),
        *_turn_pages(data, turn_site, turn_site_digest),
        *_player_pages(data, site, site_digest, board_charts),
    ]
    if data.rules is not None:
        rules = data.rules
        pages.append(Page(RULES_PAGE, "archive/rules.html", lambda: site | {
            "page": "rules", "rules": rules_html(rules),
        }, rulesets=data.template_rulesets, digest=_digest(data, site_digest, rules)))
    feed = {
        "archive_url": data.archive_url,
        "seed_commitment": data.seed_commitment,
        "started_at": data.started_at,
        "entries": tuple(feed_entry(data, index) for index in range(len(data.summaries))),
        "ended": data.ended,  # the GM's end (gm end): an entry of its own, the newest
    }
    pages.append(Page(FEED, None, _with_site(site, feed, "feed"), rulesets=data.template_rulesets, kind="atom",
                      digest=_digest(data, site_digest, repr(feed))))
    if data.revealed:
        for board in data.revealed.boards:
            # the exact canonical text, byte for byte, so anyone can hash the file itself
            pages.append(Page(board.canonical_file, None, data=board.canonical.encode("utf-8")))
        if data.revealed.record is not None:
            pages.append(Page(AUDIT_FILE, None, data=data.revealed.record))  # the file gm audit reads
    return tuple(pages)


def _site(data: ArchiveInput) -> dict[str, Any]:
    """What every page gets; the list of turns goes to the index only."""
    return {
        "campaign": data.campaign,
        "title": data.title,
        "ruleset": data.ruleset,
        "hidden_boards": data.hidden_boards,
        "players": data.players,
        "boards": data.boards,
        "board_ids": tuple(b.id for b in data.boards),
        "player_links": tuple((p.name, player_page(p.id)) for p in data.players),
        "revealed": data.revealed,
        "over": data.over,
        "former": {p.id: p.former for p in data.players},
        "feed": FEED,
        "rules_page": RULES_PAGE if data.rules is not None else None,
        "archive_url": data.archive_url,
    }


def _digest(data: ArchiveInput, base_digest: str, *parts: str) -> str | None:
    """The digest of a page that shows `parts` beside what its `base_digest` covers; None
    when the input has no digests (the page is always rendered)."""
    return digest(base_digest, *parts) if data.turn_digests else None


def _turn_links(data: ArchiveInput) -> tuple[tuple[str, str], ...]:
    return tuple((turn_label(t), turn_page(t)) for t in data.summaries)


def _front_pages(data: ArchiveInput, site: Mapping[str, Any], site_digest: str,
                 board_charts: Sequence[Chart]) -> list[Page]:
    """The index (standings, charts, the turns) and the boards page."""
    index = {
        "turn_links": _turn_links(data),
        "opening": data.opening,
        "standings": data.standings,
        "charts": board_charts,
        "seed_commitment": data.seed_commitment,
        "game_commitment": data.game_commitment,
        "next_turn": data.next_turn,
        "deadline": data.deadline,
        "last_turn": data.summaries[-1].turns[-1] if data.summaries else None,
        "ended": data.ended,
        "positions": data.positions,
    }
    boards = site | {"page": "boards", "seed_commitment": data.seed_commitment,
                     "game_commitment": data.game_commitment}
    return [
        Page("index.html", "archive/index.html", _with_site(site, index, "index"), rulesets=data.template_rulesets,
             digest=_digest(data, site_digest, repr(index))),
        Page("boards.html", "archive/boards.html", boards, rulesets=data.template_rulesets,
             digest=_digest(data, site_digest, data.seed_commitment, data.game_commitment or "")),
    ]


def _turn_pages(data: ArchiveInput, turn_site: Mapping[str, Any], turn_site_digest: str) -> list[Page]:
    """A page per resolved turn, and one for the turn still being played."""
    turn_links = _turn_links(data)
    # the turn still being played: its page is named now, so the last page's link to it
    # stays right when it is resolved
    upcoming = None
    if data.next_turn is not None and not data.over:
        upcoming = (str(data.next_turn), numbered_page(data.next_turn))
    pages = []
    for index, summary in enumerate(data.summaries):
        previous = turn_links[index - 1] if index > 0 else None
        following = turn_links[index + 1] if index + 1 < len(turn_links) else upcoming
        pages.append(Page(
            turn_page(summary), "archive/turn.html",
            _turn_context(data, index, turn_site | {"page": "turn", "previous": previous, "next": following}),
            rulesets=data.template_rulesets,
            digest=_digest(data, turn_site_digest, data.turn_digests[index] if data.turn_digests else "",
                           repr((previous, following, _press_of(data, index)))),
        ))
    if upcoming is not None:
        coming = {"label": upcoming[0], "deadline": data.deadline, "previous": turn_links[-1] if turn_links else None}
        pages.append(Page(upcoming[1], "archive/next.html", _with_site(turn_site, coming, "turn"),
                          rulesets=data.template_rulesets, digest=_digest(data, turn_site_digest, repr(coming))))
    return pages


def _player_pages(data: ArchiveInput, site: Mapping[str, Any], site_digest: str,
                  board_charts: Sequence[Chart]) -> list[Page]:
    """A page per player; a crowded campaign lists each one's history only once it is over."""
    standing_of = {s.player: s for s in data.standings}
    listed = not crowded(data) or data.over
    pieces = _pieces_by_player(data) if listed else ()
    pages = []
    for player in data.players:
        line = standing_of[player.id]
        own = {
            "player": player, "standing": line,
            "histories": _histories(data, player.id, pieces, line) if listed else None,
            "chart_colour": _colour_of(board_charts, player.id) if listed else None,
            "position": data.positions.get(player.id) if listed else None,
        }
        # the whole context made only for a page rendered: a weekly publish renders few of 500
        pages.append(Page(player_page(player.id), "archive/player.html", _with_site(site, own, "player"),
                          rulesets=data.template_rulesets, digest=_digest(data, site_digest, repr(own))))
    return pages


def _with_site(site: Mapping[str, Any], own: Mapping[str, Any], page: str) -> Callable[[], Mapping[str, Any]]:
    """A page's context, what every page gets and its own, made when the page is rendered."""
    return lambda: {**site, "page": page, **own}


def _turn_context(data: ArchiveInput, index: int, around: Mapping[str, Any]) -> Callable[[], Mapping[str, Any]]:
    """A turn page's context, made (and the turn derived) only when the page is rendered."""
    def make() -> Mapping[str, Any]:
        turn = data.turns[index]
        return dict(around) | {"record": turn, "view": turn.view, "label": turn_label(turn),
                               "positions": turn_positions(turn),
                               "proof": data.records[index] if data.records else None,
                               "press": _press_of(data, index)}

    return make


def _press_of(data: ArchiveInput, index: int) -> tuple[Any, ...]:
    """The public press received while the turns of page `index` took orders."""
    return tuple(item for turn in data.summaries[index].turns for item in data.press.get(turn, ()))


def _colour_of(board_charts: Sequence[Chart], player: str) -> str | None:
    for chart in board_charts:
        for line in chart.lines:
            if line.player == player:
                return line.colour
    return None
