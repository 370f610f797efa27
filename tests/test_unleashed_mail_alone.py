"""Unleashed: a player can write a legal order from the text part of their last
mail alone, without translating anything.

The welcome and every report draw the board as text in the words orders use: each card's
symbol with a legend of exactly the symbols shown, each giving the code a PLAY line names;
under each square its item ends (`S4>13`: a pawn landing here travels S4 to 13; `S4<27`:
the other end, entered on 27) and its pawns (`@2`, seat 2). The setup turn's welcome lists
every item to place with its reach. Every mail that asks for an order ends with a ready
one, built from the player's real hand (PLAY lines) or the items in the box (PLACE lines).

The proofs read nothing but the text parts gm sent, as a reader who knows only the order
language of docs/rules/unleashed.md would: the ready lines are accepted by the order desk
as they stand and are played; a reader that reads the hand, the drawn board and its legend
writes a line of its own that is accepted and played. Over every state of the golden
campaign, each player's ready order passes the checks on receipt and its first line is
played when that player's go comes first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer
from test_golden_campaigns import make_setup, unleashed_orders
from test_trust_files import Isolation
from test_unleashed_worked_example import R, example_setup, example_state

from gm.campaign.desk.inbound import Desk
from gm.campaign.turns import remind, resolve
from gm.mail.mailout import render
from gm.mail.orderlang import parse_orders
from gm.mail.views import BoardSize, PlayerMail, PlayerRef
from gm.publish.archive import build_site
from gm.publish.archive_load import load_archive
from gm.publish.render import render_page
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.grammar import ruleset_keywords
from gm.rules.unleashed.cards import action_type, movement
from gm.rules.unleashed.options import parse_options
from gm.rules.unleashed.orders import UnleashedOrder
from gm.rules.unleashed.state import UnleashedState
from gm.rules.unleashed.views import own_view
from gm.yamlfile import LineDict

GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "campaigns" / "unleashed.json"
STRONG = 2**128

# What docs/rules/unleashed.md says a card code is ("Cards and the deck").
ACTION_CODES = ("EXTRA-ROLL", "SWAP-PLAYERS", "MOVE-LADDER", "MOVE-SNAKE", "MOVE-ANY", "MOVE-2-LADDERS",
                "MOVE-2-SNAKES", "SWAP-CARDS", "REVERSE")
CODE = re.compile(rf"BLANK|[+-][1-9]|(?:FORWARD|BACK)-[1-9]|{'|'.join(ACTION_CODES)}")
NEEDS_NO_CHOICES = re.compile(r"BLANK|[+-][1-9]|EXTRA-ROLL|REVERSE")


# -- a reader of the text part ------------------------------------------------------------


@dataclass
class Square:
    level: int
    column: int
    symbol: str
    locked: bool
    marks: list[str] = field(default_factory=list)


@dataclass
class Drawn:
    """The board as a reader gets it from the text: each square's level (rows from the
    top), column (character position), card symbol, lock and marks; the legend."""

    squares: dict[int, Square]
    legend: dict[str, str]  # symbol -> code

    def code(self, square: int) -> str:
        symbol = self.squares[square].symbol
        return self.legend.get(symbol, symbol)

    def pawns(self, square: int) -> set[int]:
        return {int(seat) for mark in self.squares[square].marks if mark.startswith("@")
                for seat in mark[1:].split("@")}


CARD_CELL = re.compile(r"(\d+)([ *])(\S+)")


def read_board(text: str) -> Drawn:
    """The first drawing under a THE BOARD heading: a line per level, top level first,
    each square's number and card symbol; the lines under it, its marks, each under its
    square. Then the legend's `<symbol> is <code>` pairs."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("THE BOARD"))
    rows: list[list[tuple[int, bool, str]]] = []
    marks: list[list[tuple[int, str]]] = []
    width = 0
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Cards:"))
    for line in lines[start + 1:end]:
        if not line.strip():
            continue
        if line.lstrip()[0].isdigit():
            cells = list(CARD_CELL.finditer(line))
            assert "".join(m.group(0) for m in cells).replace(" ", "") == line.replace(" ", ""), line
            width = cells[1].end(1) - cells[0].end(1) if len(cells) > 1 else len(line) + 1
            rows.append([(int(m[1]), m[2] == "*", m[3]) for m in cells])
            marks.append([])
        else:
            marks[-1] += [(m.start() // width, m.group()) for m in re.finditer(r"\S+", line)]
    squares = {}
    for r, (cells, under) in enumerate(zip(rows, marks, strict=True)):
        for column, (number, locked, symbol) in enumerate(cells):
            squares[number] = Square(len(rows) - r, column, symbol, locked,
                                     [mark for at, mark in under if at == column])
    legend_text = " ".join(lines[end:end + 8]).split("card of that code")[0]
    legend = dict(re.findall(r"(\S+) is ([A-Z0-9+-]+)", legend_text))
    return Drawn(squares, legend)


def hand(text: str) -> list[str]:
    found = re.search(r"^(?:- Your hand|YOUR HAND \(only you see it\)|  Hand): (.+)$", text, re.MULTILINE)
    assert found, "no hand in the mail"
    return [] if found[1] == "empty" else found[1].split(", ")


def where(text: str, player: str) -> tuple[int, int]:
    """(seat, square) of a player's pawn, from the pawns listed under the board."""
    found = re.search(rf"^- @(\d) .* \({re.escape(player)}\): (Start|\d+);", text, re.MULTILINE)
    assert found, f"{player} is not listed under the board"
    return int(found[1]), 0 if found[2] == "Start" else int(found[2])


def ready_order(text: str) -> list[str]:
    """The indented lines under YOUR ORDER FOR TURN n, as the mail gives them."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("YOUR ORDER FOR TURN"))
    block, inside = [], False
    for line in lines[start:]:
        if line.startswith("  ") and line.strip():
            inside = True
            block.append(line.strip())
        elif inside:
            break
    return block


# -- a campaign played by mail ----------------------------------------------------------------


def unleashed_kit(tmp_path, monkeypatch, players=PLAIN_PLAYERS[:3], **options: Any) -> CampaignKit:
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=players, start=False)
    path = kit.folder / "campaign.yaml"
    data = yaml.safe_load(path.read_text())
    data.pop("boards")
    data.update(ruleset="unleashed", seed=STRONG + 24, options={"seating": "listed", **options})
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    kit.start()
    return kit


def text_of(message: Any) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def last_mail(kit: CampaignKit, player: str) -> str:
    """The text part of the player's last welcome or report."""
    mails = kit.outbox(kind="report", player=player) or kit.outbox(kind="welcome", player=player)
    return text_of(mails[-1])


def send(kit: CampaignKit, player: str, lines: list[str]) -> Any:
    """The lines as the player would mail them, their password typed in."""
    password = kit.player(player).password
    body = "\n".join(f"PASSWORD {password}" if line.startswith("PASSWORD") else line for line in lines)
    if not any(line.startswith("PLAYER") for line in lines):
        body = f"PLAYER {player}\nPASSWORD {password}\n{body}"
    with kit.campaign() as campaign:
        return Desk(campaign).handle(kit.mail(player, body + "\n"), source=f"alone:{kit.sent}",
                                     received_at=kit.now)


def resolve_turn(kit: CampaignKit) -> list[Any]:
    """Resolve the open turn just after its deadline; its events."""
    with kit.campaign() as campaign:
        turn = campaign.state().turn
        kit.at(campaign.deadline() + timedelta(hours=1))
        resolve(campaign, force=True)
        row = campaign.store.one("select * from turns where turn = ?", (turn,))
        return [campaign.ruleset.event_from_json(e) for e in json.loads(row["events"])]


def seats(kit: CampaignKit) -> list[str]:
    return kit.state().seats


# -- the setup turn: the welcome alone --------------------------------------------------------


def test_24_the_setup_welcome_lists_every_item_to_place_with_its_reach(tmp_path, monkeypatch):
    kit = unleashed_kit(tmp_path, monkeypatch)
    text = last_mail(kit, "alice")
    kit.close()
    assert "THE SETUP TURN: PLACING THE ITEMS" in text
    assert "Turn 1 places 12 snakes, ladders and lampposts" in text and "4 of the picks are yours" in text
    drawn = read_board(text)
    said = " ".join(text.split())
    for size, items, apart in (("Short", "S1 S2 S3 L1 L2 L3 P1", 1), ("Long", "S4 S5 S6 L4 L5 L6 P2", 2)):
        found = re.search(rf"{size} items, {items}, join squares [^.]*? aside: from (\d+), squares ([\d, ]+)\.", said)
        assert found, (size, said)
        square, reach = drawn.squares[int(found[1])], [int(s) for s in found[2].split(", ")]
        # what the grid shows agrees with the reach the mail states, and with the rule
        assert reach and all(abs(drawn.squares[s].level - square.level) == apart
                             and abs(drawn.squares[s].column - square.column) <= apart for s in reach)
        assert len(reach) == sum(abs(s.level - square.level) == apart and abs(s.column - square.column) <= apart
                                 for s in drawn.squares.values())


def test_24_the_welcomes_ready_place_lines_are_accepted_as_they_stand_and_made(tmp_path, monkeypatch):
    kit = unleashed_kit(tmp_path, monkeypatch)
    ready = {p.id: ready_order(last_mail(kit, p.id)) for p in kit.players}
    for player, lines in ready.items():
        assert [line.split()[0] for line in lines] == ["GAME", "PLAYER", "PASSWORD", "TURN", "PLACE", "PLACE",
                                                       "PLACE"], lines
        assert send(kit, player, lines).outcome == "applied"
    picks = [e for e in resolve_turn(kit) if e.kind == "pick"]
    last = seats(kit)[-1]
    kit.close()
    # 6.4: the last seat picks first, on an empty board: its first line is made
    first = ready[last][4].split()
    assert (picks[0].player, picks[0].item, picks[0].default) == (last, first[1], False)
    assert {picks[0].lower, picks[0].upper} == {int(first[2]), int(first[3])}
    assert sum(not p.default for p in picks) >= 3  # the examples differ from player to player


def test_24_a_reader_of_the_welcome_alone_places_an_item_within_reach(tmp_path, monkeypatch):
    """The reader takes a short item the welcome lists and two squares the drawing shows
    one level apart in one column (docs: a short item's reach), none holding an item end."""
    kit = unleashed_kit(tmp_path, monkeypatch)
    last = seats(kit)[-1]
    text = last_mail(kit, last)
    drawn = read_board(text)
    short = re.search(r"Short items, ([A-Z0-9 ]+), join", " ".join(text.split()))[1].split()
    lower = max(s for s, sq in drawn.squares.items() if sq.level == 1)
    upper = next(s for s, sq in drawn.squares.items()
                 if sq.level == 2 and sq.column == drawn.squares[lower].column)
    outcome = send(kit, last, [f"PLACE {short[-1]} {upper} {lower}"])
    picks = [e for e in resolve_turn(kit) if e.kind == "pick"]
    kit.close()
    assert outcome.outcome == "applied", outcome.problems
    assert (picks[0].player, picks[0].item, picks[0].lower, picks[0].upper, picks[0].default) == (
        last, short[-1], lower, upper, False)


def test_24_the_setup_welcome_counts_each_players_picks(tmp_path, monkeypatch):
    kit = unleashed_kit(tmp_path, monkeypatch, pieces=7)
    said = {p.id: re.search(r"(\d+) of the picks (?:are|is) yours", " ".join(last_mail(kit, p.id).split()))[1]
            for p in kit.players}
    picks = [e for e in resolve_turn(kit) if e.kind == "pick"]
    kit.close()
    assert {p: int(n) for p, n in said.items()} == {p.id: sum(e.player == p.id for e in picks) for p in kit.players}


# -- a round of play: the report alone ---------------------------------------------------------


@pytest.fixture
def after_setup(tmp_path, monkeypatch) -> CampaignKit:
    """A campaign whose setup turn is resolved (default picks): turn 2 is a round."""
    kit = unleashed_kit(tmp_path, monkeypatch)
    resolve_turn(kit)
    yield kit
    kit.close()


def played_by(events: list[Any], player: str) -> list[tuple[str, int]]:
    return [(e.card, e.square) for e in events if e.kind == "play" and e.player == player]


def test_24_the_reports_ready_play_lines_are_accepted_as_they_stand_and_the_first_is_played(after_setup):
    kit = after_setup
    texts = {p.id: last_mail(kit, p.id) for p in kit.players}
    for player, text in texts.items():
        lines = ready_order(text)
        assert lines[:4] == ["GAME kit-2027", f"PLAYER {player}", "PASSWORD (your password)", "TURN 2"]
        plays = lines[4:]
        assert plays and all(line.startswith("PLAY ") for line in plays)
        assert {line.split()[1] for line in plays} <= set(hand(text)), (plays, hand(text))  # from the real hand
        assert send(kit, player, lines).outcome == "applied"
    starter = seats(kit)[0]  # round 1 starts with seat 1
    events = resolve_turn(kit)
    first = ready_order(texts[starter])[4].split()
    assert played_by(events, starter)[0] == (first[1], int(first[3]))


def test_24_a_reader_of_a_report_alone_plays_a_card_of_its_hand(after_setup):
    """The reader takes a card from the hand the report gives, and a square near a roll
    ahead of its pawn that the drawing shows free of other pawns, of locks and of item
    ends (items act before cards); it writes no choices (the automatic ones apply)."""
    kit = after_setup
    starter = seats(kit)[0]
    text = last_mail(kit, starter)
    drawn = read_board(text)
    seat, at = where(text, starter)
    card = next((c for c in hand(text) if NEEDS_NO_CHOICES.fullmatch(c)), hand(text)[0])
    free = [s for s, sq in drawn.squares.items()
            if not sq.locked and not (drawn.pawns(s) - {seat}) and not any(">" in m or "<" in m for m in sq.marks)]
    square = min(free, key=lambda s: (abs(s - (at + 7)), s))
    outcome = send(kit, starter, [f"PLAY {card} ON {square}"])
    events = resolve_turn(kit)
    assert outcome.outcome == "applied", outcome.problems
    assert played_by(events, starter)[0] == (card, square)


def test_24_a_reminder_alone_draws_the_board_and_carries_a_ready_order(after_setup):
    """A reminder may be the last mail a player has: it draws the board and ends with a
    ready order from the hand, accepted as it stands."""
    kit = after_setup
    with kit.campaign() as campaign:
        kit.at(campaign.deadline() - timedelta(hours=5))
        remind(campaign)
    text = text_of(kit.outbox(kind="reminder", player="bob")[-1])
    drawn = read_board(text)
    lines = ready_order(text)
    assert len(drawn.squares) == 60 and lines[3] == "TURN 2"
    assert {line.split()[1] for line in lines[4:]} <= set(hand(text))
    assert send(kit, "bob", lines).outcome == "applied"


def test_24_the_board_in_text_is_the_board_in_the_state(after_setup):
    """Each square's code (through the legend), lock, item ends and pawns as the report
    draws them are those of the state; the legend names exactly the symbols shown, each by
    a code of the order language."""
    kit = after_setup
    state = kit.state()
    for player in kit.players:
        drawn = read_board(last_mail(kit, player.id))
        assert sorted(drawn.squares) == list(range(1, state.rows * state.columns + 1))
        shown = {sq.symbol for sq in drawn.squares.values()}
        assert set(drawn.legend) == {s for s in shown if not CODE.fullmatch(s)}
        assert all(CODE.fullmatch(code) for code in drawn.legend.values())
        for square, sq in drawn.squares.items():
            assert drawn.code(square) == state.cards[square - 1]
            assert sq.locked == (square in state.locked_cards)
            assert drawn.pawns(square) == {i + 1 for i, p in enumerate(state.seats)
                                           if state.pawns[p].square == square and not state.pawns[p].finished}
        ends = {(m, square) for square, sq in drawn.squares.items() for m in sq.marks if not m.startswith("@")}
        expected = set()
        for item, (low, high) in state.items.items():
            entry, other = (high, low) if item[0] == "S" else (low, high)
            expected.add((f"{item}>{other}", entry))
            expected.add((f"{item}>{entry}" if item[0] == "P" else f"{item}<{entry}", other))
        assert ends == expected


# -- the ready order over many states -------------------------------------------------------------


def golden_states() -> list[tuple[Setup, UnleashedState]]:
    """Every state of the Unleashed golden campaign (5 players, two cards a go, snake eyes
    evil, compulsory play), after start and after each turn."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    setup = make_setup(R, golden)
    state = R.start(setup, SeededChance(setup.seed)).state
    states = [(setup, state)]
    for recorded in golden["turns"]:
        orders = {p: R.order_from_json(o) for p, o in recorded["orders"].items()}
        state = R.resolve(setup, state, orders, SeededChance(setup.seed)).state
        states.append((setup, state))
    return states


def played_states(campaigns: int) -> list[tuple[Setup, UnleashedState]]:
    """Every state of `campaigns` campaigns of 2 to 6 players on both board sizes, one or
    two cards a go, played with the golden campaign's varied orders."""
    states = []
    for number in range(campaigns):
        players = ("ann", "bob", "cat", "dan", "eve", "fay")[:2 + number % 5]
        options = parse_options(LineDict({"setup": "players", "super_size": number % 2 == 0,
                                          "two_card_placement": number % 3 == 0}))
        boards, problems = R.campaign_boards({}, len(players), options)
        assert not problems
        setup = Setup(boards, players, options, STRONG + number)
        state = R.start(setup, SeededChance(setup.seed)).state
        while not state.over:
            states.append((setup, state))
            orders = {p: R.order_from_json(o) for p, o in unleashed_orders(setup, state, state.turn).items()}
            state = R.resolve(setup, state, orders, SeededChance(setup.seed)).state
    return states


def receipt(setup: Setup, state: UnleashedState, player: str, lines: tuple[str, ...]) -> UnleashedOrder:
    """The lines through the order language and the checks on receipt (6.13)."""
    parsed = parse_orders(f"PLAYER {player}\nPASSWORD x\n" + "\n".join(lines) + "\n", grammar=R.grammar(),
                          other_keywords=ruleset_keywords())
    assert parsed.ok, [p.why for p in parsed.problems]
    order, problems = R.merge(setup, state, player, UnleashedOrder(), parsed.commands)
    assert problems == [], (lines, problems)
    return order


def starting(setup: Setup, state: UnleashedState, player: str) -> UnleashedState:
    """The state with its turn moved so that the player's go comes first in the round
    (6.5: round k starts with seat ((k-1) mod P) + 1); nothing else changes."""
    changed = state.copy()
    round_now = changed.turn - 1  # setup: players, so turn k is round k - 1
    shift = (changed.seats.index(player) - (round_now - 1)) % len(changed.seats)
    changed.turn += shift
    return changed


def test_24_every_ready_order_is_accepted_and_its_first_line_played():
    """Over the golden campaign and thirty more, every state and every player in play:
    the ready order passes the checks on receipt, and with that player's go first in the
    round, its first PLAY line is the card played (every card of the deck comes up, and
    reversed boards)."""
    cards, reversed_seen = set(), 0
    for setup, state in golden_states() + played_states(30):
        if state.over:
            continue
        for player in state.seats:
            if not state.in_play(player):
                continue
            ready = own_view(setup, player, player, state, (), None).ready
            order = receipt(setup, state, player, ready)
            if state.setup:
                assert order.places and len(order.places) == len(ready)
                continue
            if ready == ("PLAY NONE",):  # no card of a clear use, and none that acts without choices
                assert not any(movement(c) or c in ("EXTRA-ROLL", "BLANK") for c in state.hands[player])
                continue
            out = R.resolve(setup, starting(setup, state, player), {player: order}, SeededChance(setup.seed))
            plays = [e for e in out.events if e.kind == "play"]
            line = order.plays[0]
            assert plays and (plays[0].player, plays[0].card, str(plays[0].square)) == (
                player, line.card, line.square), (state.turn, player, ready)
            cards |= {p.card for p in order.plays}
            reversed_seen += state.reversed
    assert reversed_seen and {"EXTRA-ROLL", "SWAP-PLAYERS", "MOVE-SNAKE", "MOVE-LADDER", "SWAP-CARDS", "BLANK",
                              "+1", "-1", "BACK-2"} <= cards, cards


def test_24_every_ready_play_line_changes_something():
    """docs/rules/unleashed.md, A ready order: each suggested line has a clear use now, so
    no card goes over a card of its own code, and a MOVE, SWAP or BACK card always comes
    with its choices (its automatic choice may move nothing)."""
    for setup, state in golden_states() + played_states(12):
        if state.over or state.setup:
            continue
        for player in state.seats:
            if not state.in_play(player):
                continue
            for line in own_view(setup, player, player, state, (), None).ready:
                words = line.split()
                if words[1] == "NONE":
                    continue
                code, square = words[1], int(words[3])
                assert state.cards[square - 1] != code, (state.turn, player, line)
                if action_type(code) in ("MOVE-SNAKE", "MOVE-2-SNAKES", "MOVE-ANY", "MOVE-LADDER",
                                         "MOVE-2-LADDERS", "SWAP-PLAYERS", "SWAP-CARDS", "BACK"):
                    assert len(words) > 4, (state.turn, player, line)


def test_24_a_ready_play_line_without_a_clear_use_is_not_suggested():
    """docs/rules/unleashed.md, A ready order: a MOVE-LADDER with no ladder worth moving is
    not suggested bare (its automatic choice would move nothing): PLAY NONE instead."""
    setup, state = example_setup(), example_state()
    for item in [i for i in state.items if i[0] == "L"]:
        del state.items[item]
    state.hands["bob"] = ["MOVE-LADDER"]
    assert own_view(setup, "bob", "Bob", state, (), None).ready == ("PLAY NONE",)


def test_24_a_ready_play_line_carries_the_choices_its_card_needs():
    """6.16's state: bob, behind carol, holding SWAP-PLAYERS and BACK-2, is offered both
    with their choices; a MOVE-SNAKE line moves a snake so that its head waits a roll
    ahead of the leader."""
    setup, state = example_setup(), example_state()
    state.hands["bob"] = ["SWAP-PLAYERS", "MOVE-SNAKE", "BACK-2"]
    ready = own_view(setup, "bob", "Bob", state, (), None).ready
    assert [line.split()[1] for line in ready] == ["SWAP-PLAYERS", "BACK-2", "MOVE-SNAKE"]
    assert ready[0].endswith(" ME LEADER") and ready[1].endswith(" LEADER")
    item, head, tail = ready[2].split()[4:]
    assert item in state.items and int(head) == state.pawns["carol"].square + 7 and int(tail) < int(head)
    receipt(setup, state, "bob", ready)


# -- the text fits a phone -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("super_size", [True, False])
def test_24_the_drawn_board_fits_a_phone_line(players, super_size):
    ids = ("ann", "bob", "cat", "dan", "eve")[:players]
    options = parse_options(LineDict({"setup": "random", "super_size": super_size}))
    boards, problems = R.campaign_boards({}, players, options)
    assert not problems
    setup = Setup(boards, ids, options, STRONG + 7)
    before = R.start(setup, SeededChance(setup.seed)).state
    out = R.resolve(setup, before, {}, SeededChance(setup.seed))
    names = {p: p.title() for p in ids}
    view = R.public_view(setup, before, out.state, out.events, names, "c", "Cup")
    own = R.player_view(setup, ids[0], names[ids[0]], out.state, out.events, None)
    mail = PlayerMail(campaign="c", title="Cup", ruleset=R.name, gm_address="gm@example.org",
                      boards=tuple(BoardSize(b, board.squares) for b, board in setup.boards.items()),
                      facts=R.mail_facts(setup), commands=(), player=PlayerRef(ids[0], names[ids[0]]),
                      deadline=None, next_turn=view.next_turn, view=view, own=own)
    _, text, _ = render("report", mail.context())
    board = text[text.index("THE BOARD"):text.index("Pawns:")]
    assert max(map(len, board.splitlines())) <= 68, board
    assert len(read_board(text).squares) == out.state.rows * out.state.columns


# -- names on the archive's turn pages ---------------------------------------------------------------

# names keep no bidi control (docs/campaign.md, Players); a right-to-left name still needs
# isolating, or it reorders the words beside it
RTL_NAME = "\u05e2\u05e8\u05d1 evil"


def test_24_a_right_to_left_name_is_isolated_in_the_turn_pages_step_lines(tmp_path, monkeypatch):
    """A right-to-left name must reorder only the name: on the turn pages and the player
    pages every step, roll and action line that names a pawn holds the name in <bdi>."""
    players = (KitPlayer("eve", RTL_NAME, "eve@example.org", "pw-eve"), *PLAIN_PLAYERS[:2])
    kit = unleashed_kit(tmp_path, monkeypatch, players=players, setup="random")
    for _ in range(3):
        resolve_turn(kit)
    with kit.campaign() as campaign:
        pages = build_site(load_archive(campaign))
    kit.close()
    seen = 0
    for page in pages:
        if not page.path.endswith(".html"):
            continue
        html = render_page(page)
        parser = Isolation((RTL_NAME,))
        parser.feed(html if isinstance(html, str) else html.decode("utf-8"))
        for needle, isolated, where_ in parser.found:
            seen += 1
            assert isolated, f"{page.path}: {needle!r} in <{where_}> is not isolated"
    assert seen > 10


# -- the rules page shows what the mail shows -----------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules" / "unleashed.md"
WORKED = Path(__file__).resolve().parent / "data" / "golden" / "unleashed" / "6.16-report-alice.txt"


def test_24_the_rules_page_shows_the_board_and_ready_order_the_worked_round_mails():
    docs = DOCS.read_text(encoding="utf-8")
    mail = WORKED.read_text(encoding="utf-8")
    drawing = mail[mail.index("33 -2 34"):mail.index("of that code.") + len("of that code.")]
    ready = mail[mail.index("YOUR ORDER FOR TURN 5"):mail.index("PLAY BLANK ON 16") + len("PLAY BLANK ON 16")]
    for part in (drawing, ready):
        indented = "\n".join(f"    {line}" if line else "" for line in part.split("\n"))
        assert indented in docs, part
