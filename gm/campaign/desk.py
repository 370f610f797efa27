"""The order desk (RULES.md 3 and 2.4): one inbound mail in, exactly one outcome recorded
and at most one reply queued, all in one transaction.

Authentication failures get one reply text whatever the cause, so a stranger learns
nothing about who plays. Loop-prone mail (auto-replies, bulk, bounces, our own, replies to
our refusals that do not authenticate) and mail with no address to answer are recorded and
never answered; refusals to one address are capped, so gm cannot be made to mail-bomb anyone.
Those trust rules are gm.campaign.trust's; the desk applies them to each message.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from .. import clock
from ..mail.inbound import InboundMail, read_mail
from ..mail.mailout import compose, queue
from ..mail.orderlang import OrderText, parse_orders
from ..mail.typos import near_miss
from ..mail.words import problem_texts
from ..rules.grammar import ruleset_keywords
from ..rules.problem import Problem, problem
from .deadlines import deadline_text
from .desk_outcome import Outcome
from .desk_outcome import kept_reply as _kept_reply
from .digests import body_digest
from .folder import Campaign
from .passwords import check_password, hash_password, issue_password
from .proof import order_receipt, written_count
from .signup.desk import SignupDesk
from .signup.standing import basics as signup_basics
from .standing import order_view, standing_order
from .store import dumps, insert
from .trust import (
    ADDRESS,
    CAP_ANY,
    CAP_STRANGER,
    CAPS_NOTE_KIND,
    CHECK_LIMIT,
    DAY,
    UNASKED,
    answers_unasked,
    authenticate,
    capped,
    failures_today,
    gm_told_today,
    hostile,
    loop_outcome,
    mark_unasked,
    registered,
    unchecked,
    utc_day,
)

# The outbox kind of a RESET's new-password mail. Like a welcome it carries a password in
# clear, and `gm send` drops its body once sent (delivery.SECRET_KINDS).
RESET_KIND = "reset"


def _noted(outcome: Outcome, why: str | None) -> Outcome:
    """The outcome with the GM's note of why a password went unchecked, if it did: the
    detail is the GM's record only, never mailed."""
    if why:
        outcome.detail = f"{why}; {outcome.detail}"[:2000] if outcome.detail else why
    return outcome


def message_key(raw: bytes, mail: InboundMail) -> str:
    """The Message-ID, or for mail without one a stable id made from its bytes."""
    return mail.message_id or f"<sha256-{hashlib.sha256(raw).hexdigest()[:32]}@gm.invalid>"


class Desk:
    """Handles order mail for one opened campaign."""

    def __init__(self, campaign: Campaign):
        self.campaign = campaign
        self.config = campaign.config
        # mail changes orders, never the state or the deadline: read them once per batch.
        # Before gm start there are neither, and the mail is sign-up mail (RULES.md 3.1).
        self.started = campaign.started()
        self.state = campaign.state() if self.started else None
        self.deadline = campaign.deadline() if self.started else None
        # what every reply says of the campaign: mail_basics reads the whole campaign row,
        # state and all, so once per batch too
        self.basics = campaign.mail_basics() if self.started else None
        self.signups = SignupDesk(self)
        self._keywords: frozenset[str] | None = None
        self._read_ahead: dict[int, tuple[bytes, InboundMail]] = {}
        # RULES.md 5's receipts, for a campaign started with a game commitment
        self._proof = self.basics is not None and bool(self.basics["game_commitment"])

    @property
    def turn(self) -> int | None:
        """The turn mail is recorded under: the one taking orders (None before the start)."""
        return self.state.turn if self.state is not None else None

    # -- the whole of one message ------------------------------------------------------

    def check_passwords_ahead(self, raws: Sequence[bytes]) -> None:
        """Check, on every core at once, the password each of these messages gives, before
        they are handled one by one in order. A password check is a scrypt (RULES.md 3:
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
        grammar = self.campaign.ruleset.grammar(self.campaign.setup.options)
        return parse_orders(mail.text, grammar=grammar, other_keywords=self._other_keywords())

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

    def handle(self, raw: bytes, *, source: str, received_at: datetime | None = None) -> Outcome:
        """Record one message and its outcome, and queue its one reply, in one transaction.
        A source already recorded is skipped (a rerun after a crash)."""
        store = self.campaign.store
        if store.one("select id from messages where source = ?", (source,)):
            self._read_ahead.pop(id(raw), None)
            return Outcome("seen")
        mail = self._read(raw)
        key = message_key(raw, mail)
        digest = body_digest(raw)
        received = received_at or mail.received_at or clock.now()
        now = clock.now()
        # RULES.md 3: seen before only when Message-ID, sender and body all match; a stranger
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
                received: datetime, now: datetime, duplicate: bool) -> Outcome:
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
                # RULES.md 3: the same message is never applied twice; its first copy was answered
                outcome = Outcome("duplicate", detail=f"Message-ID {key} with the same sender and body seen before")
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

    def _decide(self, db: Any, mail: InboundMail, message_row: int, received: datetime, now: datetime) -> Outcome:
        if mail.loop:
            return loop_outcome(db, self.config, mail)
        if not ADDRESS.fullmatch(mail.sender):
            # nobody to answer (today's reply would go to "" or to a bare word)
            why = (f"no usable sender ({mail.unreadable_sender or repr(mail.sender[:200])})"
                   + (f"; {mail.broken[:500]}" if mail.broken else ""))
            return Outcome("unreadable", detail=why)
        # RULES.md 3: a reply to our refusal or help is a person correcting an order, or an
        # auto-responder that ignores Auto-Submitted; only the password tells them apart
        answered = answers_unasked(db, mail)
        if answered and (mail.hostile or mail.oversize):
            return _kept_reply(answered)
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
                                       **self._refusal_facts([], self.state)})
        request = self.signups.wants(mail)
        if request is not None:
            return self.signups.handle(db, mail, request, message_row, received, now, answered)
        parsed = self._orders(mail)
        if not self.started:
            return self._before_start(db, mail, parsed, now, answered)
        if parsed.reset and not parsed.problems and not answered:
            return self._reset(db, parsed, mail, now)
        # docs/rules/ "Passwords and RESET": past the day's failed checks the
        # password is not checked, and the message is refused as a wrong one
        not_checked = unchecked(self.campaign, db, parsed, now)
        player = None if not_checked else authenticate(self.campaign, db, parsed, mail, now)
        if answered and player is None:
            return _noted(_kept_reply(answered), not_checked)
        syntax = [p.why for p in parsed.problems]
        ignored = [{"line": n, "text": t} for n, t in parsed.ignored]
        has_orders = bool(parsed.commands or parsed.turn is not None)

        if player is None:
            # nobody vouches for the sender: the reply quotes nothing it wrote, so gm relays no
            # text to whatever address a forger puts in From (docs/rules/, Replies)
            if parsed.help and not has_orders and not parsed.player and not parsed.password:
                return self.reply(db, mail, now, to=reply_to, template="help", outcome="help",
                                   context={"order": None, "ignored": []})
            problems = [*syntax, problem("unknown_sender")]
            return _noted(self.reply(db, mail, now, to=reply_to, template="refusal", outcome="refused",
                                     context={"problems": self.words(problems, stranger=True), "authenticated": False,
                                              "ignored": [], **self._refusal_facts(problems, self.state)}),
                          not_checked)

        state = self.state
        email = player.email
        zone = player.timezone or self.config.timezone
        who = {"id": player.id, "name": player.name}
        if parsed.help and not has_orders and not syntax:
            return self.reply(db, mail, now, to=email, template="help", outcome="help", player=player.id, zone=zone,
                               context={"order": order_view(self.campaign, player.id, self.state), "ignored": ignored,
                                        "player": who})
        problems = syntax + self._game_problems(parsed, state, received, zone)
        order, receipt = standing_order(self.campaign, state.turn, player.id)
        new_order = order
        if self.campaign.dropped(player.id):
            # nothing they send counts any more, so the lines are not judged against the game
            problems.append(problem("dropped", gm=self.config.mail.address))
        elif not state.over:
            if self.campaign.paused():
                # refused however good the order; the other problems are still worth knowing
                problems.append(problem("paused"))
            new_order, found = self._order_checks(state, player.id, order, parsed)
            problems += found
        if not has_orders and not problems:
            grammar = self.campaign.ruleset.grammar(self.campaign.setup.options)
            problems.append(problem("no_order", commands=list(grammar.keywords)))
        if problems:
            return self.reply(db, mail, now, to=email, template="refusal", outcome="refused", player=player.id,
                               zone=zone, context={"problems": self.words(problems), "authenticated": True,
                                                   "ignored": ignored, "player": who,
                                                   "order": order_view(self.campaign, player.id, self.state),
                                                   **self._refusal_facts(problems, state)})
        standing = self.campaign.ruleset.order_to_json(new_order)
        # RULES.md 5: the receipt of the whole standing order after this message, which the
        # player keeps and an audit holds against the order the record says was played
        # k counts this player's own accepted messages for the turn (RULES.md 5): a seat's new
        # holder inherits her predecessor's rows with the order, not his count
        written = written_count(self.campaign.store, state.turn, player.id) + 1
        receipt_hash = (order_receipt(self.campaign.setup.seed, state.turn, player.id, written, standing)
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
        return self.reply(db, mail, now, to=email, template="ack", outcome="applied", player=player.id, zone=zone,
                           context={"order": view, "replaces": receipt or None, "ignored": ignored,
                                    "player": who, "help": parsed.help, "complete": complete,
                                    "receipt_hash": receipt_hash},
                           # count: acknowledgements sent by one ingest share their Date, so gm
                           # audit --mail orders them by it to find the player's last
                           proof=[("X-GM-Receipt", f"turn={state.turn}; player={player.id}; count={written}; "
                                                   f"receipt={receipt_hash}")]
                           if receipt_hash else ())

    def _before_start(self, db: Any, mail: InboundMail, parsed: OrderText, now: datetime,
                      answered: str | None) -> Outcome:
        """Mail that is no sign-up before the start (RULES.md 3.1): HELP says how to join;
        an order is refused, there being no game yet; a RESET finds nobody to mail."""
        if answered:
            return _kept_reply(answered)  # nothing before the start authenticates
        if parsed.reset and not parsed.problems:
            return Outcome("reset", detail=f"RESET from {mail.sender} before the start: nothing sent")
        if parsed.help and not parsed.commands and not parsed.player and not parsed.password:
            return self.signups.help(db, mail, now)
        found = [*(p.why for p in parsed.problems), problem("not_started", campaign=self.config.id)]
        return self.signups.refuse(db, mail, now, found)

    def _order_checks(self, state: Any, player: str, standing: Any, parsed: OrderText) -> tuple[Any, list[Problem]]:
        """Every problem the ruleset finds with the message's commands (merge, each on its
        line) and with the order they make (order_problems), even when other lines have
        problems of their own: RULES.md 3, the reply says every problem found, line by
        line. Returns the merged order with them.

        order_problems judges a whole order and knows no lines, so each command is also
        merged alone into the standing order: what order_problems says of that order, and
        not of the standing one, is that command's problem, told on its line (advanced:
        a BUILD from Start). What it says of the whole order beyond that is kept without
        a line; what merge said already is not said twice."""
        ruleset, setup = self.campaign.ruleset, self.campaign.setup
        merged, found = ruleset.merge(setup, state, player, standing, parsed.commands)
        found = list(found)

        def among(why: Problem, problems: list[Problem]) -> bool:
            return any(why.code == old.code and why.facts == old.facts for old in problems)

        before = ruleset.order_problems(setup, state, player, standing)
        for command in parsed.commands:
            alone, refused = ruleset.merge(setup, state, player, standing, (command,))
            if refused:
                continue  # merge told it on its line
            for why in ruleset.order_problems(setup, state, player, alone):
                if not among(why, before) and not among(why, found):
                    found.append(why.on_line(command.line))
        for why in ruleset.order_problems(setup, state, player, merged):
            if not among(why, found):
                found.append(why)
        return merged, found

    # -- parts ------------------------------------------------------------------------

    def _other_keywords(self) -> frozenset[str]:
        """gm's own rulesets' command keywords (docs/rules/, Commands), worked out once per batch:
        never an installed package's, which would import every package on the host into
        this campaign's ingest (gm.rules.grammar.ruleset_keywords)."""
        if self._keywords is None:
            self._keywords = ruleset_keywords()
        return self._keywords

    def _reset(self, db: Any, parsed: OrderText, mail: InboundMail, now: datetime) -> Outcome:
        """RULES.md 3 RESET: a new password to the player's registered address, never to
        the sender, at most once a day. The old password works until the new one is used,
        and the sender hears nothing either way, so a stranger learns nothing and locks
        nobody out."""
        player = self.config.player(parsed.player or "")
        asked = f"RESET from {mail.sender}"
        if player is None:
            return Outcome("reset", detail=f"{asked} for {parsed.player[:100]!r}, who does not play: nothing sent")
        last = db.execute("select reset_at from players where id = ?", [player.id]).fetchone()
        if last and last[0] and clock.parse_time(last[0]) > now - DAY:
            return Outcome("reset", player=player.id, detail=f"{asked}: a new password was mailed at {last[0]}; nothing sent")
        password = issue_password()
        db["players"].update(player.id, {"pending_password_hash": hash_password(password), "reset_at": clock.iso(now)})
        config = self.config
        message = compose(
            sender=config.mail.sender,
            to=player.email,
            template="reset",
            context=self.basics | {
                "deadline": deadline_text(self.deadline, player.timezone or config.timezone),
                "player": {"id": player.id, "name": player.name},
                "password": password,
            },
            now=now,
            auto_reply=True,
        )
        queue(db, message, kind=RESET_KIND, now=now, player=player.id, turn=self.turn)
        return Outcome("reset", player=player.id, detail=f"{asked}: a new password mailed to {player.email}")

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

    def _refusal_facts(self, problems: list[Problem], state: Any) -> dict[str, Any]:
        """What a refusal's closing words depend on: the codes of its problems (a late,
        paused or dropped order cannot be fixed by sending it again, RULES.md 3) and the
        turn that would take orders."""
        return {"codes": [p.code for p in problems], "turn": state.turn if state else None,
                "over": bool(state and state.over)}

    def words(self, problems: list[Problem], *, stranger: bool = False) -> list[str]:
        """The problems worded, in the order of the message's lines: what is about the
        message as a whole (late, paused, not a player) first (docs/rules/, Replies: line by line).
        To a `stranger` (a sender nobody vouches for), without a word the sender wrote."""
        ordered = sorted(problems, key=lambda p: (p.line is not None, p.line or 0))
        return problem_texts(self.campaign.ruleset.name, ordered, stranger=stranger)

    def reply(self, db: Any, mail: InboundMail, now: datetime, *, to: str, template: str,
              outcome: str, context: dict[str, Any], player: str | None = None,
              zone: str | None = None, proof: Sequence[tuple[str, str]] = (), kind: str | None = None) -> Outcome:
        """Queue the one reply, of outbox `kind` (the template's name unless said). `zone`
        is the time zone its deadline is shown in: the authenticated player's own, else
        the campaign's (a stranger's)."""
        problems = context.get("problems", [])
        kind = kind or template
        if kind in UNASKED:
            # a player's (or a sign-up holder's) address: asked once, for the caps and the count
            known = registered(db, self.config, to)
            refused = capped(db, self.config, to, now, started=self.started, player=known)
            if refused:
                self._tell_gm_of_caps(db, refused.cap, now)
                said = "; ".join(problems) if problems else f"the {template} text"
                return Outcome("capped", player=player, detail=f"{refused.reason}; it would have said: {said}"[:2000],
                               problems=list(problems))
        config = self.config
        basics = self.basics if self.basics is not None else signup_basics(self.campaign)
        base = basics | {
            "deadline": deadline_text(self.deadline, zone or config.timezone),
            "player": None,
            "order": None,
        }
        message = compose(
            sender=config.mail.sender,
            to=to,
            template=template,
            context=base | context,
            now=now,
            in_reply_to=mail.message_id,
            references=mail.references,
            auto_reply=True,
            headers=proof,
        )
        outbox_id = queue(db, message, kind=kind, now=now, player=player, turn=self.turn)
        if kind in UNASKED:
            mark_unasked(db, outbox_id, to, player=known)
        return Outcome(outcome, player=player, detail="; ".join(problems)[:2000], reply=outbox_id,
                       problems=list(problems))

    def _tell_gm_of_caps(self, db: Any, cap: str, now: datetime) -> None:
        """The GM's one mail a UTC day saying a cap held replies back (docs/rules/,
        Refusal caps): to the campaign's own address, never capped, quoting nobody."""
        if gm_told_today(db, now) is not None:
            return
        config = self.config
        basics = self.basics if self.basics is not None else signup_basics(self.campaign)
        message = compose(sender=config.mail.sender, to=config.mail.address, template="caps_note",
                          context=basics | {"cap": cap, "day": utc_day(now),
                                            "per_address": CAP_STRANGER, "per_player": CAP_ANY,
                                            "per_day": config.caps_unasked_per_day},
                          now=now, auto_reply=True)
        queue(db, message, kind=CAPS_NOTE_KIND, now=now, turn=self.turn)


