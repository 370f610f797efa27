"""The rules core: what a ruleset is as a game (options, start, resolve, end, standings)
and how its state is kept.

A ruleset is pure: state and orders in, new state and events out (a state has `turn`, the turn
taking orders, and `over`; the rest is the ruleset's). It reads no clock, file or database, and
every random choice goes through `Chance` (docs/rules/<ruleset>.md, Fairness: seeds and
commitments), so a turn can be previewed, replayed and tested in microseconds.

A game writes `start`, `resolve` and `standings`; with `options_type`, `state_type` and
`event_types` declared (dataclasses) the options, the state's storage, seat hand-over and
events read back need nothing more.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from ...boards.model import Board
from ...errors import RulesError
from ...yamlfile import LineDict
from ..chance import Chance, Draw
from ..codec import from_json, to_json
from ..options import (
    NoOptions,
    OptionsError,
    option_names,
    option_type_problems,
    parse_dataclass_options,
)
from ..standings import Standings, standings_from_json, standings_json

__all__ = ["Outcome", "RulesCore", "Setup", "last_resolved", "renamed", "renamed_in", "rules_end"]


@dataclass(frozen=True)
class Setup:
    """The fixed facts of a campaign: boards by id (in campaign.yaml order), player ids
    (in campaign.yaml order), the ruleset's options and the seed, and each player's
    values of the ruleset's `player_keys` (advanced: `{"bob": {"team": "red"}}`; a player
    who gives none is absent). `names` holds the players' display names, for the views a
    player reads (the rules never read them; absent, views show ids)."""
    boards: Mapping[str, Board]
    players: tuple[str, ...]
    options: Any
    seed: int
    player_keys: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)


def renamed(mapping: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    """`mapping` with the key `old` now `new`, in the same place (Ruleset.rename_player)."""
    return {new if key == old else key: value for key, value in mapping.items()}


def renamed_in(items: Sequence[str], old: str, new: str) -> tuple[str, ...]:
    """`items` with `old` now `new`, in the same place (an order of play)."""
    return tuple(new if item == old else item for item in items)


@dataclass(frozen=True)
class Outcome:
    """What starting a campaign or resolving a turn gives: the state after it and what
    happened (opening throws, moves, elections...). `draws` need not be given: gm takes
    every random choice from the `Chance` it handed over (gm.rules.chance.played); a
    ruleset that fills it, as rulesets once had to, gives `tuple(chance.draws)`."""
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


def _derived(method: Any) -> Any:
    """Marks a default that is computed from its counterpart (standings <-> state_json)."""
    method.derived = True
    return method


def _abstract(cls: type) -> bool:
    """Whether `cls` still has abstract methods, asked while it is being made (ABCMeta
    counts them only after __init_subclass__ has run)."""
    if any(getattr(value, "__isabstractmethod__", False) for value in vars(cls).values()):
        return True
    names = {name for base in cls.__mro__[1:] for name in getattr(base, "__abstractmethods__", ())}
    return any(getattr(getattr(cls, name, None), "__isabstractmethod__", False) for name in names)


class RulesCore(ABC):
    """A game's rules: its options, start, turns, end and standings, and its state kept."""
    # the ruleset's name in campaign.yaml (`ruleset:`) and gm.rules.registry
    name: ClassVar[str]
    # a dataclass whose fields (all with defaults) are the campaign.yaml options beside the
    # campaign's own: gives `option_keys` and `parse_options`
    options_type: ClassVar[type | None] = None
    # campaign.yaml options beside the campaign's own (default: options_type's fields)
    option_keys: ClassVar[tuple[str, ...]]
    player_keys: ClassVar[tuple[str, ...]] = ()  # extra keys a player may have (advanced: team)
    # the player keys that put a player with others (advanced: team). A sign-up by mail
    # only asks for them unless campaign.yaml says `signup: {teams: open}`: the GM places
    # the player. player_problems may relate two players only through these values and
    # the ids (case ignored): a request is judged beside the places sharing one of them
    placed_keys: ClassVar[tuple[str, ...]] = ()
    # the most players the ruleset is played by (None: no limit): sign-up by mail
    # (docs/rules/<ruleset>.md, Joining by mail) gives no more places; player_problems still says so
    # of a list too long
    max_players: ClassVar[int | None] = None
    # the bits of the seed gm start draws when campaign.yaml gives none, and whether a seed below
    # 2^128 is refused (else below 2^64 it is taken with a warning): docs/rules/<ruleset>.md,
    # Fairness: seeds and commitments
    seed_bits: ClassVar[int] = 128
    weak_seed_refused: ClassVar[bool] = False
    weak_seed_why: ClassVar[str] = "future throws could be recomputed from the published ones"
    # the state's dataclass, read back by the default load_state
    state_type: ClassVar[type | None] = None
    # fields of the state that are history, which a seat handed over keeps as they are
    # (the default rename_player renames the player everywhere else)
    history_fields: ClassVar[tuple[str, ...]] = ()
    # the events' dataclasses, each with a `kind` field whose default names it: the default
    # event_from_json reads a stored event back as its class
    event_types: ClassVar[tuple[type, ...]] = ()
    # the keys of state_json's `players` entries that only that player may see (unleashed:
    # hand), left out of the others' entries by `gm state --json --player ID`
    private_player_keys: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        options_type = cls.__dict__.get("options_type")
        if options_type is not None and "option_keys" not in cls.__dict__:
            cls.option_keys = option_names(options_type)
        elif not hasattr(cls, "option_keys"):
            cls.option_keys = option_names(cls.options_type) if cls.options_type else ()
        if _abstract(cls):
            return  # an intermediate class: its concrete subclasses are judged
        if getattr(cls.standings, "derived", False) and getattr(cls.state_json, "derived", False):
            raise TypeError(f"the ruleset class {cls.__name__} must override standings (or, as before, "
                            "state_json): each one's default is computed from the other")

    # -- options ----------------------------------------------------------------------

    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        """The ruleset's options from campaign.yaml (`raw`: only its own keys, every one of
        `option_keys`); raises OptionsError (a ValueError) listing every problem. Default:
        `options_type` with the values given, each checked against its field's type; with
        no `options_type`, NoOptions, and any option given is refused."""
        if self.options_type is not None:
            return parse_dataclass_options(self.options_type, raw)
        if raw:
            raise OptionsError([f"the {self.name} ruleset has no option {key}" for key in raw])
        return NoOptions()

    def options_to_json(self, options: Any) -> dict[str, Any]:
        """The options as played, JSON-ready (the audit record, docs/audit.md)."""
        return dataclasses.asdict(options) if dataclasses.is_dataclass(options) else dict(options or {})

    def options_from_json(self, data: Mapping[str, Any]) -> Any:
        """Options read back from options_to_json: the defaults with `data`'s fields."""
        defaults = self.parse_options(LineDict())
        if not dataclasses.is_dataclass(defaults):
            return dict(data)
        fields = {f.name for f in dataclasses.fields(defaults)}
        given = {k: v for k, v in data.items() if k in fields}
        # the record comes from the GM (docs/audit.md): a value of another type than its
        # field's is refused here rather than met by the rules mid-replay
        wrong = option_type_problems(type(defaults), given)
        if wrong:
            raise OptionsError(wrong)
        return dataclasses.replace(defaults, **given)

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """What is wrong with the players' values of `player_keys` (player id and values,
        in campaign.yaml order), for the GM's config check; empty when nothing is."""
        return []

    # -- play -------------------------------------------------------------------------

    @abstractmethod
    def start(self, setup: Setup, chance: Chance) -> Outcome:
        """The state before turn 1 and its events (seats, die sizes drawn); every random
        choice through `chance`, which gm records."""

    @abstractmethod
    def resolve(self, setup: Setup, state: Any, orders: Mapping[str, Any], chance: Chance) -> Outcome:
        """Resolve the state's current turn from the orders held (player id -> order),
        drawing every random choice through `chance`."""

    def end(self, setup: Setup, state: Any) -> Outcome:
        """The campaign ended by the GM (`gm end`) after the last resolved turn, `state`
        being the state after it: exactly what `resolve` would have given had `max_turns`
        been that turn (the audit replays it: docs/audit.md), with the ruleset's placings for
        a campaign cut short. Its events are those of the end alone (placings, boards closed,
        the campaign over); it draws nothing. A ruleset whose rules place nobody before
        their own end refuses, as this default does, with a one-line RulesError;
        `last_resolved(state)` gives the turn and refuses an over or unplayed campaign."""
        last_resolved(state)
        raise RulesError(f"the {self.name} ruleset cannot end a campaign before its own rules do "
                         "(it places nobody on the GM's word)")

    # -- standings (gm.rules.standings) -------------------------------------------------

    @_derived
    def standings(self, setup: Setup, state: Any) -> Standings:
        """Where everyone stands in `state`: each board's pieces, each player's aggregate and
        place. Default: read from `state_json`'s CONTRACT.md keys (a ruleset written before
        standings existed); a ruleset overrides this one or state_json."""
        return standings_from_json(self.state_json(setup, state))

    @_derived
    def state_json(self, setup: Setup, state: Any) -> dict[str, Any]:
        """The ruleset's part of `gm state --json` (CONTRACT.md). Default: the standings'
        keys; a ruleset adds its own keys (CONTRACT.md) by overriding it."""
        return standings_json(self.standings(setup, state))

    def private_json(self, setup: Setup, state: Any, player: str) -> dict[str, Any] | None:
        """What only `player` knows (`private` of `gm state --json --player ID`), or None
        when the ruleset keeps nothing private from one player that state_json shows."""
        return None

    def state_notes(self, setup: Setup, state: Any) -> Mapping[str, str]:
        """A short note for the GM's terminal (`gm state`, `gm status`) beside a board id
        or a player id, such as what they hold; the GM's eyes only."""
        return {}

    # -- the state kept ---------------------------------------------------------------

    def dump_state(self, state: Any) -> dict[str, Any]:
        """A JSON-ready form of the state, read back by load_state. Default: a dataclass
        state's fields (gm.rules.codec)."""
        if not dataclasses.is_dataclass(state):
            raise NotImplementedError(f"the {self.name} ruleset's state is no dataclass: it writes dump_state")
        return to_json(state)

    def load_state(self, data: Mapping[str, Any]) -> Any:
        """A state read back from dump_state. Default: `state_type` from its fields."""
        if self.state_type is None:
            raise NotImplementedError(f"the {self.name} ruleset declares no state_type: it writes load_state")
        return from_json(self.state_type, data)

    def rename_player(self, state: Any, old: str, new: str) -> Any:
        """The state with `old`'s seat now held by `new` (`gm player replace`): everything
        the seat holds (its pieces, numbers, dice, place in the order of play) is keyed by
        `new`. What is history keeps `old` (a turn's log, the opening throws, who built
        what): `old` held the seat then. Default, for a dataclass state: every mapping
        keyed by `old` and every tuple listing it, in every field but `history_fields`;
        a ruleset whose state is no dataclass refuses unless it overrides this."""
        if not dataclasses.is_dataclass(state):
            raise NotImplementedError(f"the {self.name} ruleset cannot hand a seat to another player")
        return dataclasses.replace(state, **{
            f.name: _renamed_deep(getattr(state, f.name), old, new)
            for f in dataclasses.fields(state) if f.init and f.name not in self.history_fields
        })

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        """An event as stored (`dataclasses.asdict` of an event `resolve` gave). Default:
        the one of `event_types` whose `kind` it has, else the mapping as it is."""
        if not self.event_types:
            return dict(data)
        event_type = _event_kinds(type(self)).get(data.get("kind"))
        return from_json(event_type, data) if event_type is not None else dict(data)


@cache
def _event_kinds(cls: type) -> dict[Any, type]:
    """kind -> the first of the class's `event_types` whose `kind` field defaults to it:
    built once per ruleset class, not for each stored event of every archive load, turn
    read and audit."""
    kinds: dict[Any, type] = {}
    for event_type in cls.event_types:
        for f in dataclasses.fields(event_type):
            if f.name == "kind":
                kinds.setdefault(f.default, event_type)
    return kinds


def _renamed_deep(value: Any, old: str, new: str) -> Any:
    """`value` with `old` made `new` as a mapping key and as an item of a tuple or list,
    inside nested mappings, sequences and dataclasses alike."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _renamed_deep(getattr(value, f.name), old, new)
                                             for f in dataclasses.fields(value) if f.init})
    if isinstance(value, Mapping):
        return {(new if key == old else key): _renamed_deep(item, old, new) for key, item in value.items()}
    if isinstance(value, tuple | list):
        items = [new if item == old else _renamed_deep(item, old, new) for item in value]
        return type(value)(items) if isinstance(value, list) or type(value) is tuple else type(value)(*items)
    if isinstance(value, frozenset):
        return frozenset(new if item == old else item for item in value)
    return value
