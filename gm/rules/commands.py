"""The order commands a ruleset declares (docs/rules/<ruleset>.md, Order mail; Commands): a
grammar's types.

gm.rules.grammar re-exports every name here and adds `ruleset_keywords` (which asks the
registry); the ruleset interface imports this module, which imports no registry.

Every ruleset's mail shares one envelope (`GAME`, `PLAYER`, `PASSWORD`, `TURN`, `END`,
`HELP`, `RESET`), read by `gm.mail.orderlang`. The commands that carry the orders themselves
belong to the ruleset: it declares them as a `Grammar`, built from its options by
`Ruleset.grammar(options)`, and `gm.orderlang.parse_orders(text, grammar=...)` reads
them. A grammar is syntax only: each command's reader checks the values' form and says
what the line sets; whether the values make sense in the game (a square on the map, a
player still in play) is the ruleset's `merge`, with the game state at hand.

A reader is `read(args, rest, context) -> (target, value)`:

* `args`: the words after the keyword (`BUILD snake: 12` gives `("snake:", "12")`),
  `rest`: everything after the keyword as written, trimmed; `context`: the grammar's
  `context` (whatever the syntax depends on, e.g. an option that adds a value).
* It raises `CommandProblem(code, **facts)` when the values are wrong: a problem code
  (gm.rules.problem) whose words, in the ruleset's templates/mail/<name>/problems.txt,
  say what was expected and, best, the written form (`STEP needs a whole number from 1
  to 3, got "7"`). orderlang adds the line.
* `target` is what the line sets when one command can set several things: None when the
  command sets one thing (`RESIGN`), else a hashable whose equality is what "given twice"
  compares (`MARK a red` and `MARK A blue` name the same lane) and whose `str()` names it
  in that problem ("lane A"). `value` is what the line says, compared by `!=` for the
  same check, and handed to `merge` in a `Command`.

A keyword of a command is letters only, and never an envelope keyword.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .problem import Problem

__all__ = [
    "ENVELOPE",
    "MAX_DIGITS",
    "OR",
    "Command",
    "CommandProblem",
    "CommandSpec",
    "Grammar",
    "OrderRules",
    "Reader",
    "whole_number",
]

# docs/rules/<ruleset>.md, Order mail: the commands every ruleset's mail shares, read by
# gm.mail.orderlang itself.
ENVELOPE = ("GAME", "PLAYER", "PASSWORD", "TURN", "END", "HELP", "RESET", "ENTROPY")

# How mail joins the forms of an exclusive group on one line (Grammar.offered).
OR = "  or  "

# Values longer than this are no square, turn or count; the bound also keeps int() cheap.
MAX_DIGITS = 9

_KEYWORD = re.compile(r"[A-Z]+")


class CommandProblem(ValueError):
    """Raised by a reader: the line's values are not of the command's form. `problem` is
    the code and facts a template words."""

    def __init__(self, code: str, /, **facts: Any):
        self.problem = Problem(code, facts)
        super().__init__(code)


Reader = Callable[[tuple[str, ...], str, Any], tuple[Hashable | None, Any]]


@dataclass(frozen=True)
class CommandSpec:
    """One command of a grammar.

    `form` is how it is written, quoted back to players (`BUILD SNAKE <square>`). A
    `repeatable` command is a list, one item a line (unleashed's `PLAY` lines): every line
    is kept, in order, and "given twice with different values" does not apply to it.
    """

    keyword: str
    form: str
    read: Reader
    repeatable: bool = False


@dataclass(frozen=True)
class Grammar:
    """The commands one ruleset knows, with its options applied; `context` is passed to
    every reader."""

    commands: tuple[CommandSpec, ...] = ()
    context: Any = None
    # a signature is only a line that is exactly "--" (trailing spaces allowed), not an em dash or
    # an indented one (unleashed: docs/rules/unleashed.md, Order mail)
    strict_signature: bool = False
    # groups of commands that exclude each other (`(("ROLL", "HOLD"),)`: a turn's order is
    # one or the other): gm.mail.orderlang refuses a message naming two of one group, the
    # generic help lists a group as alternatives, and the default merge clears the others
    exclusive: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        seen = set()
        for spec in self.commands:
            if not _KEYWORD.fullmatch(spec.keyword):
                raise ValueError(f"a command keyword is upper-case letters only, not {spec.keyword!r}")
            if spec.keyword in ENVELOPE:
                raise ValueError(f"{spec.keyword} is an envelope command, which gm.mail.orderlang reads for every ruleset")
            if spec.keyword in seen:
                raise ValueError(f"{spec.keyword} declared twice")
            seen.add(spec.keyword)
        grouped: set[str] = set()
        for group in self.exclusive:
            if isinstance(group, str) or len(group) < 2:
                raise ValueError(f"an exclusive group names two commands or more, not {group!r}")
            for keyword in group:
                if keyword not in seen:
                    raise ValueError(f"exclusive group {'/'.join(group)}: {keyword} is not a command of the grammar")
                if keyword in grouped:
                    raise ValueError(f"{keyword} is in two exclusive groups; a command excludes one group's others")
                grouped.add(keyword)

    @property
    def keywords(self) -> tuple[str, ...]:
        """The keywords, in the order declared (the order problems list them in)."""
        return tuple(spec.keyword for spec in self.commands)

    @property
    def forms(self) -> dict[str, str]:
        return {spec.keyword: spec.form for spec in self.commands}

    def spec(self, keyword: str) -> CommandSpec | None:
        return next((spec for spec in self.commands if spec.keyword == keyword), None)

    def group(self, keyword: str) -> tuple[str, ...]:
        """The exclusive group `keyword` belongs to, or () when it excludes nothing."""
        return next((tuple(group) for group in self.exclusive if keyword in group), ())

    def excluded_by(self, keyword: str) -> tuple[str, ...]:
        """The commands `keyword` excludes: the others of its exclusive group."""
        return tuple(other for other in self.group(keyword) if other != keyword)

    @property
    def alternatives(self) -> tuple[tuple[str, ...], ...]:
        """The commands' forms as the generic help lists them, in the order declared: one
        entry a command, or one entry for a whole exclusive group (its forms, to be shown
        as alternatives: "ROLL <n>  or  HOLD")."""
        entries: list[tuple[str, ...]] = []
        done: set[str] = set()
        forms = self.forms
        for spec in self.commands:
            if spec.keyword in done:
                continue
            group = self.group(spec.keyword) or (spec.keyword,)
            done.update(group)
            entries.append(tuple(forms[k] for k in group))
        return tuple(entries)

    @property
    def offered(self) -> tuple[str, ...]:
        """The forms as mail lists them (`commands` in every mail's context): one line a
        command, an exclusive group's forms on one line as alternatives ("ROLL <n>  or
        HOLD"). Without exclusive groups, exactly `forms`' values."""
        return tuple(OR.join(group) for group in self.alternatives)


@dataclass(frozen=True)
class Command:
    """One accepted command line of a message: its line number, the line as written (a
    password masked), the keyword, and what the reader made of it."""

    line: int
    text: str
    keyword: str
    target: Hashable | None
    value: Any


@runtime_checkable
class OrderRules(Protocol):
    """What a ruleset offers the order desk (gm.campaign.desk) for its commands."""

    def grammar(self, options: Any) -> Grammar:
        """The commands with the campaign's options applied; `options` None: the defaults
        (the keywords must be the same whatever the options)."""
        ...

    def merge(
        self, setup: Any, state: Any, player: str, standing: Any, commands: tuple[Command, ...]
    ) -> tuple[Any, list[Problem]]:
        """The player's standing order with one accepted message's `commands` applied
        (docs/rules/<ruleset>.md, Order mail: each message replaces only what it names), and the
        problems that refuse the message (empty when none), each on its command's line. Never
        changes `standing`."""
        ...


def whole_number(value: str, low: int, high: int | None = None) -> int | None:
    """`value` as a whole number in low..high (no bound above when high is None), written
    in ASCII digits only; else None."""
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS):
        return None
    number = int(value)
    if number < low or (high is not None and number > high):
        return None
    return number
