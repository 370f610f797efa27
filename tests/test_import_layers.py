"""Issue 26: the house's shape. gm's modules import each other without a circle and in one
direction, layer by layer, so that a module (or a house ruleset) can be read, tested and loaded
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

# gm's layers, lowest first, as the code stands (measured from the graph, not wished): a
# module may import from its own layer and from lower ones, never from a higher one. An entry
# "a.b" is that module alone; "a.b.*" is a.b and everything under it. A module belongs to the
# layer of its most specific entry (the exact name, else the longest prefix), so that
# gm.rules.dice.robot (a demo player) sits above gm.rules.dice (the game).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # leaf helpers every layer uses; no game, no mail, no campaign
    ("foundations", (
        "gm", "gm.errors", "gm.clock", "gm.counts", "gm.yamlfile", "gm.commitment",
        "gm.progress", "gm.resources", "gm.pagenames",
        # reading a published audit record, before anything checks it
        "gm.audit.source",
        # gm's releases: what a store and an audit record need to know of versions
        "gm.releases",
        # a campaign's store on disk, its schema's migrations and the digests they fill in
        "gm.campaign.store", "gm.campaign.migrations", "gm.campaign.digests",
    )),
    # a board as data and as a picture: what a ruleset moves pieces on
    ("boards", ("gm.boards", "gm.boards.board", "gm.boards.model", "gm.boards.svg", "gm.boards.text")),
    # the ruleset interface and its parts (grammar, chance, events, problems, registry)
    ("rules", ("gm.rules.*",
               # a ruleset's own files and the one template lookup: they ask the registry
               "gm.ruleset_files", "gm.templating")),
    # board tools that play a ruleset over a board (analysis, design, plots)
    ("board tools", ("gm.boards.*",)),
    # the games themselves, built on the interface and the board tools
    ("rulesets", (
        "gm.rules.postal.*", "gm.rules.dice.*", "gm.rules.classic.*", "gm.rules.doubles.*",
        "gm.rules.advanced.*", "gm.rules.unleashed.*",
    )),
    # reading and writing mail: servers, order language, templates, calendars
    ("mail", ("gm.mail.*",)),
    # a campaign: sign-up, turns, the desk that answers orders, the ending; the outbox the
    # mail it composes is queued in
    ("campaign", ("gm.campaign.*", "gm.campaign.outbox")),
    # sending a campaign's outbox (uses the campaign's log and seats)
    ("delivery", ("gm.campaign.delivery",)),
    # checking a finished campaign's record
    ("audit", ("gm.audit.*",)),
    # the archive web pages, feed and memo
    ("publish", ("gm.publish.*",)),
    # the weekly turn: ingest, resolve when due, send, publish
    ("weekly turn", ("gm.campaign.weekly",)),
    # demo players: gm's and each ruleset's robot
    ("robots", (
        "gm.demo.robots", "gm.rules.postal.robot", "gm.rules.dice.robot",
        "gm.rules.classic.robot", "gm.rules.doubles.robot", "gm.rules.advanced.robot",
        "gm.rules.unleashed.robot",
    )),
    # a judge: many campaigns behind one address, its routing, site and records
    ("judge", ("gm.judge.*",)),
    # what a user runs
    ("commands", ("gm.cli.*", "gm.demo.*", "gm.__main__")),
]

# the mail a turn sends is composed without the archive's pages (issue 26): mailout links to
# the archive by address only
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


def layer_of(name: str) -> int | None:
    best: tuple[int, int] | None = None  # (specificity, layer)
    for number, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if entry == name:
                specificity = 10_000
            elif entry.endswith(".*") and (name == entry[:-2] or name.startswith(entry[:-1])):
                specificity = len(entry)
            else:
                continue
            if best is None or specificity > best[0]:
                best = (specificity, number)
    return None if best is None else best[1]


def test_gm_modules_import_each_other_without_a_circle():
    found = [describe(chain) for chain in cycles(GRAPH)]
    assert not found, "import circles:\n" + "\n".join(found)


def test_every_module_has_a_layer():
    # a new module is placed on purpose, not by accident of its name
    assert [name for name in MODULES if layer_of(name) is None] == []


def test_imports_point_down_the_layers():
    upward = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
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
