"""The GM's administration of a running campaign's players (docs/campaign.md: `gm player`),
and the notices, log and observers' welcome every GM command shares (`gm pause`, `gm
resume` and `gm deadline` are gm.campaign.schedule's). Each command checks everything first
and refuses with one line, changing nothing; otherwise it makes its change, logs it in the
`admin` table and queues the mail that tells the people concerned, all in one transaction."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime
from typing import Any

from .. import clock
from ..errors import GmError
from ..mail.calendar import deadline_attachment, file_name, meets_deadline
from ..mail.mailout import compose
from . import names
from .config.people import EMAIL_PATTERN, ID_PATTERN
from .config.values import PlayerConfig
from .deadlines import deadline_text
from .folder import Campaign
from .outbox import has_mailed, queue
from .passwords import hash_password, issue_password
from .signup.admission import pool_entry, seated_from_pool
from .signup.asked import name_alike
from .standing import order_view, standing_order
from .store import dumps
from .welcome import welcome_context

_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")
# kinds of the mails sent here: a password in clear goes as a kind whose body `gm send`
# drops once sent (delivery.SECRET_KINDS), like a welcome
NOTICE_KIND = "notice"
SEAT_KIND = "welcome"
PASSWORD_KIND = "reset"
# An observer's welcome: its outbox rows are the record of who was welcomed (welcome_observers)
OBSERVER_KIND = "observer-welcome"
# The commands that change a turn's deadline: each later calendar file of that turn must
# carry a higher SEQUENCE for calendars to take it as the newer (deadline_sequence)
_DEADLINE_MOVES = ("deadline", "resume", "absence_extend", "vote_extend")


# -- players ----------------------------------------------------------------------------


def replace_player(campaign: Campaign, old: str, new: str, *, name: str | None = None,
                   email: str | None = None) -> str:
    """NEW takes OLD's seat now: its pieces, numbers, placings and the open turn's standing
    order (until NEW sends one). NEW gets a fresh password by mail; OLD's password and
    address stop working, and OLD is told. Returns NEW's id. NEW may be someone of the
    sign-up's pool (docs/rules/, Joining by mail): their name, address and time zone are the sign-up's
    unless given, and they play from now on."""
    state = open_state(campaign)
    holder = _holder(campaign, old)
    new = new.strip()
    pool = pool_entry(campaign, new)
    if name is None or email is None:
        if pool is None:
            raise GmError(f"{new} is not in the sign-up pool (gm signup lists it): give --name and --email")
        name, email = name or pool["name"], email or pool["email"]
    if not ID_PATTERN.fullmatch(new):
        raise GmError(f"player id {new!r} must be letters, digits, '-', '_' or '.'")
    taken = {r["id"].casefold(): r["id"] for r in campaign.store.rows("select id from players")}
    if new.casefold() in taken:
        raise GmError(f"the id {new} is taken: {taken[new.casefold()]} plays or played in this campaign")
    # the ruleset's own rules for ids, as gm start applies them (unleashed: not a word of
    # its order language, which would read `PLAY ... ON next+2` as the keyword)
    seated = [(new if p.id == holder.id else p.id, dict(p.extra)) for p in campaign.config.players]
    ruled = campaign.ruleset.player_problems(seated)
    if ruled:
        raise GmError("; ".join(ruled))
    address = _address(campaign, email)
    name = _name(campaign, name, pool)
    turn = state.turn
    password = issue_password()
    renamed = campaign.ruleset.rename_player(state, holder.id, new)
    now = clock.now()
    with campaign.store.transaction() as db:
        seat = db.execute("select seat from players where id = ?", [holder.id]).fetchone()[0]
        db["players"].insert({
            "id": new, "name": name, "email": address, "password_hash": hash_password(password),
            "timezone": pool["timezone"] if pool else None, "failing": None, "seat": seat, "from_turn": turn,
        })
        if pool is not None:
            seated_from_pool(db, pool, now)
        db["players"].update(holder.id, {"replaced_by": new, "until_turn": turn - 1, "pending_password_hash": None})
        db["campaign"].update(campaign.config.id, {"state": dumps(campaign.ruleset.dump_state(renamed))})
        # the open turn's standing order stays with the seat until NEW sends one
        db.execute("update orders set player = ? where turn = ? and player = ?", [new, turn, holder.id])
        log_admin(db, now, turn, "replace", new, {"old": holder.id, "new": new, "name": name, "email": address})
        seated = _seated(campaign, holder.id, PlayerConfig(new, name, address, extra=holder.extra,
                                                           timezone=pool["timezone"] if pool else None))
        _welcome_holder(seated, db, now, new=new, name=name, email=address, password=password,
                        old=holder, state=renamed)
        _tell(campaign, db, now, to=holder.email, template="admin_replaced", kind=NOTICE_KIND, player=holder.id,
              context={"player": {"id": holder.id, "name": holder.name}, "from_turn": turn,
                       "new": {"id": new, "name": name}})
    campaign.config = seated.config
    return new


def _seated(campaign: Campaign, old: str, holder: PlayerConfig) -> Campaign:
    """The campaign as it stands once `holder` holds `old`'s seat, on the same database:
    its configuration (and so its setup, names and facts) lists the new holder where the
    old one was, as the next command that opens the campaign reads it."""
    players = tuple(holder if p.id == old else p for p in campaign.config.players)
    return dataclasses.replace(campaign, config=dataclasses.replace(campaign.config, players=players))


def _welcome_holder(campaign: Campaign, db: Any, now: datetime, *, new: str, name: str, email: str,
                    password: str, old: Any, state: Any) -> None:
    """The ruleset's own welcome, as a player gets it at gm start, for the seat as it stands
    now (the turn, its deadline, its pieces, what only its holder sees), with the handover:
    whose seat it was and the order standing for the open turn, spelled out as an
    acknowledgement spells it. `campaign` is the seated one (_seated)."""
    ruleset, setup = campaign.ruleset, campaign.setup
    paused = campaign.paused()
    deadline = None if paused else campaign.deadline()
    # the deadline in the new holder's own zone, as gm start's welcome and their reports give it
    holder = campaign.config.player(new)
    zone = holder.timezone if holder else None
    order, receipt = standing_order(campaign, state.turn, new)
    standings = ruleset.standings(setup, state)
    pieces = [{"board": board.id, "square": seat.square, "finished": seat.finished, "placing": seat.placing}
              for board in standings.boards.values() if (seat := board.pieces.get(new)) is not None]
    handover = {"old": {"id": old.id, "name": old.name}, "from_turn": state.turn, "sent": receipt > 0,
                "order": order_view(campaign, new, state), "pieces": pieces, "paused": paused}
    context = welcome_context(campaign, deadline) | {
        "player": {"id": new, "name": name}, "password": password, "handover": handover,
        "deadline": deadline_text(deadline, zone), "seats": campaign.seat_changes(),
        "own": ruleset.player_view(setup, new, name, state, (), order),
    }
    attachments = []
    if meets_deadline(ruleset, setup, state, new):
        attachments = deadline_attachment(context, player=new, turn=state.turn, deadline=deadline, now=now,
                                          sequence=deadline_sequence(campaign, state.turn))
    message = compose(sender=campaign.config.mail.sender, to=email, template="welcome", now=now,
                      context=context | {"calendar": file_name(attachments)},
                      attachments=attachments)
    queue(db, message, kind=SEAT_KIND, now=now, player=new, turn=state.turn)


def drop_player(campaign: Campaign, player: str) -> str:
    """The player leaves: sends no more orders, is waited for by nobody and not counted by
    `resolve`'s "more than half" rule, and is moved as the rules move a player who sends no
    order from the open turn on, or from the next one when an order of theirs was already
    acknowledged for the open turn (docs/audit.md: an acknowledged order is played)."""
    state = open_state(campaign)
    holder = _holder(campaign, player)
    if campaign.dropped(holder.id):
        raise GmError(f"{holder.id} has already left the game")
    now = clock.now()
    _, receipt = standing_order(campaign, state.turn, holder.id)
    gone_from = state.turn + 1 if receipt else state.turn
    with campaign.store.transaction() as db:
        db["players"].update(holder.id, {"dropped_turn": gone_from})
        log_admin(db, now, state.turn, "drop", holder.id, {"player": holder.id})
        _tell(campaign, db, now, to=holder.email, template="admin_dropped", kind=NOTICE_KIND, player=holder.id,
              context={"player": {"id": holder.id, "name": holder.name}, "from_turn": gone_from})
    return holder.id


def change_email(campaign: Campaign, player: str, email: str) -> tuple[str, str]:
    """The player's registered address becomes `email`; the old and the new address are both
    told. Returns (old, new)."""
    holder = _holder(campaign, player)
    address = _address(campaign, email, but=holder.id)
    if address == holder.email:
        raise GmError(f"{holder.id}'s address is already {address}")
    now = clock.now()
    turn = campaign.state().turn
    with campaign.store.transaction() as db:
        db["players"].update(holder.id, {"email": address, "failing": None})
        log_admin(db, now, turn, "email", holder.id, {"player": holder.id, "old": holder.email, "new": address})
        context = {"player": {"id": holder.id, "name": holder.name}, "old_address": holder.email,
                   "new_address": address}
        for to in (holder.email, address):
            _tell(campaign, db, now, to=to, template="admin_email", kind=NOTICE_KIND, player=holder.id,
                  context=context | {"to_old": to == holder.email})
    return holder.email, address


def new_password(campaign: Campaign, player: str) -> str:
    """A new password for the player, mailed to their registered address; the old one (and
    any RESET's pending one) stops working at once. The day's failed password checks
    start again from 0 (docs/rules/ "Passwords and RESET"), so mail past the
    day's limit is checked again; the player is not told of guessing twice a day."""
    holder = _holder(campaign, player)
    password = issue_password()
    now = clock.now()
    turn = campaign.state().turn
    with campaign.store.transaction() as db:
        db["players"].update(holder.id, {"password_hash": hash_password(password), "pending_password_hash": None})
        db.execute("update password_failures set failures = 0, unchecked = 0 where player = ? and day = ?",
                   [holder.id, clock.utc_day(now)])
        log_admin(db, now, turn, "password", holder.id, {"player": holder.id})
        _tell(campaign, db, now, to=holder.email, template="admin_password", kind=PASSWORD_KIND, player=holder.id,
              context={"player": {"id": holder.id, "name": holder.name}, "password": password})
    return holder.id


# -- parts ------------------------------------------------------------------------------


def open_state(campaign: Campaign) -> Any:
    state = campaign.state()
    if state.over:
        raise GmError("the campaign is over")
    return state


def _holder(campaign: Campaign, player: str):
    """The current holder of a seat, by id (case-insensitive), else a refusal that says
    who the seat went to when `player` once held one."""
    campaign.row()  # before gm start (a sign-up's store) nobody holds a seat: refused so
    holder = campaign.config.player(player)
    if holder is not None:
        return holder
    row = campaign.store.one("select id, replaced_by from players where id = ? collate nocase", (player,))
    if row and row["replaced_by"]:
        raise GmError(f"{row['id']} no longer plays: {row['replaced_by']} holds the seat")
    raise GmError(f"no player {player!r} in this campaign (players: {', '.join(p.id for p in campaign.config.players)})")


def _address(campaign: Campaign, email: str, *, but: str | None = None) -> str:
    address = email.strip().lower()
    if not EMAIL_PATTERN.fullmatch(address) or _CONTROLS.search(address):
        raise GmError(f"{email!r} is not an address")
    other = next((p for p in campaign.config.players if p.email == address and p.id != but), None)
    if other is not None:
        raise GmError(f"{address} is {other.id}'s address")
    return address


def _name(campaign: Campaign, name: str, pool: dict[str, Any] | None) -> str:
    """The new holder's name, cleaned and judged as every player's is (gm.campaign.names):
    not alike the name of anyone who plays or played here or holds a sign-up's place."""
    name = names.clean(name)
    wrong = names.problems(name)
    if names.EMPTY in wrong:
        raise GmError("the new player needs a name (--name)")
    if wrong:
        raise GmError(f"the new player's name {names.said(wrong[0])} (--name)")
    other = name_alike(campaign, name, but=pool["id"] if pool else None)
    if other is not None:
        raise GmError(f"the new player's name is too like {other}'s: names may not look alike (--name)")
    return name


def log_admin(db: Any, now: datetime, turn: int, command: str, player: str | None, detail: dict[str, Any]) -> None:
    db["admin"].insert({"at": clock.iso(now), "turn": turn, "command": command, "player": player,
                        "detail": json.dumps(detail, sort_keys=True)})


def _shared(campaign: Campaign) -> dict[str, Any]:
    """What every notice of one command shares, read once: a notice to each of 2,000
    players must not read the state, the deadline and the basics 2,000 times."""
    return {"basics": campaign.mail_basics(), "turn": campaign.state().turn, "deadline": campaign.deadline()}


def _tell(campaign: Campaign, db: Any, now: datetime, *, to: str, template: str, kind: str,
          context: dict[str, Any], player: str | None = None, zone: str | None = None,
          shared: dict[str, Any] | None = None, calendar_turn: int | None = None, sequence: int = 0) -> None:
    """One notice. With `calendar_turn`, the deadline it tells goes with it as that turn's
    calendar file for `player` (the templates say so through `calendar`)."""
    config = campaign.config
    shared = shared or _shared(campaign)
    deadline = context.pop("deadline", shared["deadline"])
    if zone is None:
        holder = config.player(player) if player else None
        zone = holder.timezone if holder and holder.timezone else config.timezone
    context = shared["basics"] | {"deadline": deadline_text(deadline, zone), "player": None} | context
    attachments = []
    if calendar_turn is not None and player is not None:
        attachments = deadline_attachment(context, player=player, turn=calendar_turn, deadline=deadline, now=now,
                                          sequence=sequence)
    message = compose(sender=config.mail.sender, to=to, template=template, now=now,
                      context=context | {"calendar": file_name(attachments)},
                      attachments=attachments)
    queue(db, message, kind=kind, now=now, player=player, turn=shared["turn"])


def tell_everyone(campaign: Campaign, db: Any, now: datetime, template: str, context: dict[str, Any], *,
                   deadline: datetime | None) -> None:
    """Every player still in the game and every observer. A notice that sets a deadline
    carries it as a calendar file to each player who still has it to meet."""
    config, shared, dropped = campaign.config, _shared(campaign), campaign.dropped_players()
    ruleset, setup, state = campaign.ruleset, campaign.setup, campaign.state()
    sequence = deadline_sequence(campaign, state.turn) if deadline else 0
    welcome_observers(campaign, db, now)
    for player in config.players:
        if player.id in dropped:
            continue
        calendar = deadline is not None and meets_deadline(ruleset, setup, state, player.id)
        _tell(campaign, db, now, to=player.email, template=template, kind=NOTICE_KIND, player=player.id,
              zone=player.timezone or config.timezone, shared=shared, calendar_turn=state.turn if calendar else None,
              sequence=sequence, context=context | {"player": {"id": player.id, "name": player.name},
                                                     "deadline": deadline})
    for observer in config.observers:
        _tell(campaign, db, now, to=observer.email, template=template, kind=NOTICE_KIND, shared=shared,
              context=context | {"observer": {"name": observer.name}, "deadline": deadline})


def deadline_sequence(campaign: Campaign, turn: int) -> int:
    """How many times the GM has set `turn`'s deadline again (gm deadline, gm resume): the
    SEQUENCE of that turn's calendar files, so each new one supersedes the last (RFC 5545
    3.8.7.4) and a reminder sent after a move does not bring the old time back."""
    marks = ", ".join("?" * len(_DEADLINE_MOVES))
    row = campaign.store.one(f"select count(*) as n from admin where turn = ? and command in ({marks})",
                             (turn, *_DEADLINE_MOVES))
    return row["n"] if row else 0


# -- observers ---------------------------------------------------------------------------


def welcome_observers(campaign: Campaign, db: Any, now: datetime) -> list[str]:
    """Queue a welcome to every observer campaign.yaml lists who has had none: the rules,
    the archive's address, the game as it stands. Observers are free to edit at any time
    (CONTRACT "Fixed at start"), so this runs at gm start and again at each command that
    mails them or sends mail; the outbox row of each welcome is the record that its address
    was welcomed, once. Returns the addresses welcomed now."""
    if not campaign.started():
        return []  # a sign-up's gm send (docs/rules/, Joining by mail): there is no game to tell of yet
    # one welcome per address, however often campaign.yaml lists it; looked up by recipient
    # (an index), as this runs at every gm send of a campaign whose outbox only grows
    listed = {o.email: o for o in campaign.config.observers}
    new = [o for address, o in listed.items() if not has_mailed(campaign.store.conn, address, OBSERVER_KIND)]
    if not new:
        return []
    state, paused = campaign.state(), campaign.paused()
    deadline = None if paused or state.over else campaign.deadline()
    context = welcome_context(campaign, deadline) | {
        "seats": campaign.seat_changes(), "next_turn": None if state.over else state.turn, "paused": paused,
        "player": None,
    }
    for observer in new:
        message = compose(sender=campaign.config.mail.sender, to=observer.email, template="observer_welcome",
                          context=context | {"observer": {"name": observer.name}}, now=now)
        queue(db, message, kind=OBSERVER_KIND, now=now, turn=state.turn)
    return [o.email for o in new]
