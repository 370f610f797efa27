"""The order desk's one reply to a message (docs/rules/, Replies): its problems worded line
by line, held back past a refusal cap (gm.campaign.desk.trust; the GM told once a day), else
composed and queued in the desk's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ... import clock
from ...mail.inbound import InboundMail
from ...mail.mailout import compose
from ...mail.words import problem_texts
from ...rules.problem import Problem
from ..deadlines import deadline_text
from ..outbox import mark_unasked, queue
from ..signup.standing import basics as signup_basics
from .outcome import Fate
from .trust import CAP_ANY, CAP_STRANGER, CAPS_NOTE_KIND, UNASKED, capped, gm_told_today, registered


class Replier:
    """What the desk (gm.campaign.desk.inbound.Desk) and its sign-up desk reply with; the
    desk sets campaign, config, started, basics, deadline and turn."""

    campaign: Any
    config: Any
    started: bool
    basics: dict[str, Any] | None
    deadline: datetime | None
    turn: int | None

    def refusal_facts(self, problems: list[Problem], state: Any) -> dict[str, Any]:
        """What a refusal's closing words depend on: the codes of its problems (a late,
        paused or dropped order cannot be fixed by sending it again, docs/rules/, Order mail) and the
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
              zone: str | None = None, proof: Sequence[tuple[str, str]] = (), kind: str | None = None) -> Fate:
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
                self.tell_gm_of_caps(db, refused.cap, now)
                said = "; ".join(problems) if problems else f"the {template} text"
                return Fate("capped", player=player, detail=f"{refused.reason}; it would have said: {said}"[:2000],
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
        return Fate(outcome, player=player, detail="; ".join(problems)[:2000], reply=outbox_id,
                       problems=list(problems))

    def tell_gm_of_caps(self, db: Any, cap: str, now: datetime) -> None:
        """The GM's one mail a UTC day saying a cap held replies back (docs/rules/,
        Refusal caps): to the campaign's own address, never capped, quoting nobody."""
        if gm_told_today(db, now) is not None:
            return
        config = self.config
        basics = self.basics if self.basics is not None else signup_basics(self.campaign)
        message = compose(sender=config.mail.sender, to=config.mail.address, template="caps_note",
                          context=basics | {"cap": cap, "day": clock.utc_day(now),
                                            "per_address": CAP_STRANGER, "per_player": CAP_ANY,
                                            "per_day": config.caps_unasked_per_day, "status_command": "gm status"},
                          now=now, auto_reply=True)
        queue(db, message, kind=CAPS_NOTE_KIND, now=now, turn=self.turn)
