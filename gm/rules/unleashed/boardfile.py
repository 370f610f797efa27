"""Unleashed's board (docs/rules/unleashed.md, The board; Board files): the default rectangle's
size, what makes a board file unfit (a rectangle, serpentine, its cards and lampposts, each item's
reach, orientation and Ends), and the ids the file's items take."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...boards.model import Board
from .cards import expanded, less, read_code
from .items import Grid, ends_ok, fits_reach, oriented
from .options import UnleashedOptions

__all__ = ["SIZES", "board_items", "board_problems", "grid_of"]

# 6.1: players -> (rows, columns), with super_size and without
SIZES = {True: {2: (7, 10), 3: (6, 10), 4: (6, 10), 5: (5, 10), 6: (5, 10)},
         False: {2: (6, 8), 3: (5, 8), 4: (5, 8), 5: (4, 8), 6: (4, 8)}}


def grid_of(board: Board) -> Grid:
    return Grid(len(board.levels), board.levels[0])


def board_items(board: Board) -> dict[str, list[int]]:
    """The board file's items with their ids (6.15): per kind, short ones from 1, long
    ones from 4 (P1 short, P2 long), in list order; each as [lower, upper]."""
    grid = grid_of(board)
    items: dict[str, list[int]] = {}
    # the file's order, kept beside the sorted lists the canonical text holds
    listed = board.extra_value("listed") or {"snakes": board.snakes, "ladders": board.ladders}
    kinds = (("S", [(t, h) for h, t in listed["snakes"]]), ("L", [tuple(p) for p in listed["ladders"]]),
             ("P", [tuple(pair) for pair in board.extra_value("lampposts", [])]))
    for letter, pairs in kinds:
        short, long = 1, 4 if letter != "P" else 2
        for a, b in pairs:
            low, high = oriented(grid, a, b)
            if abs(grid.level(low) - grid.level(high)) == 2:
                items[f"{letter}{long}"] = [low, high]
                long += 1
            else:
                items[f"{letter}{short}"] = [low, high]
                short += 1
    return items



def board_problems(board: Board, options: UnleashedOptions) -> tuple[Board, list[str]]:
    """6.15: what makes a board file unfit for Unleashed, and the board with its cards and
    lampposts in canonical form."""
    problems = []
    levels = board.levels
    if len(set(levels)) != 1:
        problems.append(f"levels must all hold the same number of squares (a rectangle), not {list(levels)}")
    if any(board.offsets):
        problems.append("offsets must all be 0 (a rectangle)")
    if not board.serpentine:
        problems.append("serpentine: false is not played: the Unleashed board is serpentine")
    if not board.chains:
        problems.append("chains: false is not played: items of a kind chain in Unleashed")
    cards = board.extra_value("cards")
    codes = None
    if cards is not None:
        if not isinstance(cards, list):
            problems.append("cards must be a list of card codes, square 1 first")
        else:
            codes = [read_code(card) for card in cards]
            unknown = [str(card) for card, code in zip(cards, codes, strict=True) if code is None]
            if unknown:
                problems.append(f"cards: {', '.join(unknown[:5])} {'is' if len(unknown) == 1 else 'are'} no card code")
            if len(cards) != board.squares:
                problems.append(f"cards lists {len(cards)} codes for {board.squares} squares")
            if not unknown:
                deck = shortfall_counts(options, codes)
                if deck:
                    problems.append(f"cards holds more than the deck has of {', '.join(deck)}")
    raw_posts = board.extra_value("lampposts", [])
    posts = []
    if not isinstance(raw_posts, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in p)
            for p in raw_posts):
        problems.append("lampposts must be a list of [lower, upper] pairs of squares")
    else:
        posts = [list(p) for p in raw_posts]
    fixed = board.with_extra(cards=codes if cards is not None else None, lampposts=sorted(posts))
    if problems or len(set(levels)) != 1:
        return fixed, problems
    grid = grid_of(fixed)
    lists = (("snake", [(t, h) for h, t in board.snakes]), ("ladder", list(board.ladders)), ("lamppost", posts))
    for kind, pairs in lists:
        sizes = {"short": 0, "long": 0}
        for a, b in pairs:
            if not (grid.on_board(a) and grid.on_board(b)):
                problems.append(f"{kind} {a}-{b}: outside 1..{grid.squares}")
                continue
            low, high = oriented(grid, a, b)
            span = abs(grid.level(low) - grid.level(high))
            size = "long" if span == 2 else "short"
            probe = ("S4" if size == "long" else "S1")
            if not fits_reach(grid, probe, low, high):
                problems.append(f"{kind} {a}-{b}: breaks its reach (short: the next level and at most one column "
                                "aside; long: two levels up and at most two columns aside)")
                continue
            if kind == "snake" and (low, high) != (min(a, b), max(a, b)):
                problems.append(f"{kind} {a}-{b}: its head must be its upper end")
            if kind == "lamppost" and [low, high] != [a, b]:
                problems.append(f"lamppost {a}-{b}: list it [lower, upper]")
            sizes[size] += 1
        most = 1 if kind == "lamppost" else 3
        for size, count in sizes.items():
            if count > most:
                problems.append(f"{count} {size} {kind}s: the box holds {most}")
    if not problems:
        items = board_items(fixed)
        if not ends_ok(items):
            problems.append("two items share an end square against the Ends rule (docs/rules/unleashed.md, Items)")
    return fixed, problems


def shortfall_counts(options: UnleashedOptions, codes: Sequence[str]) -> list[str]:
    """The codes of which `codes` holds more than the deck (after simple and blank_removal)."""
    left = Counter(less(expanded(options.deck), options.removed))
    return [code for code, count in Counter(codes).items() if count > left[code]]
