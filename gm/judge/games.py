"""What the judge says of each of its games (the LIST reply, the site, `gm judge status`):
all public, read from each campaign as its archive shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..campaign.config.reading import load_config
from ..campaign.folder import Campaign
from ..campaign.notify import leaders
from ..campaign.store import DB_NAME
from .layout import Judge

# a game's state as the judge shows it
SIGNUP, WAITING, RUNNING, PAUSED, FINISHED, BROKEN = "signup", "waiting", "running", "paused", "finished", "broken"


@dataclass
class Game:
    id: str
    folder: Path
    title: str = ""
    ruleset: str = ""
    state: str = WAITING
    turn: int | None = None
    deadline: str | None = None
    url: str | None = None
    problem: str | None = None
    leaders: list[str] = field(default_factory=list)
    orders_in: str | None = None  # "4 of 6": players who ordered this turn, of those in the game


def archive_url(judge: Judge, game_id: str, campaign_url: str | None) -> str | None:
    """Where a game's archive is read: its own archive_url, else beside the judge's site."""
    if campaign_url:
        return campaign_url
    return f"{judge.site_url}{game_id}/" if judge.site_url else None


def game_of(judge: Judge, folder: Path) -> Game:
    """One game, opened read-only in effect; a broken one says why."""
    game = Game(folder.name, folder)
    try:
        campaign = Campaign.open(folder, must_exist=False) if has_store(folder) else None
    except Exception as error:  # noqa: BLE001 - a broken game is shown, never stops the judge
        game.state, game.problem = BROKEN, one_line(error)
        return game
    if campaign is None:
        game.title, game.state = folder.name, WAITING
        return game
    try:
        _fill(judge, game, campaign)
    except Exception as error:  # noqa: BLE001
        game.state, game.problem = BROKEN, one_line(error)
    finally:
        campaign.close()
    return game


def has_store(folder: Path) -> bool:
    """Whether a game has a store to open: it started, or its campaign.yaml takes sign-ups
    (a campaign.yaml gm cannot read counts too, so that opening it says what is wrong);
    otherwise it waits for `gm -C ... start`."""
    if (folder / DB_NAME).exists():
        return True
    try:
        return load_config(folder).signup is not None
    except Exception:  # noqa: BLE001 - Campaign.open says what is wrong with it
        return True


def _fill(judge: Judge, game: Game, campaign: Campaign) -> None:
    config = campaign.config
    game.title, game.ruleset = config.title, config.ruleset.name
    game.url = archive_url(judge, config.id, config.archive_url)
    if not campaign.started():
        game.state = SIGNUP if config.signup is not None and config.signup.open else WAITING
        return
    state = campaign.state()
    game.turn = state.turn
    deadline = campaign.deadline()
    game.deadline = deadline.strftime("%Y-%m-%d %H:%M UTC") if deadline else None
    game.state = FINISHED if state.over else PAUSED if campaign.paused() else RUNNING
    if game.state != FINISHED:
        ordered = campaign.store.one("select count(distinct player) n from orders where turn = ?", (state.turn,))
        in_game = len(campaign.config.players) - len(campaign.dropped_players())
        game.orders_in = f"{ordered['n']} of {in_game}"
    game.leaders = leaders(campaign, state)


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


def games_of(judge: Judge) -> list[Game]:
    return [game_of(judge, folder) for folder in judge.games()]
