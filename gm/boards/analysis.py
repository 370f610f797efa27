"""The exact analysis engine's names a house ruleset imports for its own chain
(docs/plugins.md, Board analysis), under the path that page has always given; the engine is
gm.boards.chain and gm.boards.figures, the analysis of every ruleset gm.analysis."""

from .chain import UNTIL as UNTIL
from .chain import Stage as Stage
from .chain import landing_table as landing_table
from .figures import Distribution as Distribution
