"""A standing order said back as the command lines that would give it (`ROLL 3`,
`HOLD`), for a game's `order_view` and its mail: the words a player wrote, not the
fields gm stores (docs/plugins.md, "What gm lends a game")."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["order_lines"]


def order_lines(order: Any) -> tuple[str, ...]:
    """The lines of a dataclass order made by the default merge (a field per command,
    named after its keyword in lower case), in field order: a field left at its default
    says nothing, True is the keyword alone, a tuple (a repeatable command) one line per
    item, any other value `KEYWORD value`."""
    lines: list[str] = []
    for item in dataclasses.fields(order):
        value = getattr(order, item.name)
        default = item.default if item.default is not dataclasses.MISSING else (
            item.default_factory() if item.default_factory is not dataclasses.MISSING else None)
        if value == default or value is None or value is False:
            continue
        keyword = item.name.upper()
        if value is True:
            lines.append(keyword)
        elif isinstance(value, tuple):
            lines += [f"{keyword} {one}" for one in value]
        else:
            lines.append(f"{keyword} {value}")
    return tuple(lines)
