"""Which releases wrote and played an audit record, and whether this installation may
replay it: a record written or played by a later gm, or by rules this gm plays differently,
is refused with the line that installs what played it (docs/audit.md, docs/upgrading.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .. import __version__
from ..campaign.proof import distribution_of, install_line, ruleset_version
from ..releases import newer_than_running, rules_release
from ..rules.registry import origin
from .checks import Difference, shown
from .source import RecordUnreadable


def what_to_install(record: Mapping[str, Any]) -> str:
    """The end of the refusal of a record whose ruleset is not installed: which distribution
    played it and the line that installs it, when the record says so."""
    played_with = record.get("ruleset_version")
    if not isinstance(played_with, str):
        return ""  # gm-audit/1: the record does not say
    wanted = installable(distribution_of(played_with))
    if wanted is None:
        return f"; the campaign was played with {shown(played_with)}"
    return f"; the campaign was played with {played_with}: install it with {install_line(wanted)}, then audit again"


# what a record may name to be shown in a command to type: PEP 508's distribution names
# and PEP 440's version characters, so that no record puts a quote or `;` on an auditor's
# command line
_DISTRIBUTION = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?")
_VERSION = re.compile(r"[A-Za-z0-9.+!_-]{1,64}")


def refuse_later_writer(record: Mapping[str, Any]) -> None:
    """A record written by a later gm than this one (its `written_by`) may hold what this
    gm cannot check: RecordUnreadable names the release to install."""
    written = record.get("written_by")
    wanted = installable(distribution_of(written)) if isinstance(written, str) else None
    if wanted and wanted["name"] == "gm" and wanted["version"] and newer_than_running(wanted["version"]):
        raise RecordUnreadable(f"the record was written by gm {wanted['version']}, a later release than this gm "
                               f"({__version__}): install it with {install_line(wanted)}, then audit again")


def gm_release_played(record: Mapping[str, Any], name: str) -> bool:
    """For a record of one of gm's own rulesets played by a release of gm: True when the
    installed gm plays that release's rules alike (gm.releases), so the replay may go on.
    A record played with other rules, or by a later release than this gm, cannot be
    checked here: RecordUnreadable names the release to install (docs/upgrading.md). A
    gm-audit/1 record was written by gm 0.1.0, which it does not say. False for a
    ruleset from outside gm."""
    played_with = record.get("ruleset_version", "gm 0.1.0" if record["format"] == "gm-audit/1" else None)
    declared = origin(name)
    if not isinstance(played_with, str) or declared is None or declared[0] != "gm":
        return False
    wanted = installable(distribution_of(played_with))
    if wanted is None or wanted["name"] != "gm" or wanted["version"] is None:
        return False
    version = wanted["version"]
    if newer_than_running(version):
        raise RecordUnreadable(f"the campaign was played with gm {version}, a later release than this gm "
                               f"({__version__}): install it with {install_line(wanted)}, then audit again")
    played, installed = rules_release(name, version), rules_release(name, __version__)
    if played is None:
        return False
    if played != installed:
        raise RecordUnreadable(f"the campaign was played with gm {version}, whose {name} rules gm {__version__} "
                               f"plays differently (changed in gm {installed}): install it with "
                               f"{install_line(wanted)}, then audit again")
    return True


def installable(wanted: Any) -> dict[str, str | None] | None:
    """{"name", "version"} of the distribution the record says played it (its
    `ruleset_version` split by gm.campaign.proof.distribution_of, the text the game
    commitment binds), None when it names nothing an auditor could install."""
    if not isinstance(wanted, dict):
        return None
    name, version = wanted.get("name"), wanted.get("version")
    if not isinstance(name, str) or not _DISTRIBUTION.fullmatch(name):
        return None
    if version is not None and not (isinstance(version, str) and _VERSION.fullmatch(version)):
        return None
    return {"name": name, "version": version}




def version_notes(record: Mapping[str, Any], ruleset: Any, same_rules: bool, notes: list[str]) -> Difference | None:
    """The ruleset_version the game text binds against the record's ruleset_distribution,
    and a note when the installed ruleset is another release than the one that played."""
    # (not `played`: gm.rules.chance's, which collects the draws of the replay)
    played_with = record["ruleset_version"]
    # split once: what ruleset_distribution must be and what installs the rules played. A
    # ruleset_version that is no text is split only to be compared, and fails as the record's
    # shape; with no ruleset_distribution either, it names nothing to install.
    split = (distribution_of(played_with) if isinstance(played_with, str) or "ruleset_distribution" in record
             else None)
    if "ruleset_distribution" in record and record["ruleset_distribution"] != split:
        return Difference(None, "ruleset_distribution: the ruleset_version the game text binds, split", None,
                          None, split, record["ruleset_distribution"])
    if played_with != ruleset_version(ruleset) and same_rules:
        notes.append(f"the campaign was played with {played_with}; {ruleset_version(ruleset)} plays the "
                     f"{ruleset.name} rules alike and replayed it")
    elif played_with != ruleset_version(ruleset):
        wanted = installable(split)
        again = f" ({install_line(wanted)} replays it with the rules played)" if wanted else ""
        notes.append(f"the campaign was played with {played_with}; {ruleset_version(ruleset)} is installed and "
                     f"replayed it{again}")
    return None
