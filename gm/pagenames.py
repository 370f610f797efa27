"""The archive's page names, which mail links to as well (a report links its turn's page):
here, below both gm.mail and gm.publish, so mail need not import the archive."""

from __future__ import annotations

from typing import Any


def turn_page(turn: Any) -> str:
    """The page of a turn (an ArchiveTurn, TurnSummary or mail view: anything with `turns`)."""
    return numbered_page(turn.turns[0])


def numbered_page(turn: int) -> str:
    """The page of the turn that begins with campaign turn `turn`: named before it is played,
    so the page before it links there once and never changes for it (next.html stands
    there until the turn is resolved)."""
    return f"turn-{turn:03d}.html"
