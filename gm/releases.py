"""gm's releases as far as a campaign and an audit record need them (docs/upgrading.md):
which release's rules an audit record was played with, which release last wrote a
campaign's store, and how two version numbers compare.

A release whose rules for a ruleset replay a turn differently from the release before
(another draw, another move, another state) lists that ruleset in `rules_changed`; CHANGELOG.md
says so under "Changed" and the version's major part goes up (once gm is 1.0 or later). An
audit of a record played with rules that differ from the installed ones names the release
to install instead of replaying it with the wrong rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import __version__

__all__ = ["RELEASES", "Release", "newer_than_running", "parse_version", "release_of_store", "rules_release"]


@dataclass(frozen=True)
class Release:
    version: str
    # the number of store migrations (gm.campaign.migrations) this release applies; None for
    # the release being made, whose count is the code's own
    migrations: int | None
    # the rulesets whose rules this release plays differently from the release before it
    rules_changed: frozenset[str] = frozenset()


# oldest first; 0.1.0 is every gm before versions meant something (up to and including the
# one of 2026-11-26), whose rules every later release plays alike: the first release is
# where every ruleset's rules begin, whatever it lists
RELEASES: tuple[Release, ...] = (
    Release("0.1.0", 12),
    Release("0.2.0", None),
)

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def parse_version(text: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of a release's version, None for text that is no X.Y.Z (a
    development build's suffix after X.Y.Z is ignored)."""
    found = _VERSION.match(text.strip()) if isinstance(text, str) else None
    return tuple(int(part) for part in found.groups()) if found else None  # type: ignore[return-value]


def newer_than_running(version: str) -> bool:
    """Whether `version` is a later release than the gm running."""
    theirs, mine = parse_version(version), parse_version(__version__)
    return theirs is not None and mine is not None and theirs > mine


def rules_release(ruleset: str, version: str) -> str | None:
    """The release whose rules for `ruleset` gm `version` plays: the latest release up to
    `version` that changed them. Two versions play a ruleset alike when this is the same.
    None for a version later than every release gm knows (a newer gm) or no version at all."""
    wanted = parse_version(version)
    if wanted is None or wanted > max(parse_version(r.version) for r in RELEASES):  # type: ignore[type-var]
        return None
    found = None
    for release in RELEASES:
        if parse_version(release.version) > wanted:  # type: ignore[operator]
            break
        if ruleset in release.rules_changed or found is None:
            found = release.version
    return found


def release_of_store(applied: int) -> str:
    """The release that last wrote a store in which `applied` migrations were applied: the
    latest earlier release applying no more (what the backup made before migrating it is
    named after: that release reads the backup)."""
    found = RELEASES[0].version
    for release in RELEASES:
        if release.migrations is not None and release.migrations <= applied:
            found = release.version
    return found
