"""The order commands a ruleset declares (RULES.md 3, 4.5, 6.13).

The grammar's types (`Grammar`, `CommandSpec`, `Command`, `CommandProblem`, readers,
exclusive groups) are in gm.rules.commands and re-exported here, where rulesets have
always imported them; this module adds `ruleset_keywords`, the keywords of every known
ruleset, which asks gm.rules.registry (so the ruleset interface, importing
gm.rules.commands, never imports the registry that imports it).
"""

from __future__ import annotations

from collections.abc import Iterable

from .commands import (
    ENVELOPE,
    MAX_DIGITS,
    OR,
    Command,
    CommandProblem,
    CommandSpec,
    Grammar,
    OrderRules,
    Reader,
    whole_number,
)

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
    "ruleset_keywords",
    "whole_number",
]


def ruleset_keywords(names: Iterable[str] | None = None) -> frozenset[str]:
    """The command keywords of every known ruleset (gm.rules.registry), or of `names`:
    what RULES.md 4.5 refuses when the campaign's own ruleset does not know it. A ruleset
    declares its grammar with `grammar(options)`; its keywords must not depend on the
    options, since they are read here with `grammar(None)` (its defaults)."""
    from .registry import find_ruleset, known

    words: set[str] = set()
    for name in known() if names is None else names:
        try:
            make = getattr(find_ruleset(name), "grammar", None)
            if make is not None:
                words.update(make(None).keywords)
        except Exception:  # noqa: BLE001 - an installed plug-in that fails to load must not stop every campaign's mail
            continue
    return frozenset(words)
