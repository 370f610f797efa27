"""A ruleset's options (campaign.yaml `options:`): the one error type for bad ones, and
the default reading of an options dataclass.

`parse_options` raises `OptionsError` (a ValueError) listing every problem, one a line;
gm's config check reports each as a campaign.yaml problem. A ruleset that declares
`options_type` (a dataclass whose fields all have defaults) gets `option_keys` (its
field names) and `parse_options` (each given value checked against its field's type)
without writing either. A field's metadata may add a bound and the words for it:
`field(default=3, metadata={"minimum": 1, "expected": "a whole number of at least 1"})`
refuses a whole number below 1 and says so in those words (`option(...)` writes it).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ProblemsError

__all__ = ["NoOptions", "OptionsError", "option", "option_names", "option_type_problems", "parse_dataclass_options"]


class OptionsError(ValueError):
    """Options a ruleset refuses: `problems` lists what is wrong, one line each (best
    starting "line N: " where the campaign.yaml line is known)."""

    def __init__(self, problems: Sequence[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


class OptionValuesError(OptionsError, ProblemsError):
    """Options whose values do not fit their fields, each problem on its campaign.yaml line:
    an OptionsError, and the ProblemsError of `options` that gm's own checks raise."""

    def __init__(self, problems: Sequence[str]):
        OptionsError.__init__(self, problems)
        self.source = "options"


def option(default: Any, *, minimum: int | None = None, expected: str | None = None) -> Any:
    """An options dataclass field: its default, the least whole number it takes (None: any)
    and the words a refusal uses for what it must be (None: its type's)."""
    metadata = {key: value for key, value in (("minimum", minimum), ("expected", expected)) if value is not None}
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True)
class NoOptions:
    """The options of a ruleset that has none (no `options_type`, no parse_options)."""


def option_names(options_type: type) -> tuple[str, ...]:
    """The campaign.yaml keys of an options dataclass: its init fields, in order."""
    return tuple(f.name for f in dataclasses.fields(options_type) if f.init)


_WORDS = {int: "a whole number", str: "text", bool: "true or false", float: "a number"}


def _fits(kind: Any, value: Any) -> bool:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return True
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(arg, value) for arg in args)
    if origin is typing.Literal:
        return value in args
    if kind is type(None):
        return value is None
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind in (str, bool):
        return isinstance(value, kind)
    if origin is tuple or kind is tuple:
        if not isinstance(value, list | tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(args[0], item) for item in value)
        return not args or (len(args) == len(value) and all(map(_fits, args, value)))
    return True  # a type this reader does not know: the ruleset's own checks judge it


def _wanted(kind: Any) -> str:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Union or origin is types.UnionType:
        return " or ".join("null" if a is type(None) else _wanted(a) for a in args)
    if origin is typing.Literal:
        return " or ".join(str(a) for a in args)
    if origin is tuple or kind is tuple:
        return "a list"
    return _WORDS.get(kind, getattr(kind, "__name__", str(kind)))


def option_type_problems(options_type: type, values: Mapping[str, Any]) -> list[str]:
    """What of `values` (option name -> value, as JSON reads it) does not fit its field's
    type in the options dataclass `options_type`; a field whose type cannot be read is
    left to the ruleset's own checks."""
    try:
        hints = typing.get_type_hints(options_type)
    except (NameError, TypeError):
        return []
    return [f"option {name} must be {_wanted(hints[name])}, not {_json(value)}" for name, value in values.items()
            if name in hints and not _fits(hints[name], tuple(value) if isinstance(value, list) else value)]


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _below(metadata: Mapping[str, Any], value: Any) -> bool:
    minimum = metadata.get("minimum")
    return minimum is not None and isinstance(value, int) and not isinstance(value, bool) and value < minimum


def parse_dataclass_options(options_type: type, raw: Mapping[str, Any]) -> Any:
    """`options_type` with the values `raw` gives (the defaults for the rest), each checked
    against its field's type and metadata; raises OptionsError listing every value that does
    not fit, in the order given (campaign.yaml's)."""
    hints = typing.get_type_hints(options_type)
    fields = {f.name: f.metadata for f in dataclasses.fields(options_type) if f.init}
    line_of = getattr(raw, "line_of", None)
    values, problems = {}, []
    for name in raw:
        if name not in fields:
            continue  # the caller refuses keys that are not options, with their lines
        value = raw[name]
        if isinstance(value, list):
            value = tuple(value)
        kind = hints.get(name, Any)
        if not _fits(kind, value) or _below(fields[name], value):
            where = f"line {line_of(name)}: " if line_of else ""
            problems.append(f"{where}option {name} must be {fields[name].get('expected') or _wanted(kind)}, "
                            f"not {value!r}")
            continue
        values[name] = value
    if problems:
        raise OptionValuesError(problems)
    try:
        return options_type(**values)
    except (TypeError, ValueError) as error:  # the dataclass's own __post_init__ checks
        problems = getattr(error, "problems", None) or str(error).splitlines()
        raise OptionsError(problems) from None
