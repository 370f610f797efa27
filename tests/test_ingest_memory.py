"""`gm ingest` looks up only the mailbox's own messages in the store: the
messages table holds a whole season's mail, and reading every source it held made each
ingest's memory grow with the season. Sizes, not times."""

from __future__ import annotations

import os
import sqlite3
import tracemalloc

from test_ingest_maildir import order

from gm.campaign.folder import Campaign
from gm.campaign.ingest import ingest_maildir

SEASON = 100_000  # messages recorded before: 30 turns of a 2,000-player campaign and more


def test_ingest_holds_the_mailbox_not_the_season_of_mail_recorded_before(campaign):
    with sqlite3.connect(campaign.folder / "gm.sqlite") as db:
        db.executemany("insert into messages (source, outcome) values (?, 'applied')",
                       ((f"maildir:{1700000000 + n}.M{n}P1.mx.example.org",) for n in range(SEASON)))
    inbox = campaign.folder / "mail" / "inbox"
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True, exist_ok=True)
    (inbox / "new" / "1800000000.M1P1.mx.example.org").write_bytes(order("ann", 4))
    (inbox / "cur" / "1700000007.M7P1.mx.example.org:2,S").write_bytes(order("ben", 2))  # recorded

    opened = Campaign.open(campaign.folder)
    try:
        tracemalloc.start()
        try:
            report = ingest_maildir(opened, inbox, delivered=True)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        opened.close()
    assert report.outcomes == {"applied": 1}, report
    assert os.listdir(inbox / "new") == []
    # before: a set of the season's 100,000 sources, built from as many rows, about 30 MB
    assert peak < 4 * 2**20, f"peak {peak / 2**20:.1f} MB"
