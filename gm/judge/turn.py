"""`gm judge DIR turn` (docs/deployment.md, A judge): one read of the judge's mailbox,
each message routed into its game's own inbox (where that game's desk reads it with its
limits, caps, loop and duplicate rules) or answered by the judge (LIST, RECORD, an
unknown game); then each game's turn (resolve when due, send, publish), a failing game
reported and skipped while the others go on; then the judge's own mail and its site."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .. import clock
from ..campaign.desk.inbound import message_key
from ..campaign.folder import Campaign
from ..campaign.record import record_of
from ..campaign.store import command_lock
from ..errors import GmError
from ..mail import maildir
from ..mail.inbound import InboundMail, read_mail
from ..weekly.turn import run_turn
from .games import Game, games_of, has_store, one_line
from .imapfetch import fetch_into_inbox
from .layout import Judge
from .replies import Caps, queue_reply, send_own, tell_gm_of_caps
from .routing import LIST, RECORD, Route, Router
from .store import JudgeStore
from .webhooks import deliver, queue_events

READ_LIMIT = 1024 * 1024 + 1  # enough to route; the game's desk reads its own limit


@dataclass
class JudgeRun:
    lines: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    games: list[Game] | None = None  # as they stand after the run, for the site


def judge_turn(judge: Judge) -> JudgeRun:
    run = JudgeRun()
    store = JudgeStore(judge.folder)
    try:
        run.lines.append(read_mailbox(judge, store))
        for folder in judge.games():
            line = _game_turn(folder)
            run.lines.append(f"{folder.name}: {line}")
            if line.startswith("failed:"):
                run.failed.append(folder.name)
        try:
            sent, kept = send_own(judge, store)
        except GmError as error:  # a mail server down: the replies wait for the next run
            run.lines.append(f"judge send: failed, kept for the next run: {error}")
        else:
            run.lines.append(f"judge send: {sent} delivered" + (f", {kept} kept for the next run" if kept else ""))
        run.games = games_of(judge)
        queue_events(judge, store, run.games)
        sent, kept = deliver(store)
        if sent or kept:
            run.lines.append(f"webhooks: {sent} delivered" + (f", {kept} kept for the next run" if kept else ""))
    finally:
        store.close()
    return run


def _game_turn(folder: Path) -> str:
    """One game's turn, in one line; a game that fails is reported, never stops the judge."""
    if not has_store(folder):
        return "not started (gm -C ... start)"
    try:
        # the game's own lock: a `gm -C ... turn` at the same moment waits, then one refuses
        with command_lock(folder):
            campaign = Campaign.open(folder)
            try:
                turn = run_turn(campaign)
            finally:
                campaign.close()
    except Exception as error:  # noqa: BLE001 - a broken game is reported and skipped
        return f"failed: {one_line(error)}"
    return "; ".join(turn.lines)


def read_mailbox(judge: Judge, store: JudgeStore) -> str:
    """The judge's Maildir inbox read once, each message routed or answered."""
    if judge.mail.transport == "imap+smtp":
        fetch_into_inbox(judge)
    box = maildir.inbox(judge.folder)
    maildir.make_box(box)
    found = []
    for sub in ("new", "cur"):
        for name in sorted(os.listdir(box / sub)):
            path = box / sub / name
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                found.append((info.st_mtime, sub, name, path))
    found.sort()
    sources = {f"maildir:{name.split(':', 1)[0]}" for _, _, name, _ in found}
    known = _known(store, sources)
    games = {folder.name: folder for folder in judge.games()}
    router = Router(games, judge.mail.address)
    counts: dict[str, int] = {}
    listing: list | None = None
    caps = Caps(judge)
    for mtime, sub, name, path in found:
        source = f"maildir:{name.split(':', 1)[0]}"
        if source not in known:
            with path.open("rb") as handle:
                raw = handle.read(READ_LIMIT)
            received = datetime.fromtimestamp(mtime, UTC)
            route, outcome, mail = _handle(judge, store, router, raw, source, received)
            if route.game:
                # copied first, recorded then: a run that dies between copies it again
                _hand_over(path, games[route.game], name.split(":", 1)[0])
                _record(store, source, None, "", received, "routed", route.game)
            if outcome == "answer-list" and listing is None:
                listing = games_of(judge)
                outcome = _answer(judge, store, caps, raw, mail, source, route, listing, received)
            elif outcome.startswith("answer"):
                outcome = _answer(judge, store, caps, raw, mail, source, route, listing or [], received)
            counts[outcome] = counts.get(outcome, 0) + 1
        if sub == "new":
            with contextlib.suppress(OSError):
                os.rename(path, box / "cur" / (name + ":2,S"))
    if not counts:
        return "judge ingest: no new mail"
    return "judge ingest: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))


def _known(store: JudgeStore, sources: set[str]) -> set[str]:
    found: set[str] = set()
    listed = sorted(sources)
    for start in range(0, len(listed), 500):
        chunk = listed[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        found.update(r["source"] for r in store.rows(f"select source from messages where source in ({marks})", chunk))
    return found


def _handle(judge: Judge, store: JudgeStore, router: Router, raw: bytes, source: str,
            received: datetime) -> tuple[Route, str, InboundMail]:
    """Where a message goes, and the message as read; one to answer is recorded by
    _answer, one routed once copied."""
    mail = read_mail(raw, own_addresses=[judge.mail.address])
    route = router.route(raw, mail)
    if route.game:
        return route, "routed", mail
    key = message_key(raw, mail)
    if mail.loop or mail.hostile or not mail.sender or mail.unreadable_sender:
        # never answered (docs/rules/, Replies): kept for the GM
        _record(store, source, key, mail.sender, received, "kept", None)
        return route, "kept unanswered", mail
    if store.one("select 1 from messages where message_key = ? limit 1", (key,)):
        _record(store, source, key, mail.sender, received, "seen", None)
        return route, "already seen", mail
    return route, "answer-list" if route.asks != RECORD else "answer-record", mail


def _answer(judge: Judge, store: JudgeStore, caps: Caps, raw: bytes, mail: InboundMail, source: str, route: Route,
            listing: list, received: datetime) -> str:
    key = message_key(raw, mail)
    now = clock.now()
    with store.transaction() as db:
        cap = caps.capped(store, mail.sender, now)
        if cap:
            _record_in(db, source, key, mail.sender, received, "capped", None)
            tell_gm_of_caps(db, judge, cap, now)
            return "capped"
        if route.asks == RECORD:
            kind, context = "judge_record", _record_context(judge, mail.sender)
        else:
            kind, context = "judge_games", {"games": listing, "unknown": route.asks != LIST}
        queue_reply(db, judge, mail, kind, context, now)
        _record_in(db, source, key, mail.sender, received, route.asks or "list", None)
    return "answered " + (route.asks or "list")


def _record_context(judge: Judge, sender: str) -> dict:
    # the sender's own record over the judge's games (docs/deployment.md, The player record)
    return {"record": record_of(judge.folder, sender)}


def _record(store: JudgeStore, source: str, key: str | None, sender: str, received: datetime, outcome: str,
            game: str | None) -> None:
    with store.transaction() as db:
        _record_in(db, source, key, sender, received, outcome, game)


def _record_in(db, source: str, key: str | None, sender: str, received: datetime, outcome: str,
               game: str | None) -> None:
    db.execute("insert or ignore into messages (source, message_key, sender, received_at, outcome, campaign) "
               "values (?, ?, ?, ?, ?, ?)", (source, key, sender, clock.iso(received), outcome, game))


def _hand_over(path: Path, folder: Path, name: str) -> None:
    """A copy into the game's own inbox, under the same name and with the same time of
    receipt: the game's desk reads it as its own mail, and a copy made twice (a run that
    died before recording it) is one message there."""
    box = maildir.inbox(folder)
    maildir.make_box(box)
    tmp = box / "tmp" / name
    shutil.copy2(path, tmp)
    os.rename(tmp, box / "new" / name)
