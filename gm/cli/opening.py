"""Opening the campaign a command works on (`gm -C DIR`), in a module of its own: every
command module imports it, and it imports no command's core."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import click

from ..campaign.folder import Campaign
from ..campaign.store import command_lock


@contextlib.contextmanager
def opened(ctx: click.Context, *, lock: bool = True) -> Iterator[Campaign]:
    """The campaign of `gm -C DIR`, closed after the command; with `lock`, no other gm
    command works on it meanwhile."""
    folder = Path(ctx.obj["dir"])
    with command_lock(folder) if lock else contextlib.nullcontext():
        campaign = Campaign.open(folder)
        try:
            yield campaign
        finally:
            campaign.close()
