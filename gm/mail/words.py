"""The words of a refusal: a `Problem` (gm.rules.problem) worded from templates.

Each code is a macro of the same name in `templates/mail/<ruleset>/problems.txt`, looked
up for the campaign's ruleset, then for each ruleset it derives from, then in the common
`templates/mail/problems.txt` (the order envelope's and the desk's own codes); each in the
ruleset's own `templates` folder, then gm's (gm.rules.templating). The macro
is called with the problem's facts as keyword arguments; `line` prefixes "line N: ".

A reply to a stranger (an address no player registered) quotes nothing the sender wrote
(docs/rules/, Replies): `for_stranger` words each problem with the
facts that carry the sender's text withheld (None, which the common macros leave out), and
a ruleset's own problem, whose facts gm cannot vouch for, as the fixed `not_an_order`.
"""

from __future__ import annotations

from typing import Any

import jinja2

from ..rules.files import lineage
from ..rules.problem import Problem
from .mailout import environment

COMMON = "generic:mail/problems.txt"  # gm.rules.templating: this file itself, never a ruleset's
# The facts of the common problems that hold what the sender wrote (a line's value, a
# word taken for a command, a game's id or a board's as written)
SAID = frozenset({"rest", "value", "text", "first_text", "game", "word", "target"})


class NoWords(LookupError):
    """No template words a problem's code: a ruleset's bug, caught by its tests."""


def _macro(ruleset: str, name: str, code: str) -> Any:
    try:
        module = environment("text", ruleset).get_template(name).module
    except jinja2.TemplateNotFound:
        return None
    return getattr(module, code, None)


def problem_text(ruleset: str, problem: Problem, *, common_only: bool = False) -> str:
    """What a player reads for `problem` in a campaign of `ruleset`, on one line."""
    names = (COMMON,) if common_only else (*(f"mail/{r}/problems.txt" for r in lineage(ruleset)), COMMON)
    for name in names:
        macro = _macro(ruleset, name, problem.code)
        if macro is not None:
            text = str(macro(**problem.facts)).strip()
            if problem.line is None:
                return text
            return str(_macro(ruleset, COMMON, "on_line")(line=problem.line, text=text)).strip()
    raise NoWords(f"no template words problem {problem.code!r} for the {ruleset} ruleset")


def for_stranger(ruleset: str, problem: Problem) -> Problem:
    """`problem` as a stranger may read it: none of the sender's words in its facts."""
    if _macro(ruleset, COMMON, problem.code) is None:
        return Problem("not_an_order", {}, problem.line)
    return Problem(problem.code, {k: None if k in SAID else v for k, v in problem.facts.items()}, problem.line)


def problem_texts(ruleset: str, problems: list[Problem] | tuple[Problem, ...], *, stranger: bool = False) -> list[str]:
    """Each problem worded; for a `stranger`, without the sender's words (for_stranger)."""
    if stranger:
        # the common words only: a ruleset's override of one may show a withheld fact
        return [problem_text(ruleset, for_stranger(ruleset, p), common_only=True) for p in problems]
    return [problem_text(ruleset, p) for p in problems]
