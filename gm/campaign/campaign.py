"""`gm start`: a campaign made from its campaign.yaml (and its sign-ups), its commitments
published, its players seated and welcomed. An opened campaign is gm.campaign.folder's."""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path
from typing import Any

from .. import clock
from ..commitment import commitment, new_salt, seed_text
from ..errors import GmError
from ..mail.calendar import deadline_attachment, file_name, meets_deadline
from ..mail.maildir import make_mailboxes
from ..mail.mailout import compose
from ..rules.chance import SeededChance, played
from .admin import welcome_observers
from .config.reading import load_config
from .config.values import CampaignConfig
from .deadlines import deadline_text, next_deadline
from .fixed import Fixed, played_config
from .folder import Campaign, _started
from .outbox import queue
from .passwords import hash_password, issue_password
from .press import fix_press
from .proof import new_game
from .signup.admission import accepted, seat_at_start
from .signup.standing import refresh
from .store import DB_NAME, Store, dumps
from .welcome import welcome_context

# below WEAK_SEED a seed can be guessed from published outcomes (docs/campaign.md); below
# STRONG_SEED a ruleset with `weak_seed_refused` refuses it
WEAK_SEED = 2**64
STRONG_SEED = 2**128


def start(folder: Path) -> tuple[Campaign, list[str]]:
    """Check everything, create the state, issue passwords, publish the commitments and
    queue a welcome to each player (with the deadline as a calendar file) and observer,
    and a summary to the GM."""
    config = _startable(folder)
    ruleset = config.ruleset
    seed = config.seed
    if seed is None:
        seed = secrets.randbits(ruleset.seed_bits)
        while ruleset.seed_bits > 128 and seed < STRONG_SEED:  # a ruleset of more bits: drawn again below 2^128
            seed = secrets.randbits(ruleset.seed_bits)
    fixed = Fixed.of(config, seed)
    config = played_config(config, fixed)
    now = clock.now()
    deadline = (clock.parse_local(config.first_deadline, config.timezone, now) if config.first_deadline
                else next_deadline(config, now))
    make_mailboxes(folder)
    campaign = Campaign.open(folder, must_exist=False)
    campaign.config = config
    ruleset = config.ruleset
    chance = SeededChance(seed)
    opening = played(ruleset.start(config.setup, chance), chance)  # gm collects the draws itself
    with campaign.store.transaction() as db:
        _store_game(db, config, seed, fixed, opening, now, deadline)
        issued = _seat_players(db, config)
        fix_press(db, config)
        context = welcome_context(campaign, deadline)
        _welcome_players(db, config, opening.state, context, issued, now, deadline)
        # observers listed now are welcomed now; one added later, at the next command that mails
        welcome_observers(campaign, db, now)
        # those who joined by mail are welcomed above; those still waiting are told the game
        # started without them, and stay the GM's pool (docs/campaign.md)
        pool = seat_at_start(campaign, db, now, [p.id for p in config.players[len(config.players) - config.joined:]]) \
            if config.signup is not None else 0
        gm_message = compose(
            sender=config.mail.sender,
            to=config.mail.sender,
            template="gm_start",
            context=context | {"issued": sorted(issued), "joined": config.joined, "pool": pool},
            now=now,
        )
        queue(db, gm_message, kind="gm-start", now=now)
    return campaign, sorted(issued)


def _startable(folder: Path) -> CampaignConfig:
    """campaign.yaml as gm start plays it (its players and those in by sign-up), refused
    when the campaign has started, has no players or a seed its ruleset finds too weak."""
    config = load_config(folder)
    if (folder / DB_NAME).exists():
        existing = Store(folder / DB_NAME)
        try:
            # a sign-up store has no campaign row: it is not a started campaign
            if _started(existing):
                raise GmError(f"campaign {config.id} has already started")
        finally:
            existing.close()
    if config.signup is not None:
        config = _with_signups(folder, config)
    if not config.players:
        raise GmError("no players: campaign.yaml lists none and nobody has joined by mail (gm signup lists "
                      "the sign-ups)")
    # a seed nobody chose cannot be guessed from the published outcomes (docs/campaign.md)
    ruleset = config.ruleset
    if config.seed is not None and ruleset.weak_seed_refused and config.seed < STRONG_SEED:
        raise GmError(f"the {ruleset.name} ruleset needs a seed of at least 2^128 ({STRONG_SEED}): "
                      f"{ruleset.weak_seed_why}; leave seed out of campaign.yaml and gm start draws one")
    return config


def _store_game(db: Any, config: CampaignConfig, seed: int, fixed: Fixed, opening: Any, now: Any,
                deadline: Any) -> None:
    """The campaign's row with its opening state and the seed's commitment, every board
    with its salt and commitment, and the game text the game commitment hashes."""
    ruleset = config.ruleset
    seed_salt = new_salt()
    db["campaign"].insert(
        {
            "id": config.id,
            "ruleset": config.ruleset_name,
            "started_at": clock.iso(now),
            "state": dumps(ruleset.dump_state(opening.state)),
            "deadline": clock.iso(deadline),
            "seed_salt": seed_salt,
            "seed_commitment": commitment(seed_salt, seed_text(seed)),
            "revealed_at": None,
            "fixed": fixed.to_json(),
            "opening": dumps({"events": [dataclasses.asdict(e) for e in opening.events],
                              "draws": [d.to_json() for d in opening.draws]}),
        }
    )
    for board_id, board in config.boards.items():
        salt = new_salt()
        canonical = board.canonical_text()
        db["boards"].insert(
            {
                "id": board_id,
                "squares": board.squares,
                "canonical": canonical,
                "salt": salt,
                # every board played from a file is committed, a public one too; one the
                # ruleset makes from the seed is bound by the seed (docs/audit.md)
                "commitment": (commitment(salt, canonical)
                               if ruleset.commits_boards or board_id in config.board_files else ""),
            }
        )
    board_commitments = {r["id"]: r["commitment"] for r in db.query("select id, commitment from boards")
                         if r["commitment"]}
    game, game_hash = new_game(config.id, ruleset, config.setup, board_commitments,
                               commitment(seed_salt, seed_text(seed)))
    db["campaign"].update(config.id, {"game": game, "game_commitment": game_hash})


def _seat_players(db: Any, config: CampaignConfig) -> dict[str, str]:
    """Every player in their seat with their password's hash; the passwords gm issued, by
    player (campaign.yaml gives the others)."""
    issued: dict[str, str] = {}
    for seat, player in enumerate(config.players):
        password = player.password or issue_password()
        if not player.password:
            issued[player.id] = password
        db["players"].insert(
            {
                "id": player.id,
                "name": player.name,
                "email": player.email,
                "password_hash": hash_password(password),
                "timezone": player.timezone,
                "failing": None,
                "seat": seat,
                "from_turn": 1,
            }
        )
    return issued


def _welcome_players(db: Any, config: CampaignConfig, state: Any, context: dict[str, Any], issued: dict[str, str],
                     now: Any, deadline: Any) -> None:
    """A welcome queued to each player, with the deadline as a calendar file when they must
    meet it."""
    ruleset = config.ruleset
    for player in config.players:
        # the deadline in the player's own zone, as their reports give it
        mail = context | {"player": player, "password": issued.get(player.id),
                          "deadline": deadline_text(deadline, player.timezone),
                          # what the start dealt this player alone (a ruleset's hidden hand)
                          "own": ruleset.player_view(config.setup, player.id, player.name, state,
                                                     (), ruleset.empty_order())}
        calendar = (deadline_attachment(mail, player=player.id, turn=state.turn, deadline=deadline, now=now)
                    if meets_deadline(ruleset, config.setup, state, player.id) else [])
        message = compose(sender=config.mail.sender, to=player.email, template="welcome", now=now,
                          context=mail | {"calendar": file_name(calendar)},
                          attachments=calendar)
        queue(db, message, kind="welcome", now=now, player=player.id)


def _with_signups(folder: Path, config: CampaignConfig) -> CampaignConfig:
    """campaign.yaml's players followed by those in by sign-up, in the order they confirmed
    (docs/rules/, Joining by mail), checked as one list: the configuration gm start starts."""
    if not (folder / DB_NAME).exists():
        return load_config(folder, joined=())
    signups = Campaign.open(folder)
    try:
        refresh(signups)  # campaign.yaml as it is now: max_players, approve
        joined = accepted(signups)
    finally:
        signups.close()
    listed = {p.id.casefold() for p in config.players}
    twice = [p.id for p in joined if p.id.casefold() in listed]
    if twice:
        raise GmError(f"{', '.join(twice)} joined by mail, and campaign.yaml lists the same id: "
                      "change the id in campaign.yaml, or gm signup reject the sign-up")
    return load_config(folder, joined=joined, joining=True)
