"""The postal game's order commands (docs/rules/postal.md, Order mail; Orders, the deadline and
missed turns): `NUMBER <1-6>` (under per-board numbers `NUMBER <board> <1-6>`) and `TRAPDOOR <board>
<square or NONE>`, their grammar and how an accepted message changes the standing order."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..grammar import Command, CommandProblem, CommandSpec, Grammar, whole_number
from ..problem import Problem, problem
from .options import SHARED, PostalOptions
from .state import PostalOrder

if TYPE_CHECKING:
    from ..base import Setup

__all__ = ["FORMS", "BoardName", "merge", "number_problem", "order_problems", "postal_grammar", "trapdoor_problem"]

FORMS = {
    "NUMBER": "NUMBER <1-6>",
    "NUMBER-per-board": "NUMBER <board> <1-6>",
    "TRAPDOOR": "TRAPDOOR <board> <square or NONE>",
}


@dataclass(frozen=True, eq=False)
class BoardName:
    """A board as the player wrote it: `a` and `A` are the same board (docs/rules/postal.md, Order
    mail), and the first spelling is the one kept."""

    written: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoardName) and self.written.casefold() == other.written.casefold()

    def __hash__(self) -> int:
        return hash(self.written.casefold())

    def __str__(self) -> str:
        return f"board {self.written}"


def _board(token: str) -> BoardName:
    # `TRAPDOOR A: 37` reads naturally; the colon is not part of the board id.
    return BoardName(token.rstrip(":") or token)


def _read_number(args: tuple[str, ...], rest: str, per_board: bool) -> tuple[BoardName | None, int]:
    form = FORMS["NUMBER-per-board" if per_board else "NUMBER"]
    if not args:
        raise CommandProblem("number_missing", form=form)
    if len(args) > (2 if per_board else 1):
        raise CommandProblem("too_many_values", keyword="NUMBER", form=form, rest=rest)
    # Under per-board numbers a lone number leaves the board out, like TRAPDOOR 37;
    # merge accepts that only on a one-board campaign.
    board = _board(args[0]) if len(args) == 2 else None
    number = whole_number(args[-1], 1, 6)
    if number is None:
        raise CommandProblem("number_not_1_to_6", value=args[-1])
    return board, number


def _read_trapdoor(args: tuple[str, ...], rest: str, per_board: bool) -> tuple[BoardName | None, int | None]:
    form = FORMS["TRAPDOOR"]
    if not args:
        raise CommandProblem("trapdoor_missing", form=form)
    if len(args) > 2:
        raise CommandProblem("too_many_values", keyword="TRAPDOOR", form=form, rest=rest)
    board = _board(args[0]) if len(args) == 2 else None
    value = args[-1]
    if value.upper() == "NONE":
        # withdraws the nomination (docs/rules/postal.md, Orders, the deadline and missed turns)
        return board, None
    square = whole_number(value, 1)
    if square is None:
        raise CommandProblem("trapdoor_not_square", value=value, form=None if len(args) == 2 else form)
    return board, square


def postal_grammar(options: PostalOptions | None = None) -> Grammar:
    """The postal commands; `options` None reads as the defaults (shared numbers)."""
    per_board = bool(options is not None and options.per_board)
    return Grammar(
        commands=(
            CommandSpec("NUMBER", FORMS["NUMBER-per-board" if per_board else "NUMBER"], _read_number),
            CommandSpec("TRAPDOOR", FORMS["TRAPDOOR"], _read_trapdoor),
        ),
        context=per_board,
    )


def merge(
    setup: Setup, state: Any, player: str, standing: PostalOrder, commands: Iterable[Command]
) -> tuple[PostalOrder, list[Problem]]:
    """The standing order with what one accepted message names replaced (docs/rules/postal.md,
    Orders, the deadline and missed turns): a NUMBER replaces the number for its hand, a TRAPDOOR
    the nomination for its board, `TRAPDOOR <board> NONE` withdraws it; what the message does not
    name stands. Returns the new order and why the commands do not fit this campaign's boards (empty
    when they do), each on its line: a board that does not exist, and what `Postal.order_problems`
    would say of the number or nomination the line sets (a number not held, a square off the board),
    so that the reply tells every problem by its line (docs/rules/postal.md, Order mail). A line
    with a problem changes nothing."""
    per_board = setup.options.per_board
    boards = list(setup.boards)
    only_board = boards[0] if len(boards) == 1 else None

    def board_id(written: str) -> str | None:
        wanted = written.casefold()
        return next((b for b in boards if b.casefold() == wanted), None)

    moving_hands = {setup.options.hand(b) for b in state.moving_boards(player)}
    problems: list[Problem] = []
    numbers, trapdoors = dict(standing.numbers), dict(standing.trapdoors)
    commands = list(commands)
    for command in commands:
        if command.keyword != "NUMBER":
            continue
        written = command.target.written if command.target is not None else None
        number = command.value
        if not per_board:
            if written is not None:
                problems.append(problem("numbers_shared", command.line, board=written, number=number))
                continue
            why = number_problem(state, player, SHARED, number, moving_hands)
            if why is not None:
                problems.append(why.on_line(command.line))
                continue
            numbers[SHARED] = number
            continue
        board = board_id(written) if written is not None else only_board
        if board is None:
            problems.append(problem("no_such_board_named", command.line, keyword="NUMBER", board=written, value=number)
                            if written is not None else
                            problem("name_the_board", command.line, keyword="NUMBER", value=number, example=boards[0]))
            continue
        why = number_problem(state, player, setup.options.hand(board), number, moving_hands)
        if why is not None:
            problems.append(why.on_line(command.line))
            continue
        numbers[board] = number
    for command in commands:
        if command.keyword != "TRAPDOOR":
            continue
        written = command.target.written if command.target is not None else None
        square = command.value
        board = board_id(written) if written is not None else only_board
        if board is None:
            value = square or "NONE"
            problems.append(problem("no_such_board_named", command.line, keyword="TRAPDOOR", board=written, value=value)
                            if written is not None else
                            problem("name_the_board", command.line, keyword="TRAPDOOR", value=value, example=boards[0]))
            continue
        if square is None:
            trapdoors.pop(board, None)
            continue
        why = trapdoor_problem(setup, board, square)
        if why is not None:
            problems.append(why.on_line(command.line))
            continue
        trapdoors[board] = square
    return PostalOrder(numbers, trapdoors), problems


def number_problem(state: Any, player: str, hand: str, number: int, moving_hands: set[str]) -> Problem | None:
    """Why `number` cannot be played for `hand` this turn (docs/rules/postal.md, Orders, the
    deadline and missed turns), or None."""
    held = state.hands[player].get(hand)
    board = None if hand == SHARED else hand
    if held is None:
        return problem("no_such_board", board=hand)
    if hand not in moving_hands:
        return problem("no_number_needed", board=board)
    if number not in held:
        return problem("number_not_held", number=number, board=board, held=list(held))
    return None


def trapdoor_problem(setup: Setup, board_id: str, square: int) -> Problem | None:
    """Why a nomination of `square` on `board_id` cannot stand (docs/rules/postal.md, Orders, the
    deadline and missed turns), or None."""
    board = setup.boards.get(board_id)
    if board is None:
        return problem("no_such_board", board=board_id)
    if not 1 <= square <= board.squares:
        return problem("square_off_board", board=board_id, squares=board.squares, square=square)
    return None


def order_problems(setup: Setup, state: Any, player: str, order: PostalOrder) -> list[Problem]:
    """Why an order cannot be played this turn (empty when it can). `merge` says the same
    of each line it reads, on that line."""
    moving_hands = {setup.options.hand(b) for b in state.moving_boards(player)}
    found = [number_problem(state, player, hand, number, moving_hands) for hand, number in order.numbers.items()]
    found += [trapdoor_problem(setup, board_id, square) for board_id, square in order.trapdoors.items()]
    return [p for p in found if p is not None]
