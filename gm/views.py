"""What players may see, as types that have no field for anything else (RULES.md 2.6).

Player templates receive only views. Each ruleset makes its own (`Ruleset.public_view`,
`player_view`, `standings_view`: postal's are in gm/rules/postal/views.py), and what it
hides has no field in them, so no template can leak it, however it is written. The GM's
report gets the full events separately.

This module holds what every ruleset's mail shares: the deadline, the boards' public
sizes, the addressee, the context a player's report or reminder is rendered from, and
the generic view shapes a ruleset gets by default, which the fallback templates in
templates/mail/ read (each piece's square and placing, the standings, nothing private).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rules.base import Ruleset, Setup


@dataclass(frozen=True)
class Deadline:
    """A deadline in UTC and, when the reader has a time zone, in theirs."""

    utc: str
    local: str | None
    iso: str
    short: str  # for subject lines: "Fri 15 Jan 18:00 UTC"


@dataclass(frozen=True)
class BoardSize:
    id: str
    squares: int


@dataclass(frozen=True)
class PlayerRef:
    id: str
    name: str


@dataclass(frozen=True)
class PlayerMail:
    """Everything a player's report, final results or reminder is rendered from. Beyond
    the campaign's public facts it holds only the ruleset's views, which have no field for
    what this player must not see, so nothing hidden can leak."""

    campaign: str
    title: str
    ruleset: str  # its templates (templates/mail/<ruleset>/) are looked up first
    gm_address: str
    boards: tuple[BoardSize, ...]
    facts: Mapping[str, Any]  # Ruleset.mail_facts: public facts its templates need
    commands: tuple[str, ...]  # the forms of the ruleset's order commands (STEP <1-3>)
    player: PlayerRef
    deadline: Deadline | None
    next_turn: int | None
    view: Any = None  # Ruleset.public_view: the turn just resolved (reports)
    own: Any = None  # Ruleset.player_view: what only this player knows, what they may send
    order: Any = None  # the standing order (reminders): desk.order_view, the player's own
    calendar: bool = False  # a .ics file with the deadline is attached

    def context(self) -> dict[str, Any]:
        """The template context: exactly these fields, nothing else."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def deadline_view(text: Mapping[str, Any] | None) -> Deadline | None:
    if text is None:
        return None
    from .clock import parse_time

    short = parse_time(text["iso"]).strftime("%a %d %b %H:%M UTC")
    return Deadline(text["utc"], text.get("local"), text["iso"], short)


# -- the generic views: what a ruleset without views of its own shows --------------------


@dataclass(frozen=True)
class PieceView:
    """One player's piece on one board: where it stood before the turn and after it."""

    player: str
    name: str
    start: int
    end: int
    finished: bool
    finished_now: bool
    placing: int | None


@dataclass(frozen=True)
class BoardView:
    board: str
    squares: int
    closed: bool
    pieces: tuple[PieceView, ...]


@dataclass(frozen=True)
class Standing:
    player: str
    name: str
    place: int | None


@dataclass(frozen=True)
class PublicView:
    """A turn report everyone may read, in the shape the fallback templates read."""

    campaign: str
    title: str
    turns: tuple[int, ...]
    boards: tuple[BoardView, ...]
    standings: tuple[Standing, ...]
    over: bool
    next_turn: int | None


@dataclass(frozen=True)
class PlayerView:
    """What only the addressed player knows, as labelled values (the fallback templates
    list them); empty by default, since nothing generic is private."""

    player: str
    name: str
    in_play: bool  # still takes part in turns, so sends orders
    facts: tuple[tuple[str, Any], ...] = field(default=())


def generic_standings(ruleset: Ruleset, setup: Setup, state: Any, names: Mapping[str, str]) -> tuple[Standing, ...]:
    """Each player's place from the ruleset's `state_json` (CONTRACT.md), placed first."""
    players = ruleset.state_json(setup, state)["players"]
    lines = [Standing(p, names.get(p, p), players[p].get("place")) for p in setup.players]
    return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0)))


def generic_public_view(ruleset: Ruleset, setup: Setup, before: Any, after: Any, names: Mapping[str, str],
                        campaign: str, title: str) -> PublicView:
    """Each piece's square before and after the turn, and its placing, read from the
    CONTRACT.md keys of `state_json` (boards -> players -> square, finished, placing)."""
    first, last = ruleset.state_json(setup, before), ruleset.state_json(setup, after)
    boards = []
    for board_id in setup.boards:
        b0, b1 = first["boards"][board_id], last["boards"][board_id]
        pieces = tuple(
            PieceView(p, names.get(p, p), b0["players"][p]["square"], b1["players"][p]["square"],
                      b1["players"][p]["finished"], b1["players"][p]["finished"] and not b0["players"][p]["finished"],
                      b1["players"][p]["placing"])
            for p in setup.players
        )
        boards.append(BoardView(board_id, setup.boards[board_id].squares, b1["closed"], pieces))
    over = bool(last["over"])
    return PublicView(
        campaign=campaign, title=title, turns=tuple(range(first["turn"], last["turn"])) or (first["turn"],),
        boards=tuple(boards), standings=generic_standings(ruleset, setup, after, names),
        over=over, next_turn=None if over else last["turn"],
    )
