"""Progress for long runs (sending or ingesting hundreds of messages): a bar on stderr
in the terminal, nothing for a handful of messages or under tests."""

from __future__ import annotations

import sys
from typing import Any

import click

THRESHOLD = 50  # fewer messages than this finish before a bar is worth drawing


class Progress:
    """Counts work done; draws a click progress bar once the total is worth one."""

    def __init__(self, label: str, *, enabled: bool = True):
        self.label = label
        self.enabled = enabled
        self._bar: Any = None

    def start(self, total: int) -> None:
        """Begin a bar for `total` items; a bar already begun goes on (batches of one run)."""
        if self.enabled and self._bar is None and total >= THRESHOLD:
            self._bar = click.progressbar(length=total, label=self.label,
                                          file=sys.stderr)  # CliRunner swaps sys.stderr, so tests see it
            self._bar.__enter__()

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


QUIET = Progress("", enabled=False)
