"""What players may see, as types that have no field for anything else (docs/rules/, What
players see).

Player templates receive only views. Each ruleset makes its own (`Ruleset.public_view`,
`player_view`, `standings_view`, in its package under gm/rules/), and what it
hides has no field in them, so no template can leak it, however it is written. The GM's
report gets the full events separately.

This module holds what every ruleset's mail shares: the deadline, the boards' public
sizes, the addressee, and the context a player's report or reminder is rendered from. The
generic view shapes a ruleset gets by default, which the fallback templates in
templates/mail/ read (each piece's square and placing, the standings, nothing private),
are gm.rules.views'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..clock import parse_time
from ..rules.roles.archive import INLINE_PLAYERS

__all__ = ["BoardSize", "Deadline", "EndView", "PlayerMail", "PlayerRef", "ProofView", "deadline_view"]


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
class ProofView:
    """What a turn report shows of the record chain (docs/audit.md, Receipts and the record chain): the record hash of the resolve
    and each seat holder's receipt played (None: no order), in seat order. `reader` is the
    receipt played for the player the mail is to (None for observers and for a player
    without an order): a large campaign's report shows that one and attaches the rest."""

    turn: int
    record_hash: str
    receipts: tuple[tuple[str, str, str | None], ...]  # (player id, name, receipt or None)
    reader: str | None = None

    def header(self) -> tuple[str, str]:
        """The X-GM-Record header gm audit --mail reads."""
        return ("X-GM-Record", f"turn={self.turn}; hash={self.record_hash}")

    @staticmethod
    def end_header(end_hash: str) -> tuple[str, str]:
        """The X-GM-End header of the final mail gm audit --mail reads: the end's link."""
        return ("X-GM-End", end_hash)

    @property
    def listed(self) -> bool:
        """Whether a report lists every receipt played: above INLINE_PLAYERS it shows its
        reader's own and the record hash, and every receipt is in the attached table or the
        archive, so a 2,000-player report does not carry 2,000 receipts in each copy."""
        return len(self.receipts) <= INLINE_PLAYERS


@dataclass(frozen=True)
class EndView:
    """How the campaign ended, when the GM ended it (`gm end`): after which turn, and the
    reason the GM gave (None when none). Public: every player and observer is told."""

    turn: int
    reason: str | None
    by: str = "gm"


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
    # the published archive's address, ending "/" (campaign.yaml archive_url); None: the
    # mail links nothing
    archive_url: str | None = None
    # who held a seat when, public: ({"player", "name", "held_by": [{"player", "name",
    # "from_turn", "until_turn"}]}, ...); templates/mail/_notes.* say it when not empty
    seats: tuple[Mapping[str, Any], ...] = ()
    # the names of the players away this turn (docs/rules/, Absences and extension votes)
    away: tuple[str, ...] = ()
    # the file name of the attached table of every player (mail/<ruleset>/table.txt), when
    # the campaign is too large to list everyone in the body (turns.INLINE_PLAYERS); None:
    # the body lists everyone
    table: str | None = None
    # docs/audit.md, Receipts and the record chain: the resolve's record hash and the receipts played (ProofView); public,
    # since a receipt is salted with a secret until the reveal. None before the proof existed
    proof: ProofView | None = None
    game_commitment: str | None = None  # docs/audit.md, Commitments and the game commitment; as Campaign.mail_basics gives it
    ended: EndView | None = None  # the final results of a campaign the GM ended (gm end)
    # the player has left the game (gm player drop): their reports ask for no order and
    # give no deadline
    left: bool = False
    # docs/audit.md, Players' entropy: each contribution's hash, by player id (the first report only)
    entropy: Mapping[str, str] = field(default_factory=dict)
    end_hash: str | None = None  # docs/audit.md, The end's link: the final mail's record hash

    def context(self) -> dict[str, Any]:
        """The template context: exactly these fields, nothing else."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def deadline_view(text: Mapping[str, Any] | None) -> Deadline | None:
    if text is None:
        return None
    short = parse_time(text["iso"]).strftime("%a %d %b %H:%M UTC")
    return Deadline(text["utc"], text.get("local"), text["iso"], short)


# -- the generic views: what a ruleset without views of its own shows --------------------
# They live with the rules (gm.rules.views), which import nothing from the mail layer;
# re-exported here for templates and code that found them here.
