"""The archive's values: what may be published of a campaign (`ArchiveInput` and its parts), a
turn's summary as the memo keeps it, and a page to render (`Page`). Pure data: no store, no
templates."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules.base import (
    ArchivePicture,
    ArchivePiece,
    ArchiveStanding,
    ArchiveTurn,
    Ruleset,
)
from ..rules.files import lineage


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
    game_commitment: str | None = None  # docs/audit.md; None for a campaign started before it
    # docs/audit.md, the record chain: each turn's record hash and receipts played (None for a campaign started
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
    # docs/rules/, Order mail: Press: each turn's public press, {turn: ({name, text}, ...)}
    press: Mapping[int, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    """One file of the site: rendered from `template` with `context`, or raw `data`.
    `template` is a generic name (archive/turn.html); the rulesets in `rulesets` have
    their own copy looked up first (gm.rules.templating, the one lookup)."""

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
    """A turn's link of the record chain (docs/audit.md), as its page shows it: the record hash,
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
    # the record chain (docs/audit.md): its record hash and each seat's receipt played (None: no order), keyed by
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
    (gm.rules.files.lineage, the one rule of every template lookup)."""
    return lineage(ruleset)


def turn_positions(turn: ArchiveTurn) -> dict[str, tuple[Position, ...]]:
    """Each player's piece on every board at the end of `turn`."""
    result: dict[str, list[Position]] = {}
    for line in turn.boards:
        for piece in line.pieces:
            result.setdefault(piece.player, []).append(Position(piece.end, piece.finished))
    return {p: tuple(v) for p, v in result.items()}
