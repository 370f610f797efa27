"""Press (docs/rules/, Order mail: Press): players write to each other through the GM.

A press block (gm.mail.press) is judged with the game at hand: the mode of campaign.yaml's
`press:` (fixed at start, gm.campaign.config.press), who its recipients are, its length
and the sender's limits of the UTC day. A block that fails is a problem of the message,
taken whole or not at all. A block that stands is delivered in the desk's transaction:
one mail per recipient from the GM's address, naming the sender or nobody, a copy to the
GM with the true sender, `ALL` press to observers; above `digest_above` players `ALL`
press waits for the turn report's Press section instead. Press is no part of the game
record: the audit never reads these tables.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import Any

from .. import clock
from ..mail.mailout import compose
from ..mail.orderlang import LineProblem, OrderText, parse_orders
from ..mail.press import PressBlock, split_press
from ..rules.problem import Problem, problem
from .config.press import PressSettings
from .outbox import queue

PRESS_KIND = "press"
PRESS_ACK_KIND = "press_ack"


def press_apart(text: str, grammar: Any, other_keywords: Any) -> OrderText:
    """One mail's orders, with its press blocks read apart (their lines are no command)."""
    split = split_press(text, grammar.strict_signature)
    parsed = parse_orders(split.rest, grammar=grammar, other_keywords=other_keywords)
    if not split.blocks:
        return parsed
    found = tuple(LineProblem(n, t, why) for n, t, why in split.problems)
    return replace(parsed, press=split.blocks, problems=(*parsed.problems, *found))


def settings(campaign: Any, db: Any = None) -> PressSettings:
    """The press settings the game plays with: campaign.yaml's as gm start fixed them (a
    campaign started before press existed: as first used), so an edit changes nothing."""
    store = campaign.store
    row = store.one("select settings from press_settings where id = 1")
    if row is not None:
        return PressSettings(**json.loads(row["settings"]))
    chosen = campaign.config.press
    if db is not None and campaign.started():
        db["press_settings"].insert({"id": 1, "settings": json.dumps(chosen.as_dict())}, replace=True)
    return chosen


def _used_today(db: Any, player: str, day: str) -> tuple[int, int]:
    row = db.execute("select count(*), coalesce(sum(cost), 0) from press where player = ? and day = ?",
                     (player, day)).fetchone()
    return row[0], row[1]


def _recipients(campaign: Any, player: Any, block: PressBlock, mode: str) -> tuple[dict[str, Any], list[Problem]]:
    """Whom one block goes to: {'ids': [...], 'all': bool, 'gm_only': bool}, and its problems."""
    config = campaign.config
    dropped = campaign.dropped_players()
    playing = [p for p in config.players if p.id not in dropped and p.id != player.id]
    ids: list[str] = []
    to_all = False
    found: list[Problem] = []
    team = player.extra.get("team")
    for word in block.recipients:
        if word == "ALL":
            to_all = True
            ids += [p.id for p in playing]
        elif word == "GM":
            continue
        elif mode == "public":
            found.append(problem("press_public_only", block.line, word=word))
        elif word == "TEAM":
            if team is None:
                found.append(problem("press_no_team", block.line))
            else:
                ids += [p.id for p in playing if p.extra.get("team") == team]
        else:
            other = config.player(word)
            if other is None or other.id in dropped:
                found.append(problem("press_unknown", block.line, word=word))
            elif other.id != player.id:
                ids.append(other.id)
    return {"ids": list(dict.fromkeys(ids)), "all": to_all}, found


def press_plan(campaign: Any, db: Any, player: Any, blocks: tuple[PressBlock, ...], now: datetime,
               problems: list[Problem]) -> list[dict[str, Any]] | None:
    """Each block judged: its recipients, whether it waits for the digest, its cost; every
    problem added to `problems`. A block past the day's limits is recorded as a flood."""
    chosen = settings(campaign, db)
    if chosen.mode == "none":
        problems.append(problem("press_off", blocks[0].line))
        return None
    day = clock.utc_day(now)
    blocks_used, sent = _used_today(db, player.id, day)
    digest_all = len(campaign.config.players) > chosen.digest_above
    plan = []
    for block in blocks:
        if block.anonymous and chosen.mode != "grey":
            problems.append(problem("press_anonymous", block.line))
        whom, found = _recipients(campaign, player, block, chosen.mode)
        problems += found
        size = len("\n".join(block.text).encode("utf-8"))
        if size > chosen.max_bytes:
            problems.append(problem("press_too_long", block.line, most=chosen.max_bytes))
        digest = whom["all"] and digest_all
        # a digest's broadcast costs no mail: one recipient, the report
        cost = 1 if digest else len(whom["ids"])
        blocks_used += 1
        sent += cost
        why = None
        if blocks_used > chosen.max_per_day:
            why = problem("press_limit_blocks", block.line, most=chosen.max_per_day)
        elif sent > chosen.max_recipients_per_day:
            why = problem("press_limit_recipients", block.line, most=chosen.max_recipients_per_day)
        if why is not None:
            problems.append(why)
            db["press_floods"].insert({"player": player.id, "day": day, "at": clock.iso(now), "why": why.code})
        plan.append({"block": block, "ids": whom["ids"], "all": whom["all"], "digest": digest, "cost": cost})
    return plan


def _names(campaign: Any, ids: list[str]) -> list[str]:
    return [campaign.config.player(i).name for i in ids]


def _send(desk: Any, db: Any, to: str, context: dict[str, Any], now: datetime, player: str | None) -> None:
    config = desk.config
    message = compose(sender=config.mail.sender, to=to, template="press", context=desk.basics | context,
                      now=now, auto_reply=True)
    queue(db, message, kind=PRESS_KIND, now=now, turn=desk.turn, player=player)


def sent_press(desk: Any, db: Any, player: Any, plan: list[dict[str, Any]] | None, now: datetime) -> list[dict]:
    """Deliver every block of `plan` (recorded, its mail queued); what the acknowledgement
    says of each."""
    if not plan:
        return []
    campaign = desk.campaign
    chosen = settings(campaign, db)
    fates = []
    for item in plan:
        block: PressBlock = item["block"]
        anonymous = block.anonymous
        names = _names(campaign, item["ids"])
        base = {"sender": None if anonymous else {"id": player.id, "name": player.name},
                "to_all": item["all"], "names": names, "turn": desk.turn, "text": list(block.text),
                "to_gm_only": not item["ids"] and not item["all"],
                "gm": False, "observer": False, "true_sender": None, "reader": None}
        db["press"].insert({"message": None, "turn": desk.turn, "player": player.id, "received_at": clock.iso(now),
                            "day": clock.utc_day(now), "said": " ".join(block.recipients),
                            "recipients": json.dumps(item["ids"]), "anonymous": int(anonymous),
                            "to_all": int(item["all"]), "digest": int(item["digest"]), "cost": item["cost"],
                            "text": "\n".join(block.text)})
        if not item["digest"]:
            for other in item["ids"]:
                to = campaign.config.player(other)
                _send(desk, db, to.email, base | {"reader": {"id": to.id, "name": to.name}}, now, to.id)
            if item["all"] and chosen.observers:
                for observer in campaign.config.observers:
                    _send(desk, db, observer.email, base | {"reader": {"name": observer.name}, "observer": True},
                          now, None)
        _send(desk, db, desk.config.mail.address,
              base | {"gm": True, "true_sender": {"id": player.id, "name": player.name}}, now, None)
        fates.append({"line": block.line, "names": names, "to_all": item["all"], "digest": item["digest"],
                      "anonymous": anonymous, "to_gm_only": base["to_gm_only"]})
    return fates


def press_reply(desk: Any, db: Any, mail: Any, player: Any, plan: list[dict[str, Any]], now: datetime) -> Any:
    """A mail of press alone: delivered and acknowledged."""
    fates = sent_press(desk, db, player, plan, now)
    zone = player.timezone or desk.config.timezone
    return desk.reply(db, mail, now, to=player.email, template="press_ack", outcome="press", player=player.id,
                      zone=zone, context={"player": {"id": player.id, "name": player.name}, "press": fates,
                                          "turn": desk.turn})


def turn_press(store: Any, turn: int, *, digest_only: bool) -> list[dict[str, Any]]:
    """The `ALL` press received while `turn` took orders, in the order received: every one
    (the archive's turn page) or those held for the digest (the turn report)."""
    if "press" not in store.table_names():
        return []
    sql = "select player, anonymous, text from press where turn = ? and to_all = 1"
    rows = store.rows(sql + (" and digest = 1" if digest_only else "") + " order by id", (turn,))
    return [{"player": None if r["anonymous"] else r["player"], "text": r["text"].splitlines()} for r in rows]


def press_today(store: Any, now: datetime) -> dict[str, Any]:
    """What `gm status` shows: blocks and recipients per player today, and refused floods."""
    if "press" not in store.table_names():
        return {"players": [], "floods": []}
    day = clock.utc_day(now)
    players = store.rows("select player, count(*) as blocks, sum(cost) as recipients from press where day = ? "
                         "group by player order by player", (day,))
    floods = store.rows("select player, count(*) as refused from press_floods where day = ? "
                        "group by player order by player", (day,))
    return {"players": players, "floods": floods}


def press_digest(campaign: Any, turn: int) -> list[dict[str, Any]]:
    """The turn report's Press section: the `ALL` press held for it, names as now."""
    rows = turn_press(campaign.store, turn, digest_only=True)
    names = campaign.names()
    return [{"name": names.get(r["player"], r["player"]) if r["player"] else None, "text": r["text"]}
            for r in rows]


def published_press(campaign: Any) -> dict[int, tuple[dict[str, Any], ...]]:
    """Each turn's `ALL` press for the archive, with `publish: public`; never private press."""
    if not campaign.started() or settings(campaign).publish != "public":
        return {}
    names = campaign.names()
    store = campaign.store
    if "press" not in store.table_names():
        return {}
    found: dict[int, list[dict[str, Any]]] = {}
    for row in store.rows("select turn, player, anonymous, text from press where to_all = 1 order by id"):
        name = None if row["anonymous"] else names.get(row["player"], row["player"])
        found.setdefault(row["turn"], []).append({"name": name, "text": tuple(row["text"].splitlines())})
    return {turn: tuple(items) for turn, items in found.items()}


def status_lines(campaign: Any, now: datetime) -> list[str]:
    """gm status's press lines: today's blocks and recipients per player, refused floods."""
    if settings(campaign).mode == "none":
        return []
    today = press_today(campaign.store, now)
    lines = [f"press ({settings(campaign).mode}) today (UTC): "
             + (", ".join(f"{r['player']} {r['blocks']} blocks to {r['recipients']}" for r in today["players"])
                or "none")]
    if today["floods"]:
        lines.append("PRESS FLOODS refused today: "
                     + ", ".join(f"{r['player']} {r['refused']} blocks" for r in today["floods"]))
    return lines


def fix_press(db: Any, config: Any) -> None:
    """At gm start: the press settings the game is played with from then on."""
    db["press_settings"].insert({"id": 1, "settings": json.dumps(config.press.as_dict())}, replace=True)
