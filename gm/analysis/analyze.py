"""Exact game-length analysis of a board for one player alone (`gm board analyze`,
docs/campaign.md): one d6 under three finishes, and each ruleset's own figures
(Ruleset.board_figures: the dice rulesets' lengths here, a ruleset's own chain in its
package). Nothing here is sampled, and no array grows faster than the board: a board may
have 10,000 squares.

Method. Every game here is an absorbing Markov chain over the squares 0..N, observed
once per *period*: one roll for a die, one turn (a go with its extra throws) for the dice
rulesets, or whatever a ruleset's chain says. Two things are asked of it.

* The distribution P(T = t): the probability mass is carried forward period by period
  until the mass still in play is below `until` (default 1e-3; 1e-12 in the tests that
  check the two against each other): every P(T = t) listed is exact, percentiles up to
  p99.9 read it, and the expectation never depends on where it stopped. A throw moves
  the mass of every square at once: shifted by each total (one convolution), then
  scattered through the landing table, a few passes over N numbers. Where a turn can end
  from each square is never tabled: with extra throws it is most of the board (N^2).
* The expectation E[T], and the chance of never finishing on a board that can catch a
  piece for good: the dice games are solved exactly throw by throw (`StepChain`), where
  a state is a square and, for doubles, the double sixes in a row so far, with the few
  moves of one throw out of each; the solve sweeps the states in the order of the
  squares (`sweep_solve`), its memory the snakes open over one square, not N^2. A ruleset's
  own chain (periods of several turns) gives the expected period starts on each square, v =
  e_Start (I - Q)^-1, and E[T] = v . r, r being what a period started on each square
  counts.

Landing follows the rules of boards (docs/campaign.md) through `gm.boards.moving.landing` (effects at most once per
move). Finishes: one die `exact` stays put on a roll past N and wins by ending a move on
N; `bounce` reflects a roll past N back from N (and, on a board shorter than a roll, off
Start again) and wins likewise; `crossing` finishes when p + k > N. `classic` is `bounce`
plus a six rolling again (docs/rules/classic.md), `doubles` two dice with a double throwing again
and the third double six in a row not moved (docs/rules/doubles.md), both counted in turns.
A board where the piece can be caught forever (every way on leads back) has no finite
expected length: `expected` is then None and percentiles beyond the reachable mass too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..boards.chain import UNTIL, AnalysisError, check_size
from ..boards.dicechains import one_die
from ..boards.figures import FINISHES, BoardAnalysis
from ..boards.model import Board
from ..rules.base import Ruleset
from ..rules.registry import loadable


def analysing_rulesets() -> dict[str, Any]:
    """The rulesets that analyse boards (Ruleset.board_figures), by name, in the
    registry's order."""
    found = {}
    for name, ruleset in loadable():  # an installed package that fails to load analyses nothing: a note
        if type(ruleset).board_figures is not Ruleset.board_figures:
            found[name] = ruleset
    return found


def analyze(board: Board, *, until: float = UNTIL, only: Sequence[str] = ()) -> BoardAnalysis:
    """The whole exact analysis of one board (`until`: see `Distribution`); with `only`,
    those rulesets alone (names of `analysing_rulesets`), without one die."""
    rulesets = analysing_rulesets()
    unknown = [name for name in only if name not in rulesets]
    if unknown:
        raise AnalysisError(f"{unknown[0]} does not analyse boards (those that do: {', '.join(rulesets)})")
    check_size(board)
    return BoardAnalysis(
        board=board,
        rulesets={name: r.board_figures(board, until=until) for name, r in rulesets.items()
                  if not only or name in only},
        one_die={} if only else {finish: one_die(board, finish, until=until) for finish in FINISHES},
    )


