"""What every ruleset offers the rest of gm.

A ruleset is pure: state and orders in, new state and events out. It reads no clock,
file or database, and every random choice goes through `Chance` (RULES.md 5), so a turn
can be previewed, replayed and tested in microseconds. Storage, mail and reports sit
around it and speak to it only through this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..board import Board
from ..chance import Chance, Draw
from .grammar import Command, Grammar


@dataclass(frozen=True)
class Setup:
    """The fixed facts of a campaign: boards by id (in campaign.yaml order), player ids
    (in campaign.yaml order), the ruleset's options and the seed."""

    boards: Mapping[str, Board]
    players: tuple[str, ...]
    options: Any
    seed: int


@dataclass(frozen=True)
class Outcome:
    """What starting a campaign or resolving a turn gives: the state after it, what
    happened (opening throws, moves, elections...) and every random choice it made."""

    state: Any
    events: tuple[Any, ...]
    draws: tuple[Draw, ...] = ()


class Ruleset(ABC):
    """A rule set (RULES.md 2 and 4), found by `name` through gm.rules.registry."""

    name: ClassVar[str]
    # declarations the campaign layer reads instead of knowing any ruleset
    option_keys: ClassVar[tuple[str, ...]]  # campaign.yaml options beside the campaign's own
    player_keys: ClassVar[tuple[str, ...]] = ()  # extra keys a player may have (advanced: team)
    board_keys: ClassVar[tuple[str, ...]] = ()  # extra keys a board file may have
    hidden_boards: ClassVar[bool] = False  # only N is public until the reveal (postal)
    one_board: ClassVar[bool] = False  # exactly one board per campaign (RULES.md 4.1)

    @abstractmethod
    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        """The ruleset's options from campaign.yaml; raises ValueError listing problems."""

    @abstractmethod
    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """The state before turn 1, with what was drawn to reach it (seats, die sizes)."""

    @abstractmethod
    def resolve(self, setup: Setup, state: Any, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        """Resolve the state's current turn from the orders held (player id -> order),
        drawing every random choice through `chance`."""

    # -- orders by mail (RULES.md 3, 4.5) -------------------------------------------

    @abstractmethod
    def grammar(self, options: Any = None) -> Grammar:
        """The order commands this ruleset knows beside the common envelope (GAME,
        PLAYER, PASSWORD, TURN, END, HELP, RESET); `options` None reads as the defaults,
        and the keywords must not depend on them."""

    @abstractmethod
    def merge(self, setup: Setup, state: Any, player: str, standing: Any,
              commands: Iterable[Command]) -> tuple[Any, list[str]]:
        """The standing order with one accepted message's commands applied, and the
        problems that make the message refused whole."""

    @abstractmethod
    def order_problems(self, setup: Setup, state: Any, player: str, order: Any) -> list[str]:
        """Why a merged order cannot be played this turn, judged on receipt (empty when
        it can); what only the go can judge is the resolve's."""

    @abstractmethod
    def order_view(self, setup: Setup, state: Any, player: str, order: Any) -> dict[str, Any]:
        """What the player's own standing order says, for their eyes only (acks,
        refusals, help, reminders): the ruleset's templates read it."""

    # -- who must write (RULES.md 2.4, 4.5) -----------------------------------------

    @abstractmethod
    def empty_order(self) -> Any:
        """The standing order of a player who has sent nothing this turn."""

    @abstractmethod
    def order_to_json(self, order: Any) -> dict[str, Any]:
        """A standing order as stored (and published once revealed)."""

    @abstractmethod
    def order_from_json(self, data: Mapping[str, Any]) -> Any:
        ...

    @abstractmethod
    def in_play(self, setup: Setup, state: Any, player: str) -> bool:
        """Whether the player still takes part in turns (not finished, not resigned): the
        turn waits for their message before its deadline."""

    @abstractmethod
    def must_order(self, setup: Setup, state: Any, player: str) -> bool:
        """Whether the player must send something this turn; `gm resolve` refuses when
        more than half of those who must have not (a mailbox not read)."""

    @abstractmethod
    def order_complete(self, setup: Setup, state: Any, player: str, order: Any) -> bool:
        """Whether `order` holds everything the player must send this turn."""

    @abstractmethod
    def state_json(self, setup: Setup, state: Any) -> dict[str, Any]:
        """The ruleset's part of `gm state --json` (CONTRACT.md)."""

    @abstractmethod
    def dump_state(self, state: Any) -> dict[str, Any]:
        """A JSON-ready form of the state, read back by load_state."""

    @abstractmethod
    def load_state(self, data: Mapping[str, Any]) -> Any:
        ...
