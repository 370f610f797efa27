"""An Unleashed campaign checked before it starts (docs/rules/unleashed.md, The board, Setup): its
players, its board (the default rectangle when campaign.yaml names none) and whether the deck deals
it, and how the items come onto the board (`setup_mode`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...boards.board import Board
from .boardfile import SIZES, board_items, board_problems
from .deal import shortfall
from .options import MAX_DECK, UnleashedOptions

__all__ = ["campaign_boards", "player_problems", "setup_mode"]

RESERVED_IDS = ("me", "leader", "last", "next", "none")  # words of the order language


def setup_mode(options: UnleashedOptions, board: Board) -> str:
    """6.4: the option, else `board` when the board file lists items, else `players`."""
    if options.setup is not None:
        return options.setup
    listed = board.snakes or board.ladders or board.extra_value("lampposts")
    return "board" if listed else "players"


def player_problems(players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    problems = []
    if not 2 <= len(players) <= 6:
        problems.append(f"Unleashed is played by 2 to 6 players, not {len(players)}")
    for player, _ in players:
        if player.casefold() in RESERVED_IDS:
            problems.append(f"player id {player!r} is a word of the order language "
                            f"({', '.join(w.upper() for w in RESERVED_IDS)}): choose another id")
    return problems


def campaign_boards(boards: Mapping[str, Board], players: int,
                    options: UnleashedOptions) -> tuple[dict[str, Board], list[str]]:
    """6.1, 6.15: the default rectangle when campaign.yaml names no board; a board file
    must be a serpentine rectangle whose cards and items keep the rules."""
    if not boards:
        rows, columns = SIZES[options.super_size].get(players, SIZES[options.super_size][6 if players > 6 else 2])
        default = Board.build(rows * columns, levels=[columns] * rows, chains=True)
        boards = {"A": default.with_extra(cards=None, lampposts=[])}
    made, problems = {}, []
    for board_id, board in boards.items():
        fixed, found = board_problems(board, options)
        made[board_id] = fixed
        problems += [f"board {board_id}: {p}" for p in found]
        if found:
            continue
        problems += [f"board {board_id}: {p}" for p in _deal_problems(fixed, players, options)]
        if setup_mode(options, fixed) == "board" and (options.pieces is not None or options.mix is not None):
            problems.append(f"board {board_id}: setup: board plays the board file's items, so options "
                            "pieces and mix cannot be given too")
        if board_items(fixed) and options.setup not in (None, "board"):
            problems.append(f"board {board_id} lists items, which means setup: board, "
                            f"not setup: {options.setup}")
    return made, problems


def _deal_problems(board: Board, players: int, options: UnleashedOptions) -> list[str]:
    dealt = board.squares + players * options.hand_size
    if dealt > MAX_DECK:  # no deck could deal it: say so, not that this one is short
        return [f"{board.squares} squares and {options.hand_size} cards for each of {players} players need "
                f"{dealt} cards, but a deck holds at most {MAX_DECK:,}: the board is too large for Unleashed"]
    lacking = shortfall(options, board.squares, players, board.extra_value("cards"))
    if not lacking:
        return []
    return [f"the deck is {lacking} card{'s' if lacking != 1 else ''} short of the deal "
            f"({board.squares} squares and {options.hand_size} cards for each of {players} players)"]
