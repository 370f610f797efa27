"""`gm reveal` and `gm verify` (docs/audit.md, CONTRACT.md Commitments): once the campaign is
over the salts, canonical board texts and the seed become public, and anyone can check
them against the commitments published at the start."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .. import clock
from ..boards.board import Board, load_board
from ..commitment import matches, seed_text
from ..errors import GmError
from ..rules.files import lineage, rules_file, rules_label


def reveal(campaign) -> str:
    """Mark the campaign revealed (one transaction); returns the time it was revealed.
    Refused while any board is open: the layouts are the secret the game is played on."""
    row = campaign.row()
    if not campaign.state().over:
        raise GmError("the campaign is not over yet; its boards and seed are revealed only once it has "
                      f"ended{_rules_page(campaign)}")
    if row["revealed_at"]:
        return row["revealed_at"]
    now = clock.iso(clock.now())
    with campaign.store.transaction() as db:
        db["campaign"].update(campaign.config.id, {"revealed_at": now})
    return now


def _rules_page(campaign) -> str:
    """Where a user's copy of gm says when the secrets are revealed: the ruleset's rules page
    (docs/rules/<name>.md, or a plugin's own `rules_page`), or nothing for a ruleset
    without rules."""
    page = rules_file(lineage(campaign.config.ruleset))
    return f" ({rules_label(page)})" if page is not None else ""


@dataclass(frozen=True)
class Checked:
    matches: bool
    what: str  # "board The Garden Path (30 squares)" or "seed 20270321"


def verify_seed(commitment: str, salt: str, seed: int) -> Checked:
    return Checked(matches(commitment, salt, seed_text(seed)), f"seed {seed}")


def verify_board_file(commitment: str, salt: str, path: Path) -> Checked:
    """Check a board file against a commitment. The file is either a board file (YAML,
    CONTRACT.md), made canonical first, or a canonical text as the archive publishes it,
    hashed exactly as written."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise GmError(f"cannot read {path}: {error}") from None
    canonical = _canonical_json(text)
    if canonical is not None:
        board = Board.from_canonical(canonical)
    else:
        board = load_board(path)  # raises BoardError listing every problem
        canonical = board.canonical_text()
    what = f"board {board.name or path.name} ({board.squares} squares)"
    return Checked(matches(commitment, salt, canonical), what)


def _canonical_json(text: str) -> str | None:
    """The text itself when it is a canonical board text (a JSON object with `levels`);
    a final line break, which editors add, is not part of it."""
    stripped = text.rstrip("\n")
    if not stripped.startswith("{"):
        return None
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        return None
    return stripped if isinstance(data, dict) and "levels" in data else None
