"""What every ruleset offers the rest of gm.

A ruleset is pure: state and orders in, new state and events out (a state has `turn`,
the turn taking orders, and `over`; the rest is the ruleset's). It reads no clock,
file or database, and every random choice goes through `Chance` (RULES.md 5), so a turn
can be previewed, replayed and tested in microseconds. Storage, mail and reports sit
around it and speak to it only through this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..boards.board import Board
from ..errors import RulesError
from .chance import Chance, Draw
from .grammar import Command, Grammar
from .problem import Problem


@dataclass(frozen=True)
class Setup:
    """The fixed facts of a campaign: boards by id (in campaign.yaml order), player ids
    (in campaign.yaml order), the ruleset's options and the seed, and each player's
    values of the ruleset's `player_keys` (advanced: `{"bob": {"team": "red"}}`; a player
    who gives none is absent)."""

    boards: Mapping[str, Board]
    players: tuple[str, ...]
    options: Any
    seed: int
    player_keys: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def renamed(mapping: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    """`mapping` with the key `old` now `new`, in the same place (Ruleset.rename_player)."""
    return {new if key == old else key: value for key, value in mapping.items()}


def renamed_in(items: Sequence[str], old: str, new: str) -> tuple[str, ...]:
    """`items` with `old` now `new`, in the same place (an order of play)."""
    return tuple(new if item == old else item for item in items)


@dataclass(frozen=True)
class Outcome:
    """What starting a campaign or resolving a turn gives: the state after it, what
    happened (opening throws, moves, elections...) and every random choice it made."""

    state: Any
    events: tuple[Any, ...]
    draws: tuple[Draw, ...] = ()


def last_resolved(state: Any) -> int:
    """The turn a campaign ended by the GM ends after (Ruleset.end): the last one resolved,
    one before the state's `turn`. Refused when the campaign is over or no turn has been resolved."""
    if state.over:
        raise RulesError("the campaign is over already")
    if state.turn <= 1:
        raise RulesError("no turn has been resolved yet, so there is nothing to end after")
    return state.turn - 1


def rules_end(setup: Setup, state: Any) -> tuple[str, int]:
    """How a campaign its rules ended came to its end (the audit record's `end`): `max_turns`
    and that turn when its last resolve reached the option `max_turns` (a resolve that plays
    two turns may reach it at its first), else `rules` and the last turn played."""
    last = state.turn - 1
    max_turns = getattr(setup.options, "max_turns", None)
    if isinstance(max_turns, int) and max_turns <= last:
        return "max_turns", max_turns
    return "rules", last


# -- what the archive shows (gm publish; RULES.md 2.6, 4.6, 6.14) ------------------------
# The generic part every archive page frame, race chart and player history reads; each
# `view` is the ruleset's own, read only by its templates under templates/archive/<name>/.


# Up to this many players a turn report and the archive list every player wherever they
# tell a turn. A larger campaign's report shows the player's own pieces, the leaders and
# the top of the standings, and attaches every player's line once, as text
# (mail/<ruleset>/table.txt): listed in the body, and again in its HTML, a 2,000-player
# report was 1.6 MB. Its archive draws the leaders over the field in the race charts, names
# the leaders in the feed, and lists a player's turns on their page once the campaign is
# over (the turn pages hold every move), so a weekly publish rewrites a few pages, not one
# per player.
INLINE_PLAYERS = 50


@dataclass(frozen=True)
class ArchivePiece:
    """One player's piece on one board over one resolved turn, as everyone may see it:
    where it started and ended (0 is Start; a finished piece keeps the last square it
    stood on), whether it has finished, and its placing."""

    player: str
    name: str
    start: int
    end: int
    finished: bool
    finished_now: bool
    placing: int | None
    view: Any = None  # the ruleset's own line for this piece, for its templates


@dataclass(frozen=True)
class ArchiveBoard:
    board: str
    squares: int
    closed: bool  # at the end of the turn
    closed_now: bool
    pieces: tuple[ArchivePiece, ...]  # every player, in campaign order


@dataclass(frozen=True)
class ArchiveStanding:
    player: str
    name: str
    placings: tuple[int | None, ...]  # per board, in board order
    total: int | None  # what ranks the players, once known (e.g. a sum of placings)
    place: int | None


@dataclass(frozen=True)
class ArchiveTurn:
    """One resolved turn as the archive shows it."""

    turns: tuple[int, ...]  # the campaign turns it played: (5,), or (5, 6) when one resolve plays two
    boards: tuple[ArchiveBoard, ...]  # in board order
    standings: tuple[ArchiveStanding, ...]  # after the turn, placed players first
    over: bool
    next_turn: int | None
    view: Any = None  # the ruleset's public view of the turn, for its templates

    @classmethod
    def of(cls, view: Any) -> ArchiveTurn:
        """The archive's turn from a ruleset's public view that carries the generic
        fields (turns, boards, standings, over, next_turn) beside its own."""
        return cls(view.turns, view.boards, view.standings, view.over, view.next_turn, view)


@dataclass(frozen=True)
class ArchivePicture:
    """A board drawn for the archive."""

    board: str
    svg: str  # self-contained, every text in it escaped (gm.boards.svg)
    view: Any = None  # what the ruleset's templates say beside the drawing


class Ruleset(ABC):
    """A rule set (RULES.md 2 and 4), found by `name` through gm.rules.registry."""

    name: ClassVar[str]
    # declarations the campaign layer reads instead of knowing any ruleset
    option_keys: ClassVar[tuple[str, ...]]  # campaign.yaml options beside the campaign's own
    player_keys: ClassVar[tuple[str, ...]] = ()  # extra keys a player may have (advanced: team)
    board_keys: ClassVar[tuple[str, ...]] = ()  # extra keys a board file may have
    hidden_boards: ClassVar[bool] = False  # only N is public until the reveal (RULES.md 1)
    # a board file's `chains:` when absent; whether campaign.yaml may leave `boards` out
    # (then `campaign_boards` makes the default board)
    board_chains: ClassVar[bool] = False
    board_listed: ClassVar[bool] = False  # item ids follow the file's order (unleashed 6.15)
    boards_optional: ClassVar[bool] = False
    # whether gm start commits to each board (RULES.md 5); a ruleset whose board is public
    # and dealt from the seed (6.12) commits to the seed alone
    commits_boards: ClassVar[bool] = True
    # the options block of `gm campaign new`'s starter campaign.yaml: two-space indented
    # `key: default  # comment` lines, each ending in a newline
    starter_options: ClassVar[str] = ""
    # the board of gm's boards/ that `gm campaign new` copies into the new campaign
    starter_board: ClassVar[str] = "milton-bradley.yaml"
    one_board: ClassVar[bool] = False  # exactly one board per campaign (RULES.md 4.1)
    # the most players the ruleset is played by (None: no limit): sign-up by mail (RULES.md
    # 3.1) gives no more places; player_problems still says so of a list too long
    max_players: ClassVar[int | None] = None
    # RULES.md 5: the bits of the seed gm start draws when campaign.yaml gives none, and
    # whether a seed below 2^128 is refused (else below 2^64 it is taken with a warning)
    seed_bits: ClassVar[int] = 128
    weak_seed_refused: ClassVar[bool] = False
    weak_seed_why: ClassVar[str] = "future throws could be recomputed from the published ones"
    # a folder laid out like gm's templates/ (mail/<name>/..., calendar/<name>/...), searched
    # before gm's own: for a ruleset installed or registered from outside gm
    templates: ClassVar[str | None] = None
    # RULES.md 2.4: a turn may be resolved before its deadline once every player in play has
    # an accepted message for it. False where nobody has to write (classic, doubles: RULES.md
    # 4.5): a message then says nothing about being ready, so the turn waits for its deadline
    resolves_early: ClassVar[bool] = True

    @abstractmethod
    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        """The ruleset's options from campaign.yaml; raises ValueError listing problems."""

    def board_from_data(self, data: Any, source: str) -> Board:
        """A board file's parsed YAML read with this ruleset's keys and defaults."""
        from ..boards.board import board_from_data

        return board_from_data(data, source, self.board_keys, self.board_chains, self.board_listed)

    def read_board(self, path: Any) -> Board:
        """A board file read with this ruleset's keys and defaults; raises BoardError."""
        from pathlib import Path

        from ..errors import BoardError
        from ..yamlfile import read

        return self.board_from_data(read(Path(path), BoardError), str(path))

    def campaign_boards(self, boards: Mapping[str, Board], players: int,
                        options: Any) -> tuple[dict[str, Board], list[str]]:
        """The boards the campaign plays (campaign.yaml's, made sound for this ruleset, or
        its default when `boards` is left out) and what is wrong with them beyond RULES.md
        1, given the number of players and the options."""
        return dict(boards), []

    def options_to_json(self, options: Any) -> dict[str, Any]:
        """The options as played, JSON-ready (the audit record, docs/audit.md)."""
        import dataclasses

        return dataclasses.asdict(options) if dataclasses.is_dataclass(options) else dict(options or {})

    def options_from_json(self, data: Mapping[str, Any]) -> Any:
        """Options read back from options_to_json: the defaults with `data`'s fields."""
        import dataclasses

        from ..yamlfile import LineDict

        defaults = self.parse_options(LineDict())
        if not dataclasses.is_dataclass(defaults):
            return dict(data)
        fields = {f.name for f in dataclasses.fields(defaults)}
        return dataclasses.replace(defaults, **{k: v for k, v in data.items() if k in fields})

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """What is wrong with the players' values of `player_keys` (player id and values,
        in campaign.yaml order), for the GM's config check; empty when nothing is."""
        return []

    @abstractmethod
    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """The state before turn 1, with what was drawn to reach it (seats, die sizes)."""

    @abstractmethod
    def resolve(self, setup: Setup, state: Any, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        """Resolve the state's current turn from the orders held (player id -> order),
        drawing every random choice through `chance`."""

    def end(self, setup: Setup, state: Any) -> Outcome:
        """The campaign ended by the GM (`gm end`) after the last resolved turn, `state`
        being the state after it: exactly what `resolve` would have given had `max_turns`
        been that turn (RULES.md 5: the audit replays it), with the ruleset's placings for a
        campaign cut short. Its events are those of the end alone (placings, boards closed,
        the campaign over); it draws nothing. A ruleset whose rules place nobody before
        their own end refuses, as this default does, with a one-line RulesError;
        `last_resolved(state)` gives the turn and refuses an over or unplayed campaign."""
        last_resolved(state)
        raise RulesError(f"the {self.name} ruleset cannot end a campaign before its own rules do "
                         "(it places nobody on the GM's word)")

    # -- orders by mail (RULES.md 3, 4.5) -------------------------------------------

    @abstractmethod
    def grammar(self, options: Any = None) -> Grammar:
        """The order commands this ruleset knows beside the common envelope (GAME,
        PLAYER, PASSWORD, TURN, END, HELP, RESET); `options` None reads as the defaults,
        and the keywords must not depend on them."""

    @abstractmethod
    def merge(self, setup: Setup, state: Any, player: str, standing: Any,
              commands: Iterable[Command]) -> tuple[Any, list[Problem]]:
        """The standing order with one accepted message's commands applied, and the
        problems that make the message refused whole (gm.rules.problem: codes worded by
        templates/mail/<name>/problems.txt), each on its command's line."""

    @abstractmethod
    def order_problems(self, setup: Setup, state: Any, player: str, order: Any) -> list[Problem]:
        """Why a merged order cannot be played this turn, judged on receipt (empty when
        it can); what only the go can judge is the resolve's."""

    @abstractmethod
    def order_view(self, setup: Setup, state: Any, player: str, order: Any) -> dict[str, Any]:
        """What the player's own standing order says, for their eyes only (acks,
        refusals, help, reminders): the ruleset's templates read it."""

    def order_text(self, order: Any) -> str:
        """A standing order in one line for the GM (`gm orders --full`)."""
        import json

        return json.dumps(self.order_to_json(order), sort_keys=True)

    # -- who must write (RULES.md 2.4, 4.5) -----------------------------------------

    @abstractmethod
    def empty_order(self) -> Any:
        """The standing order of a player who has sent nothing this turn."""

    @abstractmethod
    def order_to_json(self, order: Any) -> dict[str, Any]:
        """A standing order as stored (and published once revealed)."""

    @abstractmethod
    def order_from_json(self, data: Mapping[str, Any]) -> Any:
        ...

    @abstractmethod
    def in_play(self, setup: Setup, state: Any, player: str) -> bool:
        """Whether the player still takes part in turns (not finished, not resigned): the
        turn waits for their message before its deadline."""

    @abstractmethod
    def must_order(self, setup: Setup, state: Any, player: str) -> bool:
        """Whether the player must send something this turn; `gm resolve` refuses when
        more than half of those who must have not (a mailbox not read)."""

    @abstractmethod
    def order_complete(self, setup: Setup, state: Any, player: str, order: Any) -> bool:
        """Whether `order` holds everything the player must send this turn."""

    @abstractmethod
    def state_json(self, setup: Setup, state: Any) -> dict[str, Any]:
        """The ruleset's part of `gm state --json` (CONTRACT.md)."""

    # the keys of state_json's `players` entries that only that player may see (unleashed:
    # hand), left out of the others' entries by `gm state --json --player ID`
    private_player_keys: ClassVar[tuple[str, ...]] = ()

    def private_json(self, setup: Setup, state: Any, player: str) -> dict[str, Any] | None:
        """What only `player` knows (`private` of `gm state --json --player ID`), or None
        when the ruleset keeps nothing private from one player that state_json shows."""
        return None

    def state_notes(self, setup: Setup, state: Any) -> Mapping[str, str]:
        """A short note for the GM's terminal (`gm state`, `gm status`) beside a board id
        or a player id, such as what they hold; the GM's eyes only."""
        return {}

    @abstractmethod
    def dump_state(self, state: Any) -> dict[str, Any]:
        """A JSON-ready form of the state, read back by load_state."""

    @abstractmethod
    def load_state(self, data: Mapping[str, Any]) -> Any:
        ...

    def rename_player(self, state: Any, old: str, new: str) -> Any:
        """The state with `old`'s seat now held by `new` (`gm player replace`): everything
        the seat holds (its pieces, numbers, dice, place in the order of play) is keyed by
        `new`. What is history keeps `old` (a turn's log, the opening throws, who built
        what): `old` held the seat then. A ruleset that cannot do this refuses."""
        raise NotImplementedError(f"the {self.name} ruleset cannot hand a seat to another player")

    # -- what players read by mail (RULES.md 2.6) -----------------------------------
    # Each view is a type with no field for what its reader must not see; the ruleset's
    # templates (templates/mail/<name>/, or its own `templates` folder) read it. The
    # defaults give gm.mail.views' generic shapes, which the fallback templates in
    # templates/mail/ read: each piece's squares and placing (CONTRACT's keys of
    # state_json) and the standings; nothing private.

    def public_view(self, setup: Setup, before: Any, after: Any, events: Sequence[Any],
                    names: Mapping[str, str], campaign: str, title: str) -> Any:
        """The report on one resolved turn everyone may read (`events` took `before` to
        `after`; `names` maps player ids to the names shown). The default shows where
        each piece stood before and after, and the placings: a ruleset where any of that
        is secret overrides it."""
        from ..mail.views import generic_public_view

        return generic_public_view(self, setup, before, after, names, campaign, title)

    def opening_view(self, setup: Setup, events: Sequence[Any], names: Mapping[str, str]) -> Any:
        """What everyone may see of the start, from the events `start` gave (read back
        with `event_from_json`: opening throws, the order of play, die sizes), for the welcome mail (`opening` in its context) and the
        archive's front page; None (the default) when the start draws nothing to show."""
        return None

    def player_view(self, setup: Setup, player: str, name: str, state: Any,
                    events: Sequence[Any], order: Any) -> Any:
        """What only `player` knows of `state` after `events` (the turn just resolved, or
        nothing between turns, for a reminder) with `order` (the one that was played, or
        the one standing), including what they may send next turn. Default: whether they
        are still in play, and nothing private."""
        from ..mail.views import PlayerView

        return PlayerView(player, name, self.in_play(setup, state, player))

    def standings_view(self, setup: Setup, state: Any, names: Mapping[str, str]) -> tuple[Any, ...]:
        """The standings as reports show them, placed players first."""
        return self.archive_standings(setup, state, names)

    def mail_facts(self, setup: Setup) -> dict[str, Any]:
        """Public facts of the campaign the ruleset's templates need beyond the common ones
        (board ids and sizes, its command forms), such as an option its words depend on. Read by
        every mail to players, so nothing in it may be secret."""
        return {}

    # -- board tools (gm board analyze, gm board design) ------------------------------

    def board_figures(self, board: Board, *, until: float) -> Any:
        """This ruleset's exact figures for `board`, for one player alone (a
        gm.boards.analysis.Figures: the game-length law, its JSON under the ruleset's
        name in `gm board analyze --json`, rows for the table). A ruleset that does not
        override it is not analysed (advanced: what a build is worth depends on play)."""
        raise NotImplementedError

    def board_expected(self, board: Board) -> float | None:
        """The expected game length alone, for `gm board design`'s
        `<ruleset>_expected_turns` targets; a ruleset may compute it faster."""
        return self.board_figures(board, until=1e-3).length.expected

    # -- the archive (gm publish, gm reveal; RULES.md 2.6, 4.6, 6.14) ----------------
    # The defaults make a plain archive from the keys every ruleset's state_json shares
    # (CONTRACT.md: turn, over, each board's closed and each piece's square, finished and
    # placing, each player's aggregate and place): a ruleset overrides them, with its own
    # templates under templates/archive/<name>/, to show more. `hidden_boards` decides
    # whether archive_boards is asked before the reveal.

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        """An event as stored (`dataclasses.asdict` of an event `resolve` gave)."""
        return dict(data)

    def archive_turn(self, setup: Setup, before: Any, after: Any, events: Sequence[Any],
                     names: Mapping[str, str]) -> ArchiveTurn:
        """What everyone may see of one resolved turn, from the states around it and its
        events; `names` maps player ids to the names shown."""
        first, last = self.state_json(setup, before), self.state_json(setup, after)
        boards = []
        for board_id, board in setup.boards.items():
            was, now = first["boards"][board_id], last["boards"][board_id]
            pieces = tuple(
                ArchivePiece(
                    player=p,
                    name=names.get(p, p),
                    start=was["players"][p]["square"],
                    end=now["players"][p]["square"],
                    finished=now["players"][p]["finished"],
                    finished_now=now["players"][p]["finished"] and not was["players"][p]["finished"],
                    placing=now["players"][p]["placing"],
                )
                for p in setup.players
            )
            boards.append(ArchiveBoard(board_id, board.squares, now["closed"],
                                       now["closed"] and not was["closed"], pieces))
        return ArchiveTurn(
            turns=tuple(range(first["turn"], last["turn"])) or (first["turn"],),
            boards=tuple(boards),
            standings=self.archive_standings(setup, after, names),
            over=last["over"],
            next_turn=None if last["over"] else last["turn"],
        )

    def archive_standings(self, setup: Setup, state: Any,
                          names: Mapping[str, str]) -> tuple[ArchiveStanding, ...]:
        """Each player's placings and standing now: placed players first, by place, the
        rest in campaign order."""
        data = self.state_json(setup, state)
        lines = [
            ArchiveStanding(
                player=p,
                name=names.get(p, p),
                placings=tuple(data["boards"][b]["players"][p]["placing"] for b in setup.boards),
                total=data["players"][p]["aggregate"],
                place=data["players"][p]["place"],
            )
            for p in setup.players
        ]
        return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0)))

    def archive_deal(self, setup: Setup, first: Any, names: Mapping[str, str]) -> Any:
        """What was dealt secretly at start, from the state before the first turn, for the
        archive once the campaign is revealed (unleashed: every hand and the draw pile);
        None (the default) when nothing was."""
        return None

    def archive_boards(self, setup: Setup, state: Any,
                       history: Sequence[tuple[Any, Any]]) -> tuple[ArchivePicture, ...]:
        """Every board drawn, in board order, from the current state and the (before,
        after) states of every resolved turn. With `hidden_boards` it is asked only once
        the campaign is revealed; otherwise on every publish."""
        from ..boards.svg import board_svg

        return tuple(
            ArchivePicture(board_id, board_svg(board, title=board.name or None))
            for board_id, board in setup.boards.items()
        )
