"""campaign.yaml (CONTRACT.md): read, check every key, and report every problem with its
line. Nothing here touches the database or the mail."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from functools import cached_property
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..boards.board import Board
from ..counts import count
from ..errors import BoardError, ConfigError, ProblemsError
from ..rules.base import Ruleset, Setup
from ..rules.registry import DEFAULT, UnknownRuleset, find_ruleset
from ..yamlfile import LineDict, is_int, key_problems, read

CONFIG_NAME = "campaign.yaml"
TOP_KEYS = (
    "id", "title", "ruleset", "seed", "boards", "players", "options", "mail",
    "timezone", "turn_days", "first_deadline", "observers", "archive_url", "signup",
)
OBSERVER_KEYS = ("name", "email")
PLAYER_KEYS = ("id", "name", "email", "password", "timezone")
MAIL_KEYS = ("transport", "from", "imap", "smtp", "auth", "oauth2")
SIGNUP_KEYS = ("open", "max_players", "closes", "approve")
APPROVALS = ("auto", "gm")
# options the campaign layer owns, beside the ruleset's own (RULES.md 3)
CAMPAIGN_OPTIONS = {"max_order_text": 65536, "allow_other_senders": False, "max_message_bytes": 1024 * 1024}
# Matched with fullmatch, never match: `$` also matches before a final newline, so
# `id: "carol\n"` passed and the archive wrote `player-carol<newline>.html`.
ID_PATTERN = re.compile(r"\w[\w.-]*")
EMAIL_PATTERN = re.compile(r"[^@\s<>]+@[^@\s<>]+")
URL_PATTERN = re.compile(r"https?://[^\s<>\"']+")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")
# sample boards gm renamed: an old campaign.yaml naming one is told the new name
RENAMED_BOARDS = {"classic.yaml": "milton-bradley.yaml"}


@dataclass(frozen=True)
class PlayerConfig:
    id: str
    name: str
    email: str
    password: str | None = None
    timezone: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # the ruleset's own player keys (team)


@dataclass(frozen=True)
class Observer:
    """Someone who reads every public report and sends no orders (CONTRACT.md)."""

    name: str
    email: str


@dataclass(frozen=True)
class SignupConfig:
    """RULES.md 3.1: players join by mail before gm start. `closes` is a moment (the
    campaign's time zone when campaign.yaml names none); `max_players` counts every player
    of the game, those campaign.yaml lists included (None: no limit but the ruleset's)."""

    open: bool = True
    max_players: int | None = None
    closes: datetime | None = None
    approve: str = "auto"  # or "gm": each confirmed request waits for gm signup accept

    def taking(self, now: datetime) -> bool:
        """Whether a JOIN now can still win a place (else it can only join the waiting list)."""
        return self.open and (self.closes is None or now < self.closes)


@dataclass(frozen=True)
class MailConfig:
    transport: str = "maildir"
    sender: str = "Snakes GM <gm@localhost>"
    imap: Any = None
    smtp: Any = None
    auth: str = "password"  # or "oauth2": SASL XOAUTH2 with the token of `gm mail login`
    oauth2: Any = None  # gm.mail.settings.OAuth2Settings with auth oauth2

    @property
    def address(self) -> str:
        from email.utils import parseaddr

        return parseaddr(self.sender)[1].lower()


@dataclass(frozen=True)
class CampaignConfig:
    id: str
    title: str
    ruleset_name: str
    seed: int | None  # None until gm start draws one, when campaign.yaml has none
    board_files: dict[str, Path]
    boards: dict[str, Board]
    players: tuple[PlayerConfig, ...]
    options: Any
    max_order_text: int = 65536
    allow_other_senders: bool = False
    max_message_bytes: int = 1024 * 1024
    mail: MailConfig = field(default_factory=MailConfig)
    timezone: str = "UTC"
    turn_days: float = 7
    first_deadline: str | None = None
    observers: tuple[Observer, ...] = ()
    archive_url: str | None = None  # ends with "/": mails link the published archive
    signup: SignupConfig | None = None  # RULES.md 3.1; None: players only from campaign.yaml
    # how many of `players` (the last ones) joined by mail rather than campaign.yaml
    joined: int = 0

    @property
    def ruleset(self) -> Ruleset:
        return find_ruleset(self.ruleset_name)

    # cached: the config never changes once read, and the desk asks for the setup several
    # times per message (read afresh it cost players x messages)
    @cached_property
    def setup(self) -> Setup:
        return Setup(self.boards, tuple(p.id for p in self.players), self.options, self.seed,
                     {p.id: dict(p.extra) for p in self.players if p.extra})

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def player(self, player_id: str) -> PlayerConfig | None:
        """The player whose id matches case-insensitively (RULES.md 3)."""
        return self._by_id.get(player_id.casefold())

    @cached_property
    def _by_id(self) -> dict[str, PlayerConfig]:
        # found by id for every message and every report: a scan made a turn players squared
        return {p.id.casefold(): p for p in reversed(self.players)}

    def board_id(self, written: str) -> str | None:
        wanted = written.casefold()
        return next((b for b in self.boards if b.casefold() == wanted), None)


def _valid_zone(name: Any) -> bool:
    if not isinstance(name, str):
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def load_config(folder: Path, *, joined: Sequence[PlayerConfig] | None = None) -> CampaignConfig:
    """The campaign in `folder`; raises ConfigError listing every problem with its line.

    `joined` are the players who joined by mail (RULES.md 3.1; gm start's, or the stored
    game's): they play after campaign.yaml's players (one campaign.yaml lists too is taken
    from there) and the ruleset judges the whole list. None: the list is campaign.yaml's
    alone, and while sign-up may still fill it only its players' ids and keys are judged,
    not their number."""
    path = folder / CONFIG_NAME
    if not path.exists():
        raise ConfigError(str(path), ["no campaign here (gm campaign new DIR writes a starter file)"])
    data = read(path, ConfigError)
    if not isinstance(data, LineDict):
        raise ConfigError(str(path), ["campaign.yaml must be a mapping (see docs/campaign.md)"])
    return _config_from_data(data, folder, str(path), joined)


def _config_from_data(data: LineDict, folder: Path, source: str,
                      joined: Sequence[PlayerConfig] | None = None) -> CampaignConfig:
    problems = key_problems(data, TOP_KEYS)

    def need(key: str, check, expected: str, default: Any = None, required: bool = True) -> Any:
        if key not in data or data[key] is None:
            if required:
                problems.append(f"line {data.line}: missing key '{key}'")
            return default
        if not check(data[key]):
            problems.append(f"line {data.line_of(key)}: {key} must be {expected}, not {data[key]!r}")
            return default
        return data[key]

    def good_id(v: Any) -> bool:
        return isinstance(v, str) and bool(ID_PATTERN.fullmatch(v))

    campaign_id = need("id", good_id, "letters, digits, '-', '_' or '.'", "")
    title = need("title", lambda v: isinstance(v, str), "text", campaign_id, required=False)
    ruleset_name = need("ruleset", lambda v: isinstance(v, str), "a ruleset name", DEFAULT, required=False)
    # absent: gm start draws one (RULES.md 5), so no GM has to invent an unguessable number
    seed = need("seed", lambda v: is_int(v) and v >= 0, "a whole number of at least 0", None, required=False)
    timezone = need("timezone", _valid_zone, "an IANA time zone such as Europe/London", "UTC", required=False)
    turn_days = need(
        "turn_days", lambda v: (is_int(v) or isinstance(v, float)) and v > 0, "a positive number of days", 7,
        required=False,
    )
    first_deadline = need("first_deadline", lambda v: isinstance(v, str | int) or hasattr(v, "year"),
                          "a date and time", None, required=False)
    try:
        ruleset = find_ruleset(ruleset_name)
    except UnknownRuleset as error:
        problems.append(f"line {data.line_of('ruleset')}: {error}")
        ruleset = find_ruleset(DEFAULT)

    boards: dict[str, Board] = {}
    board_files: dict[str, Path] = {}
    raw_boards = data.get("boards")
    if raw_boards is None and ruleset.boards_optional:
        pass  # the ruleset's default board, made once the players and options are read
    elif not isinstance(raw_boards, LineDict) or not raw_boards:
        problems.append(f"line {data.line_of('boards')}: boards must map board ids to board files")
    else:
        for board_id, file in raw_boards.items():
            line = raw_boards.line_of(board_id)
            if not good_id(str(board_id)) or not isinstance(board_id, str):
                problems.append(f"line {line}: board id {board_id!r} must be letters, digits, '-', '_' or '.'")
                continue
            if not isinstance(file, str):
                problems.append(f"line {line}: board {board_id} must name a board file")
                continue
            board_path = (folder / file).resolve() if not Path(file).is_absolute() else Path(file)
            board_files[board_id] = board_path
            if not board_path.exists() and board_path.name in RENAMED_BOARDS:
                new = board_path.with_name(RENAMED_BOARDS[board_path.name])
                problems.append(f"line {line}: board {board_id}: {file} was renamed {new.name} (so that it is not "
                                f"taken for the ruleset of that name); point campaign.yaml at {new.name}")
                continue
            try:
                boards[board_id] = ruleset.read_board(board_path)
            except BoardError as error:
                problems.extend(f"line {line}: board {board_id}: {p}" for p in error.problems)
        _unique_casefold(list(raw_boards), "board id", problems, raw_boards.line)

    signup = _signup(data, problems, timezone, ruleset)
    players = _players(data, problems, ruleset.player_keys, empty_allowed=signup is not None)
    filling = signup is not None and joined is None
    listed = {p.id.casefold() for p in players}
    addresses = {p.email: p.id for p in players}
    joined = tuple(p for p in joined or () if p.id.casefold() not in listed)
    problems += [f"line {data.line_of('players')}: player {p.id} (joined by mail) has the address of "
                 f"{addresses[p.email]}" for p in joined if p.email in addresses]
    players += joined
    pairs = tuple((p.id, dict(p.extra)) for p in players)
    # still filling by mail: the ids and keys of the players listed, not their number
    found = stand_in_problems(ruleset, pairs) if filling else ruleset.player_problems(pairs)
    problems += [f"line {data.line_of('players')}: {p}" for p in found]
    if ruleset.one_board and len(boards) > 1:
        problems.append(f"line {data.line_of('boards')}: the {ruleset.name} ruleset plays exactly one board")

    raw_options = data.get("options") or LineDict()
    if not isinstance(raw_options, LineDict):
        problems.append(f"line {data.line_of('options')}: options must be a mapping")
        raw_options = LineDict()
    problems += key_problems(raw_options, (*ruleset.option_keys, *CAMPAIGN_OPTIONS), "options")
    options = None
    try:
        options = ruleset.parse_options(_without(raw_options))
    except ProblemsError as error:
        problems += error.problems
    except ValueError as error:  # gm.rules.OptionsError, or any ValueError: the ruleset refuses its options
        problems += _option_problems(error, data.line_of("options"))
    if options is not None and not problems:
        # the ruleset's board checks (unleashed: a rectangle, its cards and lampposts)
        # and its default board need sound players and options
        made, found = ruleset.campaign_boards(boards, len(players), options)
        boards = made
        problems += [f"line {data.line_of('boards')}: {p}" for p in found]
    max_text = raw_options.get("max_order_text", CAMPAIGN_OPTIONS["max_order_text"])
    if not is_int(max_text) or max_text < 100:
        problems.append(f"line {raw_options.line_of('max_order_text')}: option max_order_text must be a whole number of at least 100")
    allow_others = raw_options.get("allow_other_senders", False)
    if not isinstance(allow_others, bool):
        problems.append(f"line {raw_options.line_of('allow_other_senders')}: option allow_other_senders must be true or false")

    max_bytes = raw_options.get("max_message_bytes", CAMPAIGN_OPTIONS["max_message_bytes"])
    if not is_int(max_bytes) or max_bytes < 4096:
        problems.append(f"line {raw_options.line_of('max_message_bytes')}: option max_message_bytes must be a whole number of at least 4096")
    mail = _mail(data, problems)
    observers = _observers(data, problems)
    archive_url = need("archive_url", lambda v: isinstance(v, str) and bool(URL_PATTERN.fullmatch(v)),
                       "an http(s) address such as https://example.org/spring-2027/", None, required=False)
    if archive_url and not archive_url.endswith("/"):
        archive_url += "/"  # the archive is a folder: pages are linked relative to it
    if problems:
        raise ConfigError(source, problems)
    return CampaignConfig(
        id=campaign_id,
        title=title,
        ruleset_name=ruleset_name,
        seed=seed,
        board_files=board_files,
        boards=boards,
        players=players,
        options=options,
        max_order_text=max_text,
        allow_other_senders=allow_others,
        max_message_bytes=max_bytes,
        mail=mail,
        timezone=timezone,
        turn_days=turn_days,
        first_deadline=str(first_deadline) if first_deadline is not None else None,
        observers=observers,
        archive_url=archive_url,
        signup=signup,
        joined=len(joined),
    )


STAND_IN = "gm-stand-in-"


def stand_in_problems(ruleset: Ruleset, players: Sequence[tuple[str, Any]]) -> list[str]:
    """What the ruleset finds wrong with these players (Ruleset.player_problems) beyond
    what it finds with as many players of whom nothing is wrong: the problems of their ids
    and keys (advanced: a team; unleashed: a word of its order language), not of their
    number, for a list still filling by mail (RULES.md 3.1)."""
    stand_ins = [(f"{STAND_IN}{i}", {}) for i in range(len(players))]
    common = set(ruleset.player_problems(stand_ins))
    return [p for p in ruleset.player_problems(list(players)) if p not in common]


def _signup(data: LineDict, problems: list[str], timezone: str, ruleset: Ruleset) -> SignupConfig | None:
    """RULES.md 3.1's `signup:` block, every key checked on its line."""
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
    closes = None
    if raw.get("closes") is not None:
        closes = _moment(raw["closes"], timezone)
        if closes is None:
            problems.append(f"line {raw.line_of('closes')}: signup closes must be a date and time such as "
                            f"\"2027-03-14 18:00\", not {raw['closes']!r}")
    return SignupConfig(open=is_open, max_players=most, closes=closes, approve=approve)


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


def _option_problems(error: ValueError, where: int) -> list[str]:
    """A ruleset's refusal of its options as campaign.yaml problems: OptionsError's list, or
    one problem a line of a ValueError's message; each names the options' line unless it
    names a line of its own."""
    found = getattr(error, "problems", None) or str(error).splitlines() or [type(error).__name__]
    return [p if p.startswith("line ") else f"line {where}: {p}"
            for p in (str(p).strip() for p in found) if p]


def _without(raw: LineDict) -> LineDict:
    """The ruleset's options: raw options less the campaign layer's own."""
    result = LineDict({k: v for k, v in raw.items() if k not in CAMPAIGN_OPTIONS})
    result.line, result.lines = raw.line, raw.lines
    return result


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
        return ()  # RULES.md 3.1: the players join by mail
    if not isinstance(raw, list) or not raw:
        problems.append(f"line {data.line_of('players')}: players must be a list of {{id, name, email}}")
        return ()
    players = []
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
            problems.append(f"line {item.line_of('timezone')}: player {player_id}: unknown time zone {zone!r}")
            ok = False
        if ok:
            players.append(
                PlayerConfig(
                    id=player_id,
                    name=str(item.get("name") or player_id),
                    email=email.strip().lower(),
                    password=None if password is None else str(password),
                    timezone=zone,
                    extra={k: item[k] for k in ruleset_keys if k in item},
                )
            )
    _unique_casefold([p.id for p in players], "player id", problems, raw.line)
    _unique_casefold([p.email for p in players], "player email", problems, raw.line)
    return tuple(players)


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
        observers.append(Observer(name=str(item.get("name") or email), email=email.strip().lower()))
    return tuple(observers)


def _mail(data: LineDict, problems: list[str]) -> MailConfig:
    raw = data.get("mail")
    if raw is None:
        return MailConfig()
    if not isinstance(raw, LineDict):
        problems.append(f"line {data.line_of('mail')}: mail must be a mapping")
        return MailConfig()
    problems += key_problems(raw, MAIL_KEYS, "mail")
    transport = raw.get("transport", "maildir")
    sender = raw.get("from", MailConfig.sender)
    if transport not in ("maildir", "imap+smtp"):
        problems.append(f"line {raw.line_of('transport')}: mail transport must be maildir or imap+smtp, not {transport!r}")
    if not isinstance(sender, str) or "@" not in sender or _CONTROLS.search(sender):
        # a line break in From: would let the campaign file inject headers into every mail
        problems.append(f"line {raw.line_of('from')}: mail from must be one line with an address, such as \"Snakes GM <gm@example.org>\"")
        sender = MailConfig.sender
    imap = smtp = None
    from ..mail.settings import mail_auth

    try:
        auth, oauth2 = mail_auth(raw)
    except ProblemsError as error:
        problems.extend(error.problems)
        auth, oauth2 = "password", None
    if transport == "imap+smtp":
        from ..mail.settings import imap_settings, smtp_settings

        for key, reader in (("imap", imap_settings), ("smtp", smtp_settings)):
            section = raw.get(key)
            if not isinstance(section, LineDict):
                problems.append(f"line {raw.line_of(key)}: mail transport imap+smtp needs a mail.{key} mapping")
                continue
            try:
                value = reader(section)
            except ProblemsError as error:
                problems.extend(error.problems)
                continue
            if key == "imap":
                imap = value
            else:
                smtp = value
    return MailConfig(transport=transport, sender=sender, imap=imap, smtp=smtp, auth=auth, oauth2=oauth2)
