"""The house's shape: gm's folders are layers. Its modules import each other without a circle
and in one direction, folder by folder, so that a module (or a house ruleset) can be read, tested and loaded
without dragging in everything above it.

Every import counts: at the top of a module, inside a function (a lazy import only hides a
circle until the day the function runs first) and under TYPE_CHECKING (the type checker and
the reader follow it). A package and its own submodules count like any two modules: a
submodule importing names from its package while the package imports it back is a circle.
Importing a submodule does not count as importing its package (Python runs the package's
__init__ first, but that is the package's own business, not a dependency).

The graph is read from the source with ast (nothing is imported), so the test is cheap and
sees lazy imports that running the code would not."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# gm's layers, lowest first: folders. A module may import from its own layer and from lower
# ones, never from a higher one. A module belongs to the layer of its folder (a sub-folder to
# its parent's, save the rulesets' own folders under gm/rules); gm's own top-level modules are
# the foundations.
LAYERS: list[tuple[str, str]] = [
    ("gm", "foundations: errors, the clock, counts, YAML, commitments, releases"),
    ("gm/boards", "a board as data and drawings, moving a piece, the exact analysis engine"),
    ("gm/rules", "the ruleset interface, its defaults, the registry and a ruleset's files and templates"),
    ("gm/rules/*", "the games, one folder each (and each game's demo players)"),
    ("gm/mail", "reading and writing mail: servers, the order language, composing"),
    ("gm/campaign", "a campaign: its store and outbox, sign-up, the desk, turns, the end"),
    ("gm/audit", "checking a finished campaign's record"),
    ("gm/publish", "the archive's pages, feed and memo"),
    ("gm/analysis", "boards analysed and designed for every ruleset that analyses them"),
    ("gm/weekly", "the weekly turn over one campaign: ingest, resolve, send, publish"),
    ("gm/judge", "a judge: many campaigns behind one address, its routing, site, records and webhooks"),
    ("gm/demo", "the demonstration: robots by mail, a whole campaign"),
    ("gm/cli", "what a user runs"),
]
# the games under gm/rules that are not a game: the interface's own parts
INTERFACE_FOLDERS = ("roles",)
# a game's robot plays it by mail in the demo: it imports the demo's robot machinery
ROBOT = "robot"

# the mail a turn sends is composed without the archive's pages: mailout links to the archive
# by address only
NEVER = [("gm.mail.mailout", "gm.publish")]


def module_files(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    """gm's modules under root: dotted name -> (file, is a package's __init__)."""
    found = {}
    for path in sorted((root / "gm").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        found[".".join(parts)] = (path, package)
    return found


MODULES = module_files()


def imports_of(name: str, modules: dict[str, tuple[Path, bool]] = MODULES) -> dict[str, int]:
    """The gm modules `name` imports, each with the line of its first import."""
    path, package = modules[name]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    # relative imports resolve against the package the module is in (a package's __init__
    # is in itself)
    here = name.split(".") if package else name.split(".")[:-1]
    targets: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # `from pkg import name` imports the module pkg.name when there is one, else a
            # name defined in pkg
            found = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        else:
            continue
        for target in found:
            if target in modules and target != name:
                targets.setdefault(target, node.lineno)
    return targets


GRAPH = {name: imports_of(name) for name in MODULES}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One readable chain (a -> b -> ... -> a) per import circle: for each strongly connected
    group of modules, a shortest circle through each of its edges not yet shown, so that
    every import that keeps a group together is named once."""
    groups = strongly_connected(graph)
    chains: list[list[str]] = []
    for group in groups:
        members = set(group)
        covered: set[tuple[str, str]] = set()
        for start in group:
            for target in sorted(graph[start]):
                if target not in members or (start, target) in covered:
                    continue
                path = shortest_path(graph, target, start, members)
                chain = [start, *path]
                chains.append(chain)
                covered.update(zip(chain, chain[1:], strict=False))
    return chains


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's groups of more than one module, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return sorted(groups)


def shortest_path(graph, start: str, goal: str, within: Iterable[str]) -> list[str]:
    """Modules from start to goal (both included), breadth first, staying within a group."""
    allowed = set(within)
    previous: dict[str, str | None] = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            break
        for child in sorted(graph[node]):
            if child in allowed and child not in previous:
                previous[child] = node
                queue.append(child)
    path = [goal]
    while previous[path[-1]] is not None:
        path.append(previous[path[-1]])
    return path[::-1]


def describe(chain: list[str]) -> str:
    steps = [f"{a} (line {GRAPH[a][b]})" for a, b in zip(chain, chain[1:], strict=False)]
    return " -> ".join(steps + [chain[-1]])


def folder_of(name: str) -> str:
    """The layer folder of a module: gm/<folder> (or gm/rules/* for a game's folder), "gm"
    for a top-level module."""
    path, package = MODULES[name]
    parts = path.relative_to(ROOT).parent.parts  # ("gm", "rules", "postal", ...)
    if len(parts) == 1:
        return "gm/cli" if name == "gm.__main__" else "gm"
    if parts[1] == "rules" and len(parts) > 2 and parts[2] not in INTERFACE_FOLDERS:
        return "gm/demo" if path.stem == ROBOT else "gm/rules/*"
    return f"gm/{parts[1]}"


FOLDERS = [folder for folder, _ in LAYERS]


def layer_of(name: str) -> int | None:
    folder = folder_of(name)
    return FOLDERS.index(folder) if folder in FOLDERS else None


def test_gm_modules_import_each_other_without_a_circle():
    found = [describe(chain) for chain in cycles(GRAPH)]
    assert not found, "import circles:\n" + "\n".join(found)


def test_every_module_has_a_layer():
    # a new folder is placed among the layers on purpose
    assert [name for name in MODULES if layer_of(name) is None] == []


def test_imports_point_down_the_layers():
    upward = [
        f"{name} ({FOLDERS[layer_of(name)]}) imports {target} ({FOLDERS[layer_of(target)]})"
        f" at line {line}"
        for name, targets in sorted(GRAPH.items())
        for target, line in sorted(targets.items())
        if layer_of(name) is not None and layer_of(target) is not None
        and layer_of(target) > layer_of(name)
    ]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_mailout_imports_nothing_from_publish():
    for name, forbidden in NEVER:
        bad = [t for t in GRAPH[name] if t == forbidden or t.startswith(forbidden + ".")]
        assert bad == [], f"{name} imports {bad}"


def test_mail_is_transports_and_parsing_and_imports_nothing_of_a_campaign():
    # the campaign's store is not mail's either: the outbox and sending it are the campaign's
    # (gm.campaign.outbox, gm.campaign.delivery)
    bad = [f"{name} imports {target}" for name, targets in sorted(GRAPH.items())
           if name == "gm.mail" or name.startswith("gm.mail.")
           for target in targets if target.startswith("gm.campaign")]
    assert bad == []


# the checker itself: a circle hidden in a function, under TYPE_CHECKING, or between a package
# and its submodule is found; relative imports resolve


def test_the_checker_finds_a_circle_through_a_lazy_import():
    graph = {"a": {"b": 3}, "b": {"c": 1}, "c": {"a": 9}, "d": {"a": 1}}
    assert cycles(graph) == [["a", "b", "c", "a"]]


def test_the_checker_reads_lazy_type_checking_and_package_imports(tmp_path):
    package = tmp_path / "gm" / "pkg"
    package.mkdir(parents=True)
    (tmp_path / "gm" / "__init__.py").write_text("")
    (package / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .part import Thing\n"
    )
    (package / "part.py").write_text("def f():\n    from . import helper\n    from .. import pkg\n")
    (package / "helper.py").write_text("from gm.pkg import part\n")
    modules = module_files(tmp_path)
    graph = {name: imports_of(name, modules) for name in modules}
    assert graph["gm.pkg"] == {"gm.pkg.part": 3}
    assert graph["gm.pkg.part"] == {"gm.pkg.helper": 2, "gm.pkg": 3}
    assert graph["gm.pkg.helper"] == {"gm.pkg.part": 1}
    assert sorted(map(tuple, cycles(graph))) == [
        ("gm.pkg", "gm.pkg.part", "gm.pkg"),
        ("gm.pkg.helper", "gm.pkg.part", "gm.pkg.helper"),
    ]
