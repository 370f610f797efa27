"""The order desk (docs/rules/, Order mail; Orders, the deadline and missed turns): one
inbound mail in, exactly one outcome recorded and at most one reply queued, all in one
transaction.

Authentication failures get one reply text whatever the cause, so a stranger learns
nothing about who plays. Loop-prone mail (auto-replies, bulk, bounces, our own, replies to
our refusals that do not authenticate) and mail with no address to answer are recorded and
never answered; refusals to one address are capped, so gm cannot be made to mail-bomb anyone.
Those trust rules are gm.campaign.desk.trust's; the desk applies them to each message.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from ... import clock
from ...mail.inbound import InboundMail, read_mail
from ...mail.orderlang import OrderText
from ...mail.typos import near_miss
from ...rules.grammar import ruleset_keywords
from ...rules.problem import Problem, problem
from ..away import carry_out, game_commands, judge, with_requests
from ..deadlines import deadline_text
from ..digests import body_digest
from ..entropy import entropy_problem, keep_entropy, receipted_order
from ..folder import Campaign
from ..passwords import check_password
from ..press import press_apart, press_plan, press_reply, sent_press
from ..proof import order_receipt, written_count
from ..signup.desk import SignupDesk
from ..standing import merged_order, order_view, standing_order
from ..store import dumps, insert
from .outcome import Fate, kept_reply, noted
from .reply import Replier
from .reset import reset_password
from .trust import (
    ADDRESS,
    CHECK_LIMIT,
    answers_unasked,
    authenticate,
    failures_today,
    hostile,
    loop_outcome,
    unchecked,
)


def message_key(raw: bytes, mail: InboundMail) -> str:
    """The Message-ID, or for mail without one a stable id made from its bytes."""
    return mail.message_id or f"<sha256-{hashlib.sha256(raw).hexdigest()[:32]}@gm.invalid>"


class Desk(Replier):
    """Handles order mail for one opened campaign."""

    def __init__(self, campaign: Campaign):
        self.campaign = campaign
        self.config = campaign.config
        # mail changes orders, never the state or the deadline: read them once per batch.
        # Before gm start there are neither, and the mail is sign-up mail (docs/rules/, Joining by mail).
        self.started = campaign.started()
        self.state = campaign.state() if self.started else None
        self.deadline = campaign.deadline() if self.started else None
        # what every reply says of the campaign: mail_basics reads the whole campaign row,
        # state and all, so once per batch too
        self.basics = campaign.mail_basics() if self.started else None
        self.signups = SignupDesk(self)
        self._keywords: frozenset[str] | None = None
        self._read_ahead: dict[int, tuple[bytes, InboundMail]] = {}
        # docs/audit.md's receipts, for a campaign started with a game commitment
        self._proof = self.basics is not None and bool(self.basics["game_commitment"])

    @property
    def turn(self) -> int | None:
        """The turn mail is recorded under: the one taking orders (None before the start)."""
        return self.state.turn if self.state is not None else None

    # -- the whole of one message ------------------------------------------------------

    def check_passwords_ahead(self, raws: Sequence[bytes]) -> None:
        """Check, on every core at once, the password each of these messages gives, before
        they are handled one by one in order. A password check is a scrypt (docs/rules/, Order mail:
        salted and slow, tens of milliseconds), remembered for the run (check_password),
        and most of a turn's ingest; scrypt runs outside the GIL, so threads share it out.
        Nothing is decided or recorded here: `handle` decides each message as before, its
        password check now remembered. Each message read here is not read again."""
        workers = min(4, len(os.sched_getaffinity(0)))
        pairs = set()
        # docs/rules/ "Passwords and RESET": no player's passwords are checked
        # past the day's failed checks, here either: at most that many are checked ahead
        # per player (a right one beyond is checked by `handle` when its turn comes)
        room: dict[str, int] = {}
        now = clock.now()
        for raw in raws:
            mail = self._read(raw)
            self._read_ahead[id(raw)] = (raw, mail)
            if mail.loop or mail.hostile or mail.oversize:
                continue
            parsed = self._orders(mail)
            if parsed.player and parsed.password is not None:
                player = self.config.player(parsed.player)
                row = self.campaign.store.one("select password_hash from players where id = ?",
                                              (player.id,)) if player else None
                pair = (parsed.password, row["password_hash"] if row else None)
                if player is not None and pair not in pairs:
                    if player.id not in room:
                        room[player.id] = CHECK_LIMIT - failures_today(self.campaign.store.conn, player.id, now)
                    if room[player.id] <= 0:
                        continue
                    room[player.id] -= 1
                pairs.add(pair)
        if workers > 1 and len(pairs) > 1:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(lambda pair: check_password(*pair), pairs))
        else:
            for pair in pairs:
                check_password(*pair)

    def _orders(self, mail: InboundMail) -> OrderText:
        grammar = with_requests(self.campaign.ruleset.grammar(self.campaign.setup.options))
        return press_apart(mail.text, grammar, self._other_keywords())

    def forget_read_ahead(self) -> None:
        self._read_ahead.clear()

    def _read(self, raw: bytes) -> InboundMail:
        ahead = self._read_ahead.pop(id(raw), None)
        if ahead is not None and ahead[0] is raw:
            return ahead[1]
        return read_mail(
            raw, own_addresses=[self.config.mail.address], max_text=self.config.max_order_text,
            max_bytes=self.config.max_message_bytes,
        )

    def handle(self, raw: bytes, *, source: str, received_at: datetime | None = None) -> Fate:
        """Record one message and its outcome, and queue its one reply, in one transaction.
        A source already recorded is skipped (a rerun after a crash)."""
        store = self.campaign.store
        if store.one("select id from messages where source = ?", (source,)):
            self._read_ahead.pop(id(raw), None)
            return Fate("seen")
        mail = self._read(raw)
        key = message_key(raw, mail)
        digest = body_digest(raw)
        received = received_at or mail.received_at or clock.now()
        now = clock.now()
        # docs/rules/, Order mail: seen before only when Message-ID, sender and body all match; a stranger
        # reusing a player's Message-ID is a message of its own, handled as any other
        duplicate = store.one(
            "select id from messages where message_id = ? and sender = ? and body_sha256 = ?",
            (key, mail.sender, digest),
        ) is not None
        outcome = None
        try:
            outcome = self._record(store, raw, source, mail, key, digest, received, now, duplicate)
        finally:
            self.signups.settled(outcome is not None)  # committed, or rolled back by an error
        return outcome

    def _record(self, store: Any, raw: bytes, source: str, mail: InboundMail, key: str, digest: str,
                received: datetime, now: datetime, duplicate: bool) -> Fate:
        with store.transaction() as db:
            row = insert(db, "messages", {
                "message_id": key,
                "source": source,
                "received_at": clock.iso(received),
                "ingested_at": clock.iso(now),
                "sender": mail.sender,
                "subject": mail.subject[:500],
                "raw": raw,
                "body_sha256": digest,
                "outcome": "pending",
                "turn": self.turn,
            })
            if duplicate:
                # docs/rules/, Order mail: the same message is never applied twice; its first copy was answered
                outcome = Fate("duplicate", detail=f"Message-ID {key} with the same sender and body seen before")
            else:
                outcome = self._decide(db, mail, row, received, now)
            # plain SQL: sqlite-utils' update() would first read the row back, raw mail and all
            db.execute("update messages set outcome = ?, player = ?, detail = ? where id = ?",
                       (outcome.outcome, outcome.player, outcome.detail, row))
        return outcome

    def record_failure(self, raw: bytes, *, source: str, received_at: datetime | None, error: Exception) -> None:
        """Keep a message the desk could not handle (a fault of ours, not the sender's):
        raw and unanswered, shown to the GM by `gm status`, never lost."""
        now = clock.now()
        with self.campaign.store.transaction() as db:
            if db["messages"].count_where("source = ?", [source]):
                return
            db["messages"].insert(
                {
                    "message_id": f"<error-{hashlib.sha256(raw).hexdigest()[:32]}@gm.invalid>",
                    "source": source,
                    "received_at": clock.iso(received_at or now),
                    "ingested_at": clock.iso(now),
                    "sender": "",
                    "subject": "",
                    "raw": raw,
                    "outcome": "error",
                    "turn": self.turn,
                    "detail": f"{type(error).__name__}: {error}"[:2000],
                }
            )

    def _decide(self, db: Any, mail: InboundMail, message_row: int, received: datetime, now: datetime) -> Fate:
        if mail.loop:
            return loop_outcome(db, self.config, mail)
        if not ADDRESS.fullmatch(mail.sender):
            # nobody to answer (today's reply would go to "" or to a bare word)
            why = (f"no usable sender ({mail.unreadable_sender or repr(mail.sender[:200])})"
                   + (f"; {mail.broken[:500]}" if mail.broken else ""))
            return Fate("unreadable", detail=why)
        # docs/rules/, Order mail: a reply to our refusal or help is a person correcting an order, or an
        # auto-responder that ignores Auto-Submitted; only the password tells them apart
        answered = answers_unasked(db, mail)
        if answered and (mail.hostile or mail.oversize):
            return kept_reply(answered)
        reply_to = mail.sender
        unread = (hostile(self.config, mail.hostile) if mail.hostile else
                  problem("too_long", characters=self.config.max_order_text) if mail.oversize else None)
        if unread is not None and not self.started:
            # before the start every mail is sign-up mail: refused in its words
            outcome = self.signups.refuse(db, mail, now, [unread])
            if mail.hostile and outcome.outcome == "refused":
                outcome.outcome = "hostile"
            return outcome
        if mail.hostile or mail.oversize:
            return self.reply(db, mail, now, to=reply_to, template="refusal",
                              outcome="hostile" if mail.hostile else "refused",
                              context={"problems": self.words([unread], stranger=True), "authenticated": False,
                                       "ignored": [],
                                       **self.refusal_facts([], self.state)})
        request = self.signups.wants(mail)
        if request is not None:
            return self.signups.handle(db, mail, request, message_row, received, now, answered)
        parsed = self._orders(mail)
        if not self.started:
            return self._before_start(db, mail, parsed, now, answered)
        if parsed.reset and not parsed.problems and not answered:
            return reset_password(self, db, parsed, mail, now)
        # docs/rules/ "Passwords and RESET": past the day's failed checks the
        # password is not checked, and the message is refused as a wrong one
        not_checked = unchecked(self.campaign, db, parsed, now)
        player = None if not_checked else authenticate(self.campaign, db, parsed, mail, now)
        if answered and player is None:
            return noted(kept_reply(answered), not_checked)
        has_orders = bool(parsed.commands or parsed.turn is not None)
        if player is None:
            # nobody vouches for the sender: the reply quotes nothing it wrote, so gm relays no
            # text to whatever address a forger puts in From (docs/rules/, Replies)
            if parsed.help and not has_orders and not parsed.player and not parsed.password:
                return self.reply(db, mail, now, to=reply_to, template="help", outcome="help",
                                   context={"order": None, "ignored": []})
            problems = [*(p.why for p in parsed.problems), problem("unknown_sender")]
            return noted(self.reply(db, mail, now, to=reply_to, template="refusal", outcome="refused",
                                     context={"problems": self.words(problems, stranger=True), "authenticated": False,
                                              "ignored": [], **self.refusal_facts(problems, self.state)}),
                          not_checked)
        return self._from_player(db, mail, parsed, player, message_row, received, now)

    def _from_player(self, db: Any, mail: InboundMail, parsed: OrderText, player: Any, message_row: int,
                     received: datetime, now: datetime) -> Fate:
        """An authenticated player's message: help, a refusal saying every problem found, or
        the order applied and acknowledged with its receipt."""
        syntax = [p.why for p in parsed.problems]
        ignored = [{"line": n, "text": t} for n, t in parsed.ignored]
        has_orders = bool(parsed.commands or parsed.turn is not None or parsed.entropy is not None)
        state = self.state
        email = player.email
        zone = player.timezone or self.config.timezone
        who = {"id": player.id, "name": player.name}
        press_only = bool(parsed.press) and not has_orders
        if parsed.help and not has_orders and not syntax and not parsed.press:
            return self.reply(db, mail, now, to=email, template="help", outcome="help", player=player.id, zone=zone,
                               context={"order": order_view(self.campaign, player.id, self.state), "ignored": ignored,
                                        "player": who})
        # press is relayed whatever the deadline (docs/rules/, Order mail: Press)
        problems = syntax + [p for p in self._game_problems(parsed, state, received, zone)
                             if not (press_only and p.code == "late")]
        # ABSENCE and EXTEND (docs/rules/, Absences and extension votes): judged now, done with the rest
        away_plan = judge(self.campaign, state, player, parsed.commands, now)
        problems += away_plan.problems if away_plan is not None else []
        if parsed.entropy is not None:  # docs/audit.md, What the GM cannot choose
            problems += [p for p in [entropy_problem(self.campaign.store, parsed.entropy)] if p]
        order, receipt = standing_order(self.campaign, state.turn, player.id)
        new_order = order
        if self.campaign.dropped(player.id):
            # nothing they send counts any more, so the lines are not judged against the game
            problems.append(problem("dropped", gm=self.config.mail.address))
        elif not state.over:
            if self.campaign.paused() and not press_only:
                # refused however good the order; the other problems are still worth knowing
                problems.append(problem("paused"))
            new_order, found = merged_order(self.campaign, state, player.id, order, game_commands(parsed.commands))
            problems += found
        plan = press_plan(self.campaign, db, player, parsed.press, now, problems) if parsed.press else None
        if not has_orders and not problems and not parsed.press:
            grammar = self.campaign.ruleset.grammar(self.campaign.setup.options)
            problems.append(problem("no_order", commands=list(grammar.keywords)))
        if problems:
            return self.reply(db, mail, now, to=email, template="refusal", outcome="refused", player=player.id,
                               zone=zone, context={"problems": self.words(problems), "authenticated": True,
                                                   "ignored": ignored, "player": who,
                                                   "order": order_view(self.campaign, player.id, self.state),
                                                   **self.refusal_facts(problems, state)})
        away = carry_out(self, db, away_plan, player, now) if away_plan is not None else None
        if press_only:
            return press_reply(self, db, mail, player, plan, now)
        if away_plan is not None and not game_commands(parsed.commands):
            return self.reply(db, mail, now, to=email, template="away_ack", outcome="applied", player=player.id,
                               zone=zone, context={"away": away, "player": who, "ignored": ignored,
                                                   "press": sent_press(self, db, player, plan, now)})
        return self._apply(db, mail, parsed, player, new_order, receipt, message_row, now, plan, away)

    def _apply(self, db: Any, mail: InboundMail, parsed: OrderText, player: Any, new_order: Any, receipt: int,
               message_row: int, now: datetime, plan: Any = None, away: dict[str, Any] | None = None) -> Fate:
        """The order stands: recorded with its receipt, and acknowledged."""
        state = self.state
        zone = player.timezone or self.config.timezone
        ignored = [{"line": n, "text": t} for n, t in parsed.ignored]
        who = {"id": player.id, "name": player.name}
        standing = self.campaign.ruleset.order_to_json(new_order)
        # docs/audit.md: the receipt of the whole standing order after this message, which the
        # player keeps and an audit holds against the order the record says was played
        # k counts this player's own accepted messages for the turn (docs/audit.md): a seat's new
        # holder inherits her predecessor's rows with the order, not his count
        written = written_count(self.campaign.store, state.turn, player.id) + 1
        if parsed.entropy is not None:
            keep_entropy(db, player.id, parsed.entropy, message_row)
        receipt_hash = (order_receipt(self.campaign.setup.seed, state.turn, player.id, written,
                                      receipted_order(self.campaign.store, player.id, standing))
                        if self._proof else None)
        insert(db, "orders", {
            "turn": state.turn,
            "player": player.id,
            "receipt": receipt + 1,
            "message": message_row,
            "standing": dumps(standing),
            "receipt_hash": receipt_hash,
        })
        view = order_view(self.campaign, player.id, self.state)
        complete = self.campaign.ruleset.order_complete(self.campaign.setup, state, player.id, new_order)
        return self.reply(db, mail, now, to=player.email, template="ack", outcome="applied", player=player.id, zone=zone,
                           context={"order": view, "replaces": receipt or None, "ignored": ignored,
                                    "player": who, "help": parsed.help, "complete": complete,
                                    "receipt_hash": receipt_hash, "away": away,
                                    "press": sent_press(self, db, player, plan, now)},
                           # count: acknowledgements sent by one ingest share their Date, so gm
                           # audit --mail orders them by it to find the player's last
                           proof=[("X-GM-Receipt", f"turn={state.turn}; player={player.id}; count={written}; "
                                                   f"receipt={receipt_hash}")]
                           if receipt_hash else ())

    def _before_start(self, db: Any, mail: InboundMail, parsed: OrderText, now: datetime,
                      answered: str | None) -> Fate:
        """Mail that is no sign-up before the start (docs/rules/, Joining by mail): HELP says how to join;
        an order is refused, there being no game yet; a RESET finds nobody to mail."""
        if answered:
            return kept_reply(answered)  # nothing before the start authenticates
        if parsed.reset and not parsed.problems:
            return Fate("reset", detail=f"RESET from {mail.sender} before the start: nothing sent")
        if parsed.help and not parsed.commands and not parsed.player and not parsed.password:
            return self.signups.help(db, mail, now)
        found = [*(p.why for p in parsed.problems), problem("not_started", campaign=self.config.id)]
        return self.signups.refuse(db, mail, now, found)

    # -- parts ------------------------------------------------------------------------

    def _other_keywords(self) -> frozenset[str]:
        """gm's own rulesets' command keywords (docs/rules/, Commands), worked out once per batch:
        never an installed package's, which would import every package on the host into
        this campaign's ingest (gm.rules.grammar.ruleset_keywords)."""
        if self._keywords is None:
            self._keywords = ruleset_keywords()
        return self._keywords

    def _game_problems(self, parsed: OrderText, state: Any, received: datetime, zone: str) -> list[Problem]:
        problems = []
        if parsed.game is not None and parsed.game.casefold() != self.config.id.casefold():
            problems.append(problem("other_game", parsed.lines.get("GAME"), game=parsed.game, campaign=self.config.id,
                                    meant=near_miss(parsed.game, self.config.id)))
        if state.over:
            problems.append(problem("campaign_over"))
            return problems
        if parsed.turn is not None and parsed.turn != state.turn:
            problems.append(problem("wrong_turn", parsed.lines.get("TURN"), turn=parsed.turn, open=state.turn))
        deadline = self.deadline
        if deadline is not None and received > deadline:
            text = deadline_text(deadline, zone)
            assert text is not None
            problems.append(problem("late", turn=state.turn, deadline=text["utc"], local=text["local"]))
        return problems
