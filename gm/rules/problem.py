"""Why a message or one of its lines is refused, as a code and facts, never as words.

Every word a player reads lives in templates/ (docs/rules/<ruleset>.md, Order mail: the reply says
every problem found, line by line). A ruleset, the order reader and the desk say *what* is wrong
with a `Problem`: a code such as `no_such_board` and the facts the words need (`board="Z"`), with
the message line it is about when there is one. `gm.mail.words.problem_text` words it from the macro
of the same name in `templates/mail/<ruleset>/problems.txt` (then the rulesets it derives from, then
the common `templates/mail/problems.txt`).

Codes are lower-case identifiers (a Jinja macro name); facts are plain values (strings,
numbers, lists of them), so that the words can be tested and translated without Python.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Problem", "problem"]

_CODE = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Problem:
    """One reason a message is refused: `code` names the words, `facts` fill them in,
    `line` is the message line it is about (None: the message as a whole)."""

    code: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None

    def __post_init__(self) -> None:
        if not _CODE.fullmatch(self.code):
            raise ValueError(f"a problem code is a lower-case identifier, not {self.code!r}")

    def on_line(self, line: int | None) -> Problem:
        """The same problem, about message line `line` (kept when already set)."""
        return self if self.line is not None or line is None else replace(self, line=line)


def problem(code: str, /, line: int | None = None, **facts: Any) -> Problem:
    """`problem("no_such_board", board="Z")`: a Problem, facts as keywords."""
    return Problem(code, facts, line)
