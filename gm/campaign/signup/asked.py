"""What a sign-up request asks for, judged beside everyone who holds a place (docs/campaign.md,
Sign-up by mail): the keys it joins with and those it asks the GM for, its id (taken, allowed
by the ruleset, or made from its name), its name (alike another's or not) and the problems
the ruleset finds with its keys, found through the links (signup_links) a place holds."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from ...rules.base import Ruleset
from .. import names
from ..config.people import stand_in_problems
from .language import MADE_ID_LENGTH
from .standing import HOLDS, marks

if TYPE_CHECKING:
    from ..folder import Campaign


def id_taken(campaign: Campaign, player: str) -> bool:
    """Whether `player` (lower case) is taken: looked up, not listed, as each JOIN asks."""
    if player in {p.id.casefold() for p in campaign.config.players}:
        return True
    if campaign.store.one("select 1 from players where id = ? collate nocase", (player,)):
        return True
    return campaign.store.one(f"select 1 from signups where player = ? and status in ({marks(HOLDS)})",
                              (player, *HOLDS)) is not None


def holders_names(campaign: Campaign, *, but: int | None = None) -> list[tuple[str, str]]:
    """(id, name) of everyone a new name may not look like (docs/rules/, Joining
    by mail): campaign.yaml's players, everyone who plays or played a seat, and every
    request that holds or waits for a place (all but the request `but`, a signups row)."""
    found = [(p.id, p.name) for p in campaign.config.players]
    found += [(r["id"], r["name"]) for r in campaign.store.rows("select id, name from players")]
    found += [(r["player"], r["name"]) for r in campaign.store.rows(
        f"select id, player, name from signups where status in ({marks(HOLDS)}) order by id", HOLDS)
        if r["id"] != but]
    return found


def name_alike(campaign: Campaign, name: str, *, but: int | None = None) -> str | None:
    """The id of the first player or request whose name is alike `name`, or None."""
    return names.first_alike(name, holders_names(campaign, but=but))


def made_id(name: str, taken: Any, allowed: Any) -> str:
    """An id from a name (docs/rules/, Joining by mail): lowercase ASCII letters, digits and '-', with
    -2, -3... until it is not `taken` and the ruleset `allowed` it."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    base = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:MADE_ID_LENGTH].strip("-") or "player"
    candidate, number = base, 2
    while taken(candidate) or not allowed(candidate):
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def _own_problems(ruleset: Ruleset) -> bool:
    return type(ruleset).player_problems is not Ruleset.player_problems


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
        f"select player, keys from signups where status in ({marks(HOLDS)}) and id in "
        f"(select signup from signup_links where link in ({marks(sorted(words))})) order by id",
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
