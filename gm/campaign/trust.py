"""Whom the order desk believes and answers (RULES.md 3): loops are never answered, a
player is who gives their id, password and registered address, a reply to our refusal or
help counts only when it authenticates, refusals to one address are capped a day, and a
player's failed password checks are counted a UTC day, past a limit no longer made.
gm.campaign.desk applies these to each message; they are its trust rules, kept apart."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import clock
from ..counts import count
from ..mail.inbound import InboundMail
from ..mail.mailout import compose, queue
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
# docs/rules/postal.md "Passwords and RESET": failed password checks are counted per player
# and UTC day; at TELL_AT the player is told (once a day), and once CHECK_LIMIT have failed
# the player's mail goes unchecked, so a flood of guesses costs at most CHECK_LIMIT scrypts
# a day (two where a RESET's password waits too).
TELL_AT = 20
CHECK_LIMIT = 100
# the outbox kind of the mail that tells a player of the guessing (a notice, as gm player's)
GUESSED_KIND = "notice"


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


def authenticate(campaign: Campaign, db: Any, parsed: OrderText, mail: InboundMail,
                 now: datetime | None = None) -> PlayerConfig | None:
    """The player when PLAYER, PASSWORD and the sender all match; else None. The
    password is checked even for an unknown id, so timing tells nothing either. A
    RESET's pending password also matches, and its first use makes it the password. A
    password that matches neither, for a player who plays, is a failed check, counted for
    the day (whatever the sender; a right password from a wrong sender is no failed
    check). The caller asks `unchecked` first: past CHECK_LIMIT nothing is checked."""
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
        if player is not None:
            _failed(campaign, db, player, now or clock.now())
        return None
    if mail.sender != player.email and not campaign.config.allow_other_senders:
        return None
    if pending:
        db["players"].update(player.id, {"password_hash": row["pending_password_hash"],
                                         "pending_password_hash": None})
    return player


def utc_day(now: datetime) -> str:
    """The calendar day in UTC of `now` (YYYY-MM-DD): the day failed checks count in."""
    return now.astimezone(UTC).date().isoformat()


def failures_today(db: Any, player: str, now: datetime) -> int:
    """The failed password checks counted for `player` on `now`'s UTC day. `db` is a
    connection or a sqlite-utils Database."""
    found = db.execute("select failures from password_failures where player = ? and day = ?",
                       [player, utc_day(now)]).fetchone()
    return found[0] if found else 0


def unchecked(campaign: Campaign, db: Any, parsed: OrderText, now: datetime) -> str | None:
    """Why this message's password is not checked at all, or None (docs/rules/postal.md,
    "Passwords and RESET"): it names a player with CHECK_LIMIT failed checks today. Such
    a message is counted (`unchecked`, for gm status) and refused as a wrong password is,
    so its sender learns nothing, and costs no scrypt."""
    if not parsed.player or parsed.password is None:
        return None
    player = campaign.config.player(parsed.player)
    if player is None:
        return None
    failures = failures_today(db, player.id, now)
    if failures < CHECK_LIMIT:
        return None
    _add(db, player.id, now, "unchecked")
    return (f"password not checked: {count(failures, 'failed password check')} for {player.id} on "
            f"{utc_day(now)} (UTC), the most a day")


def _add(db: Any, player: str, now: datetime, column: str) -> tuple[int, str | None]:
    """One more in `column` (failures or unchecked) of the player's day; returns the day's
    failures and when the player was told."""
    key = [player, utc_day(now)]
    db.execute("insert or ignore into password_failures (player, day, failures, unchecked) values (?, ?, 0, 0)",
               key)
    db.execute(f"update password_failures set {column} = {column} + 1 where player = ? and day = ?", key)
    found = db.execute("select failures, told_at from password_failures where player = ? and day = ?",
                       key).fetchone()
    return found[0], found[1]


def _failed(campaign: Campaign, db: Any, player: PlayerConfig, now: datetime) -> None:
    """Count a failed check; at TELL_AT, tell the player at the registered address, once a
    day. The mail quotes nothing the sender wrote: not the sender, subject or guess."""
    failures, told_at = _add(db, player.id, now, "failures")
    if failures < TELL_AT or told_at is not None:
        return
    day = utc_day(now)
    db.execute("update password_failures set told_at = ? where player = ? and day = ?",
               [clock.iso(now), player.id, day])
    message = compose(
        sender=campaign.config.mail.sender, to=player.email, template="password_failures", now=now,
        context=campaign.mail_basics() | {"player": {"id": player.id, "name": player.name}, "day": day,
                                          "tell_at": TELL_AT, "limit": CHECK_LIMIT},
        auto_reply=True,
    )
    queue(db, message, kind=GUESSED_KIND, now=now, player=player.id, turn=campaign.state().turn)


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
