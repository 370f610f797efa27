"""Notifications by webhook (docs/deployment.md, Notifications): `notify: {webhooks: [{url,
format: discord|slack|json}]}` in judge.yaml (every game) or a game's campaign.yaml. At a
game's start, each resolved turn, its end, and sign-up opening and closing, one POST per
webhook, holding only what the archive shows then. Each is queued in the judge's store
once (a row per game, event, turn and address) and sent until the endpoint takes it: a
failing endpoint is retried at the next run and never stops a turn."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import requests

from .. import clock
from ..campaign import notify
from ..campaign.notify import new_events, notification, own_hooks, webhooks
from .games import FINISHED, PAUSED, RUNNING, SIGNUP, WAITING, Game
from .layout import Judge
from .store import JudgeStore


def game_hooks(judge: Judge, game: Game) -> list[dict[str, str]]:
    """The judge's webhooks, then those the game's own campaign.yaml adds."""
    every = webhooks(judge.notify)
    return every + [h for h in own_hooks(game.folder) if h not in every]


def events_of(store: JudgeStore, game: Game) -> list[tuple[str, int]]:
    """The events of `game` not yet queued, in the order they happened."""
    done = {(r["event"], r["turn"]) for r in store.rows(
        "select distinct event, turn from hooks where campaign = ?", (game.id,))}
    return new_events(done, opening=game.state == SIGNUP, closing=game.state == WAITING,
                      started=game.state in (RUNNING, PAUSED, FINISHED), turn=game.turn,
                      over=game.state == FINISHED)


def body(judge: Judge, game: Game, event: str, turn: int, fmt: str) -> dict[str, Any]:
    return notification(fmt, event=event, campaign=game.id, title=game.title, turn=turn, current=game.turn,
                        leaders=game.leaders[:5] if event in ("turn", "end") else [], url=game.url)


def queue_events(judge: Judge, store: JudgeStore, games: Iterable[Game]) -> int:
    """Queue each new event of each game, once per webhook; how many POSTs were queued."""
    queued = 0
    for game in games:
        hooks = game_hooks(judge, game)
        if not hooks:
            continue
        with store.transaction() as db:
            for event, turn in events_of(store, game):
                for hook in hooks:
                    cursor = db.execute(
                        "insert or ignore into hooks (campaign, event, turn, url, format, body, queued_at) "
                        "values (?, ?, ?, ?, ?, ?, ?)",
                        (game.id, event, turn, hook["url"], hook["format"],
                         json.dumps(body(judge, game, event, turn, hook["format"])), clock.iso(clock.now())))
                    queued += cursor.rowcount
    return queued


def deliver(store: JudgeStore, session: requests.Session | None = None) -> tuple[int, int]:
    """POST each of the judge's queued notifications until it is taken, as a campaign's."""
    return notify.deliver(store, session, table="hooks")


def failing(store: JudgeStore, game: str | None = None) -> list[str]:
    """One line per notification still waiting after a failure (of `game` alone when given),
    for `gm judge status` and a game's `gm status`."""
    rows = store.rows("select * from hooks where status = 'queued' and attempts > 0 and (? is null or campaign = ?) "
                      "order by id", (game, game))
    return [f"webhook {r['url']}: {r['campaign']} {r['event']} waiting after {r['attempts']} tries ({r['error']})"
            for r in rows]
