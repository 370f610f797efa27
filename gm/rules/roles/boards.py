"""Board tools: how a ruleset reads board files, makes a campaign's boards, and analyses
a board (gm board check, gm board analyze, gm board design, gm campaign new).

Every member has a default: a ruleset on gm's plain boards (docs/rules/<ruleset>.md, The board)
writes none."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from ...boards.board import board_from_data
from ...boards.model import Board
from ...errors import BoardError
from ...yamlfile import read

__all__ = ["BoardTools"]


class BoardTools:
    """A ruleset's declarations and defaults for boards."""
    board_keys: ClassVar[tuple[str, ...]] = ()  # extra keys a board file may have
    # only N is public until the reveal (docs/rules/<ruleset>.md, The board)
    hidden_boards: ClassVar[bool] = False
    # a board file's `chains:` when absent; whether campaign.yaml may leave `boards` out
    # (then `campaign_boards` makes the default board)
    board_chains: ClassVar[bool] = False
    board_listed: ClassVar[bool] = False  # item ids follow the file's order (unleashed 6.15)
    boards_optional: ClassVar[bool] = False
    # whether gm start commits to each board (docs/rules/<ruleset>.md, Fairness: seeds and
    # commitments); a ruleset whose board is public and dealt from the seed (6.12) commits to the
    # seed alone. The welcome mail speaks of board commitments only when it is true
    commits_boards: ClassVar[bool] = True
    # the options block of `gm campaign new`'s starter campaign.yaml: two-space indented
    # `key: default  # comment` lines, each ending in a newline
    starter_options: ClassVar[str] = ""
    # the board file that `gm campaign new` copies into the new campaign
    starter_board: ClassVar[str] = "milton-bradley.yaml"
    one_board: ClassVar[bool] = False  # exactly one board per campaign (docs/rules/<ruleset>.md)

    def board_from_data(self, data: Any, source: str) -> Board:
        """A board file's parsed YAML read with this ruleset's keys and defaults: gm's own
        reader's, or a plain mapping from any YAML reader (its problems then name no line);
        raises BoardError. `source` names the file in problems."""
        return board_from_data(data, source, self.board_keys, self.board_chains, self.board_listed)

    def read_board(self, path: Any) -> Board:
        """A board file read with this ruleset's keys and defaults; raises BoardError."""
        return self.board_from_data(read(Path(path), BoardError), str(path))

    def campaign_boards(self, boards: Mapping[str, Board], players: int,
                        options: Any) -> tuple[dict[str, Board], list[str]]:
        """The boards the campaign plays (campaign.yaml's, made sound for this ruleset, or its
        default when `boards` is left out) and what is wrong with them beyond
        docs/rules/<ruleset>.md, The board, given the number of players and the options."""
        return dict(boards), []

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
