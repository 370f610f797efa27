"""campaigns/example/ is a campaign a GM can copy and start as it is."""

from __future__ import annotations

import shutil
from pathlib import Path

from gm.campaign.campaign import start
from gm.campaign.config.reading import load_config

REPO = Path(__file__).resolve().parent.parent


def test_example_campaign_loads_from_a_fresh_clone_with_relative_board_paths():
    config = load_config(REPO / "campaigns" / "example")
    assert set(config.boards) == {"A", "B"}
    for path in config.board_files.values():
        assert path.is_relative_to(REPO / "boards")


def test_example_campaign_copied_beside_it_starts_and_queues_welcome_mail(tmp_path):
    shutil.copytree(REPO / "boards", tmp_path / "boards")
    folder = tmp_path / "campaigns" / "spring-2027"
    shutil.copytree(REPO / "campaigns" / "example", folder)
    campaign, issued = start(folder)
    try:
        assert sorted(issued) == sorted(p.id for p in campaign.config.players)
        queued = campaign.store.rows("select kind from outbox")
        assert [r["kind"] for r in queued].count("welcome") == len(issued)
    finally:
        campaign.close()

