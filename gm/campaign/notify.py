"""A campaign's own notifications by webhook (docs/campaign.md, notify): `notify:
{webhooks: [{url, format: discord|slack|json}]}` in a standalone campaign's campaign.yaml.
At the game's start, each resolved turn, its end, and sign-up opening and closing, one POST
per webhook, holding only what the archive shows then. Each is queued once in the
campaign's store (the `webhooks` table: a row per event, turn and address) and sent until
the endpoint takes it: a failing endpoint is retried at the next `gm turn` and never stops
a turn. A judge's game is notified by the judge from the judge's store instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import requests

from .. import clock
from ..errors import ConfigError
from ..resources import shipped
from ..yamlfile import read
from .folder import Campaign
from .store import immediate

FORMATS = ("discord", "slack", "json")
TIMEOUT = 10  # seconds a POST may take before it is tried again at the next run
DISCORD_MAX = 2000


def webhooks(notify: Any) -> list[dict[str, str]]:
    """The webhooks a `notify:` value names, those well formed."""
    hooks = notify.get("webhooks") if isinstance(notify, dict) else None
    found = []
    for hook in hooks if isinstance(hooks, list) else []:
        if isinstance(hook, dict) and str(hook.get("url", "")).startswith(("http://", "https://")) \
                and hook.get("format", "json") in FORMATS:
            found.append({"url": str(hook["url"]), "format": str(hook.get("format", "json"))})
    return found


def own_hooks(folder: Path) -> list[dict[str, str]]:
    """The webhooks of the campaign.yaml in `folder` (a broken file names none): a
    standalone campaign's, or a judge's game's besides the judge's."""
    try:
        data = read(folder / "campaign.yaml", ConfigError)
    except Exception:  # noqa: BLE001 - a broken file names no webhook
        return []
    return webhooks(data.get("notify")) if isinstance(data, dict) else []


def leaders(campaign: Campaign, state: Any) -> list[str]:
    """The names of the leaders, best first, at most five, as the archive shows them."""
    names = campaign.names()
    standings = campaign.ruleset.standings(campaign.setup, state)
    placed = [p for p in standings.placed_first() if standings.players[p].place is not None]
    return [names.get(p, p) for p in placed[:5]]


def new_events(done: set[tuple[str, int]], *, opening: bool, closing: bool, started: bool, turn: int | None,
               over: bool) -> list[tuple[str, int]]:
    """The events not yet queued, in the order they happened: before the start, sign-up
    opening while it takes requests (`opening`) and its closing once it no longer does
    (`closing`); then the start, each turn resolved since the last one told (a game given
    notify: late is told of its latest turn only, not flooded with the past), and the end."""
    found: list[tuple[str, int]] = []
    if not started:
        if opening:
            found.append(("signup_open", 0))
        elif closing and ("signup_open", 0) in done:
            found.append(("signup_closed", 0))
        return [event for event in found if event not in done]
    if ("signup_open", 0) in done:
        found.append(("signup_closed", 0))
    found.append(("start", 0))
    resolved = (turn or 1) - 1  # the turn taking orders, or one past the last once over
    told = [t for event, t in done if event == "turn"]
    first = max(told) + 1 if told else resolved
    found += [("turn", t) for t in range(max(first, 1), resolved + 1)]
    if over:
        found.append(("end", 0))
    return [event for event in found if event not in done]


def _events(campaign: Campaign, done: set[tuple[str, int]]) -> list[tuple[str, int]]:
    signup = campaign.config.signup
    if not campaign.started():
        return new_events(done, opening=signup is not None and signup.taking(clock.now()), closing=True,
                          started=False, turn=None, over=False)
    state = campaign.state()
    return new_events(done, opening=False, closing=True, started=True, turn=state.turn, over=state.over)


def notification(fmt: str, *, event: str, campaign: str, title: str, turn: int, current: int | None,
                 leaders: list[str], url: str | None) -> dict[str, Any]:
    """One notification's JSON body in its format (docs/campaign.md, notify): json's keys, or
    templates/judge/webhook.txt's words for discord and slack."""
    if fmt == "json":
        return {"event": event, "campaign": campaign, "title": title, "turn": turn or current,
                "leaders": leaders, "url": url}
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(shipped("templates") / "judge")), autoescape=False)
    text = env.get_template("webhook.txt").render(title=title, campaign=campaign, event=event, turn=turn,
                                                  leaders=leaders, url=url).strip()
    return {"content": text[:DISCORD_MAX]} if fmt == "discord" else {"text": text}


def body(campaign: Campaign, event: str, turn: int, fmt: str) -> dict[str, Any]:
    config = campaign.config
    state = campaign.state() if campaign.started() else None
    names = leaders(campaign, state) if state is not None and event in ("turn", "end") else []
    return notification(fmt, event=event, campaign=config.id, title=config.title, turn=turn,
                        current=state.turn if state is not None else None, leaders=names, url=config.archive_url)


def queue_events(campaign: Campaign) -> int:
    """Queue each new event once per webhook, in one transaction; how many POSTs were queued."""
    hooks = own_hooks(campaign.folder)
    if not hooks:
        return 0
    done = {(r["event"], r["turn"]) for r in campaign.store.rows("select distinct event, turn from webhooks")}
    queued = 0
    with campaign.store.writing() as conn:
        for event, turn in _events(campaign, done):
            for hook in hooks:
                cursor = conn.execute(
                    "insert or ignore into webhooks (event, turn, url, format, body, status, attempts, queued_at) "
                    "values (?, ?, ?, ?, ?, 'queued', 0, ?)",
                    (event, turn, hook["url"], hook["format"], json.dumps(body(campaign, event, turn, hook["format"])),
                     clock.iso(clock.now())))
                queued += cursor.rowcount
    return queued


def post(session: requests.Session, url: str, body: str) -> str | None:
    """POST one notification's JSON: None when the endpoint took it, else why not."""
    try:
        response = session.post(url, data=body, timeout=TIMEOUT, headers={"Content-Type": "application/json"})
    except requests.RequestException as failure:
        return type(failure).__name__
    return None if response.ok else f"HTTP {response.status_code}"


def deliver(store: Any, session: requests.Session | None = None, *, table: str = "webhooks") -> tuple[int, int]:
    """POST each notification queued in `table` of `store` (a campaign's `webhooks`, a
    judge's `hooks`) until it is taken: (delivered, kept for the next run)."""
    session = session or requests.Session()
    sent = kept = 0
    for row in store.rows(f"select id, url, body from {table} where status = 'queued' order by id"):
        error = post(session, row["url"], row["body"])
        with immediate(store.conn) as conn:
            if error is None:
                conn.execute(f"update {table} set status = 'sent', attempts = attempts + 1, error = null "
                             "where id = ?", (row["id"],))
                sent += 1
            else:
                conn.execute(f"update {table} set attempts = attempts + 1, error = ? where id = ?",
                             (error, row["id"]))
                kept += 1
    return sent, kept


def notify_step(campaign: Campaign, session: requests.Session | None = None) -> str | None:
    """`gm turn`'s webhooks step for a standalone campaign: one line, or None when it has none."""
    if campaign.config.mail.judge is not None:
        return None  # the judge notifies its games from its own store
    try:
        queue_events(campaign)
    except Exception as error:  # noqa: BLE001 - a notification never stops a turn; the next run queues it
        return f"webhooks: not queued this run ({type(error).__name__}: {' '.join(str(error).split())[:200]})"
    if campaign.store.one("select 1 x from webhooks limit 1") is None:
        return None
    sent, kept = deliver(campaign.store, session)
    return f"webhooks: {sent} delivered" + (f", {kept} kept for the next run" if kept else "")


def waiting_lines(campaign: Campaign) -> list[str]:
    """One line per notification still waiting after a failure, for `gm status`."""
    if "webhooks" not in campaign.store.table_names():
        return []
    return [f"webhook {r['url']}: {r['event']}{' ' + str(r['turn']) if r['turn'] else ''} waiting after "
            f"{r['attempts']} tries ({r['error']})"
            for r in campaign.store.rows("select * from webhooks where status = 'queued' and attempts > 0 order by id")]
