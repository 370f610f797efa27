"""What players read by mail (docs/rules/<ruleset>.md, What players see).

Each view is a type with no field for what its reader must not see; the ruleset's
templates (templates/mail/<name>/, or its own `templates` folder) read it. The defaults
give gm.rules.views' generic shapes, which the fallback templates in gm's templates/mail/
read: each piece's squares and placing (from the standings) and the standings; nothing
private. A ruleset with secrets overrides every view that would show them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..views import PlayerView, generic_public_view

if TYPE_CHECKING:
    from .core import Setup

__all__ = ["MailViews"]


class MailViews:
    """The views a ruleset gives gm's mail (reports, welcome, reminders, final results)."""

    def public_view(self, setup: Setup, before: Any, after: Any, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        """The report on one resolved turn everyone may read (`events` took `before` to
        `after`; `names` maps player ids to the names shown). The default shows where
        each piece stood before and after, and the placings: a ruleset where any of that
        is secret overrides it."""
        return generic_public_view(self, setup, before, after, names, campaign, title)  # type: ignore[arg-type]

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        """What everyone may see of the start, from the events `start` gave (read back
        with `event_from_json`: opening throws, the order of play, die sizes), for the
        welcome mail (`opening` in its context) and the archive's front page; None (the
        default) when the start draws nothing to show."""
        return None

    def player_view(self, setup: Setup, player: str, name: str, state: Any,
                    events: Sequence[Any], order: Any) -> Any:
        """What only `player` knows of `state` after `events` (the turn just resolved, or
        nothing between turns, for a reminder) with `order` (the one that was played, or
        the one standing), including what they may send next turn. Default: whether they
        are still in play, and nothing private."""
        return PlayerView(player, name, self.in_play(setup, state, player))  # type: ignore[attr-defined]

    def standings_view(self, setup: Setup, state: Any, names: Mapping[str, str]) -> tuple[Any, ...]:
        """The standings as reports show them, placed players first."""
        return self.archive_standings(setup, state, names)  # type: ignore[attr-defined]

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        """Public facts of the campaign the ruleset's templates need beyond the common ones
        (board ids and sizes, its command forms), such as an option its words depend on. Read by
        every mail to players, so nothing in it may be secret."""
        return {}
