"""The generic views: what a ruleset without views of its own shows players
(docs/rules/<ruleset>.md, What players see).

`Ruleset.public_view` and `player_view` give these by default; the fallback templates in
gm's templates/mail/ read them: each piece's square and placing, the standings, nothing
private. They live with the rules (gm.mail.views re-exports them) so that the ruleset
interface imports nothing from the mail layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .roles.archive import ArchiveBoard, ArchiveRules, ArchiveStanding
    from .roles.core import Setup

__all__ = ["PlayerView", "PublicView", "generic_public_view"]


@dataclass(frozen=True)
class PublicView:
    """A turn report everyone may read, in the shape the fallback templates read."""

    campaign: str
    title: str
    turns: tuple[int, ...]
    boards: tuple[ArchiveBoard, ...]
    standings: tuple[ArchiveStanding, ...]
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


def generic_public_view(ruleset: ArchiveRules, setup: Setup, before: Any, after: Any, names: Mapping[str, str],
                        campaign: str, title: str) -> PublicView:
    """The turn as the ruleset's archive shows it (by default each piece's square before
    and after it and its placing, from the ruleset's `standings`), for the mail."""
    turn = ruleset.archive_turn(setup, before, after, (), names)
    return PublicView(campaign, title, turn.turns, turn.boards, turn.standings, turn.over, turn.next_turn)
