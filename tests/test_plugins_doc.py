"""docs/plugins.md is the one page a stranger writes a ruleset package from (issue 26), so
its example must work as printed: every listing marked `file: <path>` is copied out of the
page into a package, installed by pip as a GM would install it, and played: `gm campaign
new`, a campaign by mail on Maildir through `gm start` and `gm turn` to its end, `gm
publish`, `gm reveal` and `gm audit`, `gm end`'s contract, and `gm demo` with the page's
robots."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

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
                               "boards/toss-track.yaml", "robot.py"}


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


def _mail(folder: Path, number: int, player: str, password: str, lines: str) -> None:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "my order"
    mail["Message-ID"] = f"<{number}@example.org>"
    mail.set_content(f"PLAYER {player}\nPASSWORD {password}\n{lines}")
    (folder / "mail" / "inbox" / "new" / f"{number}.eml").write_bytes(bytes(mail))


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
    sent, orders = 0, {"ann": "TOSS\n", "ben": "STEP 2\n", "cat": "STEP 2\n"}
    for week in range(1, 26):
        state = json.loads(_gm(*root, "state", "--json"))
        if state["over"]:
            break
        playing = [p for p in orders if not state["boards"]["A"]["players"][p]["finished"]]
        if week == 1:  # refused whole: a reader's problem, an exclusive group; the refusals read mid-week
            for player, wrong in (("ben", "STEP 9\n"), ("cat", "STEP 2\nTOSS\n")):
                sent += 1
                _mail(folder, sent, player, passwords[player], wrong)
            assert "2 refused" in _gm(*root, "turn", now="2027-01-05T12:00:00Z")
        for player in playing:
            sent += 1
            _mail(folder, sent, player, passwords[player], orders[player])
        deadline = datetime(2027, 1, 8, 19, tzinfo=UTC) + timedelta(days=7 * (week - 1))
        assert f"turn {week} resolved" in _gm(*root, "turn", now=deadline.strftime("%Y-%m-%dT%H:%M:%SZ"))
    later = "2027-09-01T00:00:00Z"
    final = json.loads(_gm(*root, "state", "--json", now=later))
    assert final["over"] and all(p["place"] for p in final["players"].values())
    texts = _texts(folder)
    assert any('line 3: STEP needs a whole number of squares from 1 to 2, got "9"' in t for t in texts)  # its words
    assert any("line 4: TOSS and STEP exclude each other" in t for t in texts)  # gm's words for its group
    assert any("STEP <1-2>  or  TOSS" in t for t in texts)

    _gm(*root, "publish", now=later)
    _gm(*root, "reveal", now=later)
    assert "Toss race" in (folder / "archive" / "rules.html").read_text()  # its rules_page
    audit = _gm("audit", str(folder / "archive"))
    assert "final standings" in audit.lower()
    record = json.loads((folder / "archive" / "audit.json").read_text())
    assert record["ruleset_distribution"] == {"name": "gm-toss-race", "version": "1.0.0"}


def test_the_page_s_end_gives_what_resolve_gives_had_max_turns_been_that_turn(installed):
    from gm.boards.board import Board
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
