"""What became of one inbound message at the order desk (gm.campaign.desk.inbound) or its sign-up
desk (gm.campaign.signup.desk), and what the sign-up desk needs of the order desk: both
desks use it, neither imports the other's module for it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from ...mail.inbound import InboundMail
from ...rules.problem import Problem


@dataclass
class Fate:
    """What became of one message; `reply` is the outbox id of the one reply, if any."""

    # applied, refused, help, reset, loop, duplicate, seen; and never answered: capped
    # (past a refusal cap), unreadable (no address to answer); hostile (refused unread)
    outcome: str
    player: str | None = None
    detail: str = ""
    reply: int | None = None
    problems: list[str] = field(default_factory=list)


def noted(fate: Fate, why: str | None) -> Fate:
    """The fate with the GM's note of why a password went unchecked, if it did: the detail
    is the GM's record only, never mailed."""
    if why:
        fate.detail = f"{why}; {fate.detail}"[:2000] if fate.detail else why
    return fate


def kept_reply(answered: str) -> Fate:
    """A reply to our refusal or help that does not authenticate: kept, never answered
    (docs/rules/, Order mail), and shown to the GM by `gm status` with its sender and subject."""
    return Fate("loop", detail=f"answers our {answered}, not authenticated: an auto-responder, "
                                  "or a correction without the password")


class OrderDesk(Protocol):
    """What the sign-up desk uses of the order desk (gm.campaign.desk.inbound.Desk): its campaign,
    its wording of problems and its one capped reply."""

    campaign: Any
    config: Any

    def words(self, problems: list[Problem]) -> list[str]: ...

    def reply(self, db: Any, mail: InboundMail, now: datetime, *, to: str, template: str,
              outcome: str, context: dict[str, Any], player: str | None = None,
              zone: str | None = None, proof: Sequence[tuple[str, str]] = (), kind: str | None = None) -> Fate: ...
