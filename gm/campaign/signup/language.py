"""The sign-up language (docs/rules/, Joining by mail): JOIN, CONFIRM and LEAVE with NAME, TIMEZONE, ID and
the ruleset's player keys, read from a mail's text into a Request; what stands where and
what is done with it is gm.campaign.signup.standing's."""

from __future__ import annotations

import functools
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...clock import ZONES_WITHOUT_REGION, is_zone
from ...mail.typos import near_miss
from ...rules.grammar import CommandProblem, CommandSpec, Grammar, ruleset_keywords
from ...rules.problem import Problem, problem
from .. import names
from .codes import CODE_ALPHABET, CODE_LENGTH

if TYPE_CHECKING:
    from ...mail.orderlang import OrderText
    from ...rules.base import Ruleset


JOIN, CONFIRM, LEAVE = "JOIN", "CONFIRM", "LEAVE"
REQUESTS = (JOIN, CONFIRM, LEAVE)
FORMS = {
    JOIN: "JOIN <campaign>",
    CONFIRM: "CONFIRM <code>",
    LEAVE: "LEAVE <campaign>",
    "NAME": "NAME <your full name>",
    "TIMEZONE": "TIMEZONE <zone, such as Europe/London>",
    "ID": "ID <id>",
}
JOIN_ONLY = ("NAME", "TIMEZONE", "ID")  # and the ruleset's player keys
MAX_NAME = names.MAX_LENGTH  # once cleaned (gm.campaign.names)
# a value of a ruleset's player key (a team) as a sign-up gives it: a team's name is
# short; a longer one is refused, its value never said back
MAX_KEY_VALUE = 30
# an id a person asks for: lowercase ASCII letters, digits and '-' (docs/rules/, Joining by mail), short
# enough for a report's table
ID_ASKED = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
MADE_ID_LENGTH = 24
# A line opening with a request keyword: a mail holding one (and no PLAYER) is a sign-up
# mail. Checked on the text before any parsing, so order mail pays one search for it.
_REQUEST_LINE = re.compile(r"^[ \t*]*(?:JOIN|CONFIRM|LEAVE)\b", re.IGNORECASE | re.MULTILINE)


def is_signup_mail(text: str) -> bool:
    """Whether the text may hold a sign-up request: a line opening with JOIN, CONFIRM or
    LEAVE (the parse decides; a PLAYER line makes it order mail all the same)."""
    return _REQUEST_LINE.search(text) is not None


def keyword_of(key: str) -> str:
    """The command keyword of a ruleset's player key (`team` is TEAM): its letters."""
    return "".join(c for c in key.upper() if "A" <= c <= "Z")


@functools.cache
def _zones() -> dict[str, str]:
    # the zones gm takes (gm.clock.is_zone), written in any case
    return {name.casefold(): name for name in (*zoneinfo.available_timezones(), *ZONES_WITHOUT_REGION)
            if is_zone(name)}


def _one(keyword: str, args: tuple[str, ...], rest: str) -> str:
    if not args:
        raise CommandProblem("signup_needs_value", keyword=keyword, form=FORMS.get(keyword, keyword))
    if len(args) > 1:
        raise CommandProblem("signup_one_value", keyword=keyword, form=FORMS.get(keyword, keyword), rest=rest)
    return args[0]


def _read_campaign(keyword: str):
    def read(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, str]:
        return None, _one(keyword, args, rest)

    return read


def _read_code(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, str]:
    if not args:
        raise CommandProblem("signup_needs_value", keyword=CONFIRM, form=FORMS[CONFIRM])
    code = re.sub(r"[\s-]", "", rest).upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise CommandProblem("signup_bad_code", value=rest[:40])
    return None, code


def _read_name(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, str]:
    """The name cleaned (gm.campaign.names); a refusal says what is wrong in fixed words,
    never quoting the name: it is a stranger's text (docs/rules/, Joining by mail)."""
    name = names.clean(rest)
    wrong = names.problems(name)
    if names.EMPTY in wrong:
        raise CommandProblem("signup_needs_value", keyword="NAME", form=FORMS["NAME"])
    if names.LONG in wrong:
        raise CommandProblem("signup_long_name", most=MAX_NAME)
    if names.LINK in wrong:
        raise CommandProblem("signup_name_link")
    return None, name


def _read_zone(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, str]:
    value = _one("TIMEZONE", args, rest)
    zone = _zones().get(value.casefold())
    if zone is None:
        raise CommandProblem("signup_bad_zone", value=value[:60])
    return None, zone


def _read_id(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, str]:
    value = _one("ID", args, rest)
    if not ID_ASKED.fullmatch(value.lower()):
        raise CommandProblem("signup_bad_id", value=value[:60])
    return None, value.lower()


def _read_key(keyword: str):
    def read(args: tuple[str, ...], rest: str, context: Any) -> tuple[None, str]:
        if not args:
            raise CommandProblem("signup_needs_value", keyword=keyword, form=f"{keyword} <{keyword.lower()}>")
        value = " ".join(args)
        if len(value) > MAX_KEY_VALUE:
            raise CommandProblem("signup_long_value", keyword=keyword, most=MAX_KEY_VALUE)
        return None, value

    return read


@functools.lru_cache(maxsize=16)
def grammar(keys: tuple[str, ...]) -> Grammar:
    """The sign-up commands, with a command for each of the ruleset's player keys."""
    commands = [CommandSpec(JOIN, FORMS[JOIN], _read_campaign(JOIN)),
                CommandSpec(CONFIRM, FORMS[CONFIRM], _read_code),
                CommandSpec(LEAVE, FORMS[LEAVE], _read_campaign(LEAVE)),
                CommandSpec("NAME", FORMS["NAME"], _read_name),
                CommandSpec("TIMEZONE", FORMS["TIMEZONE"], _read_zone),
                CommandSpec("ID", FORMS["ID"], _read_id)]
    taken = {spec.keyword for spec in commands}
    for key in keys:
        word = keyword_of(key)
        if word and word not in taken:
            taken.add(word)
            commands.append(CommandSpec(word, f"{word} <{key}>", _read_key(word)))
    return Grammar(tuple(commands))


def key_forms(ruleset: Ruleset) -> list[str]:
    """How the ruleset's player keys are written in a JOIN (`TEAM <team>`)."""
    forms = grammar(tuple(ruleset.player_keys)).forms
    return [form for word, form in forms.items() if word not in (*REQUESTS, *JOIN_ONLY)]


@dataclass(frozen=True)
class Request:
    """What one sign-up mail asks, once read: `kind` JOIN, CONFIRM or LEAVE (or "" when
    it asks none), and the problems that refuse it, each on its line where it has one."""

    kind: str = ""
    campaign: str | None = None  # JOIN's and LEAVE's
    code: str | None = None  # CONFIRM's
    name: str | None = None
    timezone: str | None = None
    player: str | None = None  # the id asked for, lower case
    keys: dict[str, str] = field(default_factory=dict)  # the ruleset's player keys given
    problems: tuple[Problem, ...] = ()
    ignored: tuple[tuple[int, str], ...] = ()
    help: bool = False
    parsed: OrderText | None = None

    def asked(self) -> dict[str, Any]:
        """What a JOIN asks, as JSON: kept with its message until it is confirmed."""
        return {"name": self.name, "timezone": self.timezone, "player": self.player, "keys": dict(self.keys)}

    @classmethod
    def of_asked(cls, data: dict[str, Any]) -> Request:
        # a JOIN read before names were cleaned as they came in is cleaned at its CONFIRM
        return cls(kind=JOIN, name=names.clean(data["name"] or ""), timezone=data["timezone"], player=data["player"],
                   keys=dict(data["keys"]))


def read_request(text: str, ruleset: Ruleset, campaign_id: str) -> Request:
    """The request one sign-up mail's text makes (docs/rules/, Joining by mail), every problem found."""
    # the mail's machinery, imported here: a command that only opens the campaign needs none of it
    from ...mail.orderlang import parse_orders

    keys = tuple(ruleset.player_keys)
    parsed = parse_orders(text, grammar=grammar(keys), other_keywords=_other_keywords())
    problems = [p.why for p in parsed.problems]
    asked = [c for c in parsed.commands if c.keyword in REQUESTS]
    values = {c.keyword: c.value for c in parsed.commands}
    kind = asked[0].keyword if asked else ""
    if len({c.keyword for c in asked}) > 1:
        problems.append(problem("signup_one_request", asked[1].line))
    # a near miss of this campaign's id is offered back as gm's own id, never as written
    if kind in (JOIN, LEAVE) and str(values[kind]).casefold() != campaign_id.casefold():
        problems.append(problem("signup_other_game", asked[0].line, keyword=kind, game=values[kind],
                                campaign=campaign_id, meant=near_miss(str(values[kind]), campaign_id)))
    if parsed.game is not None and parsed.game.casefold() != campaign_id.casefold():
        problems.append(problem("other_game", parsed.lines.get("GAME"), game=parsed.game, campaign=campaign_id,
                                meant=near_miss(parsed.game, campaign_id)))
    if kind == JOIN and "NAME" not in values and not any(p.code == "signup_needs_value" for p in problems):
        problems.append(problem("signup_needs_name", asked[0].line))
    if kind != JOIN:
        problems += [problem("signup_join_only", c.line, keyword=c.keyword) for c in parsed.commands
                     if c.keyword not in REQUESTS]
    key_of = {keyword_of(k): k for k in keys}
    return Request(
        kind=kind,
        campaign=values.get(kind) if kind in (JOIN, LEAVE) else None,
        code=values.get(CONFIRM),
        name=values.get("NAME"),
        timezone=values.get("TIMEZONE"),
        player=values.get("ID"),
        keys={key_of[c.keyword]: c.value for c in parsed.commands if c.keyword in key_of},
        problems=tuple(problems),
        ignored=parsed.ignored,
        help=parsed.help,
        parsed=parsed,
    )


@functools.cache
def _other_keywords() -> frozenset[str]:
    # an order command of gm's own rulesets in a sign-up mail is named as not this desk's
    # (docs/rules/, Commands); an installed package's is an ignored line, never imported here
    return ruleset_keywords()
