"""What happens in an advanced campaign (docs/rules/advanced.md): moves, builds tried and built,
teams placed and the end; stored as dataclasses (gm.rules.codec reads them back)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...boards.moving import Step


@dataclass(frozen=True)
class Built:
    """An item built in play: `start` is the builder's square (a snake's head, a ladder's
    top), `target` the lower square (a snake's tail, a ladder's foot)."""

    item: Literal["snake", "ladder"]
    start: int
    target: int
    by: str
    turn: int

    def travel(self) -> tuple[int, int]:
        """From and to in the direction of travel (CONTRACT.md `built`)."""
        return (self.start, self.target) if self.item == "snake" else (self.target, self.start)


@dataclass(frozen=True)
class Moved:
    """A MOVE go: the throw, the route (`steps`: the square the throw reaches, then each
    snake or ladder) and the end; a throw past N reaches End (`finished`, no steps)."""

    turn: int
    player: str
    die: int
    roll: int
    start: int
    steps: tuple[Step, ...]
    end: int
    finished: bool
    nmr: bool
    kind: str = "moved"


@dataclass(frozen=True)
class BuildTried:
    """A BUILD go: what was ordered from which square, the throw, the construction number and least
    successful face, and whether it was built or the first check that failed (`reason`,
    docs/rules/advanced.md)."""

    turn: int
    player: str
    die: int
    roll: int
    item: Literal["snake", "ladder"]
    start: int
    target: int
    construction: int
    needed: int
    built: bool
    reason: str | None
    kind: str = "build"


@dataclass(frozen=True)
class TeamPlaced:
    turn: int
    team: str
    members: tuple[str, ...]
    placing: int
    won: bool
    kind: str = "team_placed"


@dataclass(frozen=True)
class CampaignOver:
    turn: int
    winner: str | None
    reason: Literal["team", "max_turns"]
    kind: str = "campaign_over"



def log_entry(go: Any) -> dict[str, Any]:
    """One go as CONTRACT.md's `log` gives it."""
    if isinstance(go, Moved):
        return {"player": go.player, "action": "move", "dice": [go.roll], "from": go.start,
                "steps": [{"square": s.square, "via": s.via} for s in go.steps], "to": go.end,
                "bounced": False, "finished": go.finished, "again": False, "skip": None, "nmr": go.nmr}
    return {"player": go.player, "action": "build", "kind": go.item, "target": go.target, "dice": [go.roll],
            "from": go.start, "construction": go.construction, "needed": go.needed, "built": go.built,
            "reason": go.reason}
