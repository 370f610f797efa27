"""The archive's input, read from a campaign: `load_archive(campaign)` reads what may be
published from the store and passes it to `assemble`, which asks the ruleset for its
public views (see gm.publish.archive for what it asks) and makes the `ArchiveInput`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..campaign.audit_record import audit_record
from ..campaign.campaign_end import how_it_ended
from ..campaign.deadlines import deadline_text
from ..campaign.holders import holder_aliases as _holder_aliases
from ..campaign.holders import ids_as_now as _ids_as_now
from ..campaign.holders import stored_events_as_now as _events_as_now
from ..campaign.holders import stored_state_as_now as _state_as_now
from ..campaign.press import published_press
from ..rules.base import (
    ArchivePicture,
    ArchiveTurn,
    Ruleset,
    Setup,
)
from ..rules.files import rules_file
from ..rules.standings import Standings, standings_from_json
from .archive_values import (
    ArchiveInput,
    BoardPublic,
    FormerHolder,
    Holder,
    Lazy,
    PlayedTurn,
    PlayerPublic,
    Position,
    Revealed,
    RevealedBoard,
    Secrets,
    TurnRecord,
    TurnSummary,
    digest,
    summarize,
    template_rulesets,
)

# -- reading what may be published --------------------------------------------------------


def load_archive(campaign: Any, memo: Any = None) -> ArchiveInput:
    """The archive's input from an opened campaign: public facts, and the revealed ones
    only once `gm reveal` has run. A turn is read from the store and derived only when a
    page needs it: `memo` (gm.publish.memo.Memo) keeps each turn's summary from the last
    publish under the digest of its stored record, so only new or changed turns are."""
    config, setup, ruleset = campaign.config, campaign.setup, campaign.ruleset
    row = campaign.row()
    board_rows = {b["id"]: b for b in campaign.store.rows("select * from boards")}
    state = campaign.state()
    names = campaign.names()
    holders = tuple(Holder(**h) for h in campaign.holders())
    # a stored turn keeps the ids of its time; the archive tells a seat's history as one
    # line under its current holder's id, and _names_at gives each turn its holder's name
    aliases = _holder_aliases(campaign)
    # an old turn's states and events are read only if it must be derived again
    turn_rows = campaign.store.rows("select turn, resolved_at, digest, record_hash from turns order by turn")

    def played(index: int) -> PlayedTurn:
        turn_row = campaign.store.one(
            "select state_before, state_after, events, record_hash, receipts from turns where turn = ?",
            (turn_rows[index]["turn"],))
        return PlayedTurn(
            _state_as_now(ruleset, turn_row["state_before"], aliases),
            _state_as_now(ruleset, turn_row["state_after"], aliases),
            _events_as_now(ruleset, turn_row["events"], aliases),
            turn_row["record_hash"],
            _ids_as_now(json.loads(turn_row["receipts"]), aliases) if turn_row["receipts"] else None,
        )

    # a turn's page shows its record (docs/audit.md, the record chain): its record hash is in the digest, and
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
    now = ruleset.standings(setup, state)
    deadline = None if now.over else deadline_text(campaign.deadline(), config.timezone)
    resolved = tuple(r["resolved_at"] or "" for r in turn_rows)
    return replace(assemble(
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
        opening=_opening(campaign, aliases, _names_at_start(names, holders)),
        holders=holders,
        resolved_at=resolved,
        started_at=row.get("started_at"),
        archive_url=config.archive_url,
        rules=rules_text(template_rulesets(ruleset)),
        turn_digests=digests,
        memo=memo,
        audit=_audit_bytes(campaign) if secrets is not None else None,
        ended=_ended(campaign, state),
    ), press=published_press(campaign))


def _opening(campaign: Any, aliases: Mapping[str, str], names: Mapping[str, str]) -> Any:
    """The start as the archive tells it: each seat under its current holder's id, whose
    page the archive has (a former holder has none), named as at gm start (`names`)."""
    stored = json.loads(campaign.row()["opening"] or "{}")
    events = [campaign.ruleset.event_from_json(_ids_as_now(e, aliases)) for e in stored.get("events", ())]
    return campaign.ruleset.opening_view(campaign.setup, events, names)


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
        return None  # as how_it_ended says
    end = how_it_ended(campaign, state)
    return GmEnd(end.turn, end.reason, end.at) if end is not None and end.by == "gm" else None


def _audit_bytes(campaign: Any) -> bytes:
    """The revealed campaign's audit record (docs/audit.md), as published."""
    return (json.dumps(audit_record(campaign), ensure_ascii=False, indent=1) + "\n").encode("utf-8")


# a turn's summary as the memo keeps it: a new format makes every kept summary stale
SUMMARY_FORMAT = "summary 1"


def rules_text(rulesets: Sequence[str]) -> str | None:
    """The rules page's Markdown: the first of `rulesets` (a lineage) that has rules, its
    own `rules_page` or gm's docs/rules/<ruleset>.md (a house ruleset shows the rules of the
    one it derives from), or None (gm.rules.files.rules_file)."""
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


def _names_at_start(names: Mapping[str, str], holders: Sequence[Holder]) -> Mapping[str, str]:
    """The names as at gm start: a seat that changed holders shows its current holder under
    its first holder's name (what was dealt or thrown at the start was theirs)."""
    current = {h.seat: h.player for h in holders if h.until_turn is None}
    result = dict(names)
    for h in sorted(holders, key=lambda h: h.from_turn or 0, reverse=True):
        if h.seat in current and h.player != current[h.seat]:
            result[current[h.seat]] = h.name  # the oldest holder last, so theirs stands
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
    the keys of a `state_json`, docs/campaign.md)."""
    now = now if isinstance(now, Standings) else standings_from_json(now)
    return {
        p: tuple(Position(now.boards[b].pieces[p].square, bool(now.boards[b].pieces[p].finished))
                 for b in setup.boards)
        for p in setup.players
    }


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

    turns, records = _turns(ruleset, setup, played, names, holders)
    summaries = _summaries(turns, memo, turn_digests)
    # the standings now; a mapping is a state_json's keys (docs/campaign.md), as callers gave it before
    if now is None:
        now = ruleset.standings(setup, state)
    elif not isinstance(now, Standings):
        now = standings_from_json(now)
    pictures, boards = _boards(ruleset, setup, state, played, commitments, now, secrets is not None)
    formers = _formers(holders)
    revealed = None
    if secrets is not None:
        # what was dealt, named as the seats were held at gm start
        deal = ruleset.archive_deal(setup, played[0].before if played else state, _names_at_start(names, holders))
        revealed = _revealed(setup, secrets, seed_commitment, commitments, pictures, deal, audit)
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


def _turns(ruleset: Ruleset, setup: Setup, played: Sequence[PlayedTurn], names: Mapping[str, str],
           holders: Sequence[Holder]) -> tuple[Lazy, Lazy]:
    """Each played turn as the archive tells it and its record's proof, each derived when
    first read, under the names of the seats' holders of that turn."""

    def derive(index: int) -> ArchiveTurn:
        t = played[index]
        return ruleset.archive_turn(setup, t.before, t.after, t.events, _names_at(names, holders, t.before.turn))

    def record(index: int) -> TurnRecord | None:
        t = played[index]
        if t.record_hash is None or t.receipts is None:
            return None
        at = _names_at(names, holders, t.before.turn)
        seats = [p for p in setup.players if p in t.receipts] + [p for p in t.receipts if p not in setup.players]
        return TurnRecord(t.before.turn, t.record_hash, tuple((p, at.get(p, p), t.receipts[p]) for p in seats))

    return Lazy(len(played), derive), Lazy(len(played), record)


def _boards(ruleset: Ruleset, setup: Setup, state: Any, played: Sequence[PlayedTurn], commitments: Mapping[str, str],
            now: Standings, revealed: bool) -> tuple[dict[str, ArchivePicture], tuple[BoardPublic, ...]]:
    """Every board's drawing, by id, and what the archive shows of each board: its name and
    drawing only when the ruleset's boards are public or the campaign has been revealed."""
    shown = revealed or not ruleset.hidden_boards
    pictures: dict[str, ArchivePicture] = {}
    if shown:
        history = tuple((t.before, t.after) for t in played)
        pictures = {p.board: p for p in ruleset.archive_boards(setup, state, history)}
    return pictures, tuple(
        BoardPublic(id=b, squares=board.squares, commitment=commitments[b], closed=now.boards[b].closed,
                    name=board.name if shown else None, picture=pictures.get(b))
        for b, board in setup.boards.items()
    )


def _summaries(turns: Lazy, memo: Any, turn_digests: Sequence[str]) -> list[TurnSummary]:
    """Each turn's summary: the memo's where it keeps one under the turn's digest, else
    derived from the turn (and kept)."""
    summaries = []
    for index in range(len(turns)):
        kept = memo.summary(index, turn_digests[index]) if memo is not None and turn_digests else None
        if kept is None:
            kept = summarize(turns[index])
            if memo is not None and turn_digests:
                memo.keep_summary(index, turn_digests[index], kept)
        summaries.append(kept)
    return summaries


def _revealed(setup: Setup, secrets: Secrets, seed_commitment: str, commitments: Mapping[str, str],
              pictures: Mapping[str, ArchivePicture], deal: Any, audit: bytes | None) -> Revealed:
    """What the reveal adds: the seed, every board's name, salt and canonical text."""
    return Revealed(
        seed=secrets.seed,
        seed_salt=secrets.seed_salt,
        seed_commitment=seed_commitment,
        revealed_at=secrets.revealed_at,
        boards=tuple(
            RevealedBoard(id=b, name=board.name, squares=board.squares, salt=secrets.salts[b],
                          canonical=secrets.canonical[b], commitment=commitments[b],
                          canonical_file=f"board-{b}.json", picture=pictures.get(b))
            for b, board in setup.boards.items()
        ),
        deal=deal,
        record=audit,
    )
