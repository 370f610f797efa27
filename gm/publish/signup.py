"""The archive before `gm start` (sign-up by mail, docs/campaign.md): the game's front page,
announcing it and saying how to join, its rules page and its feed, which says when sign-up
opened and when it closes. Phase one like gm.publish.archive: `load_signup` reads what may
be shown (public facts only: the names of those in, never an address), `signup_site` makes
the pages without touching a file; gm.publish.write writes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import clock
from ..campaign.deadlines import deadline_text
from ..campaign.names import clean
from ..campaign.signup import standing
from ..campaign.signup.language import key_forms
from ..mail.mailout import mailto
from .archive import FEED, RULES_PAGE, rules_html
from .archive_load import rules_text
from .archive_values import Page, template_rulesets


@dataclass(frozen=True)
class SignupInput:
    """Everything the front page of a game not yet started may show."""

    campaign: str
    title: str
    ruleset: str
    template_rulesets: tuple[str, ...]
    hidden_boards: bool
    boards: tuple[tuple[str, int], ...]  # id, squares: what every player may know
    address: str  # where sign-up mail goes
    join_lines: tuple[str, ...]  # the lines a JOIN holds (placeholders in <>)
    key_forms: tuple[str, ...]  # the ruleset's player keys as a JOIN writes them (TEAM <team>)
    join_link: str  # a mailto: link with the JOIN filled in
    names: tuple[str, ...]  # those in: campaign.yaml's players, then the sign-ups in
    places: int | None  # the places sign-up gives; None: no limit
    places_left: int | None
    waiting: int
    taking: bool  # a JOIN now may still win a place
    approve: str
    closes: str | None  # when sign-up closes, as every page says a time
    log: tuple[tuple[str, str], ...]  # (when, "opened" | "closed"), oldest first
    closes_at: str | None  # the same moment, UTC ISO 8601, for the feed
    archive_url: str | None
    rules: str | None


def load_signup(campaign: Any) -> SignupInput:
    """The front page's input from an opened campaign taking sign-ups."""
    config, ruleset = campaign.config, campaign.ruleset
    settings = config.signup
    rows = campaign.store.rows("select name from signups where status = ? order by id", (standing.IN,))
    free = standing.places(config)
    closes = deadline_text(settings.closes, config.timezone) if settings.closes else None
    lines = (f"JOIN {config.id}", "NAME <your full name>")
    return SignupInput(
        campaign=config.id,
        title=config.title,
        ruleset=ruleset.name,
        template_rulesets=template_rulesets(ruleset),
        hidden_boards=ruleset.hidden_boards,
        boards=tuple((b, board.squares) for b, board in config.boards.items()),
        address=config.mail.address,
        join_lines=lines,
        key_forms=tuple(key_forms(ruleset)),
        join_link=mailto(config.mail.address, f"Join {config.title}", f"JOIN {config.id}\nNAME "),
        names=tuple(p.name for p in config.players) + tuple(clean(r["name"]) for r in rows),
        places=free,
        places_left=None if free is None else max(0, free - len(rows)),
        waiting=standing.count_status(campaign.store, standing.WAITING),
        taking=settings.taking(clock.now()),
        approve=settings.approve,
        closes=(closes["local"] or closes["utc"]) if closes else None,
        log=tuple((r["at"], r["event"]) for r in campaign.store.rows("select at, event from signup_log order by id")),
        closes_at=clock.iso(settings.closes) if settings.closes else None,
        archive_url=config.archive_url,
        rules=rules_text(template_rulesets(ruleset)),
    )


def signup_site(data: SignupInput) -> tuple[Page, ...]:
    """The front page, the rules page and the feed. Pure: same input, same pages."""
    site = {
        "campaign": data.campaign,
        "title": data.title,
        "ruleset": data.ruleset,
        "signup": data,
        "hidden_boards": data.hidden_boards,
        "revealed": None,
        "feed": FEED,
        "rules_page": RULES_PAGE if data.rules is not None else None,
        "archive_url": data.archive_url,
    }
    pages = [Page("index.html", "archive/signup.html", site | {"page": "index"}, rulesets=data.template_rulesets)]
    if data.rules is not None:
        rules = data.rules
        pages.append(Page(RULES_PAGE, "archive/rules.html", lambda: site | {"page": "rules", "rules": rules_html(rules)},
                          rulesets=data.template_rulesets))
    pages.append(Page(FEED, None, site | {"page": "feed", "entries": feed_entries(data)},
                      rulesets=data.template_rulesets, kind="signup-atom"))
    return tuple(pages)


def feed_entries(data: SignupInput) -> tuple[dict[str, Any], ...]:
    """What the feed says, oldest first: each time sign-up opened or closed, and the time
    campaign.yaml closes it, once that time has come (a feed entry is news: the time it
    will close is said by the entry of its opening)."""
    entries = [{"event": event, "at": at, "closes": data.closes if event == "opened" else None}
               for at, event in data.log]
    if data.closes_at is not None and not data.taking and (not data.log or data.log[-1][1] == "opened"):
        entries.append({"event": "closes", "at": data.closes_at, "closes": data.closes})
    return tuple(entries)
