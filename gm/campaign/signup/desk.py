"""The sign-up desk (docs/rules/, Joining by mail): a JOIN, CONFIRM or LEAVE mail in, one outcome and at
most one reply, inside the order desk's transaction. The order desk (gm.campaign.desk.inbound)
has already read the mail with its limits, recorded it, set aside loops, bounces, replays
and hostile mail, and it queues the reply with its caps: this module decides what the
request does and what the reply says (gm.campaign.signup.standing owns the rules of standing)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from ... import clock
from ...mail.inbound import InboundMail
from ...rules.problem import Problem, problem
from .. import names
from ..desk.outcome import Fate, OrderDesk, kept_reply
from ..desk.trust import day_start
from ..record import below_min_ontime
from ..store import insert
from . import standing
from .asked import (
    asked_problems,
    holders_names,
    id_allowed,
    id_taken,
    key_problems,
    made_id,
    write_links,
)
from .codes import campaign_key, matching_request, shown_code
from .language import CONFIRM, JOIN, LEAVE, Request, is_signup_mail, read_request
from .unique import unique_code


def unquoted(words: list[str], said: Any) -> list[str]:
    """A ruleset's words on a sign-up's keys with each value the sender gave masked: they
    go to an address nobody vouches for, which gm's mail never repeats a word of (the id
    gm takes aside, which the request's rules may name)."""
    values = sorted({v for v in said if isinstance(v, str) and v.strip()}, key=len, reverse=True)
    if not values:
        return list(words)
    pattern = re.compile("|".join(rf"(?<!\w){re.escape(v)}(?!\w)" for v in values), re.IGNORECASE)
    return [pattern.sub("(the value asked for)", w) for w in words]


def _name_problems(name: str) -> list[Problem]:
    """A name's problems in a stranger's words, never quoting it (the NAME line refuses
    them as it is read; a JOIN kept from before names were judged meets them at CONFIRM)."""
    said = {names.EMPTY: problem("signup_needs_name"),
            names.LONG: problem("signup_long_name", most=names.MAX_LENGTH),
            names.LINK: problem("signup_name_link")}
    return [said[code] for code in names.problems(name)]


class SignupDesk:
    """Sign-up mail for the order desk's campaign."""

    def __init__(self, desk: OrderDesk):
        self.desk = desk
        self.campaign = desk.campaign
        self.config = desk.config
        self._key: bytes | None = None
        # the names keys (names.keys) of everyone a new name may not look like, made once
        # a batch: judging each request against every holder made a sign-up cost its square.
        # A name confirmed joins it once its message's transaction has committed (settled).
        self._names: tuple[dict[str, str], dict[str, str]] | None = None
        self._pending: tuple[str, str] | None = None

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = campaign_key(self.campaign.store)
        return self._key

    def wants(self, mail: InboundMail) -> Request | None:
        """The request when this is a sign-up mail (one names JOIN, CONFIRM or LEAVE and no
        PLAYER: a player's mail is an order, whatever it says), else None."""
        if not is_signup_mail(mail.text):
            return None
        request = read_request(mail.text, self.config.ruleset, self.config.id)
        parsed = request.parsed
        if parsed is not None and parsed.player is not None:
            return None
        if not request.kind and not any(p.code in ("signup_needs_value", "signup_bad_code", "signup_one_value")
                                        for p in request.problems):
            return None
        return request

    def handle(self, db: Any, mail: InboundMail, request: Request, row: int, received: datetime,
               now: datetime, answered: str | None) -> Fate:
        """One sign-up mail. A reply to a code, refusal or help mail of ours is taken only
        from a CONFIRM whose code is right (docs/rules/, Order mail: it authenticates); otherwise it
        is kept unanswered, as the order desk keeps an order that does not authenticate."""
        found = None
        if request.kind == CONFIRM and request.code and not request.problems:
            found = matching_request(self.campaign.store, self.key, mail.sender, request.code)
        if answered and found is None:
            return kept_reply(answered)
        if request.problems:
            return self.refuse(db, mail, now, list(request.problems))
        if self.config.signup is None:
            return self.refuse(db, mail, now, [problem("signup_none", campaign=self.config.id)])
        if request.kind == JOIN:
            return self._join(db, mail, request, row, received, now)
        if request.kind == LEAVE:
            return self._leave(db, mail, request, row, now)
        return self._confirm(db, mail, request, found, row, received, now)

    # -- the requests ---------------------------------------------------------------------

    def _join(self, db: Any, mail: InboundMail, request: Request, row: int, received: datetime,
              now: datetime) -> Fate:
        """A code to the sender, and nothing else kept (docs/rules/, Joining by mail): the request counts
        once the code comes back from this address."""
        player, problems = self._judged(request, mail.sender)
        offer = self._offer(received)
        if offer["offer"] != "open":  # the request would wait without a place
            problems += self._list_full()
        low = below_min_ontime(self.config.mail.judge, mail.sender, self.config.signup.min_ontime)
        if low is not None:
            problems.append(problem("signup_min_ontime", share=low[0], due=low[1],
                                    needed=self.config.signup.min_ontime))
        if problems:
            return self.refuse(db, mail, now, problems)
        code = unique_code(db, self.key, row, mail.sender, self.campaign.folder, self.config.mail.judge)
        # anyone can forge a JOIN in another's name: the code mail says the id and the code
        # and nothing else the sender wrote, so it carries no text of a forger's to anyone
        # (docs/rules/, Joining by mail); the rest is told once the code comes back
        context = offer | {
            "request": "join", "code": shown_code(code),
            "person": {"id": player, "made": request.player is None},
        }
        outcome = self.desk.reply(db, mail, now, to=mail.sender, template="signup_code", kind=standing.CODE_KIND,
                                  outcome="join", context=context)
        if outcome.outcome == "join":
            outcome.detail = f"JOIN as {player} ({request.name}); code mailed to {mail.sender}"[:2000]
            db.execute("update messages set request = ? where id = ?", (json.dumps(request.asked(), sort_keys=True), row))
        return outcome

    def _leave(self, db: Any, mail: InboundMail, request: Request, row: int, now: datetime) -> Fate:
        """A code to the sender: the place is given up once it comes back, so a forged
        LEAVE withdraws nobody."""
        holding = self._holding(mail.sender)
        if holding is None:
            return self.refuse(db, mail, now, [problem("signup_no_place")])
        if holding["status"] == standing.PLAYING:
            return self.refuse(db, mail, now, [problem("signup_playing", player=holding["player"])])
        context = standing.standing_context(self.campaign) | {
            "request": "leave", "offer": None, "person": {"id": holding["player"], "made": False},
            "code": shown_code(unique_code(db, self.key, row, mail.sender, self.campaign.folder,
                                           self.config.mail.judge))}
        outcome = self.desk.reply(db, mail, now, to=mail.sender, template="signup_code", kind=standing.CODE_KIND,
                                  outcome="leave", context=context)
        if outcome.outcome == "leave":
            outcome.detail = f"LEAVE for {holding['player']}; code mailed to {mail.sender}"
        return outcome

    def _confirm(self, db: Any, mail: InboundMail, request: Request, found: dict[str, Any] | None,
                 row: int, received: datetime, now: datetime) -> Fate:
        """The request the code names counts now: a JOIN takes its place where the rules
        put it, a LEAVE gives its place up (to the first waiting)."""
        if found is None:
            return self.refuse(db, mail, now, [problem("signup_no_code")])
        holding = self._holding(mail.sender)
        if found["outcome"] == "leave":
            if holding is None or holding["status"] == standing.PLAYING:
                # given up already (or playing now): told where they stand
                return self._again(db, mail, holding or self._latest(mail.sender), now,
                                   "a LEAVE: no place left to give up")
            db.execute("update signups set status = ?, changed_at = ? where id = ?",
                       (standing.LEFT, clock.iso(now), holding["id"]))
            self._names = None  # a name given up: made afresh when next asked
            outcome = self._told(db, mail, self._row(holding["id"]), now, f"{holding['player']} left")
            standing.settle(self.campaign, db, now)  # a place freed goes to the first waiting
            return outcome
        confirmed = self.campaign.store.one("select * from signups where join_message = ?", (found["id"],))
        if confirmed is not None or holding is not None:
            # told again where they stand: an address holds one place
            return self._again(db, mail, holding or confirmed, now, "already confirmed")
        joined = self._request_of(found["id"])
        if joined is None:
            return self.refuse(db, mail, now, [problem("signup_no_code")])
        player, problems = self._judged(joined, mail.sender)  # an id may have been taken meanwhile
        status, decision = self._placed(received)
        if status in standing.WAITING_LIST:
            problems += self._list_full()
        if problems:
            return self.refuse(db, mail, now, problems)
        keys, wished = standing.asked_apart(self.config, joined.keys)
        asked = self.campaign.store.one("select received_at from messages where id = ?", (found["id"],))
        new = insert(db, "signups", {
            "player": player, "name": joined.name, "email": mail.sender, "timezone": joined.timezone,
            "keys": json.dumps(keys, sort_keys=True), "asked_at": asked["received_at"] if asked else None,
            "confirmed_at": clock.iso(received), "changed_at": clock.iso(now), "status": status,
            "decision": decision, "told": None, "join_message": found["id"], "confirm_message": row,
            "requested": json.dumps(wished, sort_keys=True) if wished else None,
        })
        write_links(db, self.config.ruleset, new, player, keys)
        self._pending = (player, joined.name or "")
        return self._told(db, mail, self._row(new), now, f"{player} confirmed: {status}")

    # -- parts ----------------------------------------------------------------------------

    def _judged(self, request: Request, sender: str) -> tuple[str, list[Problem]]:
        """The id a JOIN gets (the one asked for, else one made from the name) and what
        refuses it, judged as things stand: at the JOIN, and again at its CONFIRM."""
        problems = self._address_problems(sender) + _name_problems(request.name or "")
        if not problems and self._alike(request.name or ""):
            problems.append(problem("signup_name_alike"))  # whose, not said: a stranger asks
        player = request.player
        if player is not None and id_taken(self.campaign, player):
            problems.append(problem("signup_id_taken", player=player))
        elif player is not None and not id_allowed(self.campaign, player):
            problems.append(problem("signup_rules", problems=key_problems(self.campaign, player, {})))
        if problems:
            return "", problems
        player = player or self._made_id(request.name or "")
        keys, wished = standing.asked_apart(self.config, request.keys)
        found = key_problems(self.campaign, player, keys) + asked_problems(self.campaign, player, wished)
        return player, [problem("signup_rules", problems=unquoted(found, request.keys.values()))] if found else []

    def _alike(self, name: str) -> bool:
        """Whether `name` is alike a player's or a held request's (gm.campaign.signup.asked.name_alike)."""
        if self._names is None:
            self._names = ({}, {})
            for label, other in holders_names(self.campaign):
                self._add_name(label, other)
        return any(key in where for where, key in zip(self._names, names.keys(name), strict=True))

    def _add_name(self, label: str, name: str) -> None:
        if self._names is not None:
            for where, key in zip(self._names, names.keys(name), strict=True):
                where.setdefault(key, label)

    def settled(self, committed: bool) -> None:
        """After a message's transaction: a name it confirmed now counts, or (rolled back) never."""
        if committed and self._pending is not None:
            self._add_name(*self._pending)
        self._pending = None

    def _list_full(self) -> list[Problem]:
        """The waiting list is full (max_waiting): a request that would wait is refused."""
        most = standing.waiting_full(self.campaign)
        return [] if most is None else [problem("signup_list_full", most=most)]

    def _placed(self, received: datetime) -> tuple[str, str | None]:
        """Where a request confirmed now stands (signup.statuses for one more, the last)."""
        config = self.config
        if self.campaign.started():
            return standing.POOL, standing.LATE
        if not config.signup.taking(received):
            return standing.WAITING, standing.LATE
        if config.signup.approve == "gm":
            return standing.AWAITING, None
        free = standing.places(config)
        if free is None or standing.count_status(self.campaign.store, standing.IN) < free:
            return standing.IN, None
        return standing.WAITING, None

    def _offer(self, received: datetime) -> dict[str, Any]:
        """What a JOIN's code mail says the request would get: a place, the waiting list
        (full, closed, the game started) or the GM's decision."""
        context = standing.standing_context(self.campaign)
        config = self.config
        if self.campaign.started():
            offer = "started"
        elif not config.signup.taking(received):
            offer = "closed"
        elif config.signup.approve == "gm":
            offer = "approve"
        elif context["places_left"] == 0:
            offer = "full"
        else:
            offer = "open"
        return context | {"offer": offer}

    def _again(self, db: Any, mail: InboundMail, row: dict[str, Any] | None, now: datetime, detail: str) -> Fate:
        """A CONFIRM whose request counted already, told where it stands again at most once
        a UTC day (docs/rules/, Refusal caps): a replay under new Message-IDs
        cannot make gm mail the address over and over."""
        again = "CONFIRM again"
        if db.execute("select 1 from messages where sender = ? and outcome = 'confirmed' and ingested_at >= ? "
                      "and detail like ? limit 1", (mail.sender, day_start(now), again + "%")).fetchone():
            return Fate("capped", detail=f"{again} ({detail}): already told again this UTC day; not answered")
        return self._told(db, mail, row, now, f"{again}: {detail}")

    def _told(self, db: Any, mail: InboundMail, row: dict[str, Any] | None, now: datetime, detail: str) -> Fate:
        """The reply that tells the sender where they stand, which the confirmation proved is
        theirs: never capped, and it counts as telling them (`told`)."""
        if row is None:
            return self.refuse(db, mail, now, [problem("signup_no_place")])
        reply = standing.notice(self.campaign, db, row, now, in_reply_to=mail,
                              started=self.campaign.started() and row["status"] == standing.POOL)
        db.execute("update signups set told = status where id = ?", (row["id"],))
        return Fate("confirmed", detail=detail[:2000], reply=reply)

    def refuse(self, db: Any, mail: InboundMail, now: datetime, problems: list[Problem]) -> Fate:
        """A refusal saying every problem, line by line, to the sender (capped), in words
        that quote nothing the sender wrote: nobody vouches for a sign-up's sender."""
        return self.desk.reply(db, mail, now, to=mail.sender, template="signup_refusal", kind="refusal",
                               outcome="refused",
                               context=standing.standing_context(self.campaign) | {
                                   "problems": self.desk.words(problems, stranger=True),
                                   "started": self.campaign.started()})

    def help(self, db: Any, mail: InboundMail, now: datetime) -> Fate:
        return self.desk.reply(db, mail, now, to=mail.sender, template="signup_help", kind="help", outcome="help",
                               context=self._offer(now))

    def _address_problems(self, sender: str) -> list[Problem]:
        """An address holds at most one place (docs/rules/, Joining by mail): a player's (campaign.yaml's
        before the start, each seat's holder's after it) or a request's."""
        listed = next((p for p in self.config.players if p.email == sender), None)
        if listed is not None:
            return [problem("signup_plays", player=listed.id)]
        row = self._holding(sender)
        if row is not None:
            return [problem("signup_has_place", player=row["player"], status=row["status"])]
        return []

    def _holding(self, sender: str) -> dict[str, Any] | None:
        return self.campaign.store.one(*standing.holding_query(sender))

    def _latest(self, sender: str) -> dict[str, Any] | None:
        return self.campaign.store.one("select * from signups where email = ? order by id desc limit 1", (sender,))

    def _row(self, row_id: int) -> dict[str, Any]:
        row = self.campaign.store.one("select * from signups where id = ?", (row_id,))
        assert row is not None
        return row

    def _made_id(self, name: str) -> str:
        return made_id(name, lambda player: id_taken(self.campaign, player),
                              lambda player: id_allowed(self.campaign, player))

    def _request_of(self, message: int) -> Request | None:
        """The request a recorded JOIN made, as it was read (messages.request)."""
        row = self.campaign.store.one("select request from messages where id = ?", (message,))
        return Request.of_asked(json.loads(row["request"])) if row and row["request"] else None
