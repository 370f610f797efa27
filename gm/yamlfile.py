"""YAML input files that remember where each key stands, so problems can name their line.

Board and campaign files are written by people; a typo must be reported as
"line 7: unknown key 'snkaes' (did you mean 'snakes'?)", never silently ignored.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml

from .errors import ProblemsError


class LineDict(dict):
    """A mapping from YAML with the line of the mapping and of each key."""

    line: int = 0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lines: dict[Any, int] = {}
        self.duplicates: list[tuple[Any, int]] = []

    def line_of(self, key: Any) -> int:
        return self.lines.get(key, self.line)


class LineList(list):
    """A sequence from YAML with the line of the sequence and of each item."""

    line: int = 0

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.lines: list[int] = []

    def line_of(self, index: int) -> int:
        return self.lines[index] if index < len(self.lines) else self.line


class _Loader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, list | dict):
            key = str(key)
        line = key_node.start_mark.line + 1
        if key in result:
            result.duplicates.append((key, line))
        result[key] = loader.construct_object(value_node, deep=True)
        result.lines[key] = line
    return result


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.lines = [child.start_mark.line + 1 for child in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def parse(text: str) -> Any:
    """Parse YAML text into LineDict/LineList values; raises yaml.YAMLError on bad syntax."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass


def read(path: Path, error: type[ProblemsError]) -> Any:
    """Parse a YAML file, or raise `error` with the one reason it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as failure:
        raise error(str(path), [f"cannot read: {failure.strerror or failure}"]) from None
    except UnicodeDecodeError:
        raise error(str(path), ["not UTF-8 text"]) from None
    try:
        return parse(text)
    except yaml.YAMLError as failure:
        raise error(str(path), [syntax_problem(failure)]) from None


def syntax_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    what = getattr(error, "problem", None) or str(error)
    return f"line {mark.line + 1}: YAML syntax: {what}" if mark else f"YAML syntax: {what}"


def key_problems(mapping: LineDict, known: list[str] | tuple[str, ...], where: str = "") -> list[str]:
    """Every unknown or repeated key of `mapping`, with its line and a guess at what was meant."""
    problems = []
    prefix = f"{where}: " if where else ""
    for key, line in mapping.duplicates:
        problems.append(f"line {line}: {prefix}key '{key}' given twice")
    for key in mapping:
        if key not in known:
            guess = difflib.get_close_matches(str(key), known, n=1)
            hint = f" (did you mean '{guess[0]}'?)" if guess else ""
            problems.append(f"line {mapping.line_of(key)}: {prefix}unknown key '{key}'{hint}")
    return problems


def is_int(value: Any) -> bool:
    """True for a YAML integer; YAML booleans are ints to Python and must not pass."""
    return isinstance(value, int) and not isinstance(value, bool)
