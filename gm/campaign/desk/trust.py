"""Whom the order desk believes and answers (docs/rules/, Order mail): loops are never answered, a
player is who gives their id, password and registered address, a reply to our refusal or
help counts only when it authenticates, the replies anyone can make gm send are capped a
day (docs/rules/, Refusal caps), and a player's failed password checks are counted a UTC
day, past a limit no longer made. gm.campaign.desk.inbound applies these to each message; they
are its trust rules, kept apart."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ... import clock
from ...counts import count
from ...mail.inbound import InboundMail
from ...mail.mailout import compose
from ...mail.orderlang import OrderText
from ...rules.problem import Problem, problem
from ..config.values import CampaignConfig, PlayerConfig
from ..folder import Campaign
from ..judgecaps import judge_sent
from ..outbox import (
    address_key,
    first_queued_at,
    kind_answered,
    queue,
    sent_to_address,
    unasked_since,
)
from ..passwords import check_password
from ..signup.standing import CODE_KIND, IN, WAITING_LIST, holding_query, places, waiting_room
from .outcome import Fate

# RESET's "a day": the 24 hours before the message is handled (clock.now()), a rolling
# window, so no burst is allowed at midnight.
DAY = timedelta(hours=24)
# Unasked replies a UTC day to one address (its +tag dropped): one no player registered,
# and a player's. In all, to addresses no player registered: UNASKED_PER_DAY (campaign.yaml
# caps.unasked_per_day) plus the places sign-up still has open, so an announced game
# answers every real joiner and a flood of forged senders costs bounded mail.
CAP_STRANGER = 5
CAP_ANY = 20
UNASKED_PER_DAY = 200
# The replies anyone can make gm send by forging a sender: they count towards the caps, and
# a message answering one of them is an auto-responder's loop, never answered (a sign-up's
# confirmation code too, docs/rules/, Joining by mail: anyone can send a JOIN in another's name).
UNASKED = ("refusal", "help", CODE_KIND)
# The GM's own mail saying a cap was reached, once a UTC day (templates/mail/caps_note.*)
CAPS_NOTE_KIND = "caps-note"
ADDRESS = re.compile(r"[^@\s]+@[^@\s]+")
# docs/rules/, "Passwords and RESET": failed password checks are counted per player
# and UTC day; at TELL_AT the player is told (once a day), and once CHECK_LIMIT have failed
# the player's mail goes unchecked, so a flood of guesses costs at most CHECK_LIMIT scrypts
# a day (two where a RESET's password waits too).
TELL_AT = 20
CHECK_LIMIT = 100
# the outbox kind of the mail that tells a player of the guessing (a notice, as gm player's)
GUESSED_KIND = "notice"


def loop_outcome(db: Any, config: CampaignConfig, mail: InboundMail) -> Fate:
    """Never answered (docs/rules/, Order mail). A bounce marks the failed player addresses."""
    detail = mail.loop or ""
    if mail.loop == "bounce":
        failed = {addr.lower() for addr in mail.bounced_recipients}
        for player in config.players:
            if player.email in failed:
                db["players"].update(player.id, {"failing": f"bounce: {mail.subject[:200]}"})
                detail += f"; marks {player.id} failing"
    return Fate("loop", detail=detail)


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


def failures_today(db: Any, player: str, now: datetime) -> int:
    """The failed password checks counted for `player` on `now`'s UTC day. `db` is a
    connection or a sqlite-utils Database."""
    found = db.execute("select failures from password_failures where player = ? and day = ?",
                       [player, clock.utc_day(now)]).fetchone()
    return found[0] if found else 0


def unchecked(campaign: Campaign, db: Any, parsed: OrderText, now: datetime) -> str | None:
    """Why this message's password is not checked at all, or None (docs/rules/,
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
            f"{clock.utc_day(now)} (UTC), the most a day")


def _add(db: Any, player: str, now: datetime, column: str) -> tuple[int, str | None]:
    """One more in `column` (failures or unchecked) of the player's day; returns the day's
    failures and when the player was told."""
    key = [player, clock.utc_day(now)]
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
    day = clock.utc_day(now)
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
    names, if any (docs/rules/, Order mail): such a reply is answered only when it authenticates.
    Replies to acks, reports and notices are handled as any other message."""
    return kind_answered(db, [i for i in mail.references if i != mail.message_id], UNASKED)


def hostile(config: CampaignConfig, reason: str) -> Problem:
    """Why a message was refused unread (docs/rules/, Size limits and hostile mail)."""
    return problem("hostile", reason=reason, size=_size(config.max_message_bytes))


def day_start(now: datetime) -> str:
    """The start of `now`'s UTC day as the store writes times: the caps count from there."""
    return clock.iso(now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0))


def registered(db: Any, config: CampaignConfig, address: str) -> bool:
    """Whether `address` is a player's (or holds a place by sign-up: docs/rules/, Joining by mail)."""
    return (any(p.email == address for p in config.players)
            or db.execute(*holding_query(address)).fetchone() is not None)


def unasked_cap(db: Any, config: CampaignConfig, started: bool) -> int:
    """How many unasked replies a UTC day may go to addresses no player registered: the
    campaign's own number plus the places sign-up still has open (in, and waiting)."""
    cap = config.caps_unasked_per_day
    if config.signup is None or started:
        return cap
    marks = ", ".join("?" * (1 + len(WAITING_LIST)))
    held = dict(db.execute(f"select status, count(*) from signups where status in ({marks}) group by status",
                           (IN, *WAITING_LIST)).fetchall())
    free, room = places(config), waiting_room(config)
    waiting = sum(held.get(status, 0) for status in WAITING_LIST)
    return (cap + (0 if free is None else max(0, free - held.get(IN, 0)))
            + (0 if room is None else max(0, room - waiting)))


@dataclass(frozen=True)
class Capped:
    """Why one more unasked reply may not go today: `cap` which (address or campaign)."""

    cap: str
    reason: str


def capped(db: Any, config: CampaignConfig, to: str, now: datetime, *, started: bool,
           player: bool) -> Capped | None:
    """Why no more unasked replies may go to `to` today, or None. `player`: whether `to`
    is registered (registered())."""
    day = day_start(now)
    key = address_key(to)
    cap = CAP_ANY if player else CAP_STRANGER
    # a judge's game counts the judge's own replies to the address too (counted over the judge)
    sent = sent_to_address(db, to, day, UNASKED) + judge_sent(config.mail.judge, key, day)
    if sent >= cap:
        who = "a player's registered address" if player else "an address no player registered"
        shown = to if key == to.lower() else f"{to} ({key} with its +tag dropped)"
        return Capped("address", f"not answered: {count(sent, 'reply', 'replies')} anyone could ask for went to "
                                 f"{shown}, {who}, this UTC day (cap {cap})")
    if player:
        return None
    limit = unasked_cap(db, config, started)
    total = unasked_since(db, day)
    if total >= limit:
        return Capped("campaign", f"not answered: {count(total, 'reply', 'replies')} anyone could ask for went to "
                                  f"addresses no player registered this UTC day (cap {limit})")
    return None


def gm_told_today(db: Any, now: datetime) -> str | None:
    """When the GM was mailed today that a cap held replies back, if they were. `db` is
    anything with execute(): the desk's transaction, or the store's connection."""
    return first_queued_at(db, CAPS_NOTE_KIND, day_start(now))


def capped_today(db: Any, now: datetime) -> tuple[int, str | None]:
    """For gm status: messages not answered for a cap this UTC day, and when the GM was told."""
    kept = db.execute("select count(*) from messages where outcome = 'capped' and ingested_at >= ?",
                      (day_start(now),)).fetchone()[0]
    return kept, gm_told_today(db, now)


def _size(n: int) -> str:
    """A byte count as people say it: 1 MiB, 512 KiB."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{round(n / size, 1):g} {unit}"
    return count(n, "byte")
