"""The postal game (docs/rules/postal.md): secret numbers 1-6 once per cycle, trapdoor elections,
crossing by overshoot, placings per board and the aggregate over boards.

The package: `options`, `state` (the state, the order, the aggregates), `events`, `orders`
(the order commands), `moving` and `turn` (a turn resolved), `views` (what players read),
`archive`, `analysis` and `robot` (the demo's players). This module ties them to gm's
ruleset interface, as docs/plugins.md tells a plugin to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...boards.model import Board
from ...resources import shipped_file
from ..base import Ruleset
from ..chance import Chance
from ..commands import Command, Grammar
from ..problem import Problem
from ..roles.archive import ArchivePicture, ArchiveStanding, ArchiveTurn
from ..roles.core import Outcome, Setup
from ..standings import BoardStanding, PieceStanding, PlayerStanding, Standings
from . import archive, turn
from .events import BoardClosed, CampaignOver, Moved, NumberPlayed, Placed, TrapdoorElection
from .options import FULL_HAND, SHARED, PostalOptions
from .orders import merge, order_problems, postal_grammar
from .state import BoardState, Piece, PostalOrder, PostalState, aggregates, hands_to_number
from .views import own_facts, public_turn, standings

__all__ = ["Postal"]


class Postal(Ruleset):
    name = "postal"
    # its files, named as a plugin names its own (gm.rules.files, docs/plugins.md)
    templates = shipped_file("templates")
    rules_page = shipped_file("docs", "rules", "postal.md")
    boards_folder = shipped_file("boards")
    options_type = PostalOptions
    state_type = PostalState
    order_type = PostalOrder
    event_types = (NumberPlayed, Moved, Placed, BoardClosed, TrapdoorElection, CampaignOver)
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

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """Everyone on Start of every board with a full set of numbers: nothing is drawn."""
        options: PostalOptions = setup.options
        hand_keys = list(setup.boards) if options.per_board else [SHARED]
        return Outcome(PostalState(
            turn=1,
            over=False,
            boards={board_id: BoardState(False, None, {p: Piece() for p in setup.players})
                    for board_id in setup.boards},
            hands={p: {key: FULL_HAND for key in hand_keys} for p in setup.players},
        ), ())

    def resolve(self, setup: Setup, state: PostalState, orders: Mapping[str, PostalOrder],
                chance: Chance) -> Outcome:
        return turn.resolve(setup, state, orders, chance)

    def end(self, setup: Setup, state: PostalState) -> Outcome:
        """Every open board closes after the last resolved turn as `max_turns` would close it there,
        pieces placed by square reached (docs/rules/postal.md, Crossing the finish and placings)."""
        return turn.end(setup, state)

    def standings(self, setup: Setup, state: PostalState) -> Standings:
        """Each board's pieces, and each player's aggregate and place once the campaign is over."""
        final = aggregates(setup.players, state) if state.over else {}
        return Standings(
            state.turn, state.over,
            {b: BoardStanding(b, setup.boards[b].squares, bs.closed,
                              {p: PieceStanding(pc.square, pc.finished, pc.placing) for p, pc in bs.pieces.items()})
             for b, bs in state.boards.items()},
            {p: PlayerStanding(*final.get(p, (None, None))) for p in setup.players},
        )

    # -- orders ---------------------------------------------------------------------

    def grammar(self, options: PostalOptions | None = None) -> Grammar:
        """NUMBER and TRAPDOOR, NUMBER naming the board under per-board numbers
        (docs/rules/postal.md, Commands); `options` None reads as the defaults."""
        return postal_grammar(options)

    # a command is checked against the player's hands and the boards, each on its line
    def merge(self, setup: Setup, state: PostalState, player: str, standing: PostalOrder,
              commands: Iterable[Command]) -> tuple[PostalOrder, list[Problem]]:
        return merge(setup, state, player, standing, commands)

    def order_problems(self, setup: Setup, state: PostalState, player: str, order: PostalOrder) -> list[Problem]:
        return order_problems(setup, state, player, order)

    def order_text(self, order: PostalOrder) -> str:
        numbers = ", ".join(f"{'' if h == SHARED else h + ' '}{n}" for h, n in sorted(order.numbers.items()))
        traps = ", ".join(f"{b} {sq}" for b, sq in sorted(order.trapdoors.items()))
        return f"number {numbers or '-'}; trapdoors {traps or '-'}"

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
        """The hands for which the player must still send a number this turn: those that move and
        are not forced (docs/rules/postal.md, Orders, the deadline and missed turns)."""
        return hands_to_number(setup.options, state, player)

    # -- the archive (templates/archive/postal/) -------------------------------------

    def archive_turn(self, setup: Setup, before: PostalState, after: PostalState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        return archive.archive_turn(self.public_view(setup, before, after, events, names, campaign="", title=""))

    def archive_standings(self, setup: Setup, state: PostalState,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        """Placings so far and, once every board has placed a player, their aggregate."""
        return archive.archive_standings(self.standings_view(setup, state, names))

    def archive_boards(self, setup: Setup, state: PostalState,
                       history: Sequence[tuple[PostalState, PostalState]]) -> tuple[ArchivePicture, ...]:
        """Each board drawn with every square that was a trapdoor in some turn; asked only
        once revealed (`hidden_boards`). The view holds those squares."""
        return archive.archive_boards(setup.boards, history)

    # -- what players read by mail (views.py, templates/mail/postal/) -----------------

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

    # gm state --json adds each board's trapdoor and each player's numbers left (CONTRACT.md)
    def state_json(self, setup: Setup, state: PostalState) -> dict[str, Any]:
        options: PostalOptions = setup.options
        final = aggregates(setup.players, state) if state.over else {}
        players = {}
        for player in setup.players:
            hands = state.hands[player]
            numbers_left: Any = (
                {b: list(hands[b]) for b in setup.boards} if options.per_board else list(hands[SHARED])
            )
            aggregate, place = final.get(player, (None, None))
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
            # "holds 1, 3, 5", or per board "holds A 1, 3; B 2"
            held = [((f"{hand} " if hand != SHARED else "") + ", ".join(map(str, numbers)))
                    for hand, numbers in hands.items() if numbers]
            if held:
                notes[player] = "holds " + "; ".join(held)
        return notes
