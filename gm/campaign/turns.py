"""A campaign's turns: who has ordered, deadlines, reminders, resolving a turn (with its
reports queued in the same transaction) and undoing the last one."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

import jinja2

from .. import clock
from ..counts import count, one_or_many
from ..errors import GmError
from ..mail import gmreport
from ..mail.calendar import deadline_attachment, meets_deadline
from ..mail.mailout import compose, find_template, render
from ..mail.views import BoardSize, EndView, PlayerMail, PlayerRef, ProofView, deadline_view
from ..rules.base import INLINE_PLAYERS, Outcome
from ..rules.chance import SeededChance, played
from ..rules.entropy import draw_seed
from .admin import deadline_sequence, welcome_observers
from .away import away_names, away_now, extend_for_absences
from .deadlines import deadline_text, next_deadline
from .digests import record_digest
from .entropy import contributions, first_report_hashes
from .folder import Campaign
from .outbox import drop_reports, queue, reports_sent
from .press import press_digest
from .proof import chain_link, final_link, proof_view, receipts_played
from .standing import order_view, standing_order
from .store import dumps


@dataclass(frozen=True)
class OrderStatus:
    player: str
    name: str
    must_send: bool  # must send something this turn (the "more than half" interlock)
    in_play: bool  # still takes part: the turn waits for their message
    complete: bool  # the standing order holds all they must send
    receipt: int  # accepted messages this turn (0: none)
    order: Any
    # the turn waits for this player before its deadline (an early resolve needs their
    # complete order): the one answer `gm turn` and `gm status` both give
    awaited: bool = False


def order_statuses(campaign: Campaign) -> list[OrderStatus]:
    state = campaign.state()
    ruleset, setup = campaign.ruleset, campaign.setup
    dropped = campaign.dropped_players(state.turn)
    statuses = []
    for player in campaign.config.players:
        if player.id in dropped:
            # gone (gm player drop): moved as one who sends no order, waited for and counted by nobody
            empty = ruleset.empty_order()
            statuses.append(OrderStatus(player.id, player.name, False, False,
                                        ruleset.order_complete(setup, state, player.id, empty), 0, empty))
            continue
        order, receipt = standing_order(campaign, state.turn, player.id)
        in_play = ruleset.in_play(setup, state, player.id)
        complete = ruleset.order_complete(setup, state, player.id, order)
        statuses.append(
            OrderStatus(
                player.id, player.name, ruleset.must_order(setup, state, player.id), in_play, complete,
                receipt, order, awaited=in_play and (not receipt or not complete),
            )
        )
    return statuses


def awaited(campaign: Campaign, statuses: list[OrderStatus] | None = None) -> list[str]:
    """Players a turn waits for before its deadline (docs/rules/, Orders, the deadline and missed turns): everyone in play needs
    an accepted message for the turn holding all they must send. What the rules choose
    for a player is no message, so such a turn still waits."""
    statuses = order_statuses(campaign) if statuses is None else statuses
    return [s.player for s in statuses if s.awaited]


def missing_orders(campaign: Campaign, statuses: list[OrderStatus] | None = None) -> tuple[list[str], int]:
    """Players who must send an order and have not, and how many must send one."""
    statuses = order_statuses(campaign) if statuses is None else statuses
    must = [s for s in statuses if s.must_send]
    return [s.player for s in must if not s.complete], len(must)


def remind(campaign: Campaign) -> list[str]:
    """Queue a reminder to every player who must send an order and has not: their
    standing order, and what the ruleset says they may send (its player view)."""
    now = clock.now()
    statuses = order_statuses(campaign)
    missing, _ = missing_orders(campaign, statuses)
    away = away_now(campaign, now)  # docs/rules/, Absences: reminders skip who is away
    missing = [player for player in missing if player not in away]
    standing = {s.player: s.order for s in statuses}
    config, ruleset, setup = campaign.config, campaign.ruleset, campaign.setup
    state, deadline = campaign.state(), campaign.deadline()
    turn = state.turn
    basics = campaign.mail_basics()
    sequence = deadline_sequence(campaign, turn)
    with campaign.store.transaction() as db:
        for player_id in missing:
            player = config.player(player_id)
            assert player is not None
            own = ruleset.player_view(setup, player_id, player.name, state, (), standing[player_id])
            mail = _mail_context(campaign, player_id, basics, state=state, deadline=deadline,
                                 order=order_view(campaign, player_id, state), own=own)
            message = compose(
                sender=config.mail.sender,
                to=player.email,
                template="reminder",
                context=mail.context(),
                now=now,
                attachments=_deadline_attachment(mail, now, deadline=deadline, sequence=sequence),
            )
            queue(db, message, kind="reminder", now=now, player=player_id, turn=turn)
    return missing


def _mail_context(campaign: Campaign, player_id: str, basics: dict[str, Any], *, state: Any,
                  deadline: datetime | None, dropped: Collection[str] = (), **parts: Any) -> PlayerMail:
    """A player's mail context: public facts (`basics`: Campaign.mail_basics), their own,
    and the deadline in their terms. A PlayerMail has no field for anything hidden
    (views.py), so no template can leak it. The basics, state, deadline and dropped
    players are passed in: read per player they made a turn cost players squared."""
    config = campaign.config
    player = config.player(player_id)
    assert player is not None
    left = player_id in dropped
    deadline = None if left else deadline
    return PlayerMail(
        campaign=basics["campaign"],
        title=basics["title"],
        ruleset=basics["ruleset"],
        gm_address=basics["gm_address"],
        boards=tuple(BoardSize(b["id"], b["squares"]) for b in basics["boards"]),
        facts=basics["facts"],
        commands=basics["commands"],
        player=PlayerRef(player.id, player.name),
        deadline=deadline_view(deadline_text(deadline, player.timezone)),
        next_turn=None if state.over else state.turn,
        calendar=deadline is not None and meets_deadline(campaign.ruleset, campaign.setup, state, player_id, dropped),
        archive_url=basics.get("archive_url"),
        seats=basics.get("seats", ()),
        away=basics.get("away", ()),
        game_commitment=basics.get("game_commitment"),
        left=left,
        entropy=basics.get("entropy", {}),
        end_hash=basics.get("end_hash"),
        **parts,
    )




def _table(config: Any, basics: dict[str, Any], view: Any,
           proof: ProofView | None = None) -> tuple[str, str, str, str] | None:
    """The attachment of every player's line, (text, "text", "plain", file name), rendered
    once for every copy; None when the body lists everyone (a small campaign, or a
    ruleset without a table.txt). It also holds every seat's receipt played (`proof`,
    docs/audit.md), which such a report's body does not (ProofView.listed)."""
    if len(config.players) <= INLINE_PLAYERS:
        return None
    context = {"ruleset": basics["ruleset"], "campaign": basics["campaign"], "title": basics["title"], "view": view,
               "proof": proof}
    try:
        template = find_template("text", "mail", "table.txt", context)
    except jinja2.TemplateNotFound:
        return None
    turns = "-".join(str(t) for t in getattr(view, "turns", ()))
    return (template.render(context), "text", "plain", f"{basics['campaign']}-turn-{turns}-players.txt")


def _deadline_attachment(mail: PlayerMail, now: datetime, *, deadline: datetime | None,
                         sequence: int) -> list[tuple[bytes, str, str, str]]:
    """The deadline as an .ics file, when the player has one to meet (mail.calendar): same
    UID per player and turn, so a reminder updates the entry a report made; `sequence`
    counts the GM's moves of that deadline (admin.deadline_sequence). The deadline and the
    sequence are the caller's, read once: per player they made a turn cost a query per report."""
    if not mail.calendar or mail.next_turn is None:
        return []
    return deadline_attachment(mail.context(), player=mail.player.id, turn=mail.next_turn,
                               deadline=deadline, now=now, sequence=sequence)


def following_deadline(config: Any, deadline: datetime | None, now: datetime) -> datetime:
    """The next turn's deadline: `turn_days` after this turn's, so the schedule keeps its
    weekday and hour whenever the GM happens to run `gm turn` (a run an hour late must not
    move every later deadline an hour). Players get at least half a turn to order: a turn
    resolved that late counts `turn_days` from now."""
    if deadline is not None:
        scheduled = next_deadline(config, deadline)
        if scheduled - now >= (scheduled - deadline) / 2:
            return scheduled
    return next_deadline(config, now)


@dataclass(frozen=True)
class Resolution:
    turn: int
    result: Outcome
    orders: dict[str, Any]
    gm_report: str  # the GM's report as text (what --preview prints)
    # a preview only: why `gm resolve` would refuse the turn now (None: it would resolve it)
    refused: str | None = None


def resolved_summary(resolution: Resolution) -> str:
    """The one line `gm resolve` and `gm turn` print for a resolved turn."""
    state = resolution.result.state
    first, last = resolution.turn, state.turn - 1
    turns = f"turns {first}-{last}" if last > first else f"turn {first}"
    tail = "the campaign is over" if state.over else f"next: turn {state.turn}"
    return f"resolve: {turns} resolved, reports queued; {tail}"


def refusal(campaign: Campaign, state: Any, statuses: list[OrderStatus], *, force: bool = False) -> str | None:
    """Why `gm resolve` may not resolve the current turn now, or None: the campaign is
    paused (--force or not), the deadline is still to come, or more than half of the
    players who must send an order have none (a mailbox not read). Where silence is a
    legal order (Ruleset.silence_is_order) a quiet week tells nothing of the mailbox, so
    that last rule refuses nothing."""
    if campaign.paused():
        return "the campaign is paused; gm resume [WHEN] goes on"
    deadline = campaign.deadline()
    if not force and deadline is not None and clock.now() < deadline:
        when = deadline_text(deadline, campaign.config.timezone)
        return f"turn {state.turn} is open until {when['utc']}; use --force to resolve it now"  # type: ignore[index]
    if force or campaign.ruleset.silence_is_order:
        return None
    missing, must = missing_orders(campaign, statuses)
    if missing and len(missing) * 2 > must:
        return (f"{len(missing)} of the {count(must, 'player')} who must send an order "
                f"{one_or_many(len(missing), 'has', 'have')} none "
                f"({', '.join(missing)}): is the mailbox read? use --force to resolve anyway")
    return None


def resolve(campaign: Campaign, *, force: bool = False, preview: bool = False) -> Resolution:
    """Resolve the current turn; queue every report in the same transaction. A preview
    saves nothing, so it always runs (paused, before the deadline, orders missing) and
    says in `refused` whether a resolve now would."""
    state = campaign.state()
    if state.over:
        raise GmError("the campaign is over; there is no turn to resolve")
    now = clock.now()
    deadline = campaign.deadline()
    statuses = order_statuses(campaign)
    refused = refusal(campaign, state, statuses, force=force)
    if refused and not preview:
        raise GmError(refused)
    orders = {s.player: s.order for s in statuses if s.receipt}
    ruleset, setup = campaign.ruleset, campaign.setup
    chance = SeededChance(draw_seed(setup.seed, state.turn, contributions(campaign.store)))
    result = played(ruleset.resolve(setup, state, orders, chance), chance)  # gm collects the draws itself
    names = campaign.names()
    view = ruleset.public_view(setup, state, result.state, result.events, names,
                               campaign.config.id, campaign.config.title)
    gm_context = _gm_context(campaign, state, view, result, orders)
    gm_text = render("gm_report", gm_context)[1]
    resolution = Resolution(state.turn, result, orders, gm_text, refused)
    if preview:
        return resolution
    config = campaign.config
    new_deadline = None if result.state.over else following_deadline(config, deadline, now)
    # docs/audit.md: the receipts played and the record hash chained to the turn before
    receipts = receipts_played(campaign.store, state.turn, setup.players, orders)
    draws = [d.to_json() for d in result.draws]
    record_hash = chain_link(campaign.store, setup.seed, state.turn, receipts, draws,
                             ruleset.state_json(setup, result.state))
    proof = proof_view(state.turn, record_hash, receipts, names)
    record = {
        "turn": state.turn,
        "resolved_at": clock.iso(now),
        "deadline": clock.iso(deadline) if deadline else None,
        "state_before": dumps(campaign.ruleset.dump_state(state)),
        "state_after": dumps(campaign.ruleset.dump_state(result.state)),
        "orders": dumps({p: campaign.ruleset.order_to_json(o) for p, o in orders.items()}),
        "events": dumps([asdict(e) for e in result.events]),
        "draws": dumps(draws),
        "receipts": dumps(receipts) if record_hash else None,
        "record_hash": record_hash,
    }
    with campaign.store.transaction() as db:
        db["turns"].insert(record | {"digest": record_digest(record)})
        db["campaign"].update(
            config.id,
            {
                "state": dumps(campaign.ruleset.dump_state(result.state)),
                "deadline": clock.iso(new_deadline) if new_deadline else None,
            },
        )
        queue_results(campaign, db, now, after=result.state, events=result.events, view=view, orders=orders,
                      turn=state.turn, deadline=new_deadline, proof=proof, receipts=receipts)
        # docs/rules/, Absences: in extend mode a new deadline inside an absence moves past it
        extend_for_absences(campaign, db, now, new_deadline)
        message = compose(sender=config.mail.sender, to=config.mail.sender, template="gm_report",
                          context=gm_context | {"proof": proof}, now=now,
                          headers=[proof.header()] if proof else ())
        queue(db, message, kind="gm-report", now=now, turn=state.turn)
    return resolution


def queue_results(campaign: Campaign, db: Any, now: datetime, *, after: Any, events: Sequence[Any], view: Any,
                  orders: Mapping[str, Any], turn: int, deadline: datetime | None = None,
                  proof: ProofView | None = None, receipts: Mapping[str, str | None] | None = None,
                  kind: str = "report", ended: EndView | None = None) -> None:
    """Queue what every player and observer reads of a turn resolved into `after` through
    `events` (`view` its public view, `orders` those played): each player's report, or
    the final results once `after` is over, and each observer's copy. Also the final
    results of a campaign the GM ended (gm.campaign.gm_end), told by `ended`."""
    config, ruleset, setup = campaign.config, campaign.ruleset, campaign.setup
    # the last turn's report is the final results (docs/rules/, Crossing the finish and placings: the aggregate)
    template = "final" if after.over else "report"
    # the reports say who held a seat when (reminders and replies need not)
    basics = campaign.mail_basics() | {"seats": campaign.seat_changes(), "away": away_names(campaign, now),
                                       "entropy": first_report_hashes(campaign, turn),
                                       "end_hash": final_link(campaign, after)}
    table = _table(config, basics, view, proof)
    # a player who left (gm player drop) still reads the reports, but has no deadline
    dropped = campaign.dropped_players()
    sequence = deadline_sequence(campaign, after.turn)
    headers = ([proof.header()] if proof else []) + ([ProofView.end_header(basics["end_hash"])]
                                                     if basics["end_hash"] else [])
    digest = press_digest(campaign, turn)
    for player in config.players:
        own = ruleset.player_view(setup, player.id, player.name, after, events, orders.get(player.id))
        mine = proof and replace(proof, reader=(receipts or {}).get(player.id))
        mail = _mail_context(campaign, player.id, basics, state=after, deadline=deadline, dropped=dropped,
                             view=view, own=own, table=table[3] if table else None, proof=mine, ended=ended)
        message = compose(
            sender=config.mail.sender,
            to=player.email,
            template=template,
            context=mail.context() | {"press_digest": digest},
            now=now,
            attachments=([table] if table else []) + _deadline_attachment(mail, now, deadline=deadline,
                                                                          sequence=sequence),
            headers=headers,
        )
        # kind stays "report" for the final results too: undo withdraws reports by kind
        queue(db, message, kind=kind, now=now, player=player.id, turn=turn)
    # an observer added to campaign.yaml since the last mail is welcomed before the report
    welcome_observers(campaign, db, now)
    # observers (campaign.yaml) read the public part only: no field of theirs holds a hand
    observed = basics | {"view": view, "player": None, "next_turn": None if after.over else after.turn,
                         "deadline": deadline_view(deadline_text(deadline, config.timezone)),
                         "table": table[3] if table else None, "proof": proof, "ended": ended,
                         "press_digest": digest}
    for observer in config.observers:
        message = compose(sender=config.mail.sender, to=observer.email, template="observer",
                          context=observed | {"observer": {"name": observer.name}}, now=now,
                          attachments=[table] if table else [], headers=headers)
        queue(db, message, kind=kind, now=now, turn=turn)


def _gm_context(campaign: Campaign, before: Any, view: Any, result: Outcome, orders: dict[str, Any]) -> dict[str, Any]:
    config = campaign.config
    return gmreport.gm_context(
        campaign.ruleset, campaign.setup, before, result.state, result.events, orders, view=view,
        campaign=config.id, title=config.title, names=campaign.names(),
        board_names={b: board.name for b, board in config.boards.items()}, dropped=campaign.dropped_players(),
    )


def undo(campaign: Campaign, *, force: bool = False) -> int:
    """Roll back the last resolved turn. Its orders stand again; unsent reports are
    withdrawn. Once any of its reports went out, only --force undoes it."""
    campaign.row()  # refuses a campaign not started (a sign-up's store has no turns either)
    last = campaign.store.one("select * from turns order by turn desc limit 1")
    if last is None:
        raise GmError("no turn has been resolved yet")
    turn = last["turn"]
    if campaign.row().get("ended"):
        # its final results are out and the record says the GM ended it there
        raise GmError(f"the GM ended the campaign after turn {turn} (gm end); an end cannot be undone")
    changed = campaign.store.one("select command, player from admin where command = 'replace' and turn > ? limit 1",
                                 (turn,))
    if changed:
        raise GmError(f"{changed['player']} took over a seat after turn {turn} was resolved; "
                      "undoing it would give the seat back to its former holder")
    sent = reports_sent(campaign.store.conn, turn)
    if sent and not force:
        raise GmError(
            f"{count(sent, 'report')} of turn {turn} {one_or_many(sent, 'was', 'were')} already sent; players have seen it. "
            "Use --force to undo anyway (the sent reports stay sent)"
        )
    with campaign.store.transaction() as db:
        drop_reports(db, turn)
        db["campaign"].update(
            campaign.config.id, {"state": last["state_before"], "deadline": last["deadline"]}
        )
        db.execute("delete from turns where turn = ?", (turn,))
    return turn
