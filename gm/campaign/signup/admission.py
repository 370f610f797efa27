"""The GM's side of sign-up (docs/campaign.md, Sign-up by mail): `gm signup`'s listing and its
accept and reject, `gm start`'s seating of those in (the rest stay the GM's pool for `gm player
replace`), and what `gm status` counts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import clock
from ...errors import GmError
from .. import names
from ..config.people import stand_in_problems
from ..config.values import PlayerConfig
from .asked import name_alike, write_links
from .standing import (
    ACCEPTED,
    DECLINED,
    HOLDS,
    IN,
    LATE,
    LIVE,
    PLAYING,
    POOL,
    REJECTED,
    count_status,
    marks,
    places,
    settle,
    tell,
)

if TYPE_CHECKING:
    from ..folder import Campaign


def accepted(campaign: Campaign) -> tuple[PlayerConfig, ...]:
    """Those in, in the order confirmed: the players gm start seats after campaign.yaml's."""
    return tuple(PlayerConfig(id=r["player"], name=names.clean(r["name"]), email=r["email"], timezone=r["timezone"],
                              extra=json.loads(r["keys"] or "{}"))
                 for r in campaign.store.rows("select * from signups where status = ? order by id", (IN,)))


def seat_at_start(campaign: Campaign, db: Any, now: datetime, seated: Iterable[str]) -> int:
    """At gm start: those seated play now (their welcome tells them); everyone still waiting
    is told the game started without them and stays the GM's pool. Returns the pool's size."""
    seated = set(seated)
    for row in campaign.store.rows(f"select id, player, status from signups where status in ({marks(LIVE)})", LIVE):
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
                                 f"({marks(LIVE)})", (written.lower(), *LIVE))
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
    rows = campaign.store.rows(f"select id, player, keys from signups where status in ({marks(HOLDS)}) order by id",
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
                              f"({marks(LIVE)})", LIVE)["n"]


def counts(campaign: Campaign) -> dict[str, int]:
    """How many requests stand where, the unconfirmed JOINs' addresses too (gm status)."""
    found = {r["status"]: r["n"] for r in campaign.store.rows(
        "select status, count(*) as n from signups group by status")}
    found["unconfirmed"] = len(listing(campaign).unconfirmed)
    return found
