"""campaign.yaml (docs/campaign.md, campaign.yaml): read, check every key, and report every
problem with its line. Nothing here touches the database or the mail. What the file says
is held in gm.campaign.config.values; who takes part (players, observers, sign-up) is read
by gm.campaign.config.people."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from ...boards.model import Board
from ...clock import ZONE_EXAMPLE
from ...errors import BoardError, ConfigError, ProblemsError
from ...mail.settings import imap_settings, mail_auth, smtp_settings
from ...rules.registry import DEFAULT, UnknownRuleset, find_ruleset
from ...yamlfile import LineDict, is_int, key_problems, read
from .away import read_absence, read_extend
from .judged import JUDGE_FILE, judge_of
from .people import (
    _CONTROLS,
    ID_PATTERN,
    _observers,
    _players,
    _signup,
    _unique_casefold,
    _valid_zone,
    joined_name_problems,
    stand_in_problems,
)
from .press import read_press
from .values import CampaignConfig, MailConfig, PlayerConfig

CONFIG_NAME = "campaign.yaml"
TOP_KEYS = (
    "id", "title", "ruleset", "seed", "boards", "players", "options", "mail",
    "timezone", "turn_days", "first_deadline", "observers", "archive_url", "signup", "caps", "press",
    "absence", "extend",
    # read by a judge (docs/deployment.md, Notifications)
    "notify",
)
CAPS_KEYS = ("unasked_per_day",)
MAIL_KEYS = ("transport", "from", "imap", "smtp", "auth", "oauth2")
# options the campaign layer owns, beside the ruleset's own (docs/rules/, Order mail)
CAMPAIGN_OPTIONS = {"max_order_text": 65536, "allow_other_senders": False, "max_message_bytes": 1024 * 1024}
URL_PATTERN = re.compile(r"https?://[^\s<>\"']+")
# sample boards gm renamed: an old campaign.yaml naming one is told the new name
RENAMED_BOARDS = {"classic.yaml": "milton-bradley.yaml"}


def load_config(folder: Path, *, joined: Sequence[PlayerConfig] | None = None,
                joining: bool = False) -> CampaignConfig:
    """The campaign in `folder`; raises ConfigError listing every problem with its line.

    `joined` are the players who joined by mail (docs/rules/, Joining by mail; gm start's, or the stored
    game's): they play after campaign.yaml's players (one campaign.yaml lists too is taken
    from there) and the ruleset judges the whole list. None: the list is campaign.yaml's
    alone, and while sign-up may still fill it only its players' ids and keys are judged,
    not their number. `joining`: they join now (gm start), so their names are judged as a
    sign-up's are (gm.campaign.config.people.joined_name_problems)."""
    path = folder / CONFIG_NAME
    if not path.exists():
        raise ConfigError(str(path), ["no campaign here (gm campaign new DIR writes a starter file)"])
    data = read(path, ConfigError)
    if not isinstance(data, LineDict):
        raise ConfigError(str(path), ["campaign.yaml must be a mapping (see docs/campaign.md)"])
    return _config_from_data(data, folder, str(path), joined, joining)


def _config_from_data(data: LineDict, folder: Path, source: str,
                      joined: Sequence[PlayerConfig] | None = None, joining: bool = False) -> CampaignConfig:
    problems = key_problems(data, TOP_KEYS)
    need = partial(_need, data, problems)
    campaign_id = need("id", _good_id, "letters, digits, '-', '_' or '.'", "")
    title = need("title", lambda v: isinstance(v, str), "text", campaign_id, required=False)
    ruleset_name = need("ruleset", lambda v: isinstance(v, str), "a ruleset name", DEFAULT, required=False)
    # absent: gm start draws one (docs/campaign.md), so no GM has to invent an unguessable number
    seed = need("seed", lambda v: is_int(v) and v >= 0, "a whole number of at least 0", None, required=False)
    timezone = need("timezone", _valid_zone, ZONE_EXAMPLE, "UTC", required=False)
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
    boards, board_files = _boards(data, folder, ruleset, problems)
    signup = _signup(data, problems, timezone, ruleset)
    players, joined = _taking_part(data, problems, ruleset, signup, joined, joining)
    if ruleset.one_board and len(boards) > 1:
        problems.append(f"line {data.line_of('boards')}: the {ruleset.name} ruleset plays exactly one board")
    raw_options, options, boards = _options(data, problems, ruleset, boards, len(players))
    max_text, allow_others, max_bytes = _campaign_options(raw_options, problems)
    mail = _mail(data, problems, folder)
    observers = _observers(data, problems)
    archive_url = need("archive_url", lambda v: isinstance(v, str) and bool(URL_PATTERN.fullmatch(v)),
                       "an http(s) address such as https://example.org/spring-2027/", None, required=False)
    unasked_per_day = _caps(data, problems)
    press = read_press(data, problems)
    absence, extend = read_absence(data, problems), read_extend(data, problems)
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
        caps_unasked_per_day=unasked_per_day,
        press=press,
        absence=absence,
        extend=extend,
    )


def _need(data: LineDict, problems: list[str], key: str, check: Any, expected: str, default: Any = None,
          required: bool = True) -> Any:
    """A top-level key's value when `check` takes it; else a problem on its line and `default`."""
    if key not in data or data[key] is None:
        if required:
            problems.append(f"line {data.line}: missing key '{key}'")
        return default
    if not check(data[key]):
        problems.append(f"line {data.line_of(key)}: {key} must be {expected}, not {data[key]!r}")
        return default
    return data[key]


def _good_id(v: Any) -> bool:
    return isinstance(v, str) and bool(ID_PATTERN.fullmatch(v))


def _boards(data: LineDict, folder: Path, ruleset: Any, problems: list[str]) -> tuple[dict[str, Board], dict[str, Path]]:
    """campaign.yaml's boards: each file read by the ruleset, by board id."""
    boards: dict[str, Board] = {}
    board_files: dict[str, Path] = {}
    raw_boards = data.get("boards")
    if raw_boards is None and ruleset.boards_optional:
        return boards, board_files  # the ruleset's default board, made once the players and options are read
    if not isinstance(raw_boards, LineDict) or not raw_boards:
        problems.append(f"line {data.line_of('boards')}: boards must map board ids to board files")
        return boards, board_files
    for board_id, file in raw_boards.items():
        line = raw_boards.line_of(board_id)
        if not _good_id(str(board_id)) or not isinstance(board_id, str):
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
    return boards, board_files


def _taking_part(data: LineDict, problems: list[str], ruleset: Any, signup: Any,
                 joined: Sequence[PlayerConfig] | None, joining: bool) -> tuple[list[PlayerConfig], tuple[PlayerConfig, ...]]:
    """The players: campaign.yaml's, then those joined by mail, judged together by the
    ruleset; and those joined by mail alone."""
    players = _players(data, problems, ruleset.player_keys, empty_allowed=signup is not None)
    filling = signup is not None and joined is None
    listed = {p.id.casefold() for p in players}
    addresses = {p.email: p.id for p in players}
    joined = tuple(p for p in joined or () if p.id.casefold() not in listed)
    problems += [f"line {data.line_of('players')}: player {p.id} (joined by mail) has the address of "
                 f"{addresses[p.email]}" for p in joined if p.email in addresses]
    problems += joined_name_problems(players, joined, joining=joining, line=data.line_of("players"))
    players += joined
    pairs = tuple((p.id, dict(p.extra)) for p in players)
    # still filling by mail: the ids and keys of the players listed, not their number
    found = stand_in_problems(ruleset, pairs) if filling else ruleset.player_problems(pairs)
    problems += [f"line {data.line_of('players')}: {p}" for p in found]
    return players, joined


def _options(data: LineDict, problems: list[str], ruleset: Any, boards: dict[str, Board],
             players: int) -> tuple[LineDict, Any, dict[str, Board]]:
    """campaign.yaml's options: (as written, as the ruleset parsed them, the boards the
    ruleset plays with them)."""
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
        # the ruleset's board checks (such as a board's shape and what lies on it) and its
        # default board need sound players and options
        boards, found = ruleset.campaign_boards(boards, players, options)
        problems += [f"line {data.line_of('boards')}: {p}" for p in found]
    return raw_options, options, boards


def _campaign_options(raw_options: LineDict, problems: list[str]) -> tuple[Any, Any, Any]:
    """The options every campaign has, whatever its ruleset: max_order_text,
    allow_other_senders and max_message_bytes."""
    max_text = raw_options.get("max_order_text", CAMPAIGN_OPTIONS["max_order_text"])
    if not is_int(max_text) or max_text < 100:
        problems.append(f"line {raw_options.line_of('max_order_text')}: option max_order_text must be a whole number of at least 100")
    allow_others = raw_options.get("allow_other_senders", False)
    if not isinstance(allow_others, bool):
        problems.append(f"line {raw_options.line_of('allow_other_senders')}: option allow_other_senders must be true or false")
    max_bytes = raw_options.get("max_message_bytes", CAMPAIGN_OPTIONS["max_message_bytes"])
    if not is_int(max_bytes) or max_bytes < 4096:
        problems.append(f"line {raw_options.line_of('max_message_bytes')}: option max_message_bytes must be a whole number of at least 4096")
    return max_text, allow_others, max_bytes


def _caps(data: LineDict, problems: list[str]) -> int:
    """caps.unasked_per_day (docs/campaign.md): at least 1, the default 200."""
    default = CampaignConfig.caps_unasked_per_day
    raw = data.get("caps")
    if raw is None:
        return default
    if not isinstance(raw, LineDict):
        problems.append(f"line {data.line_of('caps')}: caps must be a mapping, such as caps: {{unasked_per_day: 200}}")
        return default
    problems += key_problems(raw, CAPS_KEYS, "caps")
    value = raw.get("unasked_per_day", default)
    if not is_int(value) or value < 1:
        problems.append(f"line {raw.line_of('unasked_per_day')}: caps unasked_per_day must be a whole number of at least 1")
        return default
    return value


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


def _mail(data: LineDict, problems: list[str], folder: Path | None = None) -> MailConfig:
    raw = data.get("mail")
    judge = judge_of(folder) if folder is not None and raw is None else None
    if judge is not None:
        # one of a judge's games: the judge's mail settings (docs/deployment.md, A judge)
        judge_data = read(judge / JUDGE_FILE, ConfigError)
        raw = judge_data.get("mail") if isinstance(judge_data, LineDict) else None
        if raw is None:
            return MailConfig(judge=judge)
        # a problem in judge.yaml's mail: is the judge's file's, and said against its path and lines
        own: list[str] = []
        mail = _mail_settings(judge_data, raw, own, judge)
        if own:
            raise ConfigError(str(judge / JUDGE_FILE), own)
        return mail
    if raw is None:
        return MailConfig()
    return _mail_settings(data, raw, problems, None)


def _mail_settings(data: LineDict, raw: Any, problems: list[str], judge: Path | None) -> MailConfig:
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
    try:
        auth, oauth2 = mail_auth(raw)
    except ProblemsError as error:
        problems.extend(error.problems)
        auth, oauth2 = "password", None
    if transport == "imap+smtp":
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
    return MailConfig(transport=transport, sender=sender, imap=imap, smtp=smtp, auth=auth, oauth2=oauth2,
                      judge=judge)
