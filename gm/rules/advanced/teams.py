"""Advanced's teams (docs/rules/advanced.md): who plays with whom, as campaign.yaml's players say,
and how teams are placed at the end, by their laggard."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...boards.model import Board
from ..ranking import competition_places
from ..roles.core import Setup

TEAM_ID = re.compile(r"\w[\w.-]*")  # fullmatch: `$` would pass "red\n"


def teams_of(setup: Setup) -> dict[str, tuple[str, ...]]:
    """Team id -> its members, both in the order of `players` (docs/rules/advanced.md: a team is
    listed where its first member is; a player without a team is a team of one named by their
    id)."""
    teams: dict[str, list[str]] = {}
    for player in setup.players:
        teams.setdefault(team_of(setup, player), []).append(player)
    return {team: tuple(members) for team, members in teams.items()}


def team_of(setup: Setup, player: str) -> str:
    team = setup.player_keys.get(player, {}).get("team")
    return player if team is None else str(team)


def place_teams(board: Board, teams: Mapping[str, tuple[str, ...]], squares: Mapping[str, int],
                ended: Mapping[str, bool], winner: str | None) -> dict[str, int]:
    """docs/rules/advanced.md, The end and placings: the winner 1; every other team by its laggard
    (its member on the lowest square, Start 0, a member in End past N), further first, competition
    ranking from 2 (from 1 without a winner)."""
    laggards = {
        team: min(board.squares + 1 if ended[m] else squares[m] for m in members)
        for team, members in teams.items()
        if team != winner
    }
    places = competition_places({team: -laggard for team, laggard in laggards.items()},
                                start=1 if winner is None else 2)
    return ({winner: 1} if winner is not None else {}) | places


def team_problems(players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """docs/rules/advanced.md: a team id names no player outside the team (a player without a team
    is the team named by their id); teams are written as ids."""
    problems = []
    team = {}
    for player, values in players:
        value = values.get("team")
        if value is None:
            team[player] = player
        elif not (isinstance(value, str) and TEAM_ID.fullmatch(value)):
            problems.append(f"player {player}: team must be an id (letters, digits, '-', '_' or '.'), "
                            f"not {value!r}")
        else:
            team[player] = value
    spelled: dict[str, str] = {}
    for player, name in team.items():
        first = spelled.setdefault(name.casefold(), name)
        if first != name:
            problems.append(f"player {player}: team {name} differs from team {first} only in case; "
                            "write it the same way")
    # a player without a team is a team of one: nobody else may name their id either
    explicit = {p for p, values in players if values.get("team") is not None}
    ids = {player.casefold(): player for player in team}
    reported = set()
    for player, name in team.items():
        other = ids.get(name.casefold())
        if other is None or other == player or name.casefold() in reported:
            continue
        if other not in explicit or team[other].casefold() != name.casefold():
            reported.add(name.casefold())
            problems.append(f"player {player}: team {name} is the id of player {other}, "
                            "who is not in it (docs/rules/advanced.md, Teams)")
    return problems
