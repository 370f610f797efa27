"""A postal turn resolved (docs/rules/postal.md): the orders checked, the numbers each moving hand
plays (sent, forced or chosen for a player who sent none), the moves and crossings of each half of
the turn, boards closing, the next trapdoors elected, and the end at the GM's word."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ...errors import RulesError
from ..chance import Chance
from ..ranking import competition_places
from ..roles.core import Outcome, Setup, last_resolved
from .events import CampaignOver, Moved, NumberPlayed, Placed, TrapdoorElection
from .moving import BoardInPlay, close_at_max_turns
from .options import FULL_HAND, SHARED, PostalOptions
from .orders import order_problems
from .state import PostalOrder, PostalState

__all__ = ["end", "resolve"]


def resolve(setup: Setup, state: PostalState, orders: Mapping[str, PostalOrder], chance: Chance) -> Outcome:
    """The turn (both halves of a double turn, docs/rules/postal.md, Double turns), the next turn's
    trapdoors elected unless it ended the campaign."""
    if state.over:
        raise RulesError("the campaign is over; there is no turn to resolve")
    _check_orders(setup, state, orders)
    options: PostalOptions = setup.options
    turn = state.turn
    halves = [turn, turn + 1] if options.is_double(turn) else [turn]
    boards = {b: BoardInPlay(b, setup.boards[b], state.boards[b]) for b in setup.boards}
    hands = {p: {h: list(held) for h, held in hs.items()} for p, hs in state.hands.items()}
    events: list[Any] = []
    last_played = turn
    for half, half_turn in enumerate(halves):
        open_boards = [b for b in boards.values() if not b.closed]
        if not open_boards:
            break
        last_played = half_turn
        numbers = _numbers(setup, chance, orders, hands, open_boards, (turn, half, half_turn), events)
        _play_half(setup, open_boards, numbers, hands, half_turn, events)
        if half_turn >= options.max_turns:
            close_at_max_turns(boards.values(), half_turn, events)
            break
    over = all(board.closed for board in boards.values())
    elected: dict[str, int | None] = {}
    if over:
        # the last half actually played: a double turn may end after its first half
        events.append(CampaignOver(last_played))
    else:
        elected = {board.id: _elect(setup, chance, board.id, turn, orders, events)
                   for board in boards.values() if not board.closed}
    new_state = PostalState(
        turn=turn + len(halves),
        over=over,
        boards={b: board.frozen(elected.get(b)) for b, board in boards.items()},
        hands={p: {h: tuple(sorted(held)) for h, held in hs.items()} for p, hs in hands.items()},
    )
    return Outcome(new_state, tuple(events), tuple(chance.draws))


def end(setup: Setup, state: PostalState) -> Outcome:
    """The end at the GM's word (`gm end`): every open board closes after the last resolved
    turn as `max_turns` would close it there, pieces placed by square reached."""
    last = last_resolved(state)
    boards = {b: BoardInPlay(b, setup.boards[b], state.boards[b]) for b in setup.boards}
    events: list[Any] = []
    close_at_max_turns(boards.values(), last, events)
    events.append(CampaignOver(last))
    # as resolve leaves a campaign over: closed boards elect no trapdoor
    return Outcome(PostalState(state.turn, True, {b: board.frozen(None) for b, board in boards.items()},
                               state.hands), tuple(events))


def _check_orders(setup: Setup, state: PostalState, orders: Mapping[str, PostalOrder]) -> None:
    """Refuses an order from a non-player or one that cannot be played, with its problems."""
    options: PostalOptions = setup.options
    squares = {b: board.squares for b, board in setup.boards.items()}
    open_hands = {b: options.hand(b) for b, bs in state.boards.items() if not bs.closed}
    for player, order in orders.items():
        if player not in state.hands:
            raise RulesError(f"an order from {player}, who is not a player")
        if _plainly_playable(state, player, order, squares, open_hands):
            continue
        problems = order_problems(setup, state, player, order)
        if problems:
            raise RulesError(f"the order of {player} cannot be played: "
                             + "; ".join(f"{p.code} {dict(p.facts)}" for p in problems))


def _plainly_playable(state: PostalState, player: str, order: PostalOrder, squares: Mapping[str, int],
                      open_hands: Mapping[str, str]) -> bool:
    """A fast check that `order` has none of order_problems' problems (resolve calls
    order_problems, which words them, only when this says no)."""
    for board_id, square in order.trapdoors.items():
        n = squares.get(board_id)
        if n is None or not 1 <= square <= n:
            return False
    if order.numbers:
        held = state.hands[player]
        moving = {hand for b, hand in open_hands.items() if not state.boards[b].pieces[player].finished}
        for hand, number in order.numbers.items():
            if hand not in moving or number not in held.get(hand, ()):
                return False
    return True


def _play_half(setup: Setup, open_boards: list[BoardInPlay], numbers: Mapping[tuple[str, str], int],
               hands: dict[str, dict[str, list[int]]], half_turn: int, events: list[Any]) -> None:
    """One half of a turn: every moving piece moves by its hand's number, crossers placed
    by overshoot, the numbers played leave their hands, and boards with enough crossers close."""
    options: PostalOptions = setup.options
    for board in open_boards:
        _move_pieces(setup, board, numbers, options.hand(board.id), half_turn, events)
    for (player, hand), number in numbers.items():
        held = hands[player][hand]
        held.remove(number)
        if not held:
            held.extend(FULL_HAND)
    n_players = len(setup.players)
    needed = max(n_players - 1, 1) if options.close_after == "all" else min(options.close_after, n_players)
    for board in open_boards:
        if board.crossed() >= needed:
            board.close(half_turn, "close_after", events)


def _move_pieces(setup: Setup, board: BoardInPlay, numbers: Mapping[tuple[str, str], int], hand: str,
                 half_turn: int, events: list[Any]) -> None:
    """Each piece not finished moves by its number; past the last square it crosses, the
    larger overshoot placed first, an equal overshoot an equal place."""
    prior = board.crossed()
    crossers: dict[str, int] = {}
    for player in setup.players:
        if board.finished[player]:
            continue
        number = numbers[player, hand]
        start = board.square[player]
        target = start + number
        if target > board.board.squares:
            overshoot = target - board.board.squares
            crossers[player] = overshoot
            board.finished[player] = True
            events.append(Moved(half_turn, board.id, player, start, number, (), start, True, overshoot))
            continue
        end, steps = board.route(target)
        board.square[player] = end
        events.append(Moved(half_turn, board.id, player, start, number, steps, end, False, None))
    for player, place in competition_places({p: -o for p, o in crossers.items()}).items():
        board.placing[player] = prior + place
        events.append(Placed(half_turn, board.id, player, prior + place, True))


def _numbers(setup: Setup, chance: Chance, orders: Mapping[str, PostalOrder], hands: dict[str, dict[str, list[int]]],
             open_boards: list[BoardInPlay], when: tuple[int, int, int], events: list[Any]) -> dict[tuple[str, str], int]:
    """The number each moving hand plays this half (`when`: the turn, the half, the half's
    turn). A hand that does not move uses nothing; the second half of a double turn plays
    the last number."""
    turn, half, half_turn = when
    options: PostalOptions = setup.options
    numbers: dict[tuple[str, str], int] = {}
    hand_of = [(b.finished, options.hand(b.id)) for b in open_boards]
    for player in setup.players:
        hand_keys = {hand for finished, hand in hand_of if not finished[player]}
        for hand in sorted(hand_keys):
            held = sorted(hands[player][hand])
            sent = orders.get(player, PostalOrder()).numbers.get(hand)
            if half == 0 and sent is not None:
                number, source = sent, "order"
            elif len(held) == 1:
                number, source = held[0], "forced"
            elif half == 1:
                raise RulesError(f"{player} holds {held} in the second half of a double turn")
            else:
                number, source = _nmr(setup, chance, turn, player, hand, held), "nmr"
            numbers[player, hand] = number
            events.append(NumberPlayed(half_turn, player, hand, number, source))  # type: ignore[arg-type]
    return numbers


def _nmr(setup: Setup, chance: Chance, turn: int, player: str, hand: str, held: list[int]) -> int:
    """The number played for a player who sent none (docs/rules/postal.md, Orders, the deadline and
    missed turns)."""
    policy = setup.options.nmr
    if policy == "lowest":
        return held[0]
    if policy == "highest":
        return held[-1]
    key = player if hand == SHARED else f"{player}/{hand}"
    return chance.pick(turn, "nmr", key, held)


def _elect(setup: Setup, chance: Chance, board_id: str, turn: int, orders: Mapping[str, PostalOrder],
           events: list[Any]) -> int | None:
    """Next turn's trapdoor from this turn's nominations (docs/rules/postal.md, Trapdoors)."""
    votes = Counter(order.trapdoors[board_id] for order in orders.values() if board_id in order.trapdoors)
    tally = tuple(sorted(votes.items(), key=lambda sv: (-sv[1], sv[0])))
    tied: tuple[int, ...] = ()
    elected = None
    if tally and tally[0][1] >= setup.options.trapdoor_threshold:
        tied = tuple(sorted(square for square, count in tally if count == tally[0][1]))
        elected = tied[0] if len(tied) == 1 else chance.pick(turn, "trapdoor", board_id, tied)
    if tally:
        events.append(TrapdoorElection(turn, board_id, tally, tied if len(tied) > 1 else (), elected))
    return elected
