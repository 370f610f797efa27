"""Moving a piece, as a house ruleset imports it: gm.boards.moving's public names, under the
path docs/plugins.md has always given (a ruleset package written against it keeps working)."""

from ..boards.moving import Aim as Aim
from ..boards.moving import Finish as Finish
from ..boards.moving import Step as Step
from ..boards.moving import aim as aim
from ..boards.moving import bounce as bounce
from ..boards.moving import landing as landing
