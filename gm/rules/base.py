"""What every ruleset offers the rest of gm.

A ruleset is pure: state and orders in, new state and events out (a state has `turn`, the turn
taking orders, and `over`; the rest is the ruleset's). It reads no clock, file or database, and
every random choice goes through `Chance` (docs/rules/<ruleset>.md, Fairness: seeds and
commitments), so a turn can be previewed, replayed and tested in microseconds. Storage, mail and
reports sit around it and speak to it only through this interface.

`Ruleset` is the composition of the roles in gm.rules.roles, each member documented
there: the rules core (options, start, resolve, end, standings, the state kept), orders
by mail, views for mail, the archive, and board tools; its own body holds the files a
ruleset ships (templates, rules page, boards). A game writes `start`, `resolve`,
`grammar` and `standings` (gm.rules.standings) and its words; everything else has a
working default. This module is the interface's public face: a plugin imports what it
needs from here (docs/plugins.md).
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from ..errors import RulesError
from .chance import Chance, Draw
from .commands import Command, Grammar
from .options import OptionsError
from .problem import Problem
from .roles.archive import (
    INLINE_PLAYERS,
    ArchiveBoard,
    ArchivePicture,
    ArchivePiece,
    ArchiveRules,
    ArchiveStanding,
    ArchiveTurn,
)
from .roles.boards import BoardTools
from .roles.core import Outcome, RulesCore, Setup, last_resolved, renamed, renamed_in, rules_end
from .roles.mailviews import MailViews
from .roles.orders import OrdersByMail
from .standings import BoardStanding, PieceStanding, PlayerStanding, Standings

__all__ = [
    "INLINE_PLAYERS",
    "ArchiveBoard",
    "ArchivePicture",
    "ArchivePiece",
    "ArchiveStanding",
    "ArchiveTurn",
    "BoardStanding",
    "Chance",
    "Command",
    "Draw",
    "Grammar",
    "OptionsError",
    "Outcome",
    "PieceStanding",
    "PlayerStanding",
    "Problem",
    "Ruleset",
    "RulesError",
    "Setup",
    "Standings",
    "last_resolved",
    "renamed",
    "renamed_in",
    "rules_end",
]


class Ruleset(RulesCore, OrdersByMail, MailViews, ArchiveRules, BoardTools, ABC):
    """A rule set (docs/rules/<ruleset>.md), found by `name` through gm.rules.registry."""

    # -- the files a ruleset ships ------------------------------------------------------
    # a folder laid out like gm's templates/ (mail/<name>/..., archive/<name>/...,
    # calendar/<name>/...), searched before gm's own for mail, calendar texts and the
    # archive alike (gm.rules.templating): for a ruleset installed or registered from outside gm
    templates: ClassVar[str | None] = None
    # the ruleset's rules in Markdown: the archive's rules page, attached to help and welcome
    # mail (gm.rules.files.rules_file). None: gm's docs/rules/<name>.md along the lineage
    rules_page: ClassVar[str | None] = None
    # a folder searched before gm's boards/ for `starter_board` and the demo's boards
    # (gm.rules.files.ruleset_board). None: gm's boards/ only
    boards_folder: ClassVar[str | None] = None
    # what gm's generic words call the game (the welcome, the archive's pages, the sender
    # `gm campaign new` writes): "a game of Snakes and Ladders by email"
    game_name: ClassVar[str] = "Snakes and Ladders"
