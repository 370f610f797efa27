"""Orders by mail (docs/rules/<ruleset>.md, Order mail; Commands): the ruleset's commands, merging
one accepted message into the standing order, and who must write.

A game writes `grammar`. With `order_type` declared (a dataclass with a field per
command, named by the keyword in lower case, every field defaulted) the rest has working
defaults: the empty order, its JSON, `merge` (each command sets its field; a command of an
exclusive group clears the others'), `order_complete` (anything given), `in_play` and
`must_order` (read from the standings).
"""

from __future__ import annotations

import dataclasses
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..codec import from_json, to_json
from ..commands import Command, Grammar
from ..problem import Problem

if TYPE_CHECKING:
    from ..standings import Standings
    from .core import Setup

__all__ = ["OrdersByMail"]


def _field_default(item: dataclasses.Field) -> Any:
    if item.default is not dataclasses.MISSING:
        return item.default
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return None


class OrdersByMail(ABC):
    """What the order desk (gm.campaign.desk) and gm.mail.orderlang ask of a ruleset."""

    name: ClassVar[str]
    # the standing order's dataclass: gives empty_order, order_to_json/order_from_json, merge
    order_type: ClassVar[type | None] = None
    # a turn may be resolved before its deadline once every player in play has an accepted message
    # for it (docs/rules/<ruleset>.md, Order mail). False where nobody has to write
    # (docs/rules/classic.md, Commands): a message then says nothing about being ready, so the turn
    # waits for its deadline
    resolves_early: ClassVar[bool] = True
    # True where a player who sends nothing has given a legal order all the same (advanced:
    # MOVE; classic and doubles: no RESIGN): a quiet week is then no sign of an unread
    # mailbox, so `gm resolve`'s "more than half" rule, which guards against one, counts
    # nobody. must_order still says who the rules choose for when silent (reminders)
    silence_is_order: ClassVar[bool] = False

    if TYPE_CHECKING:
        def standings(self, setup: Setup, state: Any) -> Standings: ...

    @abstractmethod
    def grammar(self, options: Any = None) -> Grammar:
        """The order commands this ruleset knows beside the common envelope (GAME,
        PLAYER, PASSWORD, TURN, END, HELP, RESET); `options` None reads as the defaults,
        and the keywords must not depend on them."""

    def offered_now(self, setup: Setup, state: Any) -> tuple[str, ...]:
        """The command forms the open turn takes, as mail lists them (Grammar.offered):
        a notice that asks for orders now (gm resume) offers no command the turn refuses.
        Default: all of them."""
        return self.grammar(setup.options).offered

    def merge(self, setup: Setup, state: Any, player: str, standing: Any,
              commands: Iterable[Command]) -> tuple[Any, list[Problem]]:
        """The standing order with one accepted message's commands applied, and the
        problems that make the message refused whole (gm.rules.problem: codes worded by
        templates/mail/<name>/problems.txt), each on its command's line. Never changes
        `standing`. Default, for a dataclass order: each command sets the field named by its
        keyword in lower case to the value read (a repeatable command's lines make a tuple,
        replacing the standing one), and clears the fields of the other commands of its
        exclusive group (Grammar.exclusive). A command that alone would give the standing
        order a problem of `order_problems` it does not have is refused on its line and
        changes nothing (a RESIGN from a player no longer in play)."""
        grammar = self.grammar(setup.options)
        fields = {f.name: f for f in dataclasses.fields(standing)} if dataclasses.is_dataclass(standing) else {}
        before = self.order_problems(setup, state, player, standing)
        order, listed, problems = standing, set(), []
        for command in commands:
            target = command.keyword.lower()
            if target not in fields:
                raise TypeError(f"the {self.name} ruleset's order has no field {target} for {command.keyword}: "
                                "name a field after each command, or write merge")
            changes = {other.lower(): _field_default(fields[other.lower()])
                       for other in grammar.excluded_by(command.keyword) if other.lower() in fields}
            spec = grammar.spec(command.keyword)
            repeatable = spec is not None and spec.repeatable
            alone = dataclasses.replace(standing, **changes, **{target: (command.value,) if repeatable else command.value})
            new = [why for why in self.order_problems(setup, state, player, alone) if why not in before]
            if new:
                problems += [why.on_line(command.line) for why in new]
                continue
            value = command.value
            if repeatable:
                value = (*(getattr(order, target) if target in listed else ()), value)
                listed.add(target)
            order = dataclasses.replace(order, **changes, **{target: value})
        return order, problems

    def order_problems(self, setup: Setup, state: Any, player: str, order: Any) -> list[Problem]:
        """Why a merged order cannot be played this turn, judged on receipt (empty when
        it can, as by default); what only the go can judge is the resolve's."""
        return []

    def order_view(self, setup: Setup, state: Any, player: str, order: Any) -> dict[str, Any]:
        """What the player's own standing order says, for their eyes only (acks,
        refusals, help, reminders): the ruleset's templates read it. Default: the order's
        JSON (its fields)."""
        return self.order_to_json(order)

    def order_text(self, order: Any) -> str:
        """A standing order in one line for the GM (`gm orders --full`)."""
        return json.dumps(self.order_to_json(order), sort_keys=True)

    # -- who must write (docs/rules/<ruleset>.md, Order mail) ---------------------------

    def empty_order(self) -> Any:
        """The standing order of a player who has sent nothing this turn. Default:
        `order_type` with every field's default."""
        if self.order_type is None:
            raise NotImplementedError(f"the {self.name} ruleset declares no order_type: it writes empty_order")
        return self.order_type()

    def order_to_json(self, order: Any) -> dict[str, Any]:
        """A standing order as stored (and published once revealed). Default: a dataclass
        order's fields (gm.rules.codec)."""
        if dataclasses.is_dataclass(order):
            return to_json(order)
        return dict(order)

    def order_from_json(self, data: Mapping[str, Any]) -> Any:
        """An order read back from order_to_json. Default: the empty order's dataclass."""
        kind = self.order_type or type(self.empty_order())
        return from_json(kind, data) if dataclasses.is_dataclass(kind) else dict(data)

    def in_play(self, setup: Setup, state: Any, player: str) -> bool:
        """Whether the player still takes part in turns (not finished, not resigned): the
        turn waits for their message before its deadline. Default, from the standings:
        the campaign is not over, the player has no place and has not resigned
        (`PlayerStanding.resigned`), and they have a piece not finished on a board not closed."""
        standings = self._standings_now(setup, state)
        facts = standings.players.get(player)
        if standings.over or (facts is not None and (facts.place is not None or facts.resigned)):
            return False
        return any(not board.closed and player in board.pieces and not board.pieces[player].finished
                   for board in standings.boards.values())

    def _standings_now(self, setup: Setup, state: Any) -> Standings:
        """The standings of `state`, made once for it: the turn's statuses ask in_play and
        must_order of every player, and a ruleset on these defaults would otherwise build the
        whole standings per question (quadratic in players). Keyed on the identity of setup
        and state, which are immutable values (a ruleset is pure); both are kept referenced
        with the standings, so their ids cannot be reused by another object."""
        last = self.__dict__.get("_last_standings")
        if last is not None and last[0] is setup and last[1] is state:
            return last[2]
        standings = self.standings(setup, state)
        # through __dict__: a ruleset class may be a frozen dataclass
        self.__dict__["_last_standings"] = (setup, state, standings)
        return standings

    def must_order(self, setup: Setup, state: Any, player: str) -> bool:
        """Whether the player must send something this turn, or have the rules choose for
        them: reminders go to them, and unless `silence_is_order`, `gm resolve` refuses
        when more than half of them have not written (a mailbox not read). Default: in play."""
        return self.in_play(setup, state, player)

    def order_complete(self, setup: Setup, state: Any, player: str, order: Any) -> bool:
        """Whether `order` holds everything the player must send this turn. Default:
        anything at all (the order is not the empty order)."""
        return order != self.empty_order()
