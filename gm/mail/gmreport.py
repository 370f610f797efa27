"""The GM's report: the mail the GM gets each turn, with everything (hidden boards and
routes, numbers played, hands, orders as written) beside what the players were told.

Unlike a player's views, this context may hold hidden facts: it is rendered only from
templates/mail/<ruleset>/gm_report.* (or the generic templates/mail/gm_report.*) and sent
only to the GM. What every ruleset's report shares is built here from the ruleset's
`standings` (gm.rules.standings): the standings as a table of place, name and each
board's square or placing, and the orders and events as plain fields a template can word
when the ruleset has no words of its own. The words are in the templates
(templates/mail/_gm.txt and .html).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..rules.base import Ruleset, Setup

__all__ = ["EventFacts", "GmPiece", "GmStanding", "GmStandings", "gm_context", "gm_standings"]


@dataclass(frozen=True)
class GmPiece:
    """A player's piece on one board after the turn: its square (0 Start; a finished
    piece keeps the last square it stood on) and placing, if it has one."""

    board: str
    square: int
    finished: bool
    placing: int | None
    closed: bool  # the board is closed: a piece still on it stopped where it stands


@dataclass(frozen=True)
class GmStanding:
    player: str
    name: str
    place: int | None  # the ruleset's place, once it has decided one
    aggregate: int | None  # what ranks the players over several boards, once known
    pieces: tuple[GmPiece, ...]  # in board order
    resigned: bool
    dropped: bool  # gm player drop: moved as one who sends nothing
    note: str | None = None  # what the player holds after the turn (Ruleset.state_notes)


@dataclass(frozen=True)
class GmStandings:
    """Every player after the turn: those with a place first, by place, then the others
    furthest on first (ties in campaign order)."""

    boards: tuple[tuple[str, int], ...]  # (board id, squares), in board order
    rows: tuple[GmStanding, ...]
    over: bool
    board_notes: tuple[tuple[str, str], ...] = ()  # (board id, what it has now), Ruleset.state_notes

    @property
    def several_boards(self) -> bool:
        return len(self.boards) > 1

    @property
    def set_aside(self) -> bool:
        """Whether a player with no place resigned or left: listed after those still playing."""
        return any(r.place is None and (r.resigned or r.dropped) for r in self.rows)

    @property
    def noted(self) -> bool:
        """Whether a row has more to say than its squares: resigned, dropped, what is held."""
        return any(r.resigned or r.dropped or (r.note and not self.over) for r in self.rows)


@dataclass(frozen=True)
class EventFacts:
    """An event as labelled values, for a ruleset whose templates do not word its events
    (the generic report lists them): its kind and its fields in order, nested values as
    mappings and lists."""

    kind: str
    fields: tuple[tuple[str, Any], ...]


def gm_standings(ruleset: Ruleset, setup: Setup, state: Any, names: Mapping[str, str],
                 dropped: Collection[str] = ()) -> GmStandings:
    """The standings table after the turn, from the ruleset's standings (gm.rules.standings),
    so that it reads the same in every ruleset."""
    standings = ruleset.standings(setup, state)
    notes = ruleset.state_notes(setup, state)
    boards = tuple((b, standings.boards[b].squares) for b in setup.boards)
    rows = []
    for player in setup.players:
        facts = standings.players[player]
        pieces = tuple(
            GmPiece(b, piece.square, piece.finished, piece.placing, standings.boards[b].closed)
            for b in setup.boards
            for piece in (standings.boards[b].pieces[player],)
        )
        place = facts.place
        if place is None and len(pieces) == 1:
            place = pieces[0].placing  # on one board a placing is the player's place, known as it is made
        rows.append(GmStanding(
            player=player,
            name=names.get(player, player),
            place=place,
            aggregate=facts.aggregate if len(boards) > 1 else None,
            pieces=pieces,
            resigned=facts.resigned,
            dropped=player in dropped,
            note=notes.get(player),
        ))
    def furthest_first(row: GmStanding) -> tuple[Any, ...]:
        # more pieces finished first, better placings among them, then the most squares
        # covered; a resigned or dropped player after those still playing
        finished = [p for p in row.pieces if p.finished]
        ahead = sum(p.square for p in row.pieces if not p.finished)
        return (row.place is None, row.place or 0, row.resigned or row.dropped, -len(finished),
                sum(p.placing or 0 for p in finished), -ahead)

    return GmStandings(boards, tuple(sorted(rows, key=furthest_first)), standings.over,
                       tuple((b, notes[b]) for b in setup.boards if notes.get(b)))


def event_facts(event: Any) -> EventFacts:
    data = dataclasses.asdict(event) if dataclasses.is_dataclass(event) else dict(event)
    kind = str(data.pop("kind", type(event).__name__))
    return EventFacts(kind, tuple(data.items()))


def gm_context(ruleset: Ruleset, setup: Setup, before: Any, after: Any, events: Sequence[Any],
               orders: Mapping[str, Any], *, view: Any, campaign: str, title: str,
               names: Mapping[str, str], board_names: Mapping[str, str],
               dropped: Collection[str] = ()) -> dict[str, Any]:
    """What templates/mail/<ruleset>/gm_report.* are rendered from: the public `view` the
    players got, every event, the orders played (player -> the ruleset's order, senders
    only), and what the GM alone reads: board names, hands, the standings table."""
    silent = tuple(
        p for p in setup.players
        if p not in orders and p not in dropped and ruleset.must_order(setup, before, p)
    )
    return {
        "campaign": campaign,
        "title": title,
        "ruleset": ruleset.name,
        "view": view,
        "events": tuple(events),
        "orders": dict(orders),
        # the orders as stored, and as the ruleset words them to their senders (order_view),
        # which gm's generic GM report lists
        "orders_json": {p: ruleset.order_to_json(o) for p, o in orders.items()},
        "orders_view": {p: ruleset.order_view(setup, before, p, o) for p, o in orders.items()},
        "event_facts": tuple(event_facts(e) for e in events),
        "silent": silent,  # must have ordered, sent nothing: the rules chose for them
        "board_names": dict(board_names),
        "names": dict(names),
        "players": tuple(setup.players),  # in campaign order
        # what each player holds after the turn, for the GM's eyes (Ruleset.state_notes)
        "notes": ruleset.state_notes(setup, after),
        "gm": gm_standings(ruleset, setup, after, names, dropped),
        # what each player was told alone (their hand, what they drew, lines skipped), on
        # demand: only a ruleset whose report shows it pays for every player's view
        "own_of": lambda player: ruleset.player_view(setup, player, names.get(player, player), after, events,
                                                     orders.get(player)),
    }
