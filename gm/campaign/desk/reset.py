"""RESET: a new password mailed to a player's registered address, never to the sender, at
most once a day (docs/rules/, Passwords and RESET)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ... import clock
from ...mail.inbound import InboundMail
from ...mail.mailout import compose
from ...mail.orderlang import OrderText
from ..deadlines import deadline_text
from ..outbox import queue
from ..passwords import hash_password, issue_password
from .outcome import Fate
from .trust import DAY

# The outbox kind of a RESET's new-password mail. Like a welcome it carries a password in
# clear, and `gm send` drops its body once sent (delivery.SECRET_KINDS).
RESET_KIND = "reset"


def reset_password(desk: Any, db: Any, parsed: OrderText, mail: InboundMail, now: datetime) -> Fate:
    """A new password to the player's registered address, never to the sender, at most
    once a day. The old password works until the new one is used, and the sender hears
    nothing either way, so a stranger learns nothing and locks nobody out."""
    player = desk.config.player(parsed.player or "")
    asked = f"RESET from {mail.sender}"
    if player is None:
        return Fate("reset", detail=f"{asked} for {parsed.player[:100]!r}, who does not play: nothing sent")
    last = db.execute("select reset_at from players where id = ?", [player.id]).fetchone()
    if last and last[0] and clock.parse_time(last[0]) > now - DAY:
        return Fate("reset", player=player.id, detail=f"{asked}: a new password was mailed at {last[0]}; nothing sent")
    password = issue_password()
    db["players"].update(player.id, {"pending_password_hash": hash_password(password), "reset_at": clock.iso(now)})
    config = desk.config
    message = compose(
        sender=config.mail.sender,
        to=player.email,
        template="reset",
        context=desk.basics | {
            "deadline": deadline_text(desk.deadline, player.timezone or config.timezone),
            "player": {"id": player.id, "name": player.name},
            "password": password,
        },
        now=now,
        auto_reply=True,
    )
    queue(db, message, kind=RESET_KIND, now=now, player=player.id, turn=desk.turn)
    return Fate("reset", player=player.id, detail=f"{asked}: a new password mailed to {player.email}")
