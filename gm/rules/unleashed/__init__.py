"""Snakes & Ladders Unleashed (docs/rules/unleashed.md, seed 000): one public board of cards that
the players change by playing cards from a hidden hand; snakes, ladders and lampposts that move
during play; movement and action cards that chain; standing reactions; a deal at start.

The package: `cards` (codes, deck), `items` (the grid, reach, Ends), `boardfile` (the
default board and board files), `options`, `state`, `deal` (seats, deal, setup picks),
`play` (a round), `words` and `orders` (the order language of 6.13), `happenings` (the
public events), `views` and `svg` (what players see) and `robot` (the demo's players).
This module ties them to gm's Ruleset interface."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...boards.model import Board
from ...resources import shipped_file
from ...yamlfile import LineDict
from ..base import (
    ArchivePicture,
    ArchiveStanding,
    ArchiveTurn,
    Outcome,
    Ruleset,
    Setup,
    last_resolved,
    renamed,
    renamed_in,
)
from ..chance import Chance
from ..commands import Command, Grammar
from ..problem import Problem, problem
from ..standings import BoardStanding, PieceStanding, PlayerStanding, Standings
from .boardfile import board_items, grid_of
from .campaign import campaign_boards, player_problems, setup_mode
from .cards import canonical_sorted
from .deal import deal, setup_picks, shuffled
from .ending import end_campaign
from .happenings import EVENTS, Picked, Seated
from .items import MIX_KEYS
from .options import UnleashedOptions, options_of, parse_options
from .orders import Receipt, UnleashedOrder, merge, unleashed_grammar
from .play import Round
from .state import Pawn, UnleashedState
from .views import board_picture, deal_view, opening_view, own_view, public_turn, standings
from .words import REACTIONS, as_read

__all__ = ["Unleashed"]


def _board(setup: Setup) -> Board:
    return next(iter(setup.boards.values()))


class Unleashed(Ruleset):
    name = "unleashed"
    # its files, named as a plugin names its own (gm.rules.files, docs/plugins.md)
    templates = shipped_file("templates")
    rules_page = shipped_file("docs", "rules", "unleashed.md")
    boards_folder = shipped_file("boards")
    options_type = UnleashedOptions
    state_type = UnleashedState
    order_type = UnleashedOrder
    event_types = EVENTS
    private_player_keys = ("hand",)
    board_keys = ("cards", "lampposts")
    board_chains = True
    board_listed = True
    boards_optional = True
    commits_boards = False  # 6.12: nothing on the board is hidden, the seed decides the deal
    one_board = True
    seed_bits = 256
    max_players = 6  # 6.1
    weak_seed_refused = True
    weak_seed_why = ("the deal and every hand could be recovered from the public board and rolls "
                     "(docs/rules/unleashed.md, Fairness)")
    starter_board = "unleashed.yaml"
    starter_options = (
        "  seating: random           # or listed: the order of players below\n"
        "  # setup: players          # players place the items in turn 1; or random (a board\n"
        "  #                         # file listing items means setup: board)\n"
        "  finish: round             # or first: the first pawn across wins at once\n"
        "  super_size: true          # the larger boards (6 x 10 for 3-4 players)\n"
    )

    # -- the campaign ---------------------------------------------------------------------

    # the options relate to each other (the deck, its dots, pieces and mix), each refusal on its line
    def parse_options(self, raw: Mapping[str, Any]) -> UnleashedOptions:
        return parse_options(raw)

    def options_from_json(self, data: Mapping[str, Any]) -> UnleashedOptions:
        """The options as the audit record writes them, read with every check campaign.yaml's
        get, the deck's limit included: the record comes from the GM, and a deck of 100,000
        cards would be shuffled before anything else could refuse it."""
        raw = {key: value for key, value in data.items() if value is not None}
        if raw.get("white_dots") == {} and "deck" in raw:  # a deck without dots: campaign.yaml leaves them out
            del raw["white_dots"]
        if isinstance(raw.get("mix"), Mapping):  # written {"S": 4, ...}, read {snakes: 4, ...}
            names = {kind: name for name, kind in MIX_KEYS.items()}
            raw["mix"] = {names.get(kind, kind): count for kind, count in raw["mix"].items()}
        return parse_options(LineDict(raw))

    # -- turn 0 -----------------------------------------------------------------------------

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        return player_problems(players)

    def campaign_boards(self, boards: Mapping[str, Board], players: int,
                        options: UnleashedOptions) -> tuple[dict[str, Board], list[str]]:
        """The default rectangle when campaign.yaml names no board; a board file must be a
        serpentine rectangle whose cards and items keep the rules."""
        return campaign_boards(boards, players, options)

    # -- turn 0 -----------------------------------------------------------------------------

    def start(self, setup: Setup, chance: Chance) -> Outcome:
        options = options_of(setup)
        board = _board(setup)
        grid = grid_of(board)
        players = list(setup.players)
        seats = shuffled(players, "seats", chance) if options.seating == "random" else players
        cards, hands, pile = deal(grid, seats, options, board.extra_value("cards"), chance)
        mode = setup_mode(options, board)
        state = UnleashedState(turn=1, rows=grid.rows, columns=grid.columns, seats=seats, cards=cards, pile=pile,
                               hands=hands, pawns={p: Pawn() for p in players}, setup=mode == "players")
        events: list[Any] = [Seated(tuple(seats))]
        if mode == "board":
            for number, (item, (low, high)) in enumerate(board_items(board).items(), 1):
                state.items[item] = [low, high]
                events.append(Picked(number, None, item, low, high, False))
            state.picks = len(state.items)
        elif mode == "random":
            setup_picks(state, options, 0, chance, None, events)
        return Outcome(state, tuple(events), tuple(chance.draws))

    # -- a turn -----------------------------------------------------------------------------

    def resolve(self, setup: Setup, state: UnleashedState, orders: Mapping[str, UnleashedOrder],
                chance: Chance) -> Outcome:
        options = options_of(setup)
        after = state.copy()
        events: list[Any] = []
        for player in setup.players:
            order = orders.get(player)
            if order is None:
                continue
            mine = dict(after.reactions.get(player, {}))
            for action, texts in order.reactions.items():
                if texts:
                    mine[action] = list(texts)
                else:
                    mine.pop(action, None)
            if mine:
                after.reactions[player] = mine
            else:
                after.reactions.pop(player, None)
        if after.setup:
            after.private = {}
            lists = {p: list(orders[p].places or ()) for p in setup.players if p in orders}
            setup_picks(after, options, after.turn, chance, lists, events)
            after.setup = False
            if after.turn >= options.max_turns:  # 6.10: max_turns counts the setup turn too
                end_campaign(after, events)
        else:
            number = after.turn - (1 if setup_mode(options, _board(setup)) == "players" else 0)
            plays = {}
            for player in setup.players:
                order = orders.get(player)
                plays[player] = None if order is None or not order.sent else list(order.plays or ())
            Round(after, options, setup.players, chance, events).play(number, plays)
        after.turn += 1
        return Outcome(after, tuple(events), tuple(chance.draws))

    def end(self, setup: Setup, state: UnleashedState) -> Outcome:
        """6.10's end when `max_turns` is reached, at the GM's word (`gm end`) after the
        last resolved round (the setup turn counts, as for max_turns): every pawn placed,
        finished ones by overshoot, the others by square."""
        last_resolved(state)
        after = state.copy()
        events: list[Any] = []
        end_campaign(after, events)
        return Outcome(after, tuple(events))

    # -- orders (6.13) ----------------------------------------------------------------------

    def grammar(self, options: Any = None) -> Grammar:
        return unleashed_grammar()

    def offered_now(self, setup: Setup, state: UnleashedState) -> tuple[str, ...]:
        """PLACE in the setup turn only, PLAY in a round only (docs/rules/unleashed.md,
        Commands); REACT stands in both."""
        grammar = self.grammar(setup.options)
        refused = "PLAY" if state.setup else "PLACE"
        return tuple(grammar.forms[k] for k in grammar.forms if k != refused)

    def receipt(self, setup: Setup, state: UnleashedState, player: str) -> Receipt:
        return Receipt(setup.players, player, state.grid, state.hands.get(player, ()), state.setup,
                       options_of(setup).snake_eyes == "evil", state.former)

    # each line is checked against the player's hand and the setup turn, on receipt
    def merge(self, setup: Setup, state: UnleashedState, player: str, standing: UnleashedOrder,
              commands: Iterable[Command]) -> tuple[UnleashedOrder, list[Problem]]:
        return merge(standing, commands, self.receipt(setup, state, player))

    def order_problems(self, setup: Setup, state: UnleashedState, player: str,
                       order: UnleashedOrder) -> list[Problem]:
        if order.sent and not state.in_play(player):
            return [problem("not_in_play")]
        return []

    def order_view(self, setup: Setup, state: UnleashedState, player: str, order: UnleashedOrder) -> dict[str, Any]:
        """The whole standing order (6.13's acknowledgement): turn, seat, hand, the play
        list as it will be tried, the setup list and every standing reaction, each line as
        the go will read it (a seat's former holder named as its holder now)."""
        reactions = {a: list(t) for a, t in state.reactions.get(player, {}).items()}
        for action, texts in order.reactions.items():
            if texts:
                reactions[action] = list(texts)
            else:
                reactions.pop(action, None)
        reactions = {a: [as_read(a, text, setup.players, state.former) for text in texts]
                     for a, texts in reactions.items()}
        return {
            "turn": state.turn,
            "setup_turn": state.setup,
            "seat": state.seats.index(player) + 1 if player in state.seats else None,
            "hand": list(state.hands.get(player, ())),
            "sent": order.sent,
            "plays": None if order.plays is None else [p.as_read(setup.players, state.former).text()
                                                       for p in order.plays],
            "places": None if order.places is None else [f"PLACE {i} {a} {b}" for i, a, b in order.places],
            "reactions": {a: reactions[a] for a in sorted(reactions, key=_reaction_order)},
            "in_play": state.in_play(player),
        }

    def in_play(self, setup: Setup, state: UnleashedState, player: str) -> bool:
        return state.in_play(player)

    def must_order(self, setup: Setup, state: UnleashedState, player: str) -> bool:
        return state.in_play(player)

    def order_complete(self, setup: Setup, state: UnleashedState, player: str, order: UnleashedOrder) -> bool:
        return order.sent

    # -- standings and state ------------------------------------------------------------------

    def standings(self, setup: Setup, state: UnleashedState) -> Standings:
        """The one board, closed once the campaign is over; each pawn's placing counts as
        its player's aggregate and place once it is."""
        board_id = next(iter(setup.boards))
        pieces = {p: PieceStanding(state.pawns[p].square, state.pawns[p].finished, state.pawns[p].placing)
                  for p in setup.players}
        final = {p: state.pawns[p].placing if state.over else None for p in setup.players}
        return Standings(state.turn, state.over,
                         {board_id: BoardStanding(board_id, state.rows * state.columns, state.over, pieces)},
                         {p: PlayerStanding(final[p], final[p]) for p in setup.players})

    # CONTRACT's Unleashed keys (cards, items, locks, hands) beside the standings'
    def state_json(self, setup: Setup, state: UnleashedState) -> dict[str, Any]:
        board_id = next(iter(setup.boards))
        seat = {p: i + 1 for i, p in enumerate(state.seats)}
        return {
            "turn": state.turn,
            "over": state.over,
            "setup": state.setup,
            "winners": [p for p in state.seats if p in state.winners],
            "boards": {board_id: {
                "squares": state.rows * state.columns,
                "closed": state.over,
                "trapdoor": None,
                "rows": state.rows,
                "columns": state.columns,
                "cards": list(state.cards),
                "items": {item: list(state.items[item]) for item in sorted(state.items)},
                "reversed": state.reversed,
                "locked_cards": sorted(state.locked_cards),
                "locked_items": sorted(state.locked_items),
                "draw_pile": len(state.pile),
                "players": {p: {
                    "square": state.pawns[p].square,
                    "finished": state.pawns[p].finished,
                    "placing": state.pawns[p].placing,
                    "overshoot": state.pawns[p].overshoot,
                    "seat": seat[p],
                    "hand_size": len(state.hands[p]),
                } for p in setup.players},
            }},
            "players": {p: {
                "numbers_left": None,
                "aggregate": state.pawns[p].placing if state.over else None,
                "place": state.pawns[p].placing if state.over else None,
                "seat": seat[p],
                "hand": list(canonical_sorted(state.hands[p])),
            } for p in setup.players},
        }

    def private_json(self, setup: Setup, state: UnleashedState, player: str) -> dict[str, Any]:
        """CONTRACT's `private` for `gm state --json --player`: the last turn's draw and
        skipped lines, and the standing reactions."""
        mine = state.private.get(player, {})
        return {
            "drew": list(mine.get("drew", [])),
            "skipped": [n for n, _ in mine.get("skipped", [])],
            "reactions": {a: [as_read(a, text, setup.players, state.former) for text in t]
                          for a, t in sorted(state.reactions.get(player, {}).items(),
                                             key=lambda kv: _reaction_order(kv[0])) if t},
        }

    def state_notes(self, setup: Setup, state: UnleashedState) -> Mapping[str, str]:
        return {p: "hand " + " ".join(state.hands[p]) for p in setup.players}

    def rename_player(self, state: UnleashedState, old: str, new: str) -> UnleashedState:
        after = state.copy()
        after.seats = list(renamed_in(after.seats, old, new))
        after.hands = renamed(after.hands, old, new)
        after.pawns = renamed(after.pawns, old, new)
        after.reactions = renamed(after.reactions, old, new)
        after.private = renamed(after.private, old, new)
        after.winners = list(renamed_in(after.winners, old, new))
        # orders and reactions keep `old` as sent; reading them maps it (and every id that held the
        # seat before `old`) to `new` (docs/rules/unleashed.md, Fairness: seeds and commitments)
        after.former = {was: new if holder == old else holder for was, holder in after.former.items()}
        after.former[old] = new
        return after

    # -- what players see (6.14) -------------------------------------------------------------

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        options, board = options_of(setup), _board(setup)
        grid = grid_of(board)
        return opening_view(setup, events, names, setup_mode(options, board), grid.rows, grid.columns,
                            options.hand_size)

    def public_view(self, setup: Setup, before: UnleashedState, after: UnleashedState, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        return public_turn(setup, before, after, events, names, campaign, title)

    def player_view(self, setup: Setup, player: str, name: str, state: UnleashedState,
                    events: Sequence[Any], order: UnleashedOrder | None) -> Any:
        return own_view(setup, player, name, state, events, order)

    def archive_turn(self, setup: Setup, before: UnleashedState, after: UnleashedState, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        view = self.public_view(setup, before, after, events, names, "", "")
        return ArchiveTurn.of(view)

    def archive_standings(self, setup: Setup, state: UnleashedState,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        return standings(setup, state, names)

    def archive_boards(self, setup: Setup, state: UnleashedState,
                       history: Sequence[tuple[Any, Any]]) -> tuple[ArchivePicture, ...]:
        return (board_picture(setup, state, setup.names),)

    def archive_deal(self, setup: Setup, first: UnleashedState | None, names: Mapping[str, str]) -> Any:
        """The whole deal (6.2), shown by the archive once the campaign is revealed."""
        return deal_view(first, names) if first is not None else None

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        options, board = options_of(setup), _board(setup)
        grid = grid_of(board)
        return {"rows": grid.rows, "columns": grid.columns, "squares": grid.squares,
                "hand_size": options.hand_size, "plays_per_go": options.plays_per_go,
                "finish": options.finish, "snake_eyes": options.snake_eyes,
                "compulsory_play": options.compulsory_play, "max_turns": options.max_turns,
                "setup_mode": setup_mode(options, board)}


def _reaction_order(action: str) -> int:
    return REACTIONS.index(action) if action in REACTIONS else len(REACTIONS)
