"""Benchmark: resolve one postal turn (RULES.md 2) for a large campaign.

10,000 players on three 1,000-square boards with random snakes and ladders, mid-game
(turn 3: pieces spread over the boards, a trapdoor in force on each board), everyone
ordering a number they hold and nominating a trapdoor square per board (a few popular
squares, so elections and ties happen); 5% send no number (NMR).

    python benchmarks/resolve.py [--players 10000] [--squares 1000] [--boards 3] [--runs 7]

Prints the median wall time of `Postal.resolve` over the runs (and min/max).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from gm.boards.model import Board
from gm.rules.base import Setup
from gm.rules.postal import Postal
from gm.rules.postal.options import SHARED, PostalOptions
from gm.rules.postal.state import PostalOrder, PostalState


def random_board(rng: random.Random, squares: int, items: int) -> Board:
    used: set[int] = set()
    snakes, ladders = [], []
    while len(snakes) + len(ladders) < items:
        a, b = rng.randint(2, squares - 1), rng.randint(2, squares - 1)
        if a == b or a in used or b in used:
            continue
        used |= {a, b}
        (snakes if a > b else ladders).append([a, b])
    # an irregular shape: levels of 7 to 13 squares with offsets, serpentine
    levels, left = [], squares
    while left:
        length = min(left, rng.randint(7, 13))
        levels.append(length)
        left -= length
    offsets = [rng.randint(-3, 3) for _ in levels]
    return Board.build(squares, levels=levels, offsets=offsets, snakes=snakes, ladders=ladders)


def scenario(players: int, squares: int, n_boards: int, seed: int = 1):
    rng = random.Random(seed)
    boards = {f"B{i}": random_board(rng, squares, squares // 12) for i in range(n_boards)}
    ids = tuple(f"player{i:05d}" for i in range(players))
    setup = Setup(boards=boards, players=ids, options=PostalOptions(), seed=20270321)
    rules = Postal()
    start = rules.start(setup)
    turn = 3
    hand = (3, 4, 5, 6)
    board_states = {}
    for board_id, bs in start.boards.items():
        pieces = {p: type(pc)(square=rng.randint(0, squares - 40)) for p, pc in bs.pieces.items()}
        board_states[board_id] = type(bs)(
            closed=False, trapdoor=rng.randint(1, squares), pieces=pieces
        )
    state = PostalState(
        turn=turn, over=False, boards=board_states, hands={p: {SHARED: hand} for p in ids}
    )
    popular = {b: [rng.randint(1, squares) for _ in range(6)] for b in boards}
    orders = {}
    for p in ids:
        numbers = {} if rng.random() < 0.05 else {SHARED: rng.choice(hand)}
        trapdoors = {b: rng.choice(popular[b]) for b in boards if rng.random() < 0.7}
        orders[p] = PostalOrder(numbers=numbers, trapdoors=trapdoors)
    return rules, setup, state, orders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--squares", type=int, default=1_000)
    parser.add_argument("--boards", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rules, setup, state, orders = scenario(args.players, args.squares, args.boards)
    times = []
    result = None
    for _ in range(args.runs):
        began = time.perf_counter()
        result = rules.resolve(setup, state, orders)
        times.append(time.perf_counter() - began)
    assert result is not None
    print(
        f"resolve: {args.players} players, {args.boards} boards of {args.squares} squares, "
        f"{len(result.events)} events"
    )
    print(
        f"median {statistics.median(times) * 1000:.1f} ms over {args.runs} runs "
        f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})"
    )


if __name__ == "__main__":
    main()
