"""The one exception family of gm: every refusal a user can meet is a GmError."""

from __future__ import annotations


class GmError(Exception):
    """A refusal with a message meant for the person who ran the command."""


class ProblemsError(GmError):
    """Input with several problems, all of them listed (a bad board or campaign file)."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        super().__init__(f"{source}: " + "; ".join(self.problems))

    def lines(self) -> list[str]:
        return [f"{self.source}: {p}" for p in self.problems]


class BoardError(ProblemsError):
    """A board file that breaks a board's rules or its file format (docs/campaign.md, Board files)."""


class ConfigError(ProblemsError):
    """A campaign.yaml that breaks the CONTRACT.md format."""


class RulesError(GmError):
    """A request the rules cannot carry out (an order for a number not held, a finished game)."""
