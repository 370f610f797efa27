"""The commands that create a campaign (`gm campaign new`, `gm start`) and what a start
mails. An opened campaign is gm.campaign.folder's; passwords, deadlines and how a campaign
ended have modules of their own below it; every public name offered here before still is."""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path

from .. import clock
from ..commitment import commitment, new_salt, seed_text
from ..errors import GmError
from ..rules.chance import SeededChance, played
from .config.reading import load_config
from .config.values import CampaignConfig
from .deadlines import deadline_text, next_deadline
from .fixed import Fixed, played_config
from .folder import Campaign, _started, make_mailboxes
from .passwords import hash_password, issue_password
from .store import DB_NAME, Store, dumps
from .welcome import welcome_context

# RULES.md 5: below WEAK_SEED a seed can be guessed from published outcomes; below
# STRONG_SEED a ruleset with `weak_seed_refused` refuses it
WEAK_SEED = 2**64
STRONG_SEED = 2**128


def start(folder: Path) -> tuple[Campaign, list[str]]:
    """Check everything, create the state, issue passwords, publish the commitments and
    queue a welcome to each player (with the deadline as a calendar file) and observer,
    and a summary to the GM."""
    # what only a start needs, imported here: every other command opens a campaign without it
    from ..mail.calendar import deadline_attachment, file_name, meets_deadline
    from ..mail.mailout import compose, queue
    from .admin import welcome_observers
    from .proof import new_game
    from .signup.admission import seat_at_start

    config = load_config(folder)
    if (folder / DB_NAME).exists():
        existing = Store(folder / DB_NAME)
        try:
            # a sign-up store (RULES.md 3.1) has no campaign row: it is not a started campaign
            if _started(existing):
                raise GmError(f"campaign {config.id} has already started")
        finally:
            existing.close()
    if config.signup is not None:
        config = _with_signups(folder, config)
    if not config.players:
        raise GmError("no players: campaign.yaml lists none and nobody has joined by mail (gm signup lists "
                      "the sign-ups)")
    # RULES.md 5: a seed nobody chose cannot be guessed from the published outcomes
    ruleset = config.ruleset
    if config.seed is not None and ruleset.weak_seed_refused and config.seed < STRONG_SEED:
        raise GmError(f"the {ruleset.name} ruleset needs a seed of at least 2^128 ({STRONG_SEED}): "
                      f"{ruleset.weak_seed_why}; leave seed out of campaign.yaml and gm start draws one")
    seed = config.seed
    if seed is None:
        seed = secrets.randbits(ruleset.seed_bits)
        while ruleset.seed_bits > 128 and seed < STRONG_SEED:  # unleashed 6.12: drawn again below 2^128
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
    state = opening.state
    seed_salt = new_salt()
    issued: dict[str, str] = {}
    with campaign.store.transaction() as db:
        db["campaign"].insert(
            {
                "id": config.id,
                "ruleset": config.ruleset_name,
                "started_at": clock.iso(now),
                "state": dumps(ruleset.dump_state(state)),
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
                    # RULES.md 5: every board played from a file is committed, a public one
                    # too; one the ruleset makes from the seed (unleashed's default) is bound by it
                    "commitment": (commitment(salt, canonical)
                                   if ruleset.commits_boards or board_id in config.board_files else ""),
                }
            )
        board_commitments = {r["id"]: r["commitment"] for r in db.query("select id, commitment from boards")
                             if r["commitment"]}
        game, game_hash = new_game(config.id, ruleset, config.setup, board_commitments,
                                   commitment(seed_salt, seed_text(seed)))
        db["campaign"].update(config.id, {"game": game, "game_commitment": game_hash})
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
        context = welcome_context(campaign, deadline)
        for player in config.players:
            # the deadline in the player's own zone, as their reports give it
            mail = context | {"player": player, "password": issued.get(player.id),
                              "deadline": deadline_text(deadline, player.timezone),
                              # what the start dealt this player alone (unleashed: a hand)
                              "own": ruleset.player_view(config.setup, player.id, player.name, opening.state,
                                                         (), ruleset.empty_order())}
            calendar = (deadline_attachment(mail, player=player.id, turn=state.turn, deadline=deadline, now=now)
                        if meets_deadline(ruleset, config.setup, state, player.id) else [])
            message = compose(sender=config.mail.sender, to=player.email, template="welcome", now=now,
                              context=mail | {"calendar": file_name(calendar)},
                              attachments=calendar)
            queue(db, message, kind="welcome", now=now, player=player.id)
        # observers listed now are welcomed now; one added later, at the next command that mails
        welcome_observers(campaign, db, now)
        # RULES.md 3.1: those who joined by mail are welcomed above; those still waiting are
        # told the game started without them, and stay the GM's pool
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


def _with_signups(folder: Path, config: CampaignConfig) -> CampaignConfig:
    """campaign.yaml's players followed by those in by sign-up, in the order they confirmed
    (RULES.md 3.1), checked as one list: the configuration gm start starts."""
    from .signup.admission import accepted
    from .signup.standing import refresh

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
