"""Advanced's teams (RULES.md 4.4): who plays with whom, as campaign.yaml's players say,
and how teams are placed at the end, by their laggard."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...boards.model import Board
from ..base import (
    Setup,
)
from ..ranking import competition_places

TEAM_ID = re.compile(r"\w[\w.-]*")  # fullmatch: `$` would pass "red\n"


def teams_of(setup: Setup) -> dict[str, tuple[str, ...]]:
    """Team id -> its members, both in the order of `players` (RULES.md 4.4: a team is
    listed where its first member is; a player without a team is a team of one named by
    their id)."""
    teams: dict[str, list[str]] = {}
    for player in setup.players:
        teams.setdefault(team_of(setup, player), []).append(player)
    return {team: tuple(members) for team, members in teams.items()}


def team_of(setup: Setup, player: str) -> str:
    team = setup.player_keys.get(player, {}).get("team")
    return player if team is None else str(team)


def place_teams(board: Board, teams: Mapping[str, tuple[str, ...]], squares: Mapping[str, int],
                ended: Mapping[str, bool], winner: str | None) -> dict[str, int]:
    """RULES.md 4.4 End: the winner 1; every other team by its laggard (its member on the
    lowest square, Start 0, a member in End past N), further first, competition ranking
    from 2 (from 1 without a winner)."""
    laggards = {
        team: min(board.squares + 1 if ended[m] else squares[m] for m in members)
        for team, members in teams.items()
        if team != winner
    }
    places = competition_places({team: -laggard for team, laggard in laggards.items()},
                                start=1 if winner is None else 2)
    return ({winner: 1} if winner is not None else {}) | places
