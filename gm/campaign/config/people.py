"""Who takes part, as campaign.yaml says it: its players, observers and sign-up by mail
(docs/rules/, Joining by mail), every key checked on its line (gm.campaign.config.reading
reads the rest of the file)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from ...clock import ZONE_EXAMPLE, is_zone
from ...counts import count
from ...rules.base import Ruleset
from ...yamlfile import LineDict, is_int, key_problems
from .. import names
from .values import Observer, PlayerConfig, SignupConfig

OBSERVER_KEYS = ("name", "email")
PLAYER_KEYS = ("id", "name", "email", "password", "timezone")
SIGNUP_KEYS = ("open", "max_players", "closes", "approve", "max_waiting", "teams", "min_ontime")
APPROVALS = ("auto", "gm")
TEAMS = ("gm", "open")  # who puts a player who joins by mail on a team (docs/rules/advanced.md)
# Matched with fullmatch, never match: `$` also matches before a final newline, so
# `id: "carol\n"` passed and the archive wrote `player-carol<newline>.html`.
ID_PATTERN = re.compile(r"\w[\w.-]*")
EMAIL_PATTERN = re.compile(r"[^@\s<>]+@[^@\s<>]+")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")


def _valid_zone(name: Any) -> bool:
    return is_zone(name)


STAND_IN = "gm-stand-in-"


def stand_in_problems(ruleset: Ruleset, players: Sequence[tuple[str, Any]]) -> list[str]:
    """What the ruleset finds wrong with these players (Ruleset.player_problems) beyond
    what it finds with as many players of whom nothing is wrong: the problems of their ids
    and keys (advanced: a team; unleashed: a word of its order language), not of their
    number, for a list still filling by mail (docs/rules/, Joining by mail)."""
    stand_ins = [(f"{STAND_IN}{i}", {}) for i in range(len(players))]
    common = set(ruleset.player_problems(stand_ins))
    return [p for p in ruleset.player_problems(list(players)) if p not in common]


def _signup(data: LineDict, problems: list[str], timezone: str, ruleset: Ruleset) -> SignupConfig | None:
    """campaign.yaml's `signup:` block (docs/rules/, Joining by mail), every key checked on
    its line."""
    raw = data.get("signup")
    if raw is None:
        return None
    if not isinstance(raw, LineDict):
        problems.append(f"line {data.line_of('signup')}: signup must be a mapping of {', '.join(SIGNUP_KEYS)}")
        return None
    problems += key_problems(raw, SIGNUP_KEYS, "signup")
    is_open = raw.get("open", True)
    if not isinstance(is_open, bool):
        problems.append(f"line {raw.line_of('open')}: signup open must be true or false, not {is_open!r}")
        is_open = True
    most = raw.get("max_players")
    if most is not None and (not is_int(most) or most < 1):
        problems.append(f"line {raw.line_of('max_players')}: signup max_players must be a whole number of at "
                        f"least 1, not {most!r}")
        most = None
    elif most is not None and ruleset.max_players is not None and most > ruleset.max_players:
        problems.append(f"line {raw.line_of('max_players')}: signup max_players is {most}, but the "
                        f"{ruleset.name} ruleset is played by at most {count(ruleset.max_players, 'player')}")
    approve = raw.get("approve", "auto")
    if approve not in APPROVALS:
        problems.append(f"line {raw.line_of('approve')}: signup approve must be auto or gm, not {approve!r}")
        approve = "auto"
    waiting = raw.get("max_waiting")
    if waiting is not None and (not is_int(waiting) or waiting < 0):
        problems.append(f"line {raw.line_of('max_waiting')}: signup max_waiting must be a whole number of at "
                        f"least 0, not {waiting!r}")
        waiting = None
    teams = raw.get("teams", "gm")
    if teams not in TEAMS:
        problems.append(f"line {raw.line_of('teams')}: signup teams must be gm or open, not {teams!r}")
        teams = "gm"
    closes = None
    if raw.get("closes") is not None:
        closes = _moment(raw["closes"], timezone)
        if closes is None:
            problems.append(f"line {raw.line_of('closes')}: signup closes must be a date and time such as "
                            f"\"2027-03-14 18:00\", not {raw['closes']!r}")
    min_ontime = raw.get("min_ontime")
    if min_ontime is not None and (isinstance(min_ontime, bool) or not isinstance(min_ontime, int | float)
                                   or not 0 <= min_ontime <= 1):
        problems.append(f"line {raw.line_of('min_ontime')}: signup min_ontime must be a fraction from 0 to 1, "
                        f"such as 0.8, not {min_ontime!r}")
        min_ontime = None
    return SignupConfig(open=is_open, max_players=most, closes=closes, approve=approve, max_waiting=waiting,
                        teams=teams, min_ontime=min_ontime)


def _moment(value: Any, zone: str) -> datetime | None:
    """A date and time as campaign.yaml gives it (YAML may read it as a datetime or a
    date), in the campaign's time zone unless it names its own; None when it is none."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo(zone))


def _unique_casefold(ids: list[Any], what: str, problems: list[str], line: int) -> None:
    seen: dict[str, Any] = {}
    for value in ids:
        key = str(value).casefold()
        if key in seen:
            problems.append(f"line {line}: {what} '{value}' is the same as '{seen[key]}' (ids ignore case)")
        seen[key] = value


def _players(data: LineDict, problems: list[str], ruleset_keys: tuple[str, ...], *,
             empty_allowed: bool = False) -> tuple[PlayerConfig, ...]:
    raw = data.get("players")
    if empty_allowed and not raw:
        return ()  # docs/rules/, Joining by mail: the players join by mail
    if not isinstance(raw, list) or not raw:
        problems.append(f"line {data.line_of('players')}: players must be a list of {{id, name, email}}")
        return ()
    players = []
    lines: dict[str, int] = {}  # each player's name's line
    for line, item in _entries(data, "players", "a player is a mapping with id, name and email", problems):
        problems += key_problems(item, (*PLAYER_KEYS, *ruleset_keys), "player")
        player_id, email = item.get("id"), item.get("email")
        ok = True
        if not isinstance(player_id, str) or not ID_PATTERN.fullmatch(player_id):
            problems.append(f"line {line}: player id {player_id!r} must be letters, digits, '-', '_' or '.'")
            ok = False
        if not isinstance(email, str) or not EMAIL_PATTERN.fullmatch(email):
            problems.append(f"line {line}: player {player_id}: email {email!r} is not an address")
            ok = False
        password = item.get("password")
        if password is not None and (not isinstance(password, str | int) or not str(password).strip()):
            problems.append(f"line {item.line_of('password')}: player {player_id}: password must not be empty")
            ok = False
        zone = item.get("timezone")
        if zone is not None and not _valid_zone(zone):
            problems.append(f"line {item.line_of('timezone')}: player {player_id}: time zone {zone!r} is not "
                            f"{ZONE_EXAMPLE}")
            ok = False
        # docs/campaign.md, Players: kept cleaned, so no report shows what it hid
        name = names.clean(item.get("name") or player_id)
        wrong = names.problems(name)
        problems += [f"line {item.line_of('name') if 'name' in item else line}: player {player_id}: name "
                     f"{names.said(code)}" for code in wrong]
        if wrong:
            ok = False
        if ok:
            lines[player_id] = item.line_of("name") if "name" in item else line
            players.append(
                PlayerConfig(
                    id=player_id,
                    name=name,
                    email=email.strip().lower(),
                    password=None if password is None else str(password),
                    timezone=zone,
                    extra={k: item[k] for k in ruleset_keys if k in item},
                )
            )
    _unique_casefold([p.id for p in players], "player id", problems, raw.line)
    _unique_casefold([p.email for p in players], "player email", problems, raw.line)
    problems += [f"line {lines[later]}: player {later}: {ALIKE.format(other=earlier)}"
                 for later, earlier in names.clashes((p.id, p.name) for p in players)]
    return tuple(players)


# docs/rules/, Joining by mail: no two players' names the same ignoring case,
# invisible characters and look-alike letters
ALIKE = "name is too like player {other}'s: names may not look alike (docs/campaign.md, Players)"


def joined_name_problems(players: Sequence[PlayerConfig], joined: Sequence[PlayerConfig], *, joining: bool,
                         line: int) -> list[str]:
    """The names of those who joined by mail beside campaign.yaml's players: a listed
    player's name alike one of theirs is always a problem (the GM may edit campaign.yaml);
    their own names, and theirs alike each other's, are judged when they join at gm start
    (`joining`), as a sign-up's are, and not again once the game is under way."""
    found = []
    if joining:
        found += [f"line {line}: player {p.id} (joined by mail): name {names.said(code)}"
                  for p in joined for code in names.problems(p.name)]
    listed = {p.id for p in players}
    for later, earlier in names.clashes((p.id, p.name) for p in (*players, *joined)):
        if later in listed:
            continue  # campaign.yaml's own clashes are _players'
        if earlier in listed:
            found.append(f"line {line}: player {earlier}: {ALIKE.format(other=later)} (joined by mail)")
        elif joining:
            found.append(f"line {line}: player {later} (joined by mail): {ALIKE.format(other=earlier)}")
    return found


def _entries(data: LineDict, key: str, shape: str, problems: list[str]):
    """(line, mapping) for each entry of the list `key`; an entry that is not a mapping
    is a problem on its line (`shape` says what it should be)."""
    raw = data[key]
    for index, item in enumerate(raw):
        line = raw.line_of(index) if hasattr(raw, "line_of") else data.line_of(key)
        if isinstance(item, LineDict):
            yield line, item
        else:
            problems.append(f"line {line}: {shape}")


def _observers(data: LineDict, problems: list[str]) -> tuple[Observer, ...]:
    raw = data.get("observers")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(f"line {data.line_of('observers')}: observers must be a list of {{name, email}}")
        return ()
    observers = []
    for line, item in _entries(data, "observers", "an observer is a mapping with name and email", problems):
        problems += key_problems(item, OBSERVER_KEYS, "observer")
        email = item.get("email")
        if not isinstance(email, str) or not EMAIL_PATTERN.fullmatch(email) or _CONTROLS.search(email):
            problems.append(f"line {line}: observer email {email!r} is not an address")
            continue
        observers.append(Observer(name=names.clean(item.get("name") or email) or email, email=email.strip().lower()))
    return tuple(observers)
