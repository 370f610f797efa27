"""A ruleset's concepts live in its own package and templates. Nothing common to
every ruleset (gm's modules outside gm/rules/<ruleset>/, the generic templates outside
templates/*/<ruleset>/) speaks of the postal game's numbers, trapdoors, NMR numbers,
cycles or double turns, so that adding a ruleset touches nothing else.

The scan reads every source file; a word that must stay (the schema's history names the
columns it migrated) is listed in HISTORY with its reason, line by line."""

from __future__ import annotations

import re
from pathlib import Path

from gm.rules import registry
from gm.rules.base import Ruleset

ROOT = Path(__file__).resolve().parent.parent

# docs/rules/postal.md's own words: the command NUMBER and the numbers a player holds, not the word
# "number" (a turn number is every ruleset's); `postal` itself only as the default
# ruleset's name (gm.rules.registry).
POSTAL = re.compile(
    r"(?-i:\bNUMBER\b)|trapdoor|numbers_left|numbers? (?:still )?held|secret numbers?|\bNMR"
    r"|double[ _-]turn|\bcycles?\b|per[-_]board|\bpostal\b",
    re.IGNORECASE,
)

# (file, line text) -> why the word must stay there
HISTORY = {
    ("gm/campaign/migrations.py", '"numbers": str,  # JSON: hand -> number, after this message'):
        "migration 001 created the orders table with postal's columns; 005 moves them to JSON",
    ("gm/campaign/migrations.py", '"trapdoors": str,  # JSON: board -> square, after this message'):
        "as above",
    ("gm/campaign/migrations.py", "\"update orders set standing = json_object('numbers', json(numbers), 'trapdoors', json(trapdoors))\""):
        "migration 005 reads the old columns into the ruleset's JSON",
    ("gm/campaign/migrations.py", 'db["orders"].transform(drop={"numbers", "trapdoors"})'):
        "migration 005 drops the old columns",
    ("gm/campaign/migrations.py", "# JSON (Ruleset.order_to_json), no longer postal's numbers and trapdoors columns."):
        "says what migration 005 does",
    ("gm/campaign/audit_record.py", '"nmr": [p for p in players if p not in orders and p not in gone'):
        "the audit record's key for the players who sent no order (docs/audit.md)",
    ("gm/audit/checks.py", 'SILENT = "nmr"'): "the audit record's key, as above, which gm audit checks",
    ("gm/rules/registry.py", 'BUILT_IN = {'): "the registry lists every built-in ruleset",
    ("gm/rules/registry.py", 'DEFAULT = "postal"  # campaign.yaml without `ruleset:` plays docs/rules/postal.md'):
        "the ruleset a campaign.yaml without `ruleset:` plays",
    ("gm/rules/registry.py", '"postal": "gm.rules.postal:Postal",'): "the registry lists every built-in ruleset",
}


def _ruleset_folders() -> set[str]:
    """The names whose folders belong to a ruleset: every built-in ruleset's, and each
    of their bases' (a family such as the dice rulesets shares one)."""
    names = set()
    for name in registry.known():
        for cls in type(registry.find_ruleset(name)).__mro__:
            if isinstance(cls.__dict__.get("name"), str) and cls is not Ruleset:
                names.add(cls.__dict__["name"])
    return names


def _common_files() -> list[Path]:
    owned = _ruleset_folders()
    modules = [p for p in (ROOT / "gm").rglob("*.py")
               if not (p.relative_to(ROOT / "gm").parts[0] == "rules" and len(p.relative_to(ROOT / "gm").parts) > 2
                       and p.relative_to(ROOT / "gm").parts[1] in owned)]
    templates = [p for p in (ROOT / "templates").rglob("*") if p.is_file()
                 and not owned & set(p.relative_to(ROOT / "templates").parts[:-1])]
    return modules + templates


def test_12_no_common_module_or_template_speaks_of_a_postal_concept():
    files = _common_files()
    assert ROOT / "gm" / "campaign" / "desk" / "inbound.py" in files and ROOT / "templates" / "mail" / "report.txt" in files
    assert not any("postal" in p.parts for p in files)
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if POSTAL.search(line) and (rel, line.strip()) not in HISTORY:
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_12_the_scan_finds_a_postal_word():
    """The pattern catches what it is for (so an empty result above means something)."""
    for text in ("the trapdoor opens", "send NUMBER 4", "numbers_left", "NMR: random",
                 "a double turn", "this cycle", "per-board numbers", "postal", "the numbers held",
                 "your secret number"):
        assert POSTAL.search(text), text
    for text in ("the turn number", "square number 4", "a number of players", "whole numbers",
                 "read by hand"):
        assert not POSTAL.search(text), text


def test_12_every_history_exemption_is_still_needed():
    for (rel, line), why in HISTORY.items():
        assert why
        lines = [ln.strip() for ln in (ROOT / rel).read_text(encoding="utf-8").splitlines()]
        assert line in lines, f"{rel} no longer says {line!r}: drop it from HISTORY"
