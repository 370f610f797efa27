"""Absences and extension votes by mail (docs/rules/, Absences and extension votes):
`ABSENCE <from> <until>` / `ABSENCE NONE` and `EXTEND <days>` / `EXTEND NONE`, judged
against the campaign, then carried out in the desk's transaction. A request is judged
whole before anything is written, so a refused message changes nothing."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from .. import clock
from ..rules.grammar import Command, CommandSpec, Grammar
from ..rules.problem import Problem, problem
from .admin import log_admin, tell_everyone

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# an absence declared closer than this to the deadline moves nothing (docs/rules/, Absences)
NOTICE = timedelta(hours=24)


REQUESTS = ("ABSENCE", "EXTEND")
# read as the game's commands are, their values judged here with the campaign at hand
_SPECS = (CommandSpec("ABSENCE", "ABSENCE <from> <until>", lambda args, rest, context: (None, args)),
          CommandSpec("EXTEND", "EXTEND <days>", lambda args, rest, context: (None, args)))


def with_requests(grammar: Grammar) -> Grammar:
    """The ruleset's grammar and ABSENCE and EXTEND, which every campaign's mail takes."""
    return replace(grammar, commands=(*grammar.commands, *(s for s in _SPECS if grammar.spec(s.keyword) is None)))


def game_commands(commands: Any) -> list[Command]:
    """The lines that are the ruleset's orders, ABSENCE and EXTEND aside."""
    return [c for c in commands if c.keyword not in REQUESTS]


def _day(text: str) -> date | None:
    if not _DATE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


@dataclass
class Plan:
    """What one authenticated message asks: checked, not yet done."""

    problems: list[Problem] = field(default_factory=list)
    absence: tuple[date, date] | None = None
    cancel: bool = False
    vote: int | None = None
    withdraw: bool = False


def must_order(campaign: Any, state: Any) -> list[str]:
    """The players who must send an order this turn (the ruleset's word), not dropped."""
    dropped = campaign.dropped_players()
    return [p.id for p in campaign.config.players
            if p.id not in dropped and campaign.ruleset.must_order(campaign.setup, state, p.id)]


def judge(campaign: Any, state: Any, player: Any, commands: Any, now: datetime) -> Plan | None:
    """Each ABSENCE and EXTEND line, judged; problems name their lines. None: there are none."""
    requests = [(c.line, c.keyword, c.value) for c in commands if c.keyword in REQUESTS]
    if not requests:
        return None
    plan = Plan()
    zone = ZoneInfo(player.timezone or campaign.config.timezone)
    for line, keyword, args in requests:
        if keyword == "ABSENCE":
            _judge_absence(campaign, plan, player, line, args, now.astimezone(zone).date())
        else:
            _judge_vote(campaign, state, plan, player, line, args)
    return plan


def _judge_absence(campaign: Any, plan: Plan, player: Any, line: int, args: tuple[str, ...], today: date) -> None:
    limits = campaign.config.absence
    if len(args) == 1 and args[0].upper() == "NONE":
        plan.cancel = True
        return
    days = [_day(a) for a in args]
    if len(args) != 2 or None in days:
        plan.problems.append(problem("absence_form", line))
        return
    start, until = days
    assert start is not None and until is not None
    if until < start:
        plan.problems.append(problem("absence_backwards", line, start=str(start), until=str(until)))
    elif start < today:
        plan.problems.append(problem("absence_past", line, start=str(start), today=str(today)))
    elif (until - start).days + 1 > limits.max_days:
        plan.problems.append(problem("absence_too_long", line, days=(until - start).days + 1,
                                     max_days=limits.max_days))
    else:
        used = used_days(campaign, player.id)
        if used + (until - start).days + 1 > limits.max_days_per_player:
            plan.problems.append(problem("absence_total", line, used=used, days=(until - start).days + 1,
                                         max_days=limits.max_days_per_player))
        else:
            plan.absence = (start, until)


def _judge_vote(campaign: Any, state: Any, plan: Plan, player: Any, line: int, args: tuple[str, ...]) -> None:
    limits = campaign.config.extend
    if len(args) == 1 and args[0].upper() == "NONE":
        plan.withdraw = True
        return
    if limits.quorum is None:
        plan.problems.append(problem("extend_off", line))
        return
    writers = must_order(campaign, state)
    if not writers:
        plan.problems.append(problem("extend_nobody_writes", line))
        return
    if player.id not in writers:
        plan.problems.append(problem("extend_not_ordering", line))
        return
    if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= limits.max_days:
        plan.problems.append(problem("extend_form", line, max_days=limits.max_days))
        return
    if moves_this_turn(campaign, state.turn, "vote") >= limits.per_turn:
        plan.problems.append(problem("extend_cap", line, per_turn=limits.per_turn))
        return
    plan.vote = int(args[0])


def used_days(campaign: Any, player: str) -> int:
    """Days of absence the player has declared over the campaign, cancelled ones aside."""
    rows = campaign.store.rows("select start, until from absences where player = ? and not cancelled", (player,))
    return sum((date.fromisoformat(r["until"]) - date.fromisoformat(r["start"])).days + 1 for r in rows)


def moves_this_turn(campaign: Any, turn: int, kind: str) -> int:
    row = campaign.store.one("select count(*) as n from deadline_moves where turn = ? and kind = ?", (turn, kind))
    return row["n"] if row else 0


def away_on(campaign: Any, player: Any, moment: datetime) -> dict[str, Any] | None:
    """The player's absence holding `moment` (a day in the player's zone), if any."""
    day = moment.astimezone(ZoneInfo(player.timezone or campaign.config.timezone)).date().isoformat()
    return campaign.store.one("select * from absences where player = ? and not cancelled and start <= ? "
                              "and until >= ? order by id limit 1", (player.id, day, day))


def away_now(campaign: Any, now: datetime) -> set[str]:
    """Players away on `now`: reminders skip them, reports mark them away."""
    return {p.id for p in campaign.config.players if away_on(campaign, p, now) is not None}


def away_names(campaign: Any, now: datetime) -> tuple[str, ...]:
    """The names of the players away on `now`, as reports mark them."""
    away = away_now(campaign, now)
    return tuple(p.name for p in campaign.config.players if p.id in away)


def carry_out(desk: Any, db: Any, plan: Plan, player: Any, now: datetime) -> dict[str, Any]:
    """Do what `plan` asks, in the desk's transaction; the facts the acknowledgement tells."""
    campaign, state = desk.campaign, desk.state
    told: dict[str, Any] = {}
    today = now.astimezone(ZoneInfo(player.timezone or campaign.config.timezone)).date().isoformat()
    if plan.cancel:
        told["cancelled"] = db.execute("update absences set cancelled = 1 where player = ? and not cancelled "
                                       "and until >= ?", (player.id, today)).rowcount
    if plan.absence is not None:
        start, until = plan.absence
        db["absences"].insert({"player": player.id, "start": start.isoformat(), "until": until.isoformat(),
                               "declared_at": clock.iso(now), "cancelled": 0})
        told["absence"] = {"start": start.isoformat(), "until": until.isoformat(),
                           "days": (until - start).days + 1, "mode": _mode(campaign, state)}
        moved = extend_for_absences(campaign, db, now, desk.deadline)
        if moved is not None:
            desk.deadline = moved
    if plan.withdraw:
        told["withdrawn"] = db.execute("delete from extend_votes where turn = ? and player = ?",
                                       (state.turn, player.id)).rowcount > 0
    if plan.vote is not None:
        db.execute("insert or replace into extend_votes (turn, player, days, voted_at) values (?, ?, ?, ?)",
                   (state.turn, player.id, plan.vote, clock.iso(now)))
        told["vote"] = _count_votes(desk, db, now) | {"days": plan.vote}
    return told


def _mode(campaign: Any, state: Any) -> str:
    """extend only where somebody must write: dice rulesets play on as in standing mode."""
    if campaign.config.absence.mode == "extend" and must_order(campaign, state):
        return "extend"
    return "standing"


def votes_needed(quorum: float, writers: int) -> int:
    """The votes that extend the turn: the quorum's share of the players who must write,
    rounded up (a share a float makes a hair too large does not ask one more), at least one."""
    return max(1, math.ceil(quorum * writers - 1e-9))


def _count_votes(desk: Any, db: Any, now: datetime) -> dict[str, Any]:
    campaign, state = desk.campaign, desk.state
    writers = must_order(campaign, state)
    votes = {r["player"]: r["days"] for r in db.query("select player, days from extend_votes where turn = ?",
                                                      (state.turn,)) if r["player"] in writers}
    needed = votes_needed(campaign.config.extend.quorum, len(writers))
    result = {"votes": len(votes), "needed": needed, "moved": False}
    if len(votes) >= needed and desk.deadline is not None:
        new = clock.days_later(desk.deadline, min(votes.values()), campaign.config.timezone)
        _move(campaign, db, now, desk.deadline, new, kind="vote", absence=None)
        db.execute("delete from extend_votes where turn = ?", (state.turn,))
        desk.deadline = new
        result["moved"] = True
    return result


def extend_for_absences(campaign: Any, db: Any, now: datetime, deadline: datetime | None) -> datetime | None:
    """In `extend` mode, the current deadline moved past the absence of a player who must
    order that holds it, at most `max_days` later, once per turn and absence; an absence
    declared under 24 hours before the deadline moves nothing. The new deadline, or None."""
    state = campaign.state()
    if deadline is None or state.over or campaign.paused() or _mode(campaign, state) != "extend":
        return None
    for player_id in must_order(campaign, state):
        player = campaign.config.player(player_id)
        absence = away_on(campaign, player, deadline)
        if absence is None or clock.parse_time(absence["declared_at"]) > deadline - NOTICE:
            continue
        if campaign.store.one("select id from deadline_moves where turn = ? and absence = ?",
                              (state.turn, absence["id"])):
            continue
        local = deadline.astimezone(ZoneInfo(player.timezone or campaign.config.timezone)).date()
        days = (date.fromisoformat(absence["until"]) - local).days + 1
        new = clock.days_later(deadline, min(days, campaign.config.absence.max_days), campaign.config.timezone)
        _move(campaign, db, now, deadline, new, kind="absence", absence=absence["id"])
        return new
    return None


def _move(campaign: Any, db: Any, now: datetime, old: datetime, new: datetime, *, kind: str,
          absence: int | None) -> None:
    turn = campaign.state().turn
    db.execute("update campaign set deadline = ? where id = ?", (clock.iso(new), campaign.config.id))
    db["deadline_moves"].insert({"turn": turn, "kind": kind, "absence": absence, "old": clock.iso(old),
                                 "new": clock.iso(new), "at": clock.iso(now)})
    # logged as the GM's moves are, so each calendar file after it has a higher SEQUENCE
    log_admin(db, now, turn, f"{kind}_extend", None, {"old": clock.iso(old), "new": clock.iso(new)})
    tell_everyone(campaign, db, now, "deadline_extended", {"turn": turn, "why": kind}, deadline=new)


def listing(campaign: Any) -> dict[str, Any]:
    """Absences and this turn's votes, for `gm status` and `gm state --json`."""
    absences = [{"player": r["player"], "from": r["start"], "until": r["until"], "declared_at": r["declared_at"]}
                for r in campaign.store.rows("select * from absences where not cancelled order by start, id")]
    state = campaign.state() if campaign.started() else None
    votes = [] if state is None else [
        {"player": r["player"], "days": r["days"], "voted_at": r["voted_at"]}
        for r in campaign.store.rows("select * from extend_votes where turn = ? order by player", (state.turn,))]
    return {"absences": absences, "extend_votes": votes}


def status_lines(campaign: Any) -> list[str]:
    """`gm status`: each absence not yet over and this turn's votes, with the quorum."""
    listed = listing(campaign)
    today = clock.now().date().isoformat()
    lines = [f"away: {a['player']} {a['from']} to {a['until']}" for a in listed["absences"] if a["until"] >= today]
    quorum = campaign.config.extend.quorum
    if listed["extend_votes"] or quorum is not None:
        writers = must_order(campaign, campaign.state())
        needed = votes_needed(quorum, len(writers)) if quorum is not None else None
        votes = ", ".join(f"{v['player']} {v['days']}d" for v in listed["extend_votes"]) or "none"
        lines.append(f"extend votes: {votes}" + (f" ({needed} needed)" if needed is not None else ""))
    return lines
