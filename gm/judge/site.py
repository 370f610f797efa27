"""The judge's site (docs/deployment.md, The judge's site), under DIR/site/: index.html
listing every game and its state with a link to its archive, feed.xml (one Atom feed of
the whole judge, written by feedgen) and a page per player id (games, placings, turns
due and ordered on time). Never an address: players are shown by id and name."""

from __future__ import annotations

import sqlite3
from datetime import UTC
from pathlib import Path

import jinja2
from feedgen.feed import FeedGenerator

from .. import clock
from ..campaign.record import played
from ..campaign.store import DB_NAME
from ..resources import shipped
from .games import Game, games_of
from .layout import Judge


def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(shipped("templates") / "judge")),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True)


def write_site(judge: Judge, games: list[Game] | None = None) -> Path:
    """Every page written afresh; the index's path."""
    games = games_of(judge) if games is None else games
    site = judge.site
    (site / "players").mkdir(parents=True, exist_ok=True)
    env = _env()
    players = players_of(games)
    links = {g.id: g.url or f"../campaigns/{g.id}/archive/index.html" for g in games}
    (site / "index.html").write_text(env.get_template("index.html").render(
        title=judge.title, games=games, links=links, players=sorted(players)), encoding="utf-8")
    for player, rows in players.items():
        (site / "players" / f"{player}.html").write_text(env.get_template("player.html").render(
            title=judge.title, player=player, name=rows[0]["name"], rows=rows,
            links={g: u if "://" in u else "../" + u for g, u in links.items()}),
            encoding="utf-8")
    _feed(judge, games, site / "feed.xml")
    return site / "index.html"


def players_of(games: list[Game]) -> dict[str, list[dict]]:
    """Player id -> a row per game: game, name, place, turns due and ordered on time."""
    found: dict[str, list[dict]] = {}
    for game in games:
        path = game.folder / DB_NAME
        if not path.exists():
            continue
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            # turns due and ordered on time as the player record counts them (RECORD by mail)
            rows = [(row, played(conn, row["id"])) for row in
                    conn.execute("select id, name, dropped_turn from players order by seat").fetchall()]
        except sqlite3.OperationalError:
            rows = []
        finally:
            conn.close()
        place = {name: i + 1 for i, name in enumerate(game.leaders)} if game.state == "finished" else {}
        for row, (due, on_time) in rows:
            found.setdefault(row["id"], []).append({
                "game": game.id, "title": game.title, "state": game.state, "name": row["name"],
                "place": place.get(row["name"]), "due": due, "on_time": on_time,
                "dropped": row["dropped_turn"] is not None})
    return found


def _feed(judge: Judge, games: list[Game], path: Path) -> None:
    feed = FeedGenerator()
    base = judge.site_url or "http://localhost/"
    feed.id(f"{base}feed.xml")
    feed.title(judge.title)
    feed.link(href=base, rel="alternate")
    feed.updated(clock.now().astimezone(UTC))
    for game in games:
        entry = feed.add_entry(order="append")
        entry.id(f"{base}#{game.id}-{game.state}-{game.turn or 0}")
        turn = f", turn {game.turn}" if game.turn else ""
        entry.title(f"{game.title}: {game.state}{turn}")
        entry.link(href=game.url or f"{base}../campaigns/{game.id}/archive/index.html")
        entry.updated(clock.now().astimezone(UTC))
    feed.atom_file(str(path), pretty=True)
