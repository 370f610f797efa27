"""A ruleset package installed on the host touches only its own campaigns (docs/plugins.md,
Shipping): a campaign imports its own ruleset and the classes it derives from, never
another installed package, so one that exits, raises or is slow at import stops or slows
no other campaign, and a word a house ruleset makes a command (THANKS) refuses no line of
another campaign's orders. The refusal of "a command of another kind of game"
(docs/rules/postal.md, Writing orders) knows gm's own five rulesets only. A campaign whose
own ruleset fails to load is refused in one line and nothing changes. Tools that list
every ruleset (gm board analyze, gm demo --help) pass over a broken package with a note.

The hostile packages are real distributions, built and installed by pip into folders of
their own (tests/rulesetdist.py), given to a `gm` child process on PYTHONPATH only: no
other test sees them. Each writes a marker file when imported, so "never imported" is
asserted without any package having to sleep."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from rulesetdist import forget, install_distribution

from gm.rules import registry
from gm.rules.grammar import ruleset_keywords

GM = str(Path(sys.executable).parent / "gm")
NOW = "2027-01-01T00:00:00Z"
PASSWORD = "ann-pass-1"

# each marks its import in $HOSTILE_MARKS, then does its harm unless $HOSTILE_CALM is set
MARK = """\
import os
import pathlib

if os.environ.get("HOSTILE_MARKS"):
    pathlib.Path(os.environ["HOSTILE_MARKS"], {name!r}).touch()
calm = bool(os.environ.get("HOSTILE_CALM"))

from gm.rules.postal import Postal
"""
HOSTILE = {
    # exits at import, as a package calling sys.exit() in its set-up does: exit status 0
    "exits": MARK + """
if not calm:
    raise SystemExit(0)


class Exits(Postal):
    name = "exits"
""",
    # a BaseException of its own, neither Exception nor SystemExit
    "quits": MARK + """

class GaveUp(BaseException):
    pass


if not calm:
    raise GaveUp("the package gave up")


class Quits(Postal):
    name = "quits"
""",
    # stands for a package slow to import (30 s of set-up): the marker, never a sleep, says
    # whether a command paid for it
    "slow": MARK + """

class Slow(Postal):
    name = "slow"
""",
    # a house ruleset whose orders take THANKS as a command
    "thanks": MARK + """
import dataclasses

from gm.rules.grammar import CommandSpec


def _thanks(args, rest, context):
    return None, True


class Thanks(Postal):
    name = "thanks"

    def grammar(self, options=None):
        own = super().grammar(options)
        return dataclasses.replace(own, commands=(*own.commands, CommandSpec("THANKS", "THANKS", _thanks)))
""",
    # derives from a class of its own package whose name is "shared", as another package's
    # ruleset is called: a campaign of heir needs its own ancestor, never that package
    "heir": MARK + """

class Ancestor(Postal):
    name = "shared"


class Heir(Ancestor):
    name = "heir"
""",
    "shared": MARK + """

class Shared(Postal):
    name = "shared"
""",
}
CLASSES = {"exits": "Exits", "quits": "Quits", "slow": "Slow", "thanks": "Thanks", "heir": "Heir", "shared": "Shared"}
INTERRUPTS = MARK.format(name="interrupts") + """
if not calm:
    raise KeyboardInterrupt


class Interrupts(Postal):
    name = "interrupts"
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """gm-hostile 0.1 (the rulesets exits, quits, slow, thanks, one package each) and
    gm-interrupts 0.1 (a package raising KeyboardInterrupt at import), each installed by
    pip into a folder of its own: the folders, for a child's PYTHONPATH."""
    hostile = install_distribution(
        tmp_path_factory.mktemp("hostile"), distribution="gm-hostile", version="0.1",
        rulesets={name: f"hostile_{name}:{cls}" for name, cls in CLASSES.items()},
        modules={f"hostile_{name}": HOSTILE[name].format(name=name) for name in CLASSES})
    interrupts = install_distribution(
        tmp_path_factory.mktemp("interrupts"), distribution="gm-interrupts", version="0.1",
        rulesets={"interrupts": "hostile_interrupts:Interrupts"}, modules={"hostile_interrupts": INTERRUPTS})
    return hostile, interrupts


def gm(folder: Path | None, *args: str, sites: tuple[Path, ...], marks: Path, calm: bool = False,
       now: str = NOW) -> subprocess.CompletedProcess:
    """`gm [-C folder] args` in a child process with the packages in `sites` installed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GM_", "HOSTILE_"))}
    env.update(PYTHONPATH=os.pathsep.join(map(str, sites)), HOSTILE_MARKS=str(marks), GM_NOW=now)
    if calm:
        env["HOSTILE_CALM"] = "1"
    command = [GM, *(("-C", str(folder)) if folder is not None else ()), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def campaign(root: Path, ruleset: str) -> Path:
    """A one-board campaign of `ruleset` with its mail in Maildirs (not started)."""
    folder = root / "camp"
    folder.mkdir()
    (root / "a.yaml").write_text(yaml.safe_dump({"name": "Little Ladder", "squares": 12, "ladders": [[2, 9]]}))
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "camp", "ruleset": ruleset, "seed": 2**70, "first_deadline": "2027-01-03T18:00:00Z",
        "boards": {"A": "../a.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": f"{p}-pass-1"}
                    for p in ("ann", "ben", "cat")],
        "mail": {"transport": "maildir", "from": "GM <gm@example.org>"},
    }))
    return folder


def deliver(folder: Path, body: str) -> Path:
    """Ann's order mail, delivered into the campaign's inbox (mail/inbox/new)."""
    message = EmailMessage()
    message["From"] = "Ann <ann@example.org>"
    message["To"] = "gm@example.org"
    message["Subject"] = "orders"
    message["Date"] = "Fri, 01 Jan 2027 00:00:00 +0000"
    message["Message-ID"] = "<1.ann@example.org>"
    message.set_content(f"PLAYER ann\nPASSWORD {PASSWORD}\n{body}\n")
    new = folder / "mail" / "inbox" / "new"
    new.mkdir(parents=True, exist_ok=True)
    path = new / "1.ann.eml"
    path.write_bytes(bytes(message))
    return path


def outcomes(folder: Path) -> list[str]:
    db = sqlite3.connect(folder / "gm.sqlite")
    try:
        return [row[0] for row in db.execute("select outcome from messages order by id")]
    finally:
        db.close()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def marks(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_a_postal_campaigns_commands_never_import_an_installed_ruleset_package(sites, tmp_path):
    """gm start, ingest, orders, status, state, turn and publish of a postal campaign, with
    packages installed that exit, raise BaseException or Ctrl-C at import, or are slow:
    every command does its work and none is imported (before, every ingest imported them
    all, so the one that exits stopped it with the mail unread)."""
    folder = campaign(tmp_path, "postal")
    seen = tmp_path / "marks"
    seen.mkdir()
    run = {"sites": sites, "marks": seen}
    assert gm(folder, "start", **run).returncode == 0
    mail = deliver(folder, "NUMBER 3\nTRAPDOOR A 7")
    ingested = gm(folder, "ingest", **run)
    assert ingested.returncode == 0, ingested.stderr
    assert not mail.exists() and outcomes(folder) == ["applied"]
    for args in (("orders",), ("status",), ("state", "--json"), ("turn", "--force"), ("publish",)):
        done = gm(folder, *args, **run, now="2027-01-04T00:00:00Z")
        assert done.returncode == 0, (args, done.stderr)
    assert (folder / "archive" / "index.html").is_file()
    assert marks(seen) == set()


def test_a_house_rulesets_command_word_never_refuses_another_campaigns_order(sites, tmp_path):
    """`thanks` makes THANKS a command; a postal order ending "Thanks" is applied, the line
    ignored (before, it was refused as a command of another kind of game)."""
    folder = campaign(tmp_path, "postal")
    seen = tmp_path / "marks"
    seen.mkdir()
    run = {"sites": sites, "marks": seen, "calm": True}  # calm: THANKS alone is the harm here
    assert gm(folder, "start", **run).returncode == 0
    deliver(folder, "NUMBER 3\nTRAPDOOR A 7\nThanks")
    assert gm(folder, "ingest", **run).returncode == 0
    assert outcomes(folder) == ["applied"]
    assert "thanks" not in marks(seen)


def test_a_campaign_imports_its_own_ruleset_package_and_no_other(sites, tmp_path):
    """A campaign of `slow` (gm-hostile's) pays for its own package, never the others: the
    one that exits at import, installed beside it, stops none of its commands."""
    folder = campaign(tmp_path, "slow")
    seen = tmp_path / "marks"
    seen.mkdir()
    run = {"sites": sites, "marks": seen}
    assert gm(folder, "start", **run).returncode == 0
    deliver(folder, "NUMBER 3\nTRAPDOOR A 7\nRESIGN")  # RESIGN: classic's, a command of another kind of game
    ingested = gm(folder, "ingest", **run)
    assert ingested.returncode == 0, ingested.stderr
    assert outcomes(folder) == ["refused"]
    assert gm(folder, "status", **run).returncode == 0
    assert marks(seen) == {"slow"}


def test_a_campaign_imports_what_its_rulesets_classes_derive_from_never_a_namesake_package(sites, tmp_path):
    """heir derives from its package's own class named "shared"; the package gm-hostile
    installs as the ruleset `shared` is another one, which heir's templates, rules page and
    archive never import."""
    folder = campaign(tmp_path, "heir")
    seen = tmp_path / "marks"
    seen.mkdir()
    run = {"sites": sites, "marks": seen}
    assert gm(folder, "start", **run).returncode == 0
    deliver(folder, "NUMBER 3\nTRAPDOOR A 7")
    for args in (("ingest",), ("status",), ("turn", "--force"), ("publish",)):
        done = gm(folder, *args, **run, now="2027-01-04T00:00:00Z")
        assert done.returncode == 0, (args, done.stderr)
    assert outcomes(folder) == ["applied"]
    assert marks(seen) == {"heir"}


@pytest.mark.parametrize(("ruleset", "why"), [("exits", "SystemExit: 0"), ("quits", "GaveUp: the package gave up")])
def test_a_campaign_whose_own_ruleset_fails_at_import_is_refused_in_one_line_and_nothing_changes(
        sites, tmp_path, ruleset, why):
    """Started while its package loaded; once the package fails at import (SystemExit, or a
    BaseException of its own), each command says so in one line, exit 1, no traceback,
    and the mail stays unread (before, SystemExit(0) ended gm ingest silently with exit 0)."""
    folder = campaign(tmp_path, ruleset)
    seen = tmp_path / "marks"
    seen.mkdir()
    assert gm(folder, "start", sites=sites, marks=seen, calm=True).returncode == 0
    mail = deliver(folder, "NUMBER 3")
    before = snapshot(folder)
    for args in (("ingest",), ("turn",), ("status",)):
        done = gm(folder, *args, sites=sites, marks=seen)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert done.stderr == f"Error: the ruleset {ruleset!r} (gm-hostile 0.1) cannot be loaded: {why}\n"
        assert done.stdout == ""
    assert mail.exists() and snapshot(folder) == before


def test_tools_listing_every_ruleset_pass_over_a_broken_package_with_a_one_line_note(sites, tmp_path):
    """gm board analyze and gm demo --help import every ruleset: a package that exits or
    raises at import is left out with one note each, the rest listed (before, the one that
    exits ended the tool with exit 0 and nothing written)."""
    from gm.resources import shipped

    seen = tmp_path / "marks"
    seen.mkdir()
    notes = ["note: the ruleset 'exits' (gm-hostile 0.1) cannot be loaded: SystemExit: 0; left out",
             "note: the ruleset 'quits' (gm-hostile 0.1) cannot be loaded: GaveUp: the package gave up; left out"]
    board = str(shipped("boards") / "milton-bradley.yaml")
    analysed = gm(None, "board", "analyze", board, "--json", sites=sites[:1], marks=seen)
    assert analysed.returncode == 0, analysed.stderr
    assert '"postal"' in analysed.stdout
    assert analysed.stderr.splitlines() == notes
    helped = gm(None, "demo", "--help", sites=sites[:1], marks=seen)
    assert helped.returncode == 0, helped.stderr
    assert "postal" in helped.stdout and "exits" not in helped.stdout
    assert helped.stderr.splitlines() == notes


# -- in this process: the registry and the keywords --------------------------------------


@pytest.fixture
def on_path(sites, monkeypatch):
    """Both distributions on this process's sys.path, calm unset; their modules dropped after."""
    for site in sites:
        monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv("HOSTILE_CALM", raising=False)
    monkeypatch.delenv("HOSTILE_MARKS", raising=False)
    yield
    for name in (*CLASSES, "interrupts"):
        forget(f"hostile_{name}")


def test_the_refused_commands_of_other_games_are_gm_s_five_rulesets_never_an_installed_ones(on_path):
    """With packages installed that exit or Ctrl-C at import and one declaring THANKS, the
    keywords of "a command of another kind of game" are the five built-ins' and no package
    is imported to read them (before: every installed ruleset's, THANKS included)."""
    assert {"exits", "thanks", "interrupts"} <= set(registry.known())
    own = set()
    for name in ("postal", "classic", "doubles", "advanced", "unleashed"):
        own |= set(registry.find_ruleset(name).grammar(None).keywords)
    assert ruleset_keywords() == own
    assert "THANKS" not in ruleset_keywords() and {"NUMBER", "RESIGN", "MOVE", "PLAY"} <= own
    assert not [m for m in sys.modules if m.startswith("hostile_")]


def test_registry_a_package_exiting_at_import_is_unavailable_but_ctrl_c_still_interrupts(on_path):
    with pytest.raises(registry.RulesetUnavailable, match=r"^the ruleset 'exits' \(gm-hostile 0.1\) cannot be "
                                                          r"loaded: SystemExit: 0$"):
        registry.find_ruleset("exits")
    with pytest.raises(KeyboardInterrupt):
        registry.find_ruleset("interrupts")
