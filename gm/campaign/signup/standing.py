"""Sign-up by mail before `gm start` (docs/rules/, Joining by mail): the sign-up language, who stands
where, and what the GM and `gm start` do with it.

A request is a mail: `JOIN <campaign>` with `NAME`, and optionally `TIMEZONE`, `ID` and
the ruleset's player keys (`TEAM` in advanced), answered to its sender alone with a
confirmation code; it counts once `CONFIRM <code>` comes back from that address. So a
forged sender signs nobody up and costs the address one mail, counted by the order desk's
refusal caps (a code is one of desk.UNASKED's kinds). Until it is confirmed a request is
its message alone: the code is made from the message's row and the sender with the
campaign's key, so nothing is kept for a JOIN nobody confirms. `LEAVE <campaign>` is
confirmed the same way, so a forged LEAVE withdraws nobody.

A confirmed request is a row of `signups`, in the order confirmed. Where each stands is a
function of those rows and campaign.yaml's `signup:` (`settle`): with `approve: auto` the
first places are in and the rest wait; with `approve: gm` each waits for `gm signup
accept|reject`; a request confirmed while sign-up is closed waits and moves in only when
the GM accepts it. Everyone is told where they stand once, and again when it changes
(`told`). At `gm start` those in become players, after campaign.yaml's, and those still
waiting are told and stay the GM's pool for `gm player replace`.

The mail itself is handled by gm.campaign.signup.desk with the order desk's reading,
limits, caps, loop and duplicate rules; every word a person reads is in templates/mail.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import clock
from .. import names
from ..config.values import SignupConfig
from ..deadlines import deadline_text
from ..store import insert
from .language import key_forms, keyword_of

if TYPE_CHECKING:
    from ..folder import Campaign


# -- statuses -------------------------------------------------------------------------------

IN, WAITING, AWAITING, REJECTED, LEFT = "in", "waiting", "awaiting", "rejected", "left"
PLAYING, POOL = "playing", "pool"  # at gm start: seated, or left waiting (the GM's pool)
LIVE = (IN, WAITING, AWAITING)  # before the start: a place held or hoped for
WAITING_LIST = (WAITING, AWAITING, POOL)  # confirmed, holding no place: at most max_waiting
HOLDS = (*LIVE, PLAYING, POOL)  # an address holding one of these holds its one place
ACCEPTED, DECLINED, LATE = "accepted", "rejected", "late"  # decisions; LATE: confirmed while closed

# outbox kinds: a code goes to whoever the sender says they are (desk.UNASKED counts it
# towards the caps); a status notice to an address proved by its confirmation
CODE_KIND = "signup-code"
STATUS_KIND = "signup"


# -- who stands where -----------------------------------------------------------------------


def places(config: Any) -> int | None:
    """The places sign-up gives: max_players (and the ruleset's most) less the players
    campaign.yaml lists; None for no limit."""
    limits = [n for n in (config.signup.max_players if config.signup else None, config.ruleset.max_players)
              if n is not None]
    return max(0, min(limits) - len(config.players)) if limits else None


def waiting_room(config: Any) -> int | None:
    """How many requests may wait without a place (docs/campaign.md, signup): max_waiting,
    by default max_players (campaign.yaml's, else the ruleset's most); None for no limit."""
    signup = config.signup
    if signup is not None and signup.max_waiting is not None:
        return signup.max_waiting
    if signup is not None and signup.max_players is not None:
        return signup.max_players
    return config.ruleset.max_players


def waiting_full(campaign: Campaign) -> int | None:
    """The waiting list's limit when it is reached (a request that would wait is refused),
    else None."""
    room = waiting_room(campaign.config)
    if room is None:
        return None
    held = campaign.store.one(f"select count(*) as n from signups where status in ({marks(WAITING_LIST)})",
                              WAITING_LIST)["n"]
    return room if held >= room else None


def statuses(rows: Sequence[dict[str, Any]], signup: SignupConfig, free: int | None) -> dict[int, str]:
    """Where each live request stands, by row id (docs/rules/, Joining by mail): taken in the order
    confirmed; under `approve: gm` only those the GM accepted move in, and a request
    confirmed while sign-up was closed moves in only once the GM accepts it."""
    found: dict[int, str] = {}
    candidates = []
    for row in sorted(rows, key=lambda r: r["id"]):
        decision = row["decision"]
        if decision == ACCEPTED or (decision is None and signup.approve == "auto"):
            candidates.append(row["id"])
        else:
            found[row["id"]] = AWAITING if decision is None else WAITING  # LATE waits for the GM
    for index, row_id in enumerate(candidates):
        found[row_id] = IN if free is None or index < free else WAITING
    return found


def live_rows(store: Any) -> list[dict[str, Any]]:
    return store.rows(f"select * from signups where status in ({marks(LIVE)}) order by id", LIVE)


def marks(values: Sequence[Any]) -> str:
    return ", ".join("?" * len(values))


def holding_query(email: str) -> tuple[str, tuple[Any, ...]]:
    """The query (SQL, parameters) for the latest request by which `email` holds a place
    (docs/rules/, Joining by mail: an address holds at most one): no row when it holds none. A query, not
    a reading, so each caller runs it where it reads: the desk's transaction or the store."""
    return (f"select * from signups where email = ? and status in ({marks(HOLDS)}) order by id desc limit 1",
            (email, *HOLDS))


def settle(campaign: Campaign, db: Any, now: datetime) -> list[str]:
    """Put every live request where the rules and campaign.yaml say it stands now (a
    place freed, max_players or approve changed) and tell each person whose standing
    changed. Returns the ids told. Before the start only."""
    config = campaign.config
    if config.signup is None or campaign.started():
        return []
    rows = live_rows(campaign.store)
    now_at = statuses(rows, config.signup, places(config))
    for row in rows:
        if now_at[row["id"]] != row["status"]:
            db.execute("update signups set status = ?, changed_at = ? where id = ?",
                       (now_at[row["id"]], clock.iso(now), row["id"]))
    return tell(campaign, db, now)


def tell(campaign: Campaign, db: Any, now: datetime, *, started: bool = False) -> list[str]:
    """A notice to each person whose standing is not the one last told them."""
    rows = campaign.store.rows("select * from signups where told is null or told != status order by id")
    if not rows:
        return []
    context = standing_context(campaign)
    for row in rows:
        notice(campaign, db, row, now, context=context, started=started)
    db.execute("update signups set told = status where told is null or told != status")
    return [row["player"] for row in rows]


def notice(campaign: Campaign, db: Any, row: dict[str, Any], now: datetime, *, context: dict[str, Any] | None = None,
           started: bool = False, in_reply_to: Any = None) -> int:
    """Queue the mail that tells one person where they stand (a reply when `in_reply_to`,
    the confirmation or LEAVE it answers); returns its outbox id."""
    context = context or standing_context(campaign)
    position = None
    if row["status"] == WAITING:
        position = 1 + (campaign.store.one(
            "select count(*) as n from signups where status = ? and id < ?", (WAITING, row["id"])) or {"n": 0})["n"]
    # the mail's machinery, imported only when a notice is made (as gm.campaign.signup.language.read_request
    # imports parse_orders): importing this module loads none of it
    from ...mail.mailout import compose
    from ..outbox import queue

    message = compose(
        sender=campaign.config.mail.sender, to=row["email"], template="signup_status", now=now,
        # the closing time in the person's own zone: the CONFIRM proved the address theirs
        context=context | {"closes": _closes_text(campaign, row["timezone"]),
                           "person": person_view(row), "status": row["status"], "before": row["told"],
                           "position": position, "started": started,
                           # confirmed while sign-up was closed: the GM, not a free place, moves them in
                           "late": row.get("decision") == LATE},
        in_reply_to=in_reply_to.message_id if in_reply_to is not None else None,
        references=in_reply_to.references if in_reply_to is not None else (),
        auto_reply=True,
    )
    return queue(db, message, kind=STATUS_KIND, now=now, player=None)


def person_view(row: dict[str, Any]) -> dict[str, Any]:
    """What a mail says of one person's request: their id, name, zone and keys."""
    return {"id": row["player"], "name": names.clean(row["name"]), "email": row["email"], "timezone": row["timezone"],
            "made": False, "keys": sorted((keyword_of(k), v) for k, v in json.loads(row["keys"] or "{}").items()),
            "asked": asked_words(row)}


def asked_words(row: dict[str, Any]) -> list[str]:
    """The keywords of the keys a request asked the GM for and the GM has not granted (the
    values are the sender's words: a mail to them does not say them back)."""
    return sorted(keyword_of(k) for k in json.loads(row.get("requested") or "{}"))


def basics(campaign: Campaign) -> dict[str, Any]:
    """What every sign-up mail says of the game: all public."""
    config = campaign.config
    return {"campaign": config.id, "title": config.title, "ruleset": config.ruleset_name,
            "gm_address": config.mail.address, "archive_url": config.archive_url, "game_commitment": None,
            "player": None}


def standing_context(campaign: Campaign) -> dict[str, Any]:
    """What a notice of where someone stands says of the sign-up as a whole."""
    config = campaign.config
    signup = config.signup or SignupConfig(open=False)
    free = places(config)
    taken = count_status(campaign.store, IN)
    return basics(campaign) | {
        "approve": signup.approve,
        "places": free,
        "places_left": None if free is None else max(0, free - taken),
        "closes": _closes_text(campaign),
        "key_forms": key_forms(config.ruleset),
        # the keywords of the keys a JOIN only asks the GM for (signup teams: gm)
        "asked_keys": sorted(keyword_of(k) for k in asked_apart(config, dict.fromkeys(config.ruleset.player_keys, ""))[1]),
    }


def _closes_text(campaign: Campaign, zone: str | None = None) -> dict[str, Any] | None:
    """When sign-up closes, in `zone` (a person's own) or else the campaign's."""
    signup = campaign.config.signup
    return deadline_text(signup.closes, zone or campaign.config.timezone) if signup and signup.closes else None


def count_status(store: Any, status: str) -> int:
    return store.one("select count(*) as n from signups where status = ?", (status,))["n"]


# -- the store before the start ---------------------------------------------------------------


def note_config(campaign: Campaign, db: Any, now: datetime) -> None:
    """Log when sign-up opens and closes (campaign.yaml's `open` as gm finds it; `closes`
    is a time of its own), for the archive's feed."""
    signup = campaign.config.signup
    if signup is None or campaign.started():
        return
    last = db.execute("select event from signup_log order by id desc limit 1").fetchone()
    state = "opened" if signup.open else "closed"
    if (last[0] if last else "closed") != state:
        insert(db, "signup_log", {"at": clock.iso(now), "event": state})


def refresh(campaign: Campaign, now: datetime | None = None) -> list[str]:
    """What each command that handles sign-ups does first, in one transaction: note
    campaign.yaml's `open`, and settle and tell (a place max_players added, a decision
    the GM made in campaign.yaml's approve). Returns the ids told."""
    if campaign.config.signup is None or campaign.started():
        return []
    now = now or clock.now()
    with campaign.store.transaction() as db:
        note_config(campaign, db, now)
        return settle(campaign, db, now)


# -- the GM's commands ----------------------------------------------------------------------


def asked_apart(config: Any, keys: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A sign-up's keys as (those it joins with, those it only asks the GM for): under
    `signup: {teams: gm}` the ruleset's placed keys (advanced: team) are asked for."""
    if config.signup is not None and config.signup.teams == "open":
        return dict(keys), {}
    placed = set(config.ruleset.placed_keys)
    return ({k: v for k, v in keys.items() if k not in placed}, {k: v for k, v in keys.items() if k in placed})
