"""A campaign's part of docs/audit.md's proof, made from its store: the game text and its
commitment at `gm start`, a receipt for each accepted message, and a record hash for each
resolve chained to the one before. The formulas are gm.commitment's; this module says
which of the campaign's values go into them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, packages_distributions, version
from typing import Any

from ..commitment import canonical_json, end_hash, game_commitment, game_text, receipt, record_hash
from ..mail.views import ProofView
from ..rules import registry
from ..rules.base import Ruleset
from .campaign_end import how_it_ended

__all__ = ["UNKNOWN", "chain_link", "distribution_of", "install_line", "new_game", "order_receipt", "proof_view",
           "receipts_played", "ruleset_origin", "ruleset_version", "written_count"]

UNKNOWN = "unknown"  # the version of a ruleset no installed distribution declares


def proof_view(turn: int, chained: str | None, receipts: Mapping[str, str | None] | None,
               names: Mapping[str, str], seats: Sequence[str] = ()) -> ProofView | None:
    """What a turn's results show of docs/audit.md's record chain: its record hash and each
    holder's receipt played, named by `names` (Campaign.names, as the caller has it already),
    seat by seat: in the order of `seats` first (receipts read back from gm.sqlite come
    sorted by id, which is not the seats' order after a sign-up). None without a record
    hash: a campaign started before the proof existed."""
    if not chained:
        return None
    receipts = receipts or {}
    order = [p for p in seats if p in receipts] + [p for p in receipts if p not in seats]
    return ProofView(turn, chained, tuple((p, names.get(p, p), receipts[p]) for p in order))


def ruleset_origin(ruleset: Ruleset) -> tuple[str, str]:
    """(distribution, version) of the package the ruleset's code comes from: what an auditor
    installs to replay it (gm itself for the built-in rulesets). The registry's answer
    (registry.origin: the distribution whose `gm.rulesets` entry point declares it) when the
    registry's ruleset of that name is this very class; else, for one registered at run time
    or a subclass not declared anywhere, the distribution that installed its top-level
    package, version "unknown" when none did."""
    try:
        declared = registry.origin(ruleset.name)
        if declared is not None and type(registry.find_ruleset(ruleset.name)) is type(ruleset):
            return declared
    except registry.UnknownRuleset:
        pass
    top = type(ruleset).__module__.partition(".")[0]
    for name in packages_distributions().get(top, []) or ([top] if top == "gm" else []):
        try:
            return (name, version(name))
        except PackageNotFoundError:
            continue
    return (top, UNKNOWN)


def ruleset_version(ruleset: Ruleset) -> str:
    """`<distribution> <version>`: the game text's `ruleset_version` (ruleset_origin)."""
    return " ".join(ruleset_origin(ruleset))


def distribution_of(ruleset_version: str) -> dict[str, str | None]:
    """The audit record's `ruleset_distribution` from a game text's `ruleset_version`:
    {"name", "version"}, the version None when gm could not tell it."""
    name, _, found = ruleset_version.partition(" ")
    return {"name": name, "version": found if found and found != UNKNOWN else None}


def install_line(distribution: dict[str, str | None]) -> str:
    """What an auditor types to install the distribution a campaign was played with."""
    name, found = distribution["name"], distribution.get("version")
    return f"pip install '{name}=={found}'" if found else f"pip install '{name}'"


def new_game(campaign_id: str, ruleset: Ruleset, setup: Any, boards: dict[str, str],
             seed_commitment: str) -> tuple[str, str]:
    """The canonical game text of a campaign being started and its game commitment.
    `setup` holds the players in campaign.yaml's order (each seat's first holder);
    `boards` each board id's commitment."""
    text = game_text(campaign_id, ruleset.name, ruleset_version(ruleset), ruleset.options_to_json(setup.options),
                     list(setup.players), {p: dict(k) for p, k in setup.player_keys.items()}, boards,
                     seed_commitment)
    return canonical_json(text), game_commitment(text)


def order_receipt(seed: int, turn: int, player: str, count: int, order_json: dict[str, Any]) -> str:
    """The receipt an acknowledgement carries: the standing order after the player's
    `count`th accepted message for `turn`."""
    return receipt(seed, turn, player, count, order_json)


def written_count(store: Any, turn: int, player: str) -> int:
    """How many of `player`'s own accepted messages for `turn` are stored: the `k` of
    docs/audit.md's receipts, less one. The order rows of a seat name its holder now (a new
    holder inherits her predecessor's); the message rows name who wrote them."""
    return store.one(
        "select count(*) as n from orders o join messages m on m.id = o.message "
        "where o.turn = ? and o.player = ? and m.player = ?", (turn, player, player))["n"]


def receipts_played(store: Any, turn: int, players: Any, ordered: Any) -> dict[str, str | None]:
    """Each seat holder's receipt of the order played for `turn` (the last accepted message's,
    which a seat's new holder inherits with the order), None for a player who had none."""
    last = {r["player"]: r["receipt_hash"] for r in store.rows(
        "select player, receipt_hash from orders where turn = ? order by receipt", (turn,))}
    return {p: last.get(p) if p in ordered else None for p in players}


def chain_link(store: Any, seed: int, turn: int, receipts: dict[str, str | None], draws: list[dict[str, Any]],
               state: dict[str, Any]) -> str | None:
    """The record hash of the resolve of `turn`, chained to the last stored one (or the
    game commitment); None for a campaign started before the proof existed."""
    last = store.one("select record_hash from turns where turn < ? order by turn desc limit 1", (turn,))
    previous = last["record_hash"] if last else store.one("select game_commitment from campaign")["game_commitment"]
    if not previous:
        return None
    return record_hash(seed, previous, turn, receipts, draws, json.loads(json.dumps(state)))


def end_link(campaign: Any, end: dict[str, Any]) -> str | None:
    """The chain's last link (docs/audit.md, The end's link), chained to the last record
    hash; None for a campaign started before gm kept a game commitment."""
    store = campaign.store
    last = store.one("select record_hash from turns where record_hash is not null order by turn desc limit 1")
    previous = last["record_hash"] if last else store.one("select game_commitment from campaign")["game_commitment"]
    if not previous:
        return None
    return end_hash(campaign.setup.seed, previous, end["by"], end["turn"], end["reason"])


def final_link(campaign: Any, after: Any) -> str | None:
    """The end's link the final mail shows; None while the campaign runs."""
    end = how_it_ended(campaign, after)
    return end_link(campaign, end.to_json()) if end is not None else None
