"""Sign-up by mail before `gm start` (RULES.md 3.1): the sign-up language, who stands
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
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import clock
from ...errors import GmError
from .. import names
from ..config.people import stand_in_problems
from ..config.values import PlayerConfig, SignupConfig
from ..deadlines import deadline_text
from ..store import insert
from .language import MADE_ID_LENGTH, key_forms, keyword_of

if TYPE_CHECKING:
    from ...rules.base import Ruleset
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
    held = campaign.store.one(f"select count(*) as n from signups where status in ({_marks(WAITING_LIST)})",
                              WAITING_LIST)["n"]
    return room if held >= room else None


def asked_apart(config: Any, keys: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A sign-up's keys as (those it joins with, those it only asks the GM for): under
    `signup: {teams: gm}` the ruleset's placed keys (advanced: team) are asked for."""
    if config.signup is not None and config.signup.teams == "open":
        return dict(keys), {}
    placed = set(config.ruleset.placed_keys)
    return ({k: v for k, v in keys.items() if k not in placed}, {k: v for k, v in keys.items() if k in placed})


def statuses(rows: Sequence[dict[str, Any]], signup: SignupConfig, free: int | None) -> dict[int, str]:
    """Where each live request stands, by row id (RULES.md 3.1): taken in the order
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
    return store.rows(f"select * from signups where status in ({_marks(LIVE)}) order by id", LIVE)


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" * len(values))


def holding_query(email: str) -> tuple[str, tuple[Any, ...]]:
    """The query (SQL, parameters) for the latest request by which `email` holds a place
    (RULES.md 3.1: an address holds at most one): no row when it holds none. A query, not
    a reading, so each caller runs it where it reads: the desk's transaction or the store."""
    return (f"select * from signups where email = ? and status in ({_marks(HOLDS)}) order by id desc limit 1",
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
    from ...mail.mailout import compose, queue

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


def id_taken(campaign: Campaign, player: str) -> bool:
    """Whether `player` (lower case) is taken: looked up, not listed, as each JOIN asks."""
    if player in {p.id.casefold() for p in campaign.config.players}:
        return True
    if campaign.store.one("select 1 from players where id = ? collate nocase", (player,)):
        return True
    return campaign.store.one(f"select 1 from signups where player = ? and status in ({_marks(HOLDS)})",
                              (player, *HOLDS)) is not None


def holders_names(campaign: Campaign, *, but: int | None = None) -> list[tuple[str, str]]:
    """(id, name) of everyone a new name may not look like (docs/rules/, Joining
    by mail): campaign.yaml's players, everyone who plays or played a seat, and every
    request that holds or waits for a place (all but the request `but`, a signups row)."""
    found = [(p.id, p.name) for p in campaign.config.players]
    found += [(r["id"], r["name"]) for r in campaign.store.rows("select id, name from players")]
    found += [(r["player"], r["name"]) for r in campaign.store.rows(
        f"select id, player, name from signups where status in ({_marks(HOLDS)}) order by id", HOLDS)
        if r["id"] != but]
    return found


def name_alike(campaign: Campaign, name: str, *, but: int | None = None) -> str | None:
    """The id of the first player or request whose name is alike `name`, or None."""
    return names.first_alike(name, holders_names(campaign, but=but))


def made_id(name: str, taken: Any, allowed: Any) -> str:
    """An id from a name (RULES.md 3.1): lowercase ASCII letters, digits and '-', with
    -2, -3... until it is not `taken` and the ruleset `allowed` it."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    base = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:MADE_ID_LENGTH].strip("-") or "player"
    candidate, number = base, 2
    while taken(candidate) or not allowed(candidate):
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def _own_problems(ruleset: Ruleset) -> bool:
    from ...rules.base import Ruleset as Base

    return type(ruleset).player_problems is not Base.player_problems


def links(ruleset: Ruleset, player: str, keys: dict[str, Any]) -> set[str]:
    """The words by which the ruleset may relate this player to others: the id and the
    values of its placed keys (Ruleset.placed_keys), case folded."""
    return {player.casefold(), *(str(keys[k]).casefold() for k in ruleset.placed_keys if keys.get(k) is not None)}


def write_links(db: Any, ruleset: Ruleset, row_id: int, player: str, keys: dict[str, Any]) -> None:
    """Record a request's links (signup_links) as it holds a place with these keys."""
    db.execute("delete from signup_links where signup = ?", (row_id,))
    for word in sorted(links(ruleset, player, keys)):
        db.execute("insert into signup_links (signup, link) values (?, ?)", (row_id, word))


def key_problems(campaign: Campaign, player: str, keys: dict[str, str]) -> list[str]:
    """What the ruleset finds wrong with one more player of this id and keys beside those
    campaign.yaml lists and those holding a place (Ruleset.player_problems: a team that
    names another player, a word of the order language), their number aside. Judged
    beside the places sharing a link (an id or a placed key's value) with it, found by
    signup_links' index: one request costs the same whatever the places held."""
    ruleset = campaign.config.ruleset
    if not _own_problems(ruleset):
        return []
    words = links(ruleset, player, keys)
    others = [(p.id, dict(p.extra)) for p in campaign.config.players
              if links(ruleset, p.id, dict(p.extra)) & words]
    others += [(r["player"], json.loads(r["keys"] or "{}")) for r in campaign.store.rows(
        f"select player, keys from signups where status in ({_marks(HOLDS)}) and id in "
        f"(select signup from signup_links where link in ({_marks(sorted(words))})) order by id",
        (*HOLDS, *sorted(words)))]
    before = set(stand_in_problems(ruleset, [*others, ("gm-stand-in-new", {})]))
    return [p for p in stand_in_problems(ruleset, [*others, (player, dict(keys))]) if p not in before]


def asked_problems(campaign: Campaign, player: str, asked: dict[str, str]) -> list[str]:
    """What the ruleset finds wrong with the keys a request only asks the GM for (a team's
    form), judged alone: the GM places the player beside the others."""
    ruleset = campaign.config.ruleset
    if not asked or not _own_problems(ruleset):
        return []
    before = set(stand_in_problems(ruleset, [("gm-stand-in-new", {})]))
    return [p for p in stand_in_problems(ruleset, [(player, dict(asked))]) if p not in before]


def id_allowed(campaign: Campaign, player: str) -> bool:
    """Whether the ruleset takes `player` as an id (unleashed: no word of its orders)."""
    ruleset = campaign.config.ruleset
    return not _own_problems(ruleset) or not stand_in_problems(ruleset, [(player, {})])


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


def accepted(campaign: Campaign) -> tuple[PlayerConfig, ...]:
    """Those in, in the order confirmed: the players gm start seats after campaign.yaml's."""
    return tuple(PlayerConfig(id=r["player"], name=names.clean(r["name"]), email=r["email"], timezone=r["timezone"],
                              extra=json.loads(r["keys"] or "{}"))
                 for r in campaign.store.rows("select * from signups where status = ? order by id", (IN,)))


def seat_at_start(campaign: Campaign, db: Any, now: datetime, seated: Iterable[str]) -> int:
    """At gm start: those seated play now (their welcome tells them); everyone still waiting
    is told the game started without them and stays the GM's pool. Returns the pool's size."""
    seated = set(seated)
    for row in campaign.store.rows(f"select id, player, status from signups where status in ({_marks(LIVE)})", LIVE):
        status = PLAYING if row["player"] in seated and row["status"] == IN else POOL
        db.execute("update signups set status = ?, changed_at = ?, told = case when ? = ? then ? else told end "
                   "where id = ?", (status, clock.iso(now), status, PLAYING, PLAYING, row["id"]))
    tell(campaign, db, now, started=True)
    return count_status(campaign.store, POOL)


def pool_entry(campaign: Campaign, player: str) -> dict[str, Any] | None:
    """The request of the pool (those left waiting at the start) with this id, if any."""
    return campaign.store.one("select * from signups where player = ? and status = ?", (player.lower(), POOL))


def seated_from_pool(db: Any, row: dict[str, Any], now: datetime) -> None:
    """`gm player replace` gave a seat to someone of the pool: they play now, and their
    welcome tells them (no notice of their own)."""
    db.execute("update signups set status = ?, told = ?, changed_at = ? where id = ?",
               (PLAYING, PLAYING, clock.iso(now), row["id"]))


# -- the GM's commands ----------------------------------------------------------------------


@dataclass(frozen=True)
class Listing:
    """`gm signup`: the requests by where they stand, and the JOINs not confirmed."""

    rows: tuple[dict[str, Any], ...]
    unconfirmed: tuple[dict[str, Any], ...]
    places: int | None

    def where(self, status: str) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["status"] == status]


def listing(campaign: Campaign) -> Listing:
    store = campaign.store
    rows = store.rows("select * from signups order by id")
    holders = {r["email"] for r in rows if r["status"] in HOLDS}
    unconfirmed = [r for r in store.rows(
        "select sender, count(*) as n, max(received_at) as last, max(id) as message from messages "
        "where outcome = 'join' and id not in (select join_message from signups where join_message is not null) "
        "group by sender order by max(id)") if r["sender"] not in holders]
    return Listing(tuple(rows), tuple(unconfirmed), places(campaign.config))


def decide(campaign: Campaign, players: Sequence[str], decision: str,
           placed: dict[str, str] | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """`gm signup accept|reject ID...`: each named request decided, in one transaction,
    and everyone whose standing changed told. `placed`: the ruleset's placed keys the GM
    gives those accepted (`--team T`), whatever they asked for, judged by the ruleset with
    every place held. Refuses, changing nothing, unless every id names a request the
    decision applies to. Returns (id, where it stands now) for each named, and the ids of
    everyone told."""
    if campaign.started():
        raise GmError("the campaign has started: sign-up is over (gm player replace seats someone from the pool)")
    config = campaign.config
    if config.signup is None:
        raise GmError("campaign.yaml has no signup: block; nobody joins this campaign by mail")
    placed = dict(placed or {})
    ruleset = config.ruleset
    for key in placed:
        if key not in ruleset.placed_keys:
            raise GmError(f"the {ruleset.name} ruleset puts nobody on a {key}: --{key} is not for this game")
    wanted = []
    for written in players:
        row = campaign.store.one("select * from signups where player = ? and status in "
                                 f"({_marks(LIVE)})", (written.lower(), *LIVE))
        if row is None:
            raise GmError(f"no sign-up {written!r} awaits a decision (gm signup lists them)")
        if decision == ACCEPTED and row["decision"] == ACCEPTED and not placed:
            raise GmError(f"{row['player']} is accepted already")
        if decision == ACCEPTED and config.signup.approve == "auto" and row["decision"] != LATE and not placed:
            raise GmError(f"{row['player']} needs no decision: under approve: auto they take the places in the "
                          "order confirmed")
        if decision == ACCEPTED:
            _judge_name(campaign, row)
        wanted.append(row)
    if len({row["id"] for row in wanted}) != len(wanted):
        raise GmError("an id is named twice")
    if placed:
        _judge_placed(campaign, wanted, placed)
    now = clock.now()
    with campaign.store.transaction() as db:
        for row in wanted:
            status = REJECTED if decision == DECLINED else row["status"]
            # under approve: auto a place is the order confirmed's: placing on a team decides nothing
            made = row["decision"] if placed and config.signup.approve == "auto" and row["decision"] is None \
                else decision
            db.execute("update signups set decision = ?, status = ?, changed_at = ? where id = ?",
                       (made, status, clock.iso(now), row["id"]))
            if placed:
                keys = json.loads(row["keys"] or "{}") | placed
                asked = {k: v for k, v in json.loads(row["requested"] or "{}").items() if k not in placed}
                db.execute("update signups set keys = ?, requested = ? where id = ?",
                           (json.dumps(keys, sort_keys=True), json.dumps(asked, sort_keys=True) if asked else None,
                            row["id"]))
                write_links(db, ruleset, row["id"], row["player"], keys)
        told = settle(campaign, db, now)
    return [(row["player"], campaign.store.one("select status from signups where id = ?", (row["id"],))["status"])
            for row in wanted], told


def _judge_name(campaign: Campaign, row: dict[str, Any]) -> None:
    """A sign-up's name judged again as the GM accepts it: campaign.yaml may list a player
    alike it since, or it was confirmed before names were judged."""
    wrong = names.problems(row["name"])
    if wrong:
        raise GmError(f"{row['player']}'s name {names.said(wrong[0])}: gm signup reject {row['player']}")
    other = name_alike(campaign, row["name"], but=row["id"])
    if other is not None:
        raise GmError(f"{row['player']}'s name is too like {other}'s: names may not look alike; change "
                      f"campaign.yaml or gm signup reject one of them")


def _judge_placed(campaign: Campaign, wanted: Sequence[dict[str, Any]], placed: dict[str, str]) -> None:
    """Refuse the GM's placing when the ruleset finds a problem with it that the places
    held did not have before (advanced: a team that is another player's id, or differs
    from a team only in case). The whole list at once: a GM's command, not a stranger's."""
    ruleset = campaign.config.ruleset
    changed = {row["id"] for row in wanted}
    rows = campaign.store.rows(f"select id, player, keys from signups where status in ({_marks(HOLDS)}) order by id",
                               HOLDS)
    listed = [(p.id, dict(p.extra)) for p in campaign.config.players]
    before = [*listed, *((r["player"], json.loads(r["keys"] or "{}")) for r in rows)]
    after = [*listed, *((r["player"], json.loads(r["keys"] or "{}") | (placed if r["id"] in changed else {}))
                        for r in rows)]
    had = set(stand_in_problems(ruleset, before))
    found = [p for p in stand_in_problems(ruleset, after) if p not in had]
    if found:
        raise GmError("the rules refuse it: " + "; ".join(found))


def asking(campaign: Campaign) -> int:
    """How many requests holding or hoping for a place ask the GM for keys not yet given
    (signup teams: gm), for gm status."""
    return campaign.store.one(f"select count(*) as n from signups where requested is not null and status in "
                              f"({_marks(LIVE)})", LIVE)["n"]


def counts(campaign: Campaign) -> dict[str, int]:
    """How many requests stand where, the unconfirmed JOINs' addresses too (gm status)."""
    found = {r["status"]: r["n"] for r in campaign.store.rows(
        "select status, count(*) as n from signups group by status")}
    found["unconfirmed"] = len(listing(campaign).unconfirmed)
    return found
