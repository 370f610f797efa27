"""The words of a refusal: a `Problem` (gm.rules.problem) worded from templates.

Each code is a macro of the same name in `templates/mail/<ruleset>/problems.txt`, looked
up for the campaign's ruleset, then for each ruleset it derives from, then in the common
`templates/mail/problems.txt` (the order envelope's and the desk's own codes); each in the
ruleset's own `templates` folder, then gm's (gm.templating). The macro
is called with the problem's facts as keyword arguments; `line` prefixes "line N: ".
"""

from __future__ import annotations

from typing import Any

import jinja2

from ..rules.problem import Problem
from .mailout import environment, lineage

COMMON = "generic:mail/problems.txt"  # gm.templating: this file itself, never a ruleset's


class NoWords(LookupError):
    """No template words a problem's code: a ruleset's bug, caught by its tests."""


def _macro(ruleset: str, name: str, code: str) -> Any:
    try:
        module = environment("text", ruleset).get_template(name).module
    except jinja2.TemplateNotFound:
        return None
    return getattr(module, code, None)


def problem_text(ruleset: str, problem: Problem) -> str:
    """What a player reads for `problem` in a campaign of `ruleset`, on one line."""
    for name in (*(f"mail/{r}/problems.txt" for r in lineage(ruleset)), COMMON):
        macro = _macro(ruleset, name, problem.code)
        if macro is not None:
            text = str(macro(**problem.facts)).strip()
            if problem.line is None:
                return text
            return str(_macro(ruleset, COMMON, "on_line")(line=problem.line, text=text)).strip()
    raise NoWords(f"no template words problem {problem.code!r} for the {ruleset} ruleset")


def problem_texts(ruleset: str, problems: list[Problem] | tuple[Problem, ...]) -> list[str]:
    return [problem_text(ruleset, p) for p in problems]
