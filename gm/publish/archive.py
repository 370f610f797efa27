"""The published archive (`gm publish`), phase one: what every page shows, as a pure step.

`load_archive(campaign)` reads what may be published from a campaign's store and passes it
to `assemble`, which asks the campaign's ruleset for its public views into an
`ArchiveInput`; `build_site` turns that into pages (path, template, context) without
touching a file, so the whole site can be checked before a byte is written
(gm.publish.write writes it; Pelican's two phases).

The archive knows no ruleset. It asks the ruleset, through gm.rules.base:

* `event_from_json(data)`: each stored event, read back for `archive_turn`;
* `archive_turn(setup, before, after, events, names)`: each resolved turn as everyone
  may see it (`ArchiveTurn`: each piece's start, end and placing, the standings after it,
  and the ruleset's own `view` for its templates);
* `archive_standings(setup, state, names)`: the standings now;
* `archive_boards(setup, state, history)`: every board drawn, asked for before the reveal
  only when the ruleset's `hidden_boards` is false (RULES.md 2.6, 4.1);
* its standings (gm.rules.standings.standings_of): the turn, whether it is over, each
  board's `closed` and each piece's square.

Each has a default in gm.rules.base that reads the ruleset's typed standings, so a
ruleset with nothing of its own gets a plain archive from the generic templates. Pages name
their templates generically; `template_rulesets` gives the lookup order (gm.publish.render).

While the boards are hidden the input holds only what RULES.md 2.6 lets players see:
board ids and sizes, commitments and the public turns. Board names and drawings enter
only once revealed, with the salts and the seed. Nobody's secret orders ever do.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..campaign.holders import as_now as _as_now
from ..campaign.holders import ids_as_now as _ids_as_now
from ..pagenames import numbered_page, turn_page
from ..rules.base import (
    INLINE_PLAYERS,
    ArchivePicture,
    ArchivePiece,
    ArchiveStanding,
    ArchiveTurn,
    Ruleset,
    Setup,
)
from ..rules.standings import Standings, standings_from_json, standings_of
from ..ruleset_files import lineage, rules_file
from .chart import COLOURS, Chart, FieldAt, Series, race_chart


@dataclass(frozen=True)
class BoardPublic:
    id: str
    squares: int
    commitment: str
    closed: bool
    name: str | None = None  # None while the layout is hidden
    picture: ArchivePicture | None = None  # the board drawn, once its layout is public


@dataclass(frozen=True)
class RevealedBoard:
    id: str
    name: str
    squares: int
    salt: str
    canonical: str
    commitment: str
    canonical_file: str
    picture: ArchivePicture | None  # drawn by the ruleset through gm.boards.svg, which escapes every text


@dataclass(frozen=True)
class Revealed:
    seed: int
    seed_salt: str
    seed_commitment: str
    revealed_at: str
    boards: tuple[RevealedBoard, ...]
    deal: Any = None  # the ruleset's view of what was dealt at start (Ruleset.archive_deal)
    record: bytes | None = None  # the audit record (gm.campaign.audit_record), published as AUDIT_FILE


@dataclass(frozen=True)
class FormerHolder:
    """Someone who held a seat before its current holder, up to and including `until_turn`;
    `left_order`: the turn after it was played with the order they had sent for it."""

    player: str
    name: str
    until_turn: int
    left_order: bool = False


@dataclass(frozen=True)
class PlayerPublic:
    id: str
    name: str
    former: tuple[FormerHolder, ...] = ()  # who held this seat before, oldest first


@dataclass(frozen=True)
class Holder:
    """One row of Campaign.holders(): who held which seat (its index in campaign.yaml) when."""

    seat: int
    player: str
    name: str
    from_turn: int | None
    until_turn: int | None  # None for the current holder
    left_order: bool = False  # the turn after until_turn played the order they left


@dataclass(frozen=True)
class Position:
    """Where a piece stands on a board: its square (0 is Start) and whether it has finished.
    Public in every ruleset (each turn's report shows where each piece ended)."""

    square: int
    finished: bool


@dataclass(frozen=True)
class BoardSummary:
    """One board after a turn as the index, the race charts and the feed need it: each
    player's piece in campaign order."""

    board: str
    closed: bool
    closed_now: bool
    ends: tuple[int, ...]
    finished: tuple[bool, ...]
    finished_now: tuple[bool, ...]
    placings: tuple[int | None, ...]


@dataclass(frozen=True)
class TurnSummary:
    """What the pages other than its own need of a resolved turn: small enough to keep
    between publishes (gm.publish.memo), so a weekly publish derives only the new turn."""

    turns: tuple[int, ...]
    names: tuple[str, ...]  # each player's name as the turn tells it, in campaign order
    boards: tuple[BoardSummary, ...]
    over: bool
    next_turn: int | None


def summarize(turn: ArchiveTurn) -> TurnSummary:
    return TurnSummary(
        turns=tuple(turn.turns),
        names=tuple(p.name for p in turn.boards[0].pieces) if turn.boards else (),
        boards=tuple(
            BoardSummary(
                board=b.board, closed=b.closed, closed_now=b.closed_now,
                ends=tuple(p.end for p in b.pieces),
                finished=tuple(p.finished for p in b.pieces),
                finished_now=tuple(p.finished_now for p in b.pieces),
                placings=tuple(p.placing for p in b.pieces),
            )
            for b in turn.boards
        ),
        over=turn.over,
        next_turn=turn.next_turn,
    )


def summary_to_json(summary: TurnSummary) -> str:
    data = {
        "turns": summary.turns,
        "names": summary.names,
        "boards": [{"board": b.board, "closed": b.closed, "closed_now": b.closed_now, "ends": b.ends,
                    "finished": b.finished, "finished_now": b.finished_now, "placings": b.placings}
                   for b in summary.boards],
        "over": summary.over,
        "next_turn": summary.next_turn,
    }
    return json.dumps(data, separators=(",", ":"))


def summary_from_json(text: str) -> TurnSummary:
    data = json.loads(text)
    return TurnSummary(
        turns=tuple(data["turns"]),
        names=tuple(data["names"]),
        boards=tuple(
            BoardSummary(b["board"], b["closed"], b["closed_now"], tuple(b["ends"]), tuple(b["finished"]),
                         tuple(b["finished_now"]), tuple(b["placings"]))
            for b in data["boards"]
        ),
        over=data["over"],
        next_turn=data["next_turn"],
    )


class Lazy(Sequence):
    """A sequence whose items are made only when read, each once: a weekly publish reads
    and derives the new turn, not every turn played."""

    def __init__(self, count: int, make: Callable[[int], Any]):
        self._count = count
        self._make = make
        self._made: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        if index not in self._made:
            self._made[index] = self._make(index)
        return self._made[index]


def digest(*parts: str) -> str:
    """A page's or a turn's inputs in one SHA-256: equal digests, equal pages."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


@dataclass(frozen=True)
class ArchiveInput:
    """Everything the archive may show. Nothing hidden has a field here until revealed."""

    campaign: str
    title: str
    ruleset: str
    template_rulesets: tuple[str, ...]  # whose templates are looked up first, most specific first
    hidden_boards: bool
    players: tuple[PlayerPublic, ...]
    boards: tuple[BoardPublic, ...]
    seed_commitment: str
    turns: Sequence[ArchiveTurn]  # derived when read (Lazy)
    standings: tuple[ArchiveStanding, ...]
    over: bool
    next_turn: int | None
    deadline: str | None
    revealed: Revealed | None = None
    opening: Any = None  # the ruleset's public view of the start (Ruleset.opening_view)
    game_commitment: str | None = None  # RULES.md 5; None for a campaign started before it
    # RULES.md 5: each turn's record hash and receipts played (None for a campaign started
    # before the proof existed), made when read, like `turns`
    records: Sequence[TurnRecord | None] = ()
    # each player's piece per board now, in board order, for the standings during play
    positions: Mapping[str, tuple[Position, ...]] = field(default_factory=dict)
    resolved_at: tuple[str, ...] = ()  # when each of `turns` was resolved (UTC, ISO 8601)
    started_at: str | None = None
    archive_url: str | None = None  # campaign.yaml's, ending with "/": the feed's links are absolute
    rules: str | None = None  # the ruleset's rules in Markdown (docs/rules/<ruleset>.md), when shipped
    summaries: tuple[TurnSummary, ...] = ()  # one per turn
    # one per turn when read from a store: its stored record and names, hashed; a page
    # built from unchanged turns gets an unchanged digest and is not rendered again
    turn_digests: tuple[str, ...] = ()
    # how the GM ended the campaign (gm end: the turn it ended after, the reason given), or
    # None when the rules ended it or it runs; the index says it where it says how it ended
    ended: Any = None


@dataclass(frozen=True)
class Page:
    """One file of the site: rendered from `template` with `context`, or raw `data`.
    `template` is a generic name (archive/turn.html); the rulesets in `rulesets` have
    their own copy looked up first (gm.publish.render.template_candidates)."""

    path: str
    template: str | None
    # or a function that makes it, called only when the page is rendered
    context: Mapping[str, Any] | Callable[[], Mapping[str, Any]] = field(default_factory=dict)
    data: bytes | None = None
    rulesets: tuple[str, ...] = ()
    kind: str = "html"  # "atom": the feed, built by gm.publish.feed from `context`
    digest: str | None = None  # of everything the page shows; None: always rendered

    def made_context(self) -> Mapping[str, Any]:
        return self.context() if callable(self.context) else self.context


@dataclass(frozen=True)
class HistoryRow:
    label: str  # the turn's label: "3" or "5-6"
    page: str
    piece: ArchivePiece  # the public start and end of that turn


@dataclass(frozen=True)
class PlayerBoardHistory:
    board: str
    squares: int
    rows: tuple[HistoryRow, ...]
    placing: int | None


@dataclass(frozen=True)
class TurnRecord:
    """A turn's link of RULES.md 5's record chain, as its page shows it: the record hash,
    and each seat's receipt played (None: no order) in seat order, under the name of whoever
    held the seat then. Salted with the secret seed, they tell nothing of an order."""

    turn: int
    record_hash: str
    receipts: tuple[tuple[str, str, str | None], ...]  # (player id, name, receipt or None)


@dataclass(frozen=True)
class PlayedTurn:
    """One resolved turn as stored: the states around it and what happened."""

    before: Any
    after: Any
    events: tuple[Any, ...]
    # RULES.md 5: its record hash and each seat's receipt played (None: no order), keyed by
    # the seat's current holder; None for a campaign started before the proof existed
    record_hash: str | None = None
    receipts: Mapping[str, str | None] | None = None


@dataclass(frozen=True)
class Secrets:
    """What `gm reveal` publishes: the seed and its salt, every board's salt and text."""

    seed: int
    seed_salt: str
    revealed_at: str
    salts: Mapping[str, str]
    canonical: Mapping[str, str]


def template_rulesets(ruleset: Ruleset) -> tuple[str, ...]:
    """The ruleset's name, then the names of the rulesets it is derived from: a GM's house
    ruleset derived from a built-in one shows that one's pages where it has none of its own
    (gm.ruleset_files.lineage, the one rule of every template lookup)."""
    return lineage(ruleset)


# -- reading what may be published --------------------------------------------------------


def load_archive(campaign: Any, memo: Any = None) -> ArchiveInput:
    """The archive's input from an opened campaign: public facts, and the revealed ones
    only once `gm reveal` has run. A turn is read from the store and derived only when a
    page needs it: `memo` (gm.publish.memo.Memo) keeps each turn's summary from the last
    publish under the digest of its stored record, so only new or changed turns are."""
    from ..campaign.campaign import deadline_text

    config, setup, ruleset = campaign.config, campaign.setup, campaign.ruleset
    row = campaign.row()
    board_rows = {b["id"]: b for b in campaign.store.rows("select * from boards")}
    state = campaign.state()
    names = campaign.names()
    holders = tuple(Holder(**h) for h in campaign.holders())
    # a stored turn keeps the ids of its time; the archive tells a seat's history as one
    # line under its current holder's id, and _names_at gives each turn its holder's name
    aliases = {old: now for old, now in campaign.seat_holders().items() if old != now}
    # an old turn's states and events are read only if it must be derived again
    turn_rows = campaign.store.rows("select turn, resolved_at, digest, record_hash from turns order by turn")

    def played(index: int) -> PlayedTurn:
        turn_row = campaign.store.one(
            "select state_before, state_after, events, record_hash, receipts from turns where turn = ?",
            (turn_rows[index]["turn"],))
        return PlayedTurn(
            _as_now(ruleset, ruleset.load_state(json.loads(turn_row["state_before"])), aliases),
            _as_now(ruleset, ruleset.load_state(json.loads(turn_row["state_after"])), aliases),
            tuple(ruleset.event_from_json(_ids_as_now(e, aliases)) for e in json.loads(turn_row["events"])),
            turn_row["record_hash"],
            _ids_as_now(json.loads(turn_row["receipts"]), aliases) if turn_row["receipts"] else None,
        )

    # a turn's page shows its record (RULES.md 5): its record hash is in the digest, and
    # binds the receipts played with it
    digests = tuple(
        digest(SUMMARY_FORMAT, ruleset.name, r["digest"], r["record_hash"] or "", json.dumps(sorted(aliases.items())),
               json.dumps(sorted(_names_at(names, holders, r["turn"]).items())))
        for r in turn_rows
    )
    secrets = None
    if row["revealed_at"]:
        secrets = Secrets(
            seed=config.seed,
            seed_salt=row["seed_salt"],
            revealed_at=row["revealed_at"],
            salts={b: board_rows[b]["salt"] for b in setup.boards},
            canonical={b: board_rows[b]["canonical"] for b in setup.boards},
        )
    now = standings_of(ruleset, setup, state)
    deadline = None if now.over else deadline_text(campaign.deadline(), config.timezone)
    resolved = tuple(r["resolved_at"] or "" for r in turn_rows)
    return assemble(
        ruleset, setup,
        campaign=config.id,
        title=config.title,
        names=names,
        commitments={b: board_rows[b]["commitment"] for b in setup.boards},
        seed_commitment=row["seed_commitment"],
        game_commitment=row.get("game_commitment"),
        state=state,
        now=now,
        played=Lazy(len(turn_rows), played),
        deadline=deadline["utc"] if deadline else None,
        secrets=secrets,
        opening=campaign.opening_view(),
        holders=holders,
        resolved_at=resolved,
        started_at=row.get("started_at"),
        archive_url=config.archive_url,
        rules=rules_text(template_rulesets(ruleset)),
        turn_digests=digests,
        memo=memo,
        audit=_audit_bytes(campaign) if secrets is not None else None,
        ended=_ended(campaign, state),
    )


@dataclass(frozen=True)
class GmEnd:
    """The GM's end of the campaign (gm end) as the archive tells it: the turn it ended
    after, the reason given (None when none) and when (UTC, ISO 8601; the feed's entry)."""

    turn: int
    reason: str | None
    at: str | None = None


def _ended(campaign: Any, state: Any) -> GmEnd | None:
    """The GM's end of the campaign, or None while it runs or when its rules ended it."""
    if not state.over:
        return None  # as how_it_ended says, without importing gm end's mail and turn machinery
    from ..campaign.ending import how_it_ended

    end = how_it_ended(campaign, state)
    return GmEnd(end.turn, end.reason, end.at) if end is not None and end.by == "gm" else None


def _audit_bytes(campaign: Any) -> bytes:
    """The revealed campaign's audit record (docs/audit.md), as published."""
    from ..campaign.audit_record import audit_record

    return (json.dumps(audit_record(campaign), ensure_ascii=False, indent=1) + "\n").encode("utf-8")


# a turn's summary as the memo keeps it: a new format makes every kept summary stale
SUMMARY_FORMAT = "summary 1"


def rules_text(rulesets: Sequence[str]) -> str | None:
    """The rules page's Markdown: the first of `rulesets` (a lineage) that has rules, its
    own `rules_page` or gm's docs/rules/<ruleset>.md (a house ruleset shows the rules of the
    one it derives from), or None (gm.ruleset_files.rules_file)."""
    path = rules_file(rulesets)
    return path.read_text(encoding="utf-8") if path else None


def _names_at(names: Mapping[str, str], holders: Sequence[Holder], turn: int) -> Mapping[str, str]:
    """The names as they stood in `turn`: a seat's current holder is shown under the name of
    whoever held the seat then (a state renamed to the new id still shows the old holder)."""
    current = {h.seat: h.player for h in holders if h.until_turn is None}
    result = dict(names)
    for h in holders:
        if h.until_turn is not None and h.seat in current and (h.from_turn or 0) <= turn <= h.until_turn:
            result[current[h.seat]] = h.name
    return result


def _formers(holders: Sequence[Holder]) -> dict[str, tuple[FormerHolder, ...]]:
    """Who held each current holder's seat before them, oldest first: one pass over the
    holders for every player (a replaced seat is rare; 2,000 players are not)."""
    current = {h.seat: h.player for h in holders if h.until_turn is None}
    result: dict[str, list[FormerHolder]] = {}
    for h in sorted(holders, key=lambda h: (h.from_turn or 0, h.until_turn or 0)):
        if h.until_turn is not None and h.seat in current:
            former = FormerHolder(h.player, h.name, h.until_turn, bool(h.left_order))
            result.setdefault(current[h.seat], []).append(former)
    return {player: tuple(formers) for player, formers in result.items()}


def positions_of(setup: Setup, now: Standings | Mapping[str, Any]) -> dict[str, tuple[Position, ...]]:
    """Each player's piece on every board, from the standings (or, as before typed standings,
    the CONTRACT.md keys of a `state_json`)."""
    now = now if isinstance(now, Standings) else standings_from_json(now)
    return {
        p: tuple(Position(now.boards[b].pieces[p].square, bool(now.boards[b].pieces[p].finished))
                 for b in setup.boards)
        for p in setup.players
    }


def turn_positions(turn: ArchiveTurn) -> dict[str, tuple[Position, ...]]:
    """Each player's piece on every board at the end of `turn`."""
    result: dict[str, list[Position]] = {}
    for line in turn.boards:
        for piece in line.pieces:
            result.setdefault(piece.player, []).append(Position(piece.end, piece.finished))
    return {p: tuple(v) for p, v in result.items()}


def assemble(
    ruleset: Ruleset,
    setup: Setup,
    *,
    campaign: str,
    title: str,
    names: Mapping[str, str],
    commitments: Mapping[str, str],
    seed_commitment: str,
    state: Any,
    played: Sequence[PlayedTurn],
    deadline: str | None = None,
    secrets: Secrets | None = None,
    opening: Any = None,
    holders: Sequence[Holder] = (),
    resolved_at: Sequence[str] = (),
    started_at: str | None = None,
    archive_url: str | None = None,
    rules: str | None = None,
    turn_digests: Sequence[str] = (),
    memo: Any = None,
    audit: bytes | None = None,
    game_commitment: str | None = None,
    now: Standings | Mapping[str, Any] | None = None,
    ended: Any = None,
) -> ArchiveInput:
    """The archive's input from a ruleset's views of a campaign (no store: the tests feed
    it campaigns played in the rules core). The boards are drawn, and named, only when
    the ruleset's layouts are public or the campaign has been revealed. Each turn is
    told under the names of the seats' holders of that turn (`holders`), and derived
    when first read; its summary comes from `memo` when kept there under its digest."""

    def derive(index: int) -> ArchiveTurn:
        t = played[index]
        return ruleset.archive_turn(setup, t.before, t.after, t.events, _names_at(names, holders, t.before.turn))

    turns = Lazy(len(played), derive)

    def record(index: int) -> TurnRecord | None:
        t = played[index]
        if t.record_hash is None or t.receipts is None:
            return None
        at = _names_at(names, holders, t.before.turn)
        seats = [p for p in setup.players if p in t.receipts] + [p for p in t.receipts if p not in setup.players]
        return TurnRecord(t.before.turn, t.record_hash, tuple((p, at.get(p, p), t.receipts[p]) for p in seats))

    records = Lazy(len(played), record)
    summaries = []
    for index in range(len(turns)):
        kept = memo.summary(index, turn_digests[index]) if memo is not None and turn_digests else None
        if kept is None:
            kept = summarize(turns[index])
            if memo is not None and turn_digests:
                memo.keep_summary(index, turn_digests[index], kept)
        summaries.append(kept)
    # the standings now; a mapping is a state_json's CONTRACT.md keys, as callers gave it before
    if now is None:
        now = standings_of(ruleset, setup, state)
    elif not isinstance(now, Standings):
        now = standings_from_json(now)
    shown = secrets is not None or not ruleset.hidden_boards
    pictures: dict[str, ArchivePicture] = {}
    if shown:
        history = tuple((t.before, t.after) for t in played)
        pictures = {p.board: p for p in ruleset.archive_boards(setup, state, history)}
    boards = tuple(
        BoardPublic(
            id=b,
            squares=board.squares,
            commitment=commitments[b],
            closed=now.boards[b].closed,
            name=board.name if shown else None,
            picture=pictures.get(b),
        )
        for b, board in setup.boards.items()
    )
    formers = _formers(holders)
    revealed = None
    if secrets is not None:
        revealed = Revealed(
            seed=secrets.seed,
            seed_salt=secrets.seed_salt,
            seed_commitment=seed_commitment,
            revealed_at=secrets.revealed_at,
            boards=tuple(
                RevealedBoard(
                    id=b,
                    name=board.name,
                    squares=board.squares,
                    salt=secrets.salts[b],
                    canonical=secrets.canonical[b],
                    commitment=commitments[b],
                    canonical_file=f"board-{b}.json",
                    picture=pictures.get(b),
                )
                for b, board in setup.boards.items()
            ),
            deal=ruleset.archive_deal(setup, played[0].before if played else state, names),
            record=audit,
        )
    return ArchiveInput(
        campaign=campaign,
        title=title,
        ruleset=ruleset.name,
        template_rulesets=template_rulesets(ruleset),
        hidden_boards=ruleset.hidden_boards,
        players=tuple(PlayerPublic(p, names.get(p, p), formers.get(p, ())) for p in setup.players),
        boards=boards,
        seed_commitment=seed_commitment,
        turns=turns,
        standings=ruleset.archive_standings(setup, state, names),
        over=bool(now.over),
        next_turn=None if now.over else now.turn,
        deadline=deadline,
        revealed=revealed,
        opening=opening,
        positions=positions_of(setup, now),
        resolved_at=tuple(resolved_at),
        started_at=started_at,
        archive_url=archive_url,
        rules=rules,
        summaries=tuple(summaries),
        turn_digests=tuple(turn_digests),
        game_commitment=game_commitment,
        records=records,
        ended=ended,
    )


# -- the pure step: pages -------------------------------------------------------------------

FEED = "feed.xml"
RULES_PAGE = "rules.html"
SAFE_LINK = re.compile(r"^(https?://|mailto:|#|[A-Za-z0-9_./-]*(#[A-Za-z0-9_.-]*)?\Z)")


def rules_html(text: str) -> Markup:
    """The rules' Markdown as HTML for the archive's frame. The docs are ours, but raw HTML in
    them is shown as text rather than passed through, and a link or image to anything but
    the web, mail, an anchor or a relative path loses its target (no javascript: URL)."""
    import markdown
    from markdown.treeprocessors import Treeprocessor

    class SafeLinks(Treeprocessor):
        def run(self, root):
            for element in root.iter():
                for attribute in ("href", "src"):
                    value = element.get(attribute)
                    if value is not None and not SAFE_LINK.match(value.strip()):
                        del element.attrib[attribute]

    md = markdown.Markdown(extensions=["tables", "toc"], output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(SafeLinks(md), "safe_links", 0)
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
    turn_links = tuple((turn_label(t), turn_page(t)) for t in data.summaries)
    # what every page gets; the list of turns goes to the index only
    site = {
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
    standing_of = {s.player: s for s in data.standings}
    board_charts = charts(data)
    # a turn's page shows its own record, not the boards as they stand now
    turn_site = {name: value for name, value in site.items() if name != "boards"}
    digests = bool(data.turn_digests)
    site_digest = digest(repr(site)) if digests else ""
    turn_site_digest = digest(repr(turn_site)) if digests else ""
    rulesets = data.template_rulesets

    def with_digest(base_digest: str, own: Mapping[str, Any]) -> str | None:
        """The digest of a page that shows `own` beside what every page gets."""
        return digest(base_digest, repr(own)) if digests else None

    index = {
        "turn_links": turn_links,
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
    pages = [
        Page("index.html", "archive/index.html", _with_site(site, index, "index"), rulesets=rulesets,
             digest=with_digest(site_digest, index)),
        Page("boards.html", "archive/boards.html", site | {
            "page": "boards",
            "seed_commitment": data.seed_commitment,
            "game_commitment": data.game_commitment,
        }, rulesets=rulesets,
            digest=digest(site_digest, data.seed_commitment, data.game_commitment or "") if digests else None),
    ]
    # the turn still being played: its page is named now, so the last page's link to it
    # stays right when it is resolved
    upcoming = None
    if data.next_turn is not None and not data.over:
        upcoming = (str(data.next_turn), numbered_page(data.next_turn))
    for index, summary in enumerate(data.summaries):
        previous = turn_links[index - 1] if index > 0 else None
        following = turn_links[index + 1] if index + 1 < len(turn_links) else upcoming
        pages.append(Page(
            turn_page(summary), "archive/turn.html",
            _turn_context(data, index, turn_site | {"page": "turn", "previous": previous, "next": following}),
            rulesets=rulesets,
            digest=digest(turn_site_digest, data.turn_digests[index], repr((previous, following))) if digests else None,
        ))
    if upcoming is not None:
        coming = {"label": upcoming[0], "deadline": data.deadline, "previous": turn_links[-1] if turn_links else None}
        pages.append(Page(upcoming[1], "archive/next.html", _with_site(turn_site, coming, "turn"), rulesets=rulesets,
                          digest=with_digest(turn_site_digest, coming)))
    listed = not crowded(data) or data.over
    pieces = _pieces_by_player(data) if listed else ()
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
                          rulesets=rulesets, digest=with_digest(site_digest, own)))
    if data.rules is not None:
        rules = data.rules
        pages.append(Page(RULES_PAGE, "archive/rules.html", lambda: site | {
            "page": "rules", "rules": rules_html(rules),
        }, rulesets=rulesets, digest=digest(site_digest, rules) if digests else None))
    feed = {
        "archive_url": data.archive_url,
        "seed_commitment": data.seed_commitment,
        "started_at": data.started_at,
        "entries": tuple(feed_entry(data, index) for index in range(len(data.summaries))),
        "ended": data.ended,  # the GM's end (gm end): an entry of its own, the newest
    }
    pages.append(Page(FEED, None, _with_site(site, feed, "feed"), rulesets=rulesets, kind="atom",
                      digest=with_digest(site_digest, feed)))
    if data.revealed:
        for board in data.revealed.boards:
            # the exact canonical text, byte for byte, so anyone can hash the file itself
            pages.append(Page(board.canonical_file, None, data=board.canonical.encode("utf-8")))
        if data.revealed.record is not None:
            # the file gm audit reads: its module imported only once there is one to write
            from ..audit import AUDIT_FILE

            pages.append(Page(AUDIT_FILE, None, data=data.revealed.record))
    return tuple(pages)


def _with_site(site: Mapping[str, Any], own: Mapping[str, Any], page: str) -> Callable[[], Mapping[str, Any]]:
    """A page's context, what every page gets and its own, made when the page is rendered."""
    return lambda: {**site, "page": page, **own}


def _turn_context(data: ArchiveInput, index: int, around: Mapping[str, Any]) -> Callable[[], Mapping[str, Any]]:
    """A turn page's context, made (and the turn derived) only when the page is rendered."""
    def make() -> Mapping[str, Any]:
        turn = data.turns[index]
        return dict(around) | {"record": turn, "view": turn.view, "label": turn_label(turn),
                               "positions": turn_positions(turn),
                               "proof": data.records[index] if data.records else None}

    return make


def _colour_of(board_charts: Sequence[Chart], player: str) -> str | None:
    for chart in board_charts:
        for line in chart.lines:
            if line.player == player:
                return line.colour
    return None
