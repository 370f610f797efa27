"""What every welcome says of the campaign (gm start's, and a new player's or observer's
later: gm.campaign.admin)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .deadlines import deadline_text
from .entropy import invitation
from .folder import Campaign


def welcome_context(campaign: Campaign, deadline: datetime) -> dict[str, Any]:
    config = campaign.config
    return campaign.mail_basics() | {
        "opening": campaign.opening_view(),
        "deadline": deadline_text(deadline, config.timezone),
        "players": [{"id": p.id, "name": p.name} for p in config.players],
        "seats": (),  # who held a seat when (PlayerMail.seats): nobody yet at the start
        "handover": None,  # a seat's new holder's part (admin.replace_player): none at the start
        "calendar": None,  # the attached calendar file's name (gm.mail.calendar), if any
        "entropy": invitation(campaign.store),  # docs/audit.md, Players' entropy
        "commitments": {
            "game": campaign.row()["game_commitment"],  # docs/audit.md: None for a campaign started before it
            "seed": campaign.row()["seed_commitment"],
            "boards": {r["id"]: r["commitment"] for r in campaign.store.rows("select * from boards")
                       if r["commitment"]},
        },
    }
