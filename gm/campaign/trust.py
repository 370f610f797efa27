"""Whom the order desk believes and answers (RULES.md 3): loops are never answered, a
player is who gives their id, password and registered address, a reply to our refusal or
help counts only when it authenticates, and refusals to one address are capped a day.
gm.campaign.desk applies these to each message; they are its trust rules, kept apart."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from .. import clock
from ..counts import count
from ..mail.inbound import InboundMail
from ..mail.orderlang import OrderText
from ..rules.problem import Problem, problem
from .config import CampaignConfig, PlayerConfig
from .folder import Campaign
from .outcome import Outcome
from .passwords import check_password
from .signup import CODE_KIND, holding_query

# RULES.md 3 "a day", for the refusal caps and RESET: the 24 hours before the message is
# handled (clock.now()), a rolling window, so no burst is allowed at midnight.
DAY = timedelta(hours=24)
# Refusals a day to an address that is not a player's registered one, and to any address.
CAP_STRANGER = 5
CAP_ANY = 20
# The replies anyone can make gm send by forging a sender: they count towards the caps, and
# a message answering one of them is an auto-responder's loop, never answered (a sign-up's
# confirmation code too, RULES.md 3.1: anyone can send a JOIN in another's name).
UNASKED = ("refusal", "help", CODE_KIND)
ADDRESS = re.compile(r"[^@\s]+@[^@\s]+")


def loop_outcome(db: Any, config: CampaignConfig, mail: InboundMail) -> Outcome:
    """Never answered (RULES.md 3). A bounce marks the failed player addresses."""
    detail = mail.loop or ""
    if mail.loop == "bounce":
        failed = {addr.lower() for addr in mail.bounced_recipients}
        for player in config.players:
            if player.email in failed:
                db["players"].update(player.id, {"failing": f"bounce: {mail.subject[:200]}"})
                detail += f"; marks {player.id} failing"
    return Outcome("loop", detail=detail)


def authenticate(campaign: Campaign, db: Any, parsed: OrderText, mail: InboundMail) -> PlayerConfig | None:
    """The player when PLAYER, PASSWORD and the sender all match; else None. The
    password is checked even for an unknown id, so timing tells nothing either. A
    RESET's pending password also matches, and its first use makes it the password."""
    if not parsed.player or parsed.password is None:
        return None
    player = campaign.config.player(parsed.player)
    row = campaign.store.one(
        "select password_hash, pending_password_hash from players where id = ?", (player.id,)
    ) if player else None
    good = check_password(parsed.password, row["password_hash"] if row else None)
    # checked only when a RESET left one: a second scrypt per order would double the cost
    pending = not good and bool(row and row["pending_password_hash"]) and check_password(
        parsed.password, row["pending_password_hash"])
    if not (good or pending) or player is None:
        return None
    if mail.sender != player.email and not campaign.config.allow_other_senders:
        return None
    if pending:
        db["players"].update(player.id, {"password_hash": row["pending_password_hash"],
                                         "pending_password_hash": None})
    return player


def answers_unasked(db: Any, mail: InboundMail) -> str | None:
    """The kind of our refusal or help reply this message's In-Reply-To or References
    names, if any (RULES.md 3): such a reply is answered only when it authenticates.
    Replies to acks, reports and notices are handled as any other message."""
    ids = [i for i in mail.references if i != mail.message_id]
    if not ids:
        return None
    marks = ", ".join("?" * len(ids))
    row = db.execute(
        f"select kind from outbox where message_id in ({marks}) and kind in ({', '.join('?' * len(UNASKED))})"
        " limit 1", [*ids, *UNASKED]).fetchone()
    return row[0] if row else None


def hostile(config: CampaignConfig, reason: str) -> Problem:
    """Why a message was refused unread (RULES.md 3 "Hostile mail")."""
    return problem("hostile", reason=reason, size=_size(config.max_message_bytes))


def capped(db: Any, config: CampaignConfig, to: str, now: datetime) -> str | None:
    """Why no more refusals may go to `to` today (RULES.md 3), or None. An address that
    holds a place by sign-up (RULES.md 3.1) counts as a player's."""
    registered = any(p.email == to for p in config.players) or db.execute(*holding_query(to)).fetchone() is not None
    cap = CAP_ANY if registered else CAP_STRANGER
    sent = db.execute(
        f"select count(*) from outbox where recipient = ? and queued_at > ? and kind in ({', '.join('?' * len(UNASKED))})",
        [to, clock.iso(now - DAY), *UNASKED]).fetchone()[0]
    if sent < cap:
        return None
    who = "a player's registered address" if registered else "an address no player registered"
    return f"not answered: {count(sent, 'refusal')} went to {to}, {who}, in the 24 hours before (cap {cap})"


def _size(n: int) -> str:
    """A byte count as people say it: 1 MiB, 512 KiB."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{round(n / size, 1):g} {unit}"
    return count(n, "byte")
