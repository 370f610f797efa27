"""A pure-Python float reference for `gm board analyze` (issue 27): the figures of its JSON
for one board (every ruleset that analyses boards, and one die under three finishes),
written from the rules alone (docs/rules: postal, classic, doubles and their boards), in
plain lists and floats, by the textbook method:

* each game's chain is tabled per square (the moves of one period out of it, with their
  chances) and the probability mass is carried forward period by period;
* the law P(T = t) is read from it (median, p90), and the expectation is its mean,
  carried on until less than 1e-13 of the mass is still in play (the tail beyond is
  below any figure shown);
* a doubles turn reaches most of the board from one square, so it is not tabled: its
  law is carried throw by throw within each turn (26 throws, as gm does) and its mean
  over throws, counting the throws that end a turn;
* postal: a cycle's moves from each square by playing each of the 720 orders; the
  fewest turns by a search over (square, numbers held).

It imports nothing of gm's analysis, so `benchmarks/analysis.py` also checks that the two
agree on every figure. It assumes a board where every square reached can still finish
(the benchmark's boards are).
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

EXACT = 1e-13  # mass left in play when the mean is taken
RUN = 1e-20  # a run of sixes is followed until its chance is below this
DEPTH = 26  # throws followed in a doubles turn (6^-26 < 1e-20)
SIX = range(1, 7)


def landing(squares: int, snakes: list[tuple[int, int]], ladders: list[tuple[int, int]]) -> list[int]:
    """Where a piece that comes to each square ends; effects at most once per move."""
    jumps = dict(snakes) | dict(ladders)
    ends = []
    for square in range(squares + 1):
        used = set()
        while square in jumps and square not in used:
            used.add(square)
            square = jumps[square]
        ends.append(square)
    return ends


def bounce(total: int, n: int) -> int:
    """Back from N past N (and off Start on a board shorter than a throw): classic, doubles."""
    t = total % (2 * n)
    return 2 * n - t if t > n else t


def carry(moves: list[list[tuple[int, float]]], wins: list[list[float]], exact: float = EXACT) -> list[float]:
    """P(T = t), t = 0, 1, ..., for a chain whose period has len(wins[p]) steps: moves[p]
    are a period's moves from p that go on, wins[p][j] the chance it finishes at step j."""
    size = len(moves)
    period = len(wins[0])
    mass = [0.0] * size
    mass[0] = 1.0
    law = [0.0]
    while sum(mass) >= exact:
        after = [0.0] * size
        finished = [0.0] * period
        for p, w in enumerate(mass):
            if w:
                for j, chance in enumerate(wins[p]):
                    finished[j] += w * chance
                for q, chance in moves[p]:
                    after[q] += w * chance
        law += finished
        mass = after
    return law


def summary(law: list[float], unit: str) -> dict[str, Any]:
    def percentile(x: float) -> int:
        total = 0.0
        for t, p in enumerate(law):
            total += p
            if total >= x / 100 - 1e-12:
                return t
        raise AssertionError("the law never reaches the percentile")

    expected = sum(t * p for t, p in enumerate(law))
    return {f"expected_{unit}": round(expected, 4), f"median_{unit}": percentile(50), f"p90_{unit}": percentile(90)}


def merged(pairs: list[tuple[int, float]]) -> list[tuple[int, float]]:
    out: dict[int, float] = {}
    for q, chance in pairs:
        out[q] = out.get(q, 0.0) + chance
    return list(out.items())


def die_moves(n: int, land: list[int], finish: str, totals: dict[int, float]):
    """One throw of `totals` from every square: (where it goes on to, chance) and the
    chance it finishes."""
    moves, wins = [], []
    for p in range(n + 1):
        go, won = [], 0.0
        for k, chance in totals.items():
            t = p + k
            if t > n and finish == "crossing":
                won += chance
                continue
            if t > n:
                t = p if finish == "exact" else bounce(t, n)
            end = land[t]
            if end == n and finish != "crossing":
                won += chance
            else:
                go.append((end, chance))
        moves.append(merged(go))
        wins.append(won)
    return moves, wins


def one_die(n: int, land: list[int], finish: str) -> dict[str, Any]:
    moves, wins = die_moves(n, land, finish, {k: 1 / 6 for k in SIX})
    return summary(carry(moves, [[w] for w in wins]), "rolls")


def classic(n: int, land: list[int]) -> dict[str, Any]:
    """A turn from each square, tabled: each run of sixes (a path, as a six leads one
    way), then a roll of 1-5."""
    six, six_won = die_moves(n, land, "bounce", {6: 1 / 6})
    roll, roll_won = die_moves(n, land, "bounce", {k: 1 / 6 for k in range(1, 6)})
    moves, wins = [], []
    for p in range(n + 1):
        go, won, square, chance = [], 0.0, p, 1.0
        while chance > RUN:
            won += chance * roll_won[square]
            go += [(q, chance * c) for q, c in roll[square]]
            won += chance * six_won[square]
            if not six[square]:
                break
            square, chance = six[square][0][0], chance * six[square][0][1]
        moves.append(merged(go))
        wins.append([won])
    return summary(carry(moves, wins), "turns")


def doubles(n: int, land: list[int]) -> dict[str, Any]:
    """Two dice; a double that has not finished throws again; the third double six in a
    row is not moved and ends the turn. A state is a square and the double sixes in a row
    (0-2); the law is carried turn by turn, each turn throw by throw."""
    throws: list[list[list[tuple[int, int, float]]]] = []  # [layer][square] -> (layer, square, chance) going on
    ends: list[list[list[tuple[int, float]]]] = []  # [layer][square] -> (square, chance) ending the turn
    won: list[list[float]] = []
    for layer in range(3):
        throws.append([])
        ends.append([])
        won.append([])
        for p in range(n + 1):
            go, stop, win = [], [], 0.0
            for a in SIX:
                for b in SIX:
                    if a == b == 6 and layer == 2:
                        stop.append((p, 1 / 36))
                        continue
                    end = land[bounce(p + a + b, n)]
                    if end == n:
                        win += 1 / 36
                    elif a == b:
                        go.append((layer + 1 if a == 6 else 0, end, 1 / 36))
                    else:
                        stop.append((end, 1 / 36))
            throws[layer].append(go)
            ends[layer].append(merged(stop))
            won[layer].append(win)
    size = n + 1
    mass = [0.0] * size
    mass[0] = 1.0
    law = [0.0]
    while sum(mass) >= 1e-3:  # the law, as far as gm carries it
        throwing = [mass, [0.0] * size, [0.0] * size]
        after, finished = [0.0] * size, 0.0
        for _ in range(DEPTH):
            going = [[0.0] * size for _ in range(3)]
            for layer in range(3):
                for p, w in enumerate(throwing[layer]):
                    if w:
                        finished += w * won[layer][p]
                        for q, c in ends[layer][p]:
                            after[q] += w * c
                        for to, q, c in throws[layer][p]:
                            going[to][q] += w * c
            throwing = going
        law.append(finished)
        mass = after
    # the mean over throws until less than EXACT is in play: each throw that ends a turn
    # (or finishes) counts one
    counts = [[won[layer][p] + sum(c for _, c in ends[layer][p]) for p in range(size)] for layer in range(3)]
    throwing = [[0.0] * size for _ in range(3)]
    throwing[0][0] = 1.0
    expected = 0.0
    while sum(map(sum, throwing)) >= EXACT:
        going = [[0.0] * size for _ in range(3)]
        for layer in range(3):
            for p, w in enumerate(throwing[layer]):
                if w:
                    expected += w * counts[layer][p]
                    for q, c in ends[layer][p]:
                        going[0][q] += w * c
                    for to, q, c in throws[layer][p]:
                        going[to][q] += w * c
        throwing = going
    figures = summary(law, "turns")
    figures["expected_turns"] = round(expected, 4)
    return figures


def postal(n: int, land: list[int]) -> dict[str, Any]:
    """Postal for a player picking uniformly among the numbers held: at a cycle
    start the state is the square alone; a cycle's moves are the average over the 720
    orders. Crossing finishes (p + k > N); no trapdoor."""
    orders = list(permutations(SIX))
    moves, wins, landings = [], [], []
    for p in range(n + 1):
        go: dict[int, float] = {}
        finish = [0.0] * 6
        landed: dict[int, float] = {}
        for order in orders:
            square = p
            for turn, k in enumerate(order):
                if square + k > n:
                    finish[turn] += 1 / 720
                    break
                landed[square + k] = landed.get(square + k, 0.0) + 1 / 720
                square = land[square + k]
            else:
                go[square] = go.get(square, 0.0) + 1 / 720
        moves.append(list(go.items()))
        wins.append(finish)
        landings.append(landed)
    law = carry(moves, wins)
    # the expected cycle starts on each square, for the landings
    visits, mass = [0.0] * (n + 1), [0.0] * (n + 1)
    mass[0] = 1.0
    while sum(mass) >= EXACT:
        after = [0.0] * (n + 1)
        for p, w in enumerate(mass):
            if w:
                visits[p] += w
                for q, c in moves[p]:
                    after[q] += w * c
        mass = after
    landed_on = [0.0] * (n + 1)
    for p, v in enumerate(visits):
        for s, c in landings[p].items():
            landed_on[s] += v * c
    ended = [0.0] * (n + 1)
    for s, v in enumerate(landed_on):
        ended[land[s]] += v

    def top(counts: list[float]) -> list[list[float]]:
        order = sorted(range(1, n + 1), key=lambda s: (-round(counts[s], 9), s))
        return [[s, round(counts[s], 4)] for s in order[:10] if counts[s] > 0]

    return {"fewest_turns": fewest(n, land), **summary(law, "turns"),
            "most_landed": top(landed_on), "most_ended": top(ended)}


def fewest(n: int, land: list[int]) -> int:
    """Breadth first over (square, numbers held), one turn at a time."""
    full = frozenset(SIX)
    frontier, seen = {(0, full)}, {(0, full)}
    turn = 0
    while frontier:
        turn += 1
        after = set()
        for square, held in frontier:
            for k in held:
                if square + k > n:
                    return turn
                state = (land[square + k], held - {k} or full)
                if state not in seen:
                    seen.add(state)
                    after.add(state)
        frontier = after
    raise AssertionError("no sequence of numbers crosses the board")


def analyze(squares: int, snakes: list[tuple[int, int]], ladders: list[tuple[int, int]]) -> dict[str, Any]:
    """The figures of `gm board analyze --json` (postal without its `fewest_sequence`,
    which is one sequence of many)."""
    land = landing(squares, snakes, ladders)
    return {
        "squares": squares,
        "classic": classic(squares, land),
        "doubles": doubles(squares, land),
        "postal": postal(squares, land),
        "one_die": {finish: one_die(squares, land, finish) for finish in ("exact", "bounce", "crossing")},
    }
