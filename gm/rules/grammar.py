"""The order commands a ruleset declares (docs/rules/<ruleset>.md, Order mail; Commands).

The grammar's types (`Grammar`, `CommandSpec`, `Command`, `CommandProblem`, readers,
exclusive groups) are in gm.rules.commands and re-exported here, where rulesets have
always imported them; this module adds `ruleset_keywords`, the keywords of gm's own
rulesets, which asks gm.rules.registry (so the ruleset interface, importing
gm.rules.commands, never imports the registry that imports it).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

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
    """The command keywords of gm's own five rulesets (gm.rules.registry.BUILT_IN), or of
    `names`: what docs/rules/ (Commands) refuses when the campaign's own ruleset does not know it
    (each page of docs/rules, Writing orders). Never an installed package's: reading every
    ruleset's would import every package on the host into every campaign's ingest, so one
    broken or slow package would stop or slow them all, and a word a house ruleset makes a
    command (THANKS) would refuse another campaign's orders (docs/plugins.md, Shipping).
    A ruleset declares its grammar with `grammar(options)`; its keywords must not depend
    on the options, since they are read here with `grammar(None)` (its defaults)."""
    if names is None:
        return _built_in_keywords()
    from .registry import find_ruleset

    words: set[str] = set()
    for name in names:
        try:
            make = getattr(find_ruleset(name), "grammar", None)
            if make is not None:
                words.update(make(None).keywords)
        except Exception:  # noqa: BLE001 - a ruleset that fails to load must not stop order mail
            continue
    return frozenset(words)


@cache
def _built_in_keywords() -> frozenset[str]:
    # gm's own code: the same for the whole process, whatever is installed or registered
    from .registry import BUILT_IN, built_in

    return frozenset(word for name in BUILT_IN for word in built_in(name).grammar(None).keywords)
