"""Small builders for the rules tests (docs/rules/, The board, 2, 5): a campaign set up in one line,
a state with pieces put where a case needs them, orders, and readers for the outcome.

They go through the public names of gm.boards.board and gm.rules only, so the tests read like
the DATC cases they imitate: set up, orders, one checked result per piece."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from gm.boards.model import Board
from gm.rules.base import Outcome as TurnResult
from gm.rules.base import Setup
from gm.rules.chance import SeededChance
from gm.rules.postal import Postal
from gm.rules.postal.events import BoardClosed, Moved, NumberPlayed, Placed, TrapdoorElection
from gm.rules.postal.options import SHARED, PostalOptions
from gm.rules.postal.state import PostalOrder, PostalState

RULES = Postal()
PLAYERS = ("ann", "bob", "cat")


def board(squares: int = 30, **kwargs: Any) -> Board:
    """A validated board (Board.build)."""
    return Board.build(squares, **kwargs)


def campaign(
    boards: Board | Mapping[str, Board] | None = None,
    players: Iterable[str] = PLAYERS,
    seed: int = 20270321,
    **options: Any,
) -> Setup:
    """A Setup: one board called A unless a mapping of boards is given."""
    if boards is None:
        boards = board()
    if isinstance(boards, Board):
        boards = {"A": boards}
    return Setup(
        boards=dict(boards), players=tuple(players), options=PostalOptions(**options), seed=seed
    )


def hand_for(turn: int) -> tuple[int, ...]:
    """A plausible hand at `turn` for a player who has moved every turn: 6 - (turn-1)%6
    numbers; the highest ones, so that the low ones read as 'already used'."""
    left = 6 - (turn - 1) % 6
    return tuple(range(7 - left, 7))


def state(
    setup: Setup,
    *,
    turn: int = 1,
    squares: Mapping[str, Mapping[str, int]] | Mapping[str, int] | None = None,
    trapdoors: Mapping[str, int | None] | int | None = None,
    hands: Mapping[str, Any] | None = None,
    finished: Mapping[str, Mapping[str, int]] | None = None,
    closed: Iterable[str] = (),
) -> PostalState:
    """The state before `turn`, built from the start state.

    squares: {board: {player: square}}, or {player: square} for board A.
    trapdoors: {board: square}, or a square for board A.
    hands: {player: numbers} (shared) or {player: {board: numbers}} (per-board); players
      not named hold `hand_for(turn)` in every hand.
    finished: {board: {player: placing}}: pieces that crossed earlier (they keep their square).
    closed: boards already closed."""
    start = RULES.start(setup, SeededChance(setup.seed)).state
    if squares and all(isinstance(v, int) for v in squares.values()):
        squares = {"A": squares}
    if isinstance(trapdoors, int):
        trapdoors = {"A": trapdoors}
    squares = squares or {}
    trapdoors = trapdoors or {}
    finished = finished or {}
    closed = set(closed)
    boards = {}
    for board_id, bs in start.boards.items():
        pieces = {}
        for player, piece in bs.pieces.items():
            placing = finished.get(board_id, {}).get(player)
            pieces[player] = dataclasses.replace(
                piece,
                square=squares.get(board_id, {}).get(player, 0),
                finished=placing is not None,
                placing=placing,
            )
        boards[board_id] = dataclasses.replace(
            bs, pieces=pieces, trapdoor=trapdoors.get(board_id), closed=board_id in closed
        )
    new_hands = {}
    for player, hs in start.hands.items():
        given = (hands or {}).get(player)
        if given is None:
            new_hands[player] = {key: hand_for(turn) for key in hs}
        elif isinstance(given, Mapping):
            new_hands[player] = {key: tuple(given.get(key, hand_for(turn))) for key in hs}
        else:
            new_hands[player] = {key: tuple(given) for key in hs}
    return PostalState(turn=turn, over=False, boards=boards, hands=new_hands)


def order(
    number: int | None = None, *, numbers: Mapping[str, int] | None = None, **trapdoors: int
) -> PostalOrder:
    """An order: `number` for the shared hand, or `numbers` by board under per-board
    numbers; keyword arguments nominate a trapdoor square per board (A=17)."""
    hand_numbers = dict(numbers or {})
    if number is not None:
        hand_numbers[SHARED] = number
    return PostalOrder(numbers=hand_numbers, trapdoors=dict(trapdoors))


def nominate(**trapdoors: int) -> PostalOrder:
    return PostalOrder(numbers={}, trapdoors=dict(trapdoors))


def start_state(setup: Setup) -> PostalState:
    """The state before turn 1 (postal draws nothing to start)."""
    return RULES.start(setup, SeededChance(setup.seed)).state


def play(setup: Setup, before: PostalState, orders: Mapping[str, PostalOrder]) -> TurnResult:
    return RULES.resolve(setup, before, orders, SeededChance(setup.seed))


def square(result: TurnResult | PostalState, player: str, board_id: str = "A") -> int:
    st = result.state if isinstance(result, TurnResult) else result
    return st.boards[board_id].pieces[player].square


def piece(result: TurnResult | PostalState, player: str, board_id: str = "A") -> Any:
    st = result.state if isinstance(result, TurnResult) else result
    return st.boards[board_id].pieces[player]


def placing(result: TurnResult | PostalState, player: str, board_id: str = "A") -> int | None:
    return piece(result, player, board_id).placing


def placings(result: TurnResult | PostalState, board_id: str = "A") -> dict[str, int | None]:
    st = result.state if isinstance(result, TurnResult) else result
    return {p: pc.placing for p, pc in st.boards[board_id].pieces.items()}


def held(result: TurnResult | PostalState, player: str, hand: str = SHARED) -> tuple[int, ...]:
    st = result.state if isinstance(result, TurnResult) else result
    return tuple(st.hands[player][hand])


def events(result: TurnResult, kind: type) -> list[Any]:
    return [e for e in result.events if isinstance(e, kind)]


def moved(result: TurnResult, player: str, board_id: str = "A") -> list[Moved]:
    return [e for e in events(result, Moved) if e.player == player and e.board == board_id]


def played(result: TurnResult, player: str) -> list[NumberPlayed]:
    return [e for e in events(result, NumberPlayed) if e.player == player]


def closings(result: TurnResult) -> list[BoardClosed]:
    return events(result, BoardClosed)


def placed(result: TurnResult) -> list[Placed]:
    return events(result, Placed)


def elections(result: TurnResult) -> list[TrapdoorElection]:
    return events(result, TrapdoorElection)


def trapdoor(result: TurnResult | PostalState, board_id: str = "A") -> int | None:
    st = result.state if isinstance(result, TurnResult) else result
    return st.boards[board_id].trapdoor


def by_hand_index(seed: int, turn: int, kind: str, key: str, n: int) -> int:
    """docs/audit.md's formula written out again, independently of gm.chance."""
    text = f"{seed}:{turn}:{kind}:{key}"
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % n


def find_seed(want: Any, candidates: list, turn: int, kind: str, key: str) -> int:
    """A seed for which docs/audit.md picks `want` out of `candidates` (so a test can show
    the pick is not simply the first or the lowest)."""
    for seed in range(1, 10_000):
        if candidates[by_hand_index(seed, turn, kind, key, len(candidates))] == want:
            return seed
    raise AssertionError("no seed found")  # pragma: no cover


def said(result: Any, ruleset: str = "postal") -> tuple[tuple[int, str, str], ...]:
    """The problems of a parsed order mail (gm.mail.orderlang) as (line, line text, the
    words a player reads without the "line N:" in front), worded by `ruleset`'s templates."""
    from dataclasses import replace

    from gm.mail.words import problem_text

    return tuple((p.line, p.text, problem_text(ruleset, replace(p.why, line=None))) for p in result.problems)


def worded(problems: Any, ruleset: str = "postal") -> list[str]:
    """Problems (gm.rules.problem, or orderlang's with their `why`) as a player reads them."""
    from gm.mail.words import problem_text

    return [problem_text(ruleset, getattr(p, "why", p)) for p in problems]
