"""The postal game (RULES.md 2): secret numbers 1-6 once per cycle, trapdoor elections,
crossing by overshoot, placings per board and the aggregate over boards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...boards.model import START as START
from ...boards.model import Board
from ...errors import RulesError
from ...resources import shipped_file
from ..base import (
    ArchiveBoard,
    ArchivePicture,
    ArchivePiece,
    ArchiveStanding,
    ArchiveTurn,
    Outcome,
    Ruleset,
    Setup,
    last_resolved,
    renamed,
)
from ..chance import Chance
from ..events import event_reader as event_reader
from ..grammar import Command, Grammar
from ..moving import Step as Step  # events name it; tests import it from here
from ..moving import landing as landing
from ..problem import Problem
from ..ranking import competition_places
from .events import BoardClosed as BoardClosed
from .events import CampaignOver as CampaignOver
from .events import Moved as Moved
from .events import NumberPlayed as NumberPlayed
from .events import Placed as Placed
from .events import TrapdoorElection as TrapdoorElection
from .events import event_from_json as event_from_json
from .moving import BoardInPlay, close_at_max_turns
from .options import CYCLE as CYCLE
from .options import FULL_HAND as FULL_HAND
from .options import OPTION_KEYS as OPTION_KEYS
from .options import SHARED as SHARED
from .options import PostalOptions as PostalOptions
from .options import parse_postal_options as parse_postal_options
from .orders import merge, number_problem, postal_grammar, trapdoor_problem
from .state import BoardState as BoardState
from .state import Piece as Piece
from .state import PostalOrder as PostalOrder
from .state import PostalState as PostalState
from .state import hands_to_number
from .views import own_facts, public_turn, standings

TRAPDOOR_COLOUR = "#4a2a6b"  # how the archive frames an elected trapdoor


# -- the ruleset ------------------------------------------------------------------------


class Postal(Ruleset):
    name = "postal"
    # its files, named as a plugin names its own (gm.ruleset_files, docs/plugins.md)
    templates = shipped_file("templates")
    rules_page = shipped_file("docs", "rules", "postal.md")
    boards_folder = shipped_file("boards")
    option_keys = OPTION_KEYS
    starter_options = (
        "  numbers: shared            # or per-board\n"
        "  trapdoor_threshold: 3\n"
        "  announce_trapdoors: true\n"
        "  close_after: 3             # or all\n"
        "  max_turns: 200\n"
        "  nmr: random                # or lowest, highest\n"
        "  double_turns: false\n"
    )
    hidden_boards = True

    def parse_options(self, raw: Mapping[str, Any]) -> PostalOptions:
        return parse_postal_options(raw)

    def grammar(self, options: PostalOptions | None = None) -> Grammar:
        """The order commands (RULES.md 3): NUMBER and TRAPDOOR, NUMBER naming the board
        under per-board numbers; `options` None reads as the defaults."""

        return postal_grammar(options)

    def merge(
        self, setup: Setup, state: PostalState, player: str, standing: PostalOrder,
        commands: Iterable[Command],
    ) -> tuple[PostalOrder, list[Problem]]:
        """The standing order with what one accepted message names replaced (RULES.md
        2.4), and every problem of its commands, each on its line."""

        return merge(setup, state, player, standing, commands)

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """Everyone on Start of every board with a full set of numbers: nothing is drawn."""
        options: PostalOptions = setup.options
        hand_keys = list(setup.boards) if options.per_board else [SHARED]
        return Outcome(PostalState(
            turn=1,
            over=False,
            boards={
                board_id: BoardState(False, None, {p: Piece() for p in setup.players})
                for board_id in setup.boards
            },
            hands={p: {key: FULL_HAND for key in hand_keys} for p in setup.players},
        ), ())

    # -- orders ---------------------------------------------------------------------

    def order_problems(
        self, setup: Setup, state: PostalState, player: str, order: PostalOrder
    ) -> list[Problem]:
        """Why an order cannot be played this turn (empty when it can). `merge` says the
        same of each line it reads, on that line."""

        options: PostalOptions = setup.options
        moving_hands = {options.hand(b) for b in state.moving_boards(player)}
        found = [number_problem(state, player, hand, number, moving_hands) for hand, number in order.numbers.items()]
        found += [trapdoor_problem(setup, board_id, square) for board_id, square in order.trapdoors.items()]
        return [p for p in found if p is not None]

    @staticmethod
    def _plainly_playable(
        state: PostalState,
        player: str,
        order: PostalOrder,
        squares: Mapping[str, int],
        open_hands: Mapping[str, str],
    ) -> bool:
        """A fast check that `order` has none of order_problems' problems (resolve calls
        order_problems, which words them, only when this says no)."""
        for board_id, square in order.trapdoors.items():
            n = squares.get(board_id)
            if n is None or not 1 <= square <= n:
                return False
        if order.numbers:
            held = state.hands[player]
            moving = {
                hand for b, hand in open_hands.items() if not state.boards[b].pieces[player].finished
            }
            for hand, number in order.numbers.items():
                if hand not in moving or number not in held.get(hand, ()):
                    return False
        return True

    def empty_order(self) -> PostalOrder:
        return PostalOrder()

    def order_text(self, order: PostalOrder) -> str:
        numbers = ", ".join(f"{'' if h == SHARED else h + ' '}{n}" for h, n in sorted(order.numbers.items()))
        traps = ", ".join(f"{b} {sq}" for b, sq in sorted(order.trapdoors.items()))
        return f"number {numbers or '-'}; trapdoors {traps or '-'}"

    def order_to_json(self, order: PostalOrder) -> dict[str, Any]:
        return {"numbers": dict(order.numbers), "trapdoors": dict(order.trapdoors)}

    def order_from_json(self, data: Mapping[str, Any]) -> PostalOrder:
        numbers, trapdoors = data["numbers"], data["trapdoors"]
        # an audit record's order comes from the GM (docs/audit.md): refused here, whole,
        # rather than met halfway through a resolve
        for part in (numbers, trapdoors):
            if not isinstance(part, Mapping) or not all(
                    isinstance(value, int) and not isinstance(value, bool) for value in part.values()):
                raise ValueError("numbers and trapdoors map a hand or a board to a whole number")
        return PostalOrder(dict(numbers), dict(trapdoors))

    def order_view(self, setup: Setup, state: PostalState, player: str, order: PostalOrder) -> dict[str, Any]:
        """Each hand's number (chosen, needed, forced or idle) and the nominations."""
        options: PostalOptions = setup.options
        needs = self.needs_number(setup, state, player)
        moving = {options.hand(b) for b in state.moving_boards(player)}
        hands = []
        for hand, held in state.hands[player].items():
            chosen = order.numbers.get(hand)
            status = "chosen" if chosen else ("needed" if hand in needs else ("forced" if hand in moving else "idle"))
            hands.append({
                "board": None if hand == SHARED else hand,
                "number": chosen if chosen else (held[0] if status == "forced" else None),
                "status": status,
                "held": list(held),
            })
        return {
            "hands": hands,
            "nominations": sorted(order.trapdoors.items()),
            "complete": all(h in order.numbers for h in needs),
            "double": options.is_double(state.turn),
        }

    def in_play(self, setup: Setup, state: PostalState, player: str) -> bool:
        return bool(state.moving_boards(player))

    def must_order(self, setup: Setup, state: PostalState, player: str) -> bool:
        return bool(self.needs_number(setup, state, player))

    def order_complete(self, setup: Setup, state: PostalState, player: str, order: PostalOrder) -> bool:
        return all(hand in order.numbers for hand in self.needs_number(setup, state, player))

    def needs_number(self, setup: Setup, state: PostalState, player: str) -> list[str]:
        """The hands for which the player must still send a number this turn: those that
        move and are not forced (RULES.md 2.4)."""
        return hands_to_number(setup.options, state, player)

    # -- resolving ------------------------------------------------------------------

    def resolve(
        self, setup: Setup, state: PostalState, orders: Mapping[str, PostalOrder], chance: Chance
    ) -> Outcome:
        if state.over:
            raise RulesError("the campaign is over; there is no turn to resolve")
        options: PostalOptions = setup.options
        squares = {b: board.squares for b, board in setup.boards.items()}
        open_hands = {b: options.hand(b) for b, bs in state.boards.items() if not bs.closed}
        for player, order in orders.items():
            if player not in state.hands:
                raise RulesError(f"an order from {player}, who is not a player")
            if self._plainly_playable(state, player, order, squares, open_hands):
                continue
            problems = self.order_problems(setup, state, player, order)
            if problems:
                raise RulesError(f"the order of {player} cannot be played: "
                                 + "; ".join(f"{p.code} {dict(p.facts)}" for p in problems))

        turn = state.turn
        halves = [turn, turn + 1] if options.is_double(turn) else [turn]
        boards = {b: BoardInPlay(b, setup.boards[b], state.boards[b]) for b in setup.boards}
        hands = {p: {h: list(held) for h, held in hs.items()} for p, hs in state.hands.items()}
        events: list[Any] = []
        n_players = len(setup.players)
        if options.close_after == "all":
            needed = max(n_players - 1, 1)
        else:
            needed = min(options.close_after, n_players)

        last_played = turn
        for half, half_turn in enumerate(halves):
            open_boards = [b for b in boards.values() if not b.closed]
            if not open_boards:
                break
            last_played = half_turn
            numbers = self._numbers(setup, chance, orders, hands, open_boards, turn, half, half_turn, events)
            for board in open_boards:
                hand_of = options.hand(board.id)
                prior = board.crossed()
                crossers: dict[str, int] = {}
                for player in setup.players:
                    if board.finished[player]:
                        continue
                    number = numbers[player, hand_of]
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
                # larger overshoot first, equal overshoot an equal place (RULES.md 2.3)
                for player, place in competition_places({p: -o for p, o in crossers.items()}).items():
                    board.placing[player] = prior + place
                    events.append(Placed(half_turn, board.id, player, prior + place, True))
            for (player, hand), number in numbers.items():
                held = hands[player][hand]
                held.remove(number)
                if not held:
                    held.extend(FULL_HAND)
            for board in open_boards:
                if board.crossed() >= needed:
                    board.close(half_turn, "close_after", events)
            if half_turn >= options.max_turns:
                close_at_max_turns(boards.values(), half_turn, events)
                break

        over = all(board.closed for board in boards.values())
        elected: dict[str, int | None] = {}
        if over:
            # the last half actually played: a double turn may end after its first half (2.5)
            events.append(CampaignOver(last_played))
        else:
            for board in boards.values():
                if not board.closed:
                    elected[board.id] = self._elect(setup, chance, board.id, turn, orders, events)
        new_state = PostalState(
            turn=turn + len(halves),
            over=over,
            boards={b: board.frozen(elected.get(b)) for b, board in boards.items()},
            hands={p: {h: tuple(sorted(held)) for h, held in hs.items()} for p, hs in hands.items()},
        )
        return Outcome(new_state, tuple(events), tuple(chance.draws))

    def end(self, setup: Setup, state: PostalState) -> Outcome:
        """RULES.md 2.3 at the GM's word (`gm end`): every open board closes after the last
        resolved turn as `max_turns` would close it there, pieces placed by square reached."""
        last = last_resolved(state)
        boards = {b: BoardInPlay(b, setup.boards[b], state.boards[b]) for b in setup.boards}
        events: list[Any] = []
        close_at_max_turns(boards.values(), last, events)
        events.append(CampaignOver(last))
        # as resolve leaves a campaign over: closed boards elect no trapdoor
        return Outcome(PostalState(state.turn, True, {b: board.frozen(None) for b, board in boards.items()},
                                   state.hands), tuple(events))

    def _numbers(
        self,
        setup: Setup,
        chance: Chance,
        orders: Mapping[str, PostalOrder],
        hands: dict[str, dict[str, list[int]]],
        open_boards: list[BoardInPlay],
        turn: int,
        half: int,
        half_turn: int,
        events: list,
    ) -> dict[tuple[str, str], int]:
        """The number each moving hand plays this half. A hand that does not move uses
        nothing (RULES.md 2.1); the second half of a double turn plays the last number."""
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
                    number, source = self._nmr(setup, chance, turn, player, hand, held), "nmr"
                numbers[player, hand] = number
                events.append(NumberPlayed(half_turn, player, hand, number, source))  # type: ignore[arg-type]
        return numbers

    def _nmr(self, setup: Setup, chance: Chance, turn: int, player: str, hand: str, held: list[int]) -> int:
        """The number played for a player who sent none (RULES.md 2.4 and 5)."""
        policy = setup.options.nmr
        if policy == "lowest":
            return held[0]
        if policy == "highest":
            return held[-1]
        key = player if hand == SHARED else f"{player}/{hand}"
        return chance.pick(turn, "nmr", key, held)

    def _elect(
        self, setup: Setup, chance: Chance, board_id: str, turn: int, orders: Mapping[str, PostalOrder],
        events: list,
    ) -> int | None:
        """Next turn's trapdoor from this turn's nominations (RULES.md 2.2 and 5)."""
        votes = Counter(
            order.trapdoors[board_id] for order in orders.values() if board_id in order.trapdoors
        )
        tally = tuple(sorted(votes.items(), key=lambda sv: (-sv[1], sv[0])))
        tied: tuple[int, ...] = ()
        elected = None
        if tally and tally[0][1] >= setup.options.trapdoor_threshold:
            tied = tuple(sorted(square for square, count in tally if count == tally[0][1]))
            elected = tied[0] if len(tied) == 1 else chance.pick(turn, "trapdoor", board_id, tied)
        if tally:
            events.append(TrapdoorElection(turn, board_id, tally, tied if len(tied) > 1 else (), elected))
        return elected

    # -- views ----------------------------------------------------------------------

    def standings(self, setup: Setup, state: PostalState) -> dict[str, tuple[int | None, int | None]]:
        """Each player's aggregate and place once every board has placed them (RULES.md 2.3)."""
        aggregates: dict[str, int] = {}
        for player in setup.players:
            placings = [board.pieces[player].placing for board in state.boards.values()]
            if all(p is not None for p in placings):
                aggregates[player] = sum(placings)  # type: ignore[arg-type]
        places = competition_places(aggregates)
        return {p: (aggregates.get(p), places.get(p)) for p in setup.players}

    # -- the archive (RULES.md 2.6; templates/archive/postal/) -------------------------

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        return event_from_json(data)

    def archive_turn(self, setup: Setup, before: PostalState, after: PostalState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        """The public turn report (RULES.md 2.6): start and end squares and placings; its
        `view` (the players' PublicTurn) adds the NMR marks and next turn's trapdoors."""
        view = self.public_view(setup, before, after, events, names, campaign="", title="")
        boards = tuple(
            ArchiveBoard(line.board, line.squares, line.closed, line.closed_now, tuple(
                ArchivePiece(p.player, p.name, p.start, p.end, p.finished, p.finished_now, p.placing, p)
                for p in line.pieces
            ))
            for line in view.boards
        )
        return ArchiveTurn(view.turns, boards, _archive_standings(view.standings), view.over,
                           view.next_turn, view)

    def archive_standings(self, setup: Setup, state: PostalState,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        """Placings so far and, once every board has placed a player, their aggregate."""
        return _archive_standings(self.standings_view(setup, state, names))

    def archive_boards(self, setup: Setup, state: PostalState,
                       history: Sequence[tuple[PostalState, PostalState]]) -> tuple[ArchivePicture, ...]:
        """Each board drawn with every square that was a trapdoor in some turn; asked only
        once revealed (`hidden_boards`). The view holds those squares."""
        from ...boards.svg import Mark, board_svg

        in_force: dict[str, set[int]] = {b: set() for b in setup.boards}
        for before, _ in history:
            for b, board_state in before.boards.items():
                if board_state.trapdoor:
                    in_force[b].add(board_state.trapdoor)
        return tuple(
            ArchivePicture(b, board_svg(board, marks=[Mark(t, "trapdoor", TRAPDOOR_COLOUR) for t in sorted(in_force[b])],
                                        title=board.name or None),
                           {"trapdoors": tuple(sorted(in_force[b]))})
            for b, board in setup.boards.items()
        )

    # -- what players read by mail (RULES.md 2.6): gm/rules/postal/views.py -------------

    def public_view(self, setup: Setup, before: PostalState, after: PostalState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        """Each piece's start and end, NMR marks, next turn's trapdoors and the standings."""

        return public_turn(setup=setup, campaign=campaign, title=title, before=before, after=after,
                           events=events, names=names)

    def player_view(self, setup: Setup, player: str, name: str, state: PostalState,
                    events: Sequence[Any], order: PostalOrder | None) -> Any:
        """The player's numbers (played, still held), nominations and ready orders."""

        return own_facts(setup=setup, player=player, name=name, state=state, events=events, order=order)

    def standings_view(self, setup: Setup, state: PostalState, names: Mapping[str, str]) -> tuple[Any, ...]:
        """Placings per board and, once every board has placed a player, the aggregate."""

        return standings(setup, state, names)

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        options: PostalOptions = setup.options
        return {"per_board": options.per_board, "options": options}

    def state_json(self, setup: Setup, state: PostalState) -> dict[str, Any]:
        options: PostalOptions = setup.options
        standings = self.standings(setup, state) if state.over else {}
        players = {}
        for player in setup.players:
            hands = state.hands[player]
            numbers_left: Any = (
                {b: list(hands[b]) for b in setup.boards} if options.per_board else list(hands[SHARED])
            )
            aggregate, place = standings.get(player, (None, None))
            players[player] = {"numbers_left": numbers_left, "aggregate": aggregate, "place": place}
        return {
            "turn": state.turn,
            "over": state.over,
            "boards": {
                b: {
                    "squares": setup.boards[b].squares,
                    "closed": bs.closed,
                    "trapdoor": bs.trapdoor,
                    "players": {
                        p: {"square": pc.square, "finished": pc.finished, "placing": pc.placing}
                        for p, pc in bs.pieces.items()
                    },
                }
                for b, bs in state.boards.items()
            },
            "players": players,
        }

    def board_figures(self, board: Board, *, until: float) -> Any:
        # imported when a board is analysed only: the analysis needs numpy, which a
        # campaign's every command would otherwise load
        from .analysis import postal

        return postal(board, until=until)

    def board_expected(self, board: Board) -> float | None:
        from .analysis import postal_expected_turns

        return postal_expected_turns(board)

    def state_notes(self, setup: Setup, state: PostalState) -> dict[str, str]:
        """The trapdoor of each board that has one, and the numbers each player holds."""
        notes = {b: f"trapdoor {board.trapdoor}" for b, board in state.boards.items() if board.trapdoor}
        for player, hands in state.hands.items():
            # "holds 1, 3, 5", or per board "holds A 1, 3; B 2" (it printed Python's lists)
            held = [((f"{hand} " if hand != SHARED else "") + ", ".join(map(str, numbers)))
                    for hand, numbers in hands.items() if numbers]
            if held:
                notes[player] = "holds " + "; ".join(held)
        return notes

    def dump_state(self, state: PostalState) -> dict[str, Any]:
        return {
            "turn": state.turn,
            "over": state.over,
            "boards": {
                b: {
                    "closed": bs.closed,
                    "trapdoor": bs.trapdoor,
                    "pieces": {p: [pc.square, pc.finished, pc.placing] for p, pc in bs.pieces.items()},
                }
                for b, bs in state.boards.items()
            },
            "hands": {p: {h: list(held) for h, held in hs.items()} for p, hs in state.hands.items()},
        }

    def rename_player(self, state: PostalState, old: str, new: str) -> PostalState:
        boards = {b: BoardState(bs.closed, bs.trapdoor, renamed(bs.pieces, old, new))
                  for b, bs in state.boards.items()}
        return PostalState(state.turn, state.over, boards, renamed(state.hands, old, new))

    def load_state(self, data: Mapping[str, Any]) -> PostalState:
        return PostalState(
            turn=data["turn"],
            over=data["over"],
            boards={
                b: BoardState(
                    bs["closed"], bs["trapdoor"], {p: Piece(*pc) for p, pc in bs["pieces"].items()}
                )
                for b, bs in data["boards"].items()
            },
            hands={p: {h: tuple(held) for h, held in hs.items()} for p, hs in data["hands"].items()},
        )


def _archive_standings(lines: Iterable[Any]) -> tuple[ArchiveStanding, ...]:
    """The players' standing lines as the archive reads them: the aggregate is the total."""
    return tuple(ArchiveStanding(s.player, s.name, s.placings, s.aggregate, s.place) for s in lines)
