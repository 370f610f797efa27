"""`gm board analyze` and `gm board design`: a board analysed by every ruleset that
analyses boards (Ruleset.board_figures) and by one die, and boards designed to the figures
a GM asks for. Above the rulesets: it asks the registry which ones there are."""
