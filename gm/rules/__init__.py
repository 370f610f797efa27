"""The rulesets and their interface (gm.rules.base.Ruleset; docs/plugins.md).

`OptionsError` is the one error a ruleset's `parse_options` raises for bad options.
"""

from .options import OptionsError

__all__ = ["OptionsError"]
