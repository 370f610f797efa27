"""YAML input files that remember where each key stands, so problems can name their line.

Board and campaign files are written by people; a typo must be reported as
"line 7: unknown key 'snkaes' (did you mean 'snakes'?)", never silently ignored.

They also come from outside: board files are shared between GMs, and a campaign may name
any path as a board. So a file is read only up to a bound, and YAML that no gm file needs
(aliases, tags, deep nesting, more values than any board or campaign holds) is refused
before anything is built from it.
"""

from __future__ import annotations

import difflib
import re
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


MAX_FILE_BYTES = 1024 * 1024  # a full 10,000-square board written out takes about 200 KB
MAX_VALUES = 100_000  # scalars and collections; such a board has about 35,000
MAX_DEPTH = 32  # a board nests 3 deep, a campaign or a design 5
# unknown or repeated keys are quoted only when they look like a name a person typed (a
# typo deserves "did you mean"); anything else may be a line of a file that is no gm file
QUOTABLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,30}\Z")


class Refused(yaml.MarkedYAMLError):
    """YAML that parses but that no gm file needs, refused before it is built."""


# libyaml's parser when PyYAML has it: it reads a full-size board six times faster than the
# pure-Python one, and both give the same values and lines
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Parser):  # type: ignore[misc, valid-type]
    """The safe loader, building LineDict and LineList with their lines."""


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


def _check_events(text: str, parser: type | None = None) -> None:
    """Raise Refused at the first alias or anchor (a "billion laughs" file of 1 KB expands to
    gigabytes when built), explicit tag, nesting beyond MAX_DEPTH (recursion) or value
    beyond MAX_VALUES (time). Reads parser events only, so it stops at the first offence
    having built nothing."""
    parser = parser or _Parser
    events = parser(text)
    depth = values = 0
    try:
        while events.check_event():
            event = events.get_event()
            if not isinstance(event, yaml.NodeEvent):
                if isinstance(event, yaml.CollectionEndEvent):
                    depth -= 1
                continue
            problem = None
            if isinstance(event, yaml.AliasEvent) or event.anchor is not None:
                problem = "anchors and aliases (& and *) are not allowed in gm files"
            elif event.tag is not None:
                problem = "YAML tags (!...) are not used in gm files"
            values += 1
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    problem = f"nested more than {MAX_DEPTH} deep: no gm file needs that"
            if values > MAX_VALUES:
                problem = f"more than {MAX_VALUES:,} values: no board or campaign needs that many"
            if problem:
                raise Refused(problem=problem, problem_mark=event.start_mark)
    except Refused:
        raise
    except yaml.YAMLError:
        # Some libyaml builds scan far ahead and stop at their own nesting limit before
        # handing over the event at depth MAX_DEPTH; the pure-Python parser reads lazily,
        # so it names the offence in gm's words wherever libyaml is built that way.
        if parser is not yaml.SafeLoader:
            _check_events(text, yaml.SafeLoader)
        return  # bad syntax: parse() reports it, in the words of the one parser it uses
    finally:
        events.dispose()


def parse(text: str) -> Any:
    """Parse YAML text into LineDict/LineList values; raises yaml.YAMLError on bad syntax
    or on YAML no gm file needs (Refused)."""
    _check_events(text)
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader subclass


def read(path: Path, error: type[ProblemsError]) -> Any:
    """Parse a YAML file, or raise `error` with the one reason it cannot be read."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)  # never more: the path may be /dev/zero
    except OSError as failure:
        raise error(str(path), [f"cannot read: {failure.strerror or failure}"]) from None
    if len(data) > MAX_FILE_BYTES:
        raise error(str(path), [f"larger than {MAX_FILE_BYTES // 1024} KiB: no board or campaign file is"])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(str(path), ["not UTF-8 text"]) from None
    try:
        return parse(text)
    except yaml.YAMLError as failure:
        raise error(str(path), [syntax_problem(failure)]) from None


def syntax_problem(error: Any) -> str:
    """A yaml.YAMLError in one line, with its line."""
    mark = getattr(error, "problem_mark", None)
    what = getattr(error, "problem", None) or str(error)
    if isinstance(error, yaml.reader.ReaderError):  # its text spans two lines
        what = f"character #x{error.character:04x} at position {error.position} is not allowed in YAML"
    if isinstance(error, Refused):
        return f"line {mark.line + 1}: {what}"
    return f"line {mark.line + 1}: YAML syntax: {what}" if mark else f"YAML syntax: {what}"


def key_problems(mapping: LineDict, known: list[str] | tuple[str, ...], where: str = "") -> list[str]:
    """Every unknown or repeated key of `mapping`, with its line and a guess at what was meant."""
    problems = []
    prefix = f"{where}: " if where else ""
    for key, line in mapping.duplicates:
        quoted = f" '{key}'" if quotable_key(key) else ""
        problems.append(f"line {line}: {prefix}key{quoted} given twice")
    for key in mapping:
        if key not in known:
            if not quotable_key(key):
                problems.append(f"line {mapping.line_of(key)}: {prefix}unknown key "
                                f"(expected one of: {', '.join(known)})")
                continue
            guess = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean '{guess[0]}'?)" if guess else ""
            problems.append(f"line {mapping.line_of(key)}: {prefix}unknown key '{key}'{hint}")
    return problems


def quotable_key(key: Any) -> bool:
    """True for a key a problem may quote: a short name, never a line of some other file."""
    return isinstance(key, str) and bool(QUOTABLE_KEY.match(key))


def is_int(value: Any) -> bool:
    """True for a YAML integer; YAML booleans are ints to Python and must not pass."""
    return isinstance(value, int) and not isinstance(value, bool)
