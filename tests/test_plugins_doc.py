"""docs/plugins.md is the one page a stranger writes a ruleset package from, so
its example must work as printed: every listing marked `file: <path>` is copied out of the
page into a package, installed by pip as a GM would install it, and played: `gm campaign
new`, a campaign by mail on Maildir through `gm start` and `gm turn` to its end, `gm
publish`, `gm reveal` and `gm audit`, `gm end`'s contract, and `gm demo` with the page's
robots. The page's unit tests run under pytest, its test helper delivers the campaign's
order mail, and its board analysis is held against the chain solved by hand."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import importlib.util
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli
from gm.rules.chance import SeededChance

PAGE = Path(__file__).parent.parent / "docs" / "plugins.md"
# a fenced block (``` or ````) whose first line names the file it is, in a comment
_BLOCK = re.compile(r"^(`{3,})[\w-]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_FILE = re.compile(r"\bfile: ([\w./-]+)")
PACKAGE = "toss_race"
RULESET = "toss"


def page_files() -> dict[str, str]:
    """Each listing of the page marked `file: <path>`, by path, as printed."""
    files = {}
    for _, body in _BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        first = body.partition("\n")[0]
        named = _FILE.search(first)
        if named:
            assert named.group(1) not in files, f"{named.group(1)} is listed twice"
            files[named.group(1)] = body
    return files


def test_the_page_lists_every_file_of_the_package_layout_it_shows():
    text = PAGE.read_text(encoding="utf-8")
    layout = text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()[1:]  # below the distribution's folder
    shown = {line.split()[0] for line in layout if not line.split()[0].endswith("/")}
    listed = {path.removeprefix(f"{PACKAGE}/") for path in page_files()}
    assert listed == shown == {"pyproject.toml", "__init__.py", "rules.md", "templates/mail/toss/problems.txt",
                               "templates/mail/toss/_order.txt", "boards/toss-track.yaml", "robot.py", "analysis.py",
                               "tests/test_toss_race.py", "tests/ordermail.py"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The page's package built and installed by pip into a folder of its own, put on
    sys.path for the module's tests (gm finds it by its entry point), then taken off."""
    root = tmp_path_factory.mktemp("plugin")
    for path, body in page_files().items():
        target = root / "src" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    site = root / "site"
    # gm's own venv builds it (no build isolation): no index needed
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(site), str(root / "src")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr or done.stdout
    sys.path.insert(0, str(site))
    yield site
    sys.path.remove(str(site))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def _gm(*args: str, now: str = "2027-01-01T00:00:00Z", code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args), env={"GM_NOW": now})
    assert result.exit_code == code, result.output
    return result.output


def _page_module(site: Path, path: str) -> ModuleType:
    """A module the page lists outside the package (its tests/), loaded from where the page's files were written."""
    spec = importlib.util.spec_from_file_location(Path(path).stem, site.parent / "src" / path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)  # gm state --json's deadline: "2027-01-08T18:00:00Z"


def _gm_now(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _texts(folder: Path) -> list[str]:
    boxes = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
             for p in sorted((folder / "mail" / "outbox" / "new").iterdir())]
    return [m.get_body(("plain",)).get_content() for m in boxes]


def test_the_page_s_ruleset_plays_a_campaign_by_mail_to_the_end_and_its_archive_audits(installed, tmp_path):
    folder = tmp_path / "spring"
    written = _gm("campaign", "new", str(folder), "--ruleset", RULESET)
    assert "campaign.yaml" in written
    starter = (folder / "campaign.yaml").read_text()
    assert "ruleset: toss" in starter and "max_turns: 30" in starter and "rules.md gives the meaning" in starter
    assert "The Toss Track" in (folder / "boards" / "toss-track.yaml").read_text()  # from its boards_folder

    passwords = {"ann": "pw-ann-1", "ben": "pw-ben-2", "cat": "pw-cat-3"}
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "spring", "ruleset": RULESET, "seed": 2**70, "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {"A": "boards/toss-track.yaml"},
        "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": pw}
                    for p, pw in passwords.items()],
        "options": {"max_turns": 25},
        "mail": {"transport": "maildir", "from": "GM <gm@example.org>"},
    }))
    root = ("-C", str(folder))
    _gm(*root, "start")
    deliver = _page_module(installed, "tests/ordermail.py").deliver  # the page's helper

    def send(player: str, lines: str, received: datetime) -> None:
        nonlocal sent
        sent += 1
        deliver(folder, f"m{sent}", f"{player}@example.org", f"PLAYER {player}\nPASSWORD {passwords[player]}\n{lines}",
                received)

    sent, orders = 0, {"ann": "TOSS\n", "ben": "STEP 2\n", "cat": "STEP 2\n"}
    for week in range(1, 26):
        state = json.loads(_gm(*root, "state", "--json"))
        if state["over"]:
            break
        deadline = _when(state["deadline"])
        playing = [p for p in orders if not state["boards"]["A"]["players"][p]["finished"]]
        if week == 1:  # refused whole: a reader's problem, an exclusive group; the refusals read mid-week
            for player, wrong in (("ben", "STEP 9\n"), ("cat", "STEP 2\nTOSS\n")):
                send(player, wrong, deadline - timedelta(days=3, hours=1))
            assert "2 refused" in _gm(*root, "turn", now=_gm_now(deadline - timedelta(days=3)))
        for player in playing:
            send(player, orders[player], deadline - timedelta(hours=2))
        assert f"turn {week} resolved" in _gm(*root, "turn", now=_gm_now(deadline + timedelta(hours=1)))
    later = "2027-09-01T00:00:00Z"
    final = json.loads(_gm(*root, "state", "--json", now=later))
    assert final["over"] and all(p["place"] for p in final["players"].values())
    texts = _texts(folder)
    assert any('line 3: STEP needs a whole number of squares from 1 to 2, got "9"' in t for t in texts)  # its words
    assert any("line 4: TOSS and STEP exclude each other" in t for t in texts)  # gm's words for its group
    assert any("STEP <1-2>  or  TOSS" in t for t in texts)
    # its own _order.txt words the standing order (ack, refusal), gm's generic one the rest
    assert any("Your order for turn 1: TOSS\n" in t.replace("\r\n", "\n") for t in texts)
    assert any("Your order for turn 1: none yet, so you step 1" in t for t in texts)
    assert any("How to order: write to gm@example.org with these lines:" in t for t in texts)  # welcome

    _gm(*root, "publish", now=later)
    _gm(*root, "reveal", now=later)
    assert "Toss race" in (folder / "archive" / "rules.html").read_text()  # its rules_page
    audit = _gm("audit", str(folder / "archive"))
    assert "final standings" in audit.lower()
    record = json.loads((folder / "archive" / "audit.json").read_text())
    assert record["ruleset_distribution"] == {"name": "gm-toss-race", "version": "1.0.0"}


def test_the_page_s_end_gives_what_resolve_gives_had_max_turns_been_that_turn(installed):
    from gm.boards.model import Board
    from gm.rules.base import Setup
    from gm.rules.registry import find_ruleset

    toss = find_ruleset(RULESET)
    board = toss.read_board(installed / PACKAGE / "boards" / "toss-track.yaml")
    options = toss.parse_options({})
    setup = Setup({"A": board}, ("ann", "ben", "cat"), options, 5)
    state = toss.start(setup, SeededChance(5)).state
    orders = {"ann": toss.order_type(toss=True), "ben": toss.order_type(step=2)}
    for _ in range(3):
        state = toss.resolve(setup, state, orders, SeededChance(5)).state
    cut = dataclasses.replace(setup, options=dataclasses.replace(options, max_turns=4))
    at_max = toss.resolve(cut, state, orders, SeededChance(5))
    ended = toss.end(setup, toss.resolve(setup, state, orders, SeededChance(5)).state)
    assert isinstance(board, Board) and at_max.state.over and ended.state == at_max.state
    assert [e.kind for e in ended.events] == ["placed"] * 3


def test_gm_demo_plays_the_page_s_robots_to_the_end_and_its_archive_audits(installed, tmp_path):
    out = _gm("demo", str(tmp_path / "demo"), "--ruleset", RULESET, "--quiet")
    assert "The Robot Toss Race is over" in out and "Ann Bold" in out
    assert "final standings" in _gm("audit", str(tmp_path / "demo" / "archive")).lower()


def test_the_page_s_unit_tests_pass_under_pytest(installed):
    tests = installed.parent / "src" / "tests" / "test_toss_race.py"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                          capture_output=True, text=True, cwd=tests.parent.parent,
                          env=os.environ | {"PYTHONPATH": str(installed)})
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr


def test_the_page_s_board_analysis_is_the_always_toss_chain_solved_by_hand(installed, tmp_path):
    from gm.analysis.designfile import target_keys
    from gm.rules.registry import find_ruleset

    path = installed / PACKAGE / "boards" / "toss-track.yaml"
    board = find_ruleset(RULESET).read_board(path)
    # E[p] = 1 + E[p]/2 + E[after heads]/2 (0 once finished): iterated to its fixed point
    expected = [0.0] * board.squares
    for _ in range(2000):
        for p in range(board.squares):
            ahead = p + 5
            end = ahead if ahead >= board.squares else board.jumps.get(ahead, ahead)
            expected[p] = 1 + expected[p] / 2 + (0 if end >= board.squares else expected[end]) / 2
    figures = json.loads(_gm("board", "analyze", str(path), "--ruleset", RULESET, "--json"))
    assert figures[RULESET]["expected_turns"] == pytest.approx(expected[0], abs=1e-4)
    assert "toss_expected_turns" in target_keys()
