"""The published archive, phase two: render the pages `archive.build_site` made
(gm.publish.render) and write only those whose bytes changed, each by an atomic rename,
so a reader never sees half a page and a weekly publish touches only the pages the turn
changed."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..campaign.signup.standing import refresh
from ..rules.files import lineage
from .archive import build_site, player_page
from .archive_load import load_archive
from .archive_values import Page
from .memo import Memo
from .render import render_page
from .signup import load_signup, signup_site


@dataclass(frozen=True)
class WriteReport:
    written: tuple[str, ...]
    unchanged: tuple[str, ...]


def write_site(pages: Iterable[Page], out: Path, memo: Memo | None = None) -> WriteReport:
    """Write every page under `out`; a page whose file already holds the same bytes is
    left alone (its modification time too), and one the memo knows to be so is not even
    rendered."""
    out.mkdir(parents=True, exist_ok=True)
    written, unchanged = [], []
    for page in pages:
        if memo is not None and memo.fresh(page):
            unchanged.append(page.path)
            continue
        data = render_page(page)
        target = out / page.path
        try:
            same = target.read_bytes() == data
        except FileNotFoundError:
            same = False
        if same:
            unchanged.append(page.path)
            if memo is not None:
                memo.keep_page(page)
            continue
        handle, temporary = tempfile.mkstemp(dir=out, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        written.append(page.path)
        if memo is not None:
            memo.keep_page(page)
    return WriteReport(tuple(written), tuple(unchanged))


def publish(campaign, out: Path | None = None) -> tuple[Path, WriteReport]:
    """Build and write a campaign's archive (default: DIR/archive); before the start, the
    game's front page for those joining by mail (docs/campaign.md, signup)."""
    out = out or campaign.folder / "archive"
    if not campaign.started() and campaign.config.signup is not None:
        refresh(campaign)  # campaign.yaml as it is now: the page tells it
        return out, write_site(signup_site(load_signup(campaign)), out)
    memo = Memo(campaign.store, out, lineage(campaign.ruleset))
    data = load_archive(campaign, memo)
    pages = build_site(data)
    report = write_site(pages, out, memo)
    memo.save(len(data.summaries), (page.path for page in pages))
    # a seat handed on (gm player replace) is told on its new holder's page: the former
    # holder's own page would stand frozen at the turn it was last written
    kept = {page.path for page in pages}
    for former in campaign.seat_holders():
        stale = out / player_page(former)
        if stale.name not in kept:
            stale.unlink(missing_ok=True)
    # a campaign the GM ended (gm end) leaves the page named for the turn that was open,
    # which no turn will ever fill: it must not go on saying that turn is open
    if data.over:
        for stale in out.glob("turn-*.html"):
            if stale.name not in kept:
                stale.unlink(missing_ok=True)
    return out, report
