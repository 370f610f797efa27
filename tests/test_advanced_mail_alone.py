"""Advanced: a player can write a legal order from the text part of their last
mail alone. Whether a BUILD is legal depends on steps across the board's staggered rows
(docs/rules/advanced.md), so the welcome and every report draw the board as `gm board show` does,
with pieces and items, and say how steps are counted.

The proof reads nothing but the text parts gm sent: the drawn board (parsed back into
levels and columns by its character positions), the player's square and die, and the
rule for steps as the mail words it. From those alone it picks a MOVE or a `BUILD SNAKE`
/ `BUILD LADDER` one step down; the order desk accepts every one and resolve builds them.
"""

from __future__ import annotations

import email
import email.policy
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from functools import cached_property
from math import gcd
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.boards.board import load_board
from gm.boards.model import Board
from gm.boards.text import Window, draw, item_marks
from gm.cli import cli
from gm.rules.advanced.drawing import SEVERAL, fits_mail, piece_marks
from gm.rules.geometry import steps

BOARDS = Path(__file__).resolve().parent.parent / "boards"
PLAYERS = ("ann", "bob", "cat", "dan")
START = datetime(2027, 1, 1, tzinfo=UTC)


# -- reading a mail's text as a player would -------------------------------------------


@dataclass(frozen=True)
class Drawn:
    """A board as read back from its drawing: each square's (level, column), the marks
    beside each square (item ends, then a piece's letter)."""

    where: dict[int, tuple[int, int]]
    marks: dict[int, str]

    @cached_property
    def at(self) -> dict[tuple[int, int], int]:
        return {pos: square for square, pos in self.where.items()}

    def neighbours(self, square: int) -> list[int]:
        """The rule as the mail words it: beside it in its row, or straight above or below."""
        level, column = self.where[square]
        near = ((level, column - 1), (level, column + 1), (level - 1, column), (level + 1, column))
        return [self.at[pos] for pos in near if pos in self.at]

    def distances(self, start: int) -> dict[int, int]:
        """The fewest such steps from `start` to every square it reaches."""
        found, frontier = {start: 0}, [start]
        while frontier:
            reached = []
            for here in frontier:
                for there in self.neighbours(here):
                    if there not in found:
                        found[there] = found[here] + 1
                        reached.append(there)
            frontier = reached
        return found

    def item_end(self, square: int) -> bool:
        return any(m in "SsLl" for m in self.marks.get(square, ""))


CELL = re.compile(r"(\d+)([A-Za-z*]*)")
ROW = re.compile(r"^ *(\d+) \| (.*)$")


def read_drawing(lines: list[str]) -> Drawn:
    """Levels from their labels; columns from where each square's number ends on the
    line (numbers are right-aligned in cells of one width, as a fixed-width font shows)."""
    rows = []
    for line in lines:
        match = ROW.match(line)
        if match:
            offset = match.start(2)
            rows.append((int(match.group(1)), [(offset + m.start(1) + len(m.group(1)), int(m.group(1)), m.group(2))
                                               for m in CELL.finditer(match.group(2))]))
    edges = sorted({edge for _, cells in rows for edge, _, _ in cells})
    width = 0
    for a, b in zip(edges, edges[1:], strict=False):
        width = gcd(width, b - a)
    where, marks = {}, {}
    for level, cells in rows:
        for edge, square, mark in cells:
            assert square not in where, f"square {square} drawn twice"
            where[square] = (level, (edge - edges[0]) // (width or 1))
            if mark:
                marks[square] = mark
    return Drawn(where, marks)


def board_lines(text: str) -> list[str]:
    """The first drawing under a THE BOARD heading: its `level | squares` lines (the
    whole board, or, on a board too large for mail, the board around the player's piece)."""
    for heading in re.finditer(r"^THE BOARD\b.*$", text, re.MULTILINE):
        lines = []
        for line in text[heading.end():].splitlines()[1:]:
            if not ROW.match(line):
                break
            lines.append(line)
        if lines:
            return lines
    raise AssertionError("no drawing under a THE BOARD heading")


def own(text: str) -> tuple[int, int] | None:
    """The player's square (0 Start) and die, as their own part of the mail says; None in End."""
    if re.search(r"Your piece is in End", text):
        return None
    match = re.search(r"Your piece: (Start|\d+)\b.*?; your die: d(\d+)", text)
    assert match, "the mail does not say where the player's piece is and what die it has"
    return (0 if match.group(1) == "Start" else int(match.group(1))), int(match.group(2))


def choose(text: str, item: str) -> str:
    """The order a player writes from this mail's text alone: a BUILD one step down from
    their square when the drawing shows one free (any successful throw reaches one
    step), else MOVE. docs/rules/advanced.md: not from Start, neither square holding an item end,
    the target lower."""
    mine = own(text)
    assert mine is not None
    square, die = mine
    # the mail says how steps are counted, in the words read_drawing and Drawn follow
    assert "straight above or below" in text and "beside it in its row" in text
    assert die // 2 >= 1
    if square == 0:
        return "MOVE"
    drawn = read_drawing(board_lines(text))
    if drawn.item_end(square):
        return "MOVE"
    below = [t for t in drawn.neighbours(square) if t < square and not drawn.item_end(t)]
    return f"BUILD {item.upper()} {min(below)}" if below else "MOVE"


# -- the campaign -------------------------------------------------------------------------


# wider and taller than mail draws whole: each player's mail draws the board around their piece
WIDE = ("name: Wide Stair\nsquares: 400\nshape: {levels: [20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, "
        "20, 20, 20, 20, 20, 20], offsets: [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]}\n")


class Campaign:
    def __init__(self, folder: Path, board: str):
        self.folder = folder
        folder.mkdir()
        (folder / "board.yaml").write_text(board, encoding="utf-8")
        (folder / "campaign.yaml").write_text(yaml.safe_dump({
            "id": "alone", "title": "From mail alone", "ruleset": "advanced", "seed": 2**128 + 24,
            "first_deadline": "2027-01-08T18:00:00Z", "boards": {"A": "board.yaml"},
            "players": [{"id": p, "name": p.title(), "email": f"{p}@example.org", "password": f"pw-{p}",
                         **({"team": "two"} if p in ("bob", "cat") else {})} for p in PLAYERS],
        }))
        self.runner = CliRunner()
        self.sent = 0
        self.seen: set[str] = set()

    def gm(self, *args: str, now: datetime) -> str:
        result = self.runner.invoke(cli, ["-C", str(self.folder), *args], env={"GM_NOW": now.isoformat()})
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert result.exit_code == 0, result.output
        return result.output

    def order(self, player: str, line: str) -> None:
        self.sent += 1
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
        mail["Message-ID"] = f"<{self.sent}@example.org>"
        mail.set_content(f"PLAYER {player}\nPASSWORD pw-{player}\n{line}\n")
        (self.folder / "mail" / "inbox" / "new" / f"{self.sent}.eml").write_bytes(bytes(mail))

    def new_mail(self) -> list[tuple[str, str, str]]:
        """(recipient, subject, text part) of every message delivered since last asked."""
        found = []
        for path in sorted((self.folder / "mail" / "outbox" / "new").iterdir()):
            if path.name in self.seen:
                continue
            self.seen.add(path.name)
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            found.append((str(message["To"]).split("@")[0], str(message["Subject"]),
                          message.get_body(("plain",)).get_content()))
        return found

    def state(self) -> dict:
        return json.loads(self.gm("state", "--json", now=START))


@pytest.mark.parametrize("board", ["seed", "wide"])
def test_4_4_from_the_text_of_the_welcome_and_the_reports_alone_a_player_writes_legal_orders_and_builds(
        tmp_path, board):
    """The seed's board (boards/advanced.yaml, 99 squares in staggered rows), drawn whole;
    and a board too large for mail, drawn around each player's piece."""
    game = Campaign(tmp_path / "alone", (BOARDS / "advanced.yaml").read_text() if board == "seed" else WIDE)
    game.gm("start", now=START)
    game.gm("send", now=START)
    welcomes = {to: text for to, subject, text in game.new_mail() if "Welcome" in subject}
    assert set(welcomes) == set(PLAYERS)
    last = dict(welcomes)
    for text in welcomes.values():
        assert own(text) == (0, own(text)[1])  # on Start: only MOVE is legal
        assert "straight above or below" in text
        if board == "seed":
            drawn = read_drawing(board_lines(text))
            assert sorted(drawn.where) == list(range(1, 100))  # the seed's 99 squares, each drawn once

    built = {"snake": 0, "ladder": 0}
    tried = 0
    for week in range(1, 16):
        orders = {}
        for index, player in enumerate(PLAYERS):
            if own(last[player]) is None:
                continue  # in End: no order
            orders[player] = choose(last[player], ("snake", "ladder")[(week + index) % 2])
            game.order(player, orders[player])
        state_before = game.state()
        now = START + timedelta(days=7 * week, hours=19)
        game.gm("turn", now=now)
        mail = game.new_mail()
        refusals = [(to, text) for to, subject, text in mail if "not accepted" in subject]
        assert not refusals, refusals
        reports = {to: text for to, subject, text in mail if "report" in subject.lower() or "Final" in subject}
        assert set(reports) >= {p for p in PLAYERS if p in orders}
        state = game.state()
        for player, order in orders.items():
            if not order.startswith("BUILD"):
                continue
            tried += 1
            _, item, target = order.split()
            square = state_before["boards"]["A"]["players"][player]["square"]
            line = next(line for line in reports[player].splitlines()
                        if f"- {player.title()} builds a {item.lower()} from {square} to {target}:" in line
                        or f"- {player.title()} builds a {item.lower()} from {target} to {square}:" in line)
            # the squares were right when the mail was read: only the throw fails it, or an
            # item another player built earlier in the round on one of its squares (4.5)
            now_built = {end for b in state["boards"]["A"]["built"] if b["turn"] == week and b["by"] != player
                         for end in (b["from"], b["to"])}
            assert (line.endswith("BUILT") or line.endswith("the throw was too low")
                    or ("already holds an end" in line and {square, int(target)} & now_built)), line
            if line.endswith("BUILT"):
                built[item.lower()] += 1
                assert {"kind": item.lower(), "by": player, "turn": week} | (
                    {"from": square, "to": int(target)} if item == "SNAKE" else {"from": int(target), "to": square}
                ) in state["boards"]["A"]["built"]
        last.update(reports)
        if state["over"] or (built["snake"] and built["ladder"] and week >= 6):
            break
    assert built["snake"] and built["ladder"], (built, tried)
    # built items are drawn: every end of every item in play carries its mark (the wide
    # board's drawing holds the squares around the player's piece only)
    drawn = read_drawing(board_lines(last["ann"]))
    played = game.state()["boards"]["A"]
    marked = {(square, mark) for square, marks in drawn.marks.items() for mark in marks if mark in "SsLl"}
    ends = {(square, mark) for pair in played["snakes"] for square, mark in zip(pair, "Ss", strict=True)}
    ends |= {(square, mark) for pair in played["ladders"] for square, mark in zip(pair, "Ll", strict=True)}
    assert marked == {(square, mark) for square, mark in ends if square in drawn.where}
    assert marked or board == "wide"


# -- the drawing itself -------------------------------------------------------------------

STAGGERED = Board.build(23, levels=(6, 5, 7, 5), offsets=(1, 0, 2, -1), snakes=[(20, 3)], ladders=[(2, 15)])
ONE_WAY = Board.build(30, levels=(10, 10, 10), offsets=(0, 3, 1), serpentine=False)


@pytest.mark.parametrize("board", [load_board(BOARDS / "advanced.yaml"), load_board(BOARDS / "milton-bradley.yaml"),
                                   STAGGERED, ONE_WAY], ids=["advanced", "milton-bradley", "staggered", "one-way"])
def test_4_4_steps_read_off_the_drawing_are_the_rules_steps(board):
    """Counting steps in the drawing as the mail says (beside it in its row, straight above
    or below) gives docs/rules/advanced.md's distance for every pair of squares, on staggered,
    offset and one-way boards alike."""
    drawn = read_drawing(draw(board, item_marks(board)))
    assert sorted(drawn.where) == list(range(1, board.squares + 1))
    for start in range(1, board.squares + 1):
        found = drawn.distances(start)
        for end in range(1, board.squares + 1):
            assert found.get(end) == steps(board, start, end), (start, end)


def test_4_4_a_window_around_a_square_holds_every_square_within_reach_at_the_same_steps():
    board = Board.build(200, levels=(200,))
    assert not fits_mail(board)
    window = Window.around(board, 57, 3)
    drawn = read_drawing(draw(board, {}, window))
    assert sorted(drawn.where) == list(range(54, 61))
    assert drawn.distances(57) == {t: abs(57 - t) for t in drawn.where}


def test_pieces_are_marked_by_their_ids_initial_never_as_an_items_mark():
    marks = piece_marks(["ann", "sam", "lee", "anna", "sally", "bob"])
    assert marks == {"ann": "A", "sam": "M", "lee": "E", "anna": "N", "sally": "Y", "bob": "B"}
    assert piece_marks([f"p{i}" for i in range(30)]) == {f"p{i}": SEVERAL for i in range(30)}


def test_the_starter_campaign_offers_an_archive_url_which_once_set_every_mail_links(tmp_path):
    """`gm campaign new --ruleset advanced` writes archive_url commented, saying what it
    gives players; uncommented, the welcome links the archive and its rules page."""
    folder = tmp_path / "spring"
    runner = CliRunner()
    assert runner.invoke(cli, ["campaign", "new", str(folder), "--ruleset", "advanced"]).exit_code == 0
    text = (folder / "campaign.yaml").read_text()
    line = next(line for line in text.splitlines() if "archive_url" in line)
    assert line == "# archive_url: https://example.org/spring/"
    assert "every\n#   mail links the game's pages" in text
    (folder / "campaign.yaml").write_text(text.replace(line, line.removeprefix("# ")))
    for command in ("start", "send"):
        result = runner.invoke(cli, ["-C", str(folder), command], env={"GM_NOW": START.isoformat()})
        assert result.exit_code == 0, result.output
    (path, *_) = sorted((folder / "mail" / "outbox" / "new").iterdir())
    welcome = email.message_from_bytes(path.read_bytes(), policy=email.policy.default).get_body(("plain",))
    assert "The game's archive: https://example.org/spring/index.html" in welcome.get_content()
