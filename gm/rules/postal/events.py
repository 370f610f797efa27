"""What happens in a postal turn (docs/rules/postal.md): numbers played, moves, placings, boards
closing, trapdoor elections and the end; stored as dataclasses (gm.rules.codec reads them back)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...boards.moving import Step


@dataclass(frozen=True)
class NumberPlayed:
    """The number a hand moved with; `source` says whether the player sent it, it was the last one
    left, or it was chosen for a player who sent none (NMR: docs/rules/postal.md, Orders, the
    deadline and missed turns)."""

    turn: int
    player: str
    hand: str
    number: int
    source: Literal["order", "forced", "nmr"]
    kind: str = "number_played"


@dataclass(frozen=True)
class Moved:
    """One piece's move on one board: the GM's route; players see only start and end."""

    turn: int
    board: str
    player: str
    start: int
    number: int
    steps: tuple[Step, ...]
    end: int
    crossed: bool
    overshoot: int | None
    kind: str = "moved"


@dataclass(frozen=True)
class Placed:
    turn: int
    board: str
    player: str
    placing: int
    crossed: bool
    kind: str = "placed"


@dataclass(frozen=True)
class BoardClosed:
    turn: int
    board: str
    reason: Literal["close_after", "max_turns"]
    kind: str = "board_closed"


@dataclass(frozen=True)
class TrapdoorElection:
    """Nominations tallied after a turn; `tally` is (square, votes), most votes first."""

    turn: int
    board: str
    tally: tuple[tuple[int, int], ...]
    tied: tuple[int, ...]
    elected: int | None
    kind: str = "trapdoor_election"


@dataclass(frozen=True)
class CampaignOver:
    turn: int
    kind: str = "campaign_over"

