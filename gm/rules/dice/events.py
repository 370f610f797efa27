"""What happens in a dice campaign (docs/rules/classic.md): the turn-0 throws, the order of play,
throws, resignations, placings and the end; stored as dataclasses (gm.rules.codec reads them
back)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...boards.moving import Step


@dataclass(frozen=True)
class OpeningThrow:
    """A turn-0 throw (docs/rules/classic.md): `key` is its dice key, `purpose` `order` (the order
    of play) or `die` (advanced's die size)."""

    player: str
    purpose: str
    key: str
    roll: int
    kind: str = "opening_throw"

    @property
    def index(self) -> int:
        return int(self.key.rpartition("/")[2])


@dataclass(frozen=True)
class OrderOfPlay:
    order: tuple[str, ...]
    kind: str = "order_of_play"


@dataclass(frozen=True)
class Resigned:
    turn: int
    player: str
    square: int
    kind: str = "resign"


@dataclass(frozen=True)
class Thrown:
    """One throw of a go: its faces, where the piece stood, the square the throw reached
    (after any bounce, `via` roll) and each snake or ladder taken, where it ended, whether
    it finished, whether it earns another throw, and why it was not moved (`skip`:
    `needs-one`, `third-double-six`)."""

    turn: int
    player: str
    dice: tuple[int, ...]
    start: int
    steps: tuple[Step, ...]
    end: int
    bounced: bool = False
    finished: bool = False
    again: bool = False
    skip: str | None = None
    kind: str = "throw"


@dataclass(frozen=True)
class Placed:
    """A placing: on finishing (`how` `finished`), or when the campaign ends (`square` for
    a player still in play, `resigned` for one who resigned)."""

    turn: int
    player: str
    placing: int
    how: str
    kind: str = "placed"


@dataclass(frozen=True)
class CampaignOver:
    """End (docs/rules/classic.md): `reason` `close_after` (a), `in_play` (b) or `max_turns` (c)."""

    turn: int
    reason: str
    winner: str | None
    kind: str = "campaign_over"



def log_json(event: Any) -> dict[str, Any]:
    """An entry of `gm state --json`'s `log` (CONTRACT)."""
    if isinstance(event, Resigned):
        return {"player": event.player, "action": "resign"}
    return {
        "player": event.player, "action": "move", "dice": list(event.dice), "from": event.start,
        "steps": [{"square": s.square, "via": s.via} for s in event.steps], "to": event.end,
        "bounced": event.bounced, "finished": event.finished, "again": event.again,
        "skip": event.skip, "nmr": False,
    }
