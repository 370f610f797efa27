"""The mail the judge sends itself: the list of its games (to `LIST`, and to a message
naming no game or an unknown one) and a sender's record (`RECORD`). Each is an unasked
reply (docs/rules/, Refusal caps), counted a UTC day over the judge: at most 5 to one
address (its +tag ignored), `caps.unasked_per_day` in all. Queued in the judge's outbox
and delivered exactly once, into its Maildir or over SMTP."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from email.utils import parseaddr
from typing import Any

from .. import clock
from ..campaign.desk.trust import (
    CAP_ANY,
    CAP_STRANGER,
    CAPS_NOTE_KIND,
    UNASKED,
    day_start,
    gm_told_today,
)
from ..campaign.outbox import address_key, sent_to_address
from ..campaign.store import DB_NAME
from ..counts import count
from ..mail import maildir
from ..mail.inbound import InboundMail
from ..mail.mailout import compose
from ..mail.oauth import login_for
from ..mail.smtp import send_batch
from ..mail.smtpwire import Outgoing
from ..rules.registry import DEFAULT
from .caps import open_places
from .layout import Judge
from .store import JudgeStore

OWN_FILES = "+judge"  # the judge's outbox files: no campaign id holds a "+"
# the judge's mail belongs to no ruleset: the generic templates, looked up as the default
# ruleset's (which has none of its own for them)
TEMPLATE_RULESET = DEFAULT


class Caps:
    """The judge's caps over one read of its mailbox (docs/rules/, Refusal caps): the
    judge's own replies and those its games sent an address; the GM's own caps note is not
    counted. What the games sent and the places their sign-ups hold open do not change
    while the judge reads its mail (their turns run after), so each is read once a run,
    not once a message: a flood costs one pass over the games."""

    def __init__(self, judge: Judge):
        self.judge = judge
        self._places: int | None = None
        self._games_sent: dict[tuple[str, str], int] = {}

    def capped(self, store: JudgeStore, to: str, now: datetime) -> str | None:
        """Which cap one more unasked reply to `to` today would pass ("address" or
        "campaign"), or None."""
        since, key = day_start(now), address_key(to)
        if (key, since) not in self._games_sent:
            self._games_sent[key, since] = _games_sent(self.judge, to, since)
        to_one = store.one("select count(*) n from outbox where address_key = ? and queued_at >= ? and kind != ?",
                           (key, since, CAPS_NOTE_KIND))["n"] + self._games_sent[key, since]
        if to_one >= CAP_STRANGER:
            return "address"
        in_all = store.one("select count(*) n from outbox where queued_at >= ? and kind != ?",
                           (since, CAPS_NOTE_KIND))["n"]
        if in_all < self.judge.unasked_per_day:
            return None
        if self._places is None:
            self._places = open_places(self.judge)
        return "campaign" if in_all >= self.judge.unasked_per_day + self._places else None


def held_back(store: JudgeStore, listed: int = 10) -> list[str]:
    """For `gm judge DIR status`: the mail the judge's caps left unanswered (kept, never
    lost), counted, and the latest senders."""
    rows = store.rows("select sender, received_at from messages where outcome = 'capped' order by id desc")
    if not rows:
        return []
    lines = [f"CAPS: {count(len(rows), 'message')} not answered past the judge's caps on replies, kept in "
             f"judge.sqlite (messages with outcome 'capped')"]
    return lines + [f"  from {r['sender']}, received {r['received_at']}" for r in rows[:listed]]


def tell_gm_of_caps(db: Any, judge: Judge, cap: str, now: datetime) -> None:
    """The GM's one mail a UTC day saying a judge's cap held replies back (docs/rules/,
    Refusal caps): to the judge's own address, never capped, quoting nobody."""
    if gm_told_today(db, now) is not None:
        return
    context = {"ruleset": TEMPLATE_RULESET, "campaign": judge.title, "title": judge.title, "cap": cap,
               "day": clock.utc_day(now), "per_address": CAP_STRANGER, "per_player": CAP_ANY,
               "per_day": judge.unasked_per_day, "gm_address": judge.mail.address, "site_url": judge.site_url,
               "status_command": f"gm judge {judge.folder} status"}
    message = compose(sender=judge.mail.sender, to=judge.mail.address, template="caps_note", context=context,
                      now=now, auto_reply=True)
    db.execute("insert into outbox (kind, recipient, address_key, message_id, raw, queued_at) "
               "values (?, ?, ?, ?, ?, ?)",
               (CAPS_NOTE_KIND, judge.mail.address, address_key(judge.mail.address), str(message["Message-ID"]),
                message.as_bytes(), clock.iso(now)))


def queue_reply(db: Any, judge: Judge, mail: InboundMail, kind: str, context: dict[str, Any],
                now: datetime) -> None:
    """One reply to the sender alone, quoting nothing the sender wrote."""
    context = {"ruleset": TEMPLATE_RULESET, "campaign": judge.title, "title": judge.title,
               "gm_address": judge.mail.address, "site_url": judge.site_url, **context}
    message = compose(sender=judge.mail.sender, to=mail.sender, template=kind, context=context, now=now,
                      in_reply_to=mail.message_id, references=mail.references, auto_reply=True)
    db.execute("insert into outbox (kind, recipient, address_key, message_id, raw, queued_at) "
               "values (?, ?, ?, ?, ?, ?)",
               (kind, mail.sender, address_key(mail.sender), str(message["Message-ID"]), message.as_bytes(),
                clock.iso(now)))


def send_own(judge: Judge, store: JudgeStore) -> tuple[int, int]:
    """Deliver the judge's queued mail exactly once: (delivered, kept for the next run)."""
    rows = store.rows("select id, recipient from outbox where status = 'queued' order by id")
    if not rows:
        return 0, 0
    if judge.mail.transport == "imap+smtp":
        return _send_smtp(judge, store, rows)
    box = maildir.outbox(judge.folder)
    maildir.make_box(box)
    present = maildir.delivered(box, OWN_FILES, rows[0]["id"], rows[-1]["id"])
    for row in rows:
        if row["id"] not in present:
            raw = store.one("select raw from outbox where id = ?", (row["id"],))["raw"]
            maildir.deliver(box, maildir.file_name(OWN_FILES, row["id"]), raw)
        with store.transaction() as db:
            db.execute("update outbox set status = 'sent', attempts = attempts + 1 where id = ?", (row["id"],))
    return len(rows), 0


def _send_smtp(judge: Judge, store: JudgeStore, rows: list[Any]) -> tuple[int, int]:
    done = {"sent": 0, "kept": 0}

    def messages():
        for row in rows:
            raw = store.one("select raw from outbox where id = ?", (row["id"],))["raw"]
            yield Outgoing(key=str(row["id"]), sender=judge.mail.address,
                           recipients=(parseaddr(row["recipient"])[1],), data=raw)

    def on_outcome(result: Any) -> None:
        status = {"sent": "sent", "permanent": "refused"}.get(result.status, "queued")
        with store.transaction() as db:
            db.execute("update outbox set status = ?, attempts = attempts + 1, error = ? where id = ?",
                       (status, f"{result.code or ''} {result.detail}".strip() or None, int(result.key)))
        done["sent" if status == "sent" else "kept"] += status != "refused"

    send_batch(judge.mail.smtp, login_for(judge.folder, judge.mail, "smtp"), messages(), on_outcome=on_outcome)
    return done["sent"], done["kept"]


def _games_sent(judge: Judge, to: str, since: str) -> int:
    """Unasked replies the judge's games queued to `to`'s address since `since` (their
    players' reports and acknowledgements were asked for: they do not count)."""
    total = 0
    for folder in judge.games():
        path = folder / DB_NAME
        if not path.exists():
            continue
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            total += sent_to_address(conn, to, since, UNASKED)
        except sqlite3.OperationalError:
            pass  # a store from before the caps: nothing counted there
        finally:
            conn.close()
    return total
