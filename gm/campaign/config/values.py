"""What campaign.yaml says, as values: the campaign, its players, observers, mail and
sign-up settings (gm.campaign.config.reading reads and checks the file into them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parseaddr
from functools import cached_property
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ...boards.model import Board
from ...rules.base import Ruleset, Setup
from ...rules.registry import find_ruleset
from .away import AbsenceConfig, ExtendConfig
from .press import PressSettings


@dataclass(frozen=True)
class PlayerConfig:
    id: str
    name: str
    email: str
    password: str | None = None
    timezone: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # the ruleset's own player keys (team)


@dataclass(frozen=True)
class Observer:
    """Someone who reads every public report and sends no orders (CONTRACT.md)."""

    name: str
    email: str


@dataclass(frozen=True)
class SignupConfig:
    """docs/rules/, Joining by mail: players join by mail before gm start. `closes` is a moment (the
    campaign's time zone when campaign.yaml names none); `max_players` counts every player
    of the game, those campaign.yaml lists included (None: no limit but the ruleset's)."""

    open: bool = True
    max_players: int | None = None
    closes: datetime | None = None
    approve: str = "auto"  # or "gm": each confirmed request waits for gm signup accept
    # the most requests that may wait without a place (None: as many as max_players, or
    # the ruleset's most; no limit without either): a JOIN beyond it is told the list is full
    max_waiting: int | None = None
    # "gm": a sign-up only asks for a team (the ruleset's placed_keys) and the GM places
    # the player (gm signup accept ID --team T); "open": a sign-up joins the team it names
    teams: str = "gm"
    # a judge's game (docs/deployment.md, The player record): a JOIN from an address whose
    # share of turns ordered on time over the judge's games is lower is refused (None: off)
    min_ontime: float | None = None

    def taking(self, now: datetime) -> bool:
        """Whether a JOIN now can still win a place (else it can only join the waiting list)."""
        return self.open and (self.closes is None or now < self.closes)


@dataclass(frozen=True)
class MailConfig:
    transport: str = "maildir"
    sender: str = "Snakes GM <gm@localhost>"
    imap: Any = None
    smtp: Any = None
    auth: str = "password"  # or "oauth2": SASL XOAUTH2 with the token of `gm mail login`
    oauth2: Any = None  # gm.mail.settings.OAuth2Settings with auth oauth2
    # the judge's folder when the campaign is one of a judge's games and uses its mail
    # (docs/deployment.md, A judge): its mail is routed into the campaign's own inbox and
    # delivered from the judge's outbox
    judge: Path | None = None

    @property
    def address(self) -> str:
        return parseaddr(self.sender)[1].lower()


@dataclass(frozen=True)
class CampaignConfig:
    id: str
    title: str
    ruleset_name: str
    seed: int | None  # None until gm start draws one, when campaign.yaml has none
    board_files: dict[str, Path]
    boards: dict[str, Board]
    players: tuple[PlayerConfig, ...]
    options: Any
    max_order_text: int = 65536
    allow_other_senders: bool = False
    max_message_bytes: int = 1024 * 1024
    mail: MailConfig = field(default_factory=MailConfig)
    timezone: str = "UTC"
    turn_days: float = 7
    first_deadline: str | None = None
    observers: tuple[Observer, ...] = ()
    archive_url: str | None = None  # ends with "/": mails link the published archive
    signup: SignupConfig | None = None  # docs/rules/, Joining by mail; None: players only from campaign.yaml
    # how many of `players` (the last ones) joined by mail rather than campaign.yaml
    joined: int = 0
    # campaign.yaml caps.unasked_per_day: unasked replies a UTC day to addresses no player
    # registered, besides the places sign-up has open (docs/rules/, Refusal caps)
    caps_unasked_per_day: int = 200
    press: PressSettings = PressSettings()  # campaign.yaml press: (docs/campaign.md)
    # docs/campaign.md absence: and extend: (docs/rules/, Absences and extension votes)
    absence: AbsenceConfig = field(default_factory=AbsenceConfig)
    extend: ExtendConfig = field(default_factory=ExtendConfig)

    @property
    def ruleset(self) -> Ruleset:
        return find_ruleset(self.ruleset_name)

    # cached: the config never changes once read, and the desk asks for the setup several
    # times per message (read afresh it cost players x messages)
    @cached_property
    def setup(self) -> Setup:
        return Setup(self.boards, tuple(p.id for p in self.players), self.options, self.seed,
                     {p.id: dict(p.extra) for p in self.players if p.extra},
                     {p.id: p.name for p in self.players})

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def player(self, player_id: str) -> PlayerConfig | None:
        """The player whose id matches case-insensitively (docs/rules/, Order mail)."""
        return self._by_id.get(player_id.casefold())

    @cached_property
    def _by_id(self) -> dict[str, PlayerConfig]:
        # found by id for every message and every report: a scan made a turn players squared
        return {p.id.casefold(): p for p in reversed(self.players)}

    def board_id(self, written: str) -> str | None:
        wanted = written.casefold()
        return next((b for b in self.boards if b.casefold() == wanted), None)
