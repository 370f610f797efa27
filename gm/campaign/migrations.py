"""The campaign database's schema as named migrations, oldest first (gm.campaign.store
applies those not yet applied, in one transaction)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

from .digests import body_digest, record_digest


def _m001_initial(db: sqlite_utils.Database) -> None:
    db["campaign"].create(
        {
            "id": str,
            "ruleset": str,
            "started_at": str,
            "state": str,  # the ruleset's state as JSON (dump_state)
            "deadline": str,  # ISO 8601, UTC, of the current turn
            "seed_salt": str,
            "seed_commitment": str,
            "revealed_at": str,
        },
        pk="id",
    )
    db["players"].create(
        {
            "id": str,
            "name": str,
            "email": str,
            "password_hash": str,
            "timezone": str,
            "failing": str,  # why mail to this address fails (a bounce, a 5xx), or null
        },
        pk="id",
    )
    db["boards"].create(
        {"id": str, "squares": int, "canonical": str, "salt": str, "commitment": str}, pk="id"
    )
    db["turns"].create(
        {
            "turn": int,  # the first campaign turn the resolve played (one resolve may play two)
            "resolved_at": str,
            "deadline": str,
            "state_before": str,
            "state_after": str,
            "orders": str,  # the orders played, as JSON
            "events": str,  # the events, as JSON
        },
        pk="turn",
    )
    db["messages"].create(
        {
            "id": int,
            "message_id": str,
            "source": str,  # where it came from: maildir:<key>, imap:<uidvalidity>:<uid>, file:<name>
            "received_at": str,
            "ingested_at": str,
            "sender": str,
            "subject": str,
            "raw": bytes,
            "outcome": str,  # applied, refused, help, loop, duplicate
            "player": str,
            "turn": int,
            "detail": str,
        },
        pk="id",
    )
    db["messages"].create_index(["message_id"])  # a replay is recorded, never applied
    db["messages"].create_index(["source"], unique=True)
    db["orders"].create(
        {
            "turn": int,
            "player": str,
            "receipt": int,  # per player and turn: order #1, #2, ...
            "message": int,
            "numbers": str,  # JSON: hand -> number, after this message
            "trapdoors": str,  # JSON: board -> square, after this message
        },
        pk=("turn", "player", "receipt"),
    )
    db["outbox"].create(
        {
            "id": int,
            "kind": str,  # welcome, ack, refusal, help, reminder, report, gm-report, final
            "turn": int,
            "player": str,
            "recipient": str,
            "message_id": str,
            "subject": str,
            "raw": bytes,
            "queued_at": str,
            "status": str,  # queued, sent, failed
            "sent_at": str,
            "attempts": int,
            "error": str,
        },
        pk="id",
    )
    db["outbox"].create_index(["status"])


def _m002_fixed_at_start(db: sqlite_utils.Database) -> None:
    # CONTRACT.md "Fixed at start": the id, ruleset, seed, options, players and boards the
    # game is played from (gm.fixed.Fixed as JSON). Campaigns started before this column
    # existed fill it on their next open, from their boards table and seed commitment.
    db["campaign"].add_column("fixed", str)


def _m003_desk_trust(db: sqlite_utils.Database) -> None:
    # docs/rules/, Order mail: a message is already seen only when Message-ID, sender and body all
    # match (the digest is filled in for messages recorded before); a RESET's password
    # waits beside the old one until first used; the loop and cap checks look the outbox
    # up by Message-ID and by recipient.
    db["messages"].add_column("body_sha256", str)
    for row in list(db.query("select id, raw from messages")):
        db["messages"].update(row["id"], {"body_sha256": body_digest(row["raw"] or b"")})
    db["messages"].create_index(["message_id", "sender", "body_sha256"])
    db["players"].add_column("pending_password_hash", str)  # a RESET's new password, until used
    db["players"].add_column("reset_at", str)  # when the last RESET mail was queued
    db["outbox"].create_index(["message_id"])
    db["outbox"].create_index(["recipient", "queued_at"])


def _m004_draws(db: sqlite_utils.Database) -> None:
    # docs/audit.md: every random choice a turn made (gm.chance.Draw as JSON), so a turn can
    # be replayed and audited without the generator; and what gm start drew and did
    # before turn 1 (opening throws, seats), as {"events": [...], "draws": [...]}.
    db["turns"].add_column("draws", str)
    db["campaign"].add_column("opening", str)


def _m005_orders_as_json(db: sqlite_utils.Database) -> None:
    # Each ruleset owns its orders: the standing order after each message is the ruleset's
    # JSON (Ruleset.order_to_json), no longer postal's numbers and trapdoors columns.
    db["orders"].add_column("standing", str)
    db.execute(
        "update orders set standing = json_object('numbers', json(numbers), 'trapdoors', json(trapdoors))"
    )
    db["orders"].transform(drop={"numbers", "trapdoors"})


def _m006_administration(db: sqlite_utils.Database) -> None:
    # CONTRACT.md's GM commands (gm player, pause, resume, deadline). A seat keeps its
    # place in the order of play whoever holds it: `seat` is its index in campaign.yaml. A
    # player who gave up their seat keeps their row (their id stays taken, their name is in
    # the history) with `replaced_by` and the turns they held it; `dropped_turn` is the
    # first turn a dropped player no longer orders. `admin` logs every GM change, for gm
    # status and the audit.
    for column in ("seat", "dropped_turn", "from_turn", "until_turn"):
        db["players"].add_column(column, int)
    db["players"].add_column("replaced_by", str)
    for seat, row in enumerate(db.query("select id from players order by rowid")):
        db.execute("update players set seat = ?, from_turn = 1 where id = ?", (seat, row["id"]))
    db["campaign"].add_column("paused", int)
    db["admin"].create({"id": int, "at": str, "turn": int, "command": str, "player": str, "detail": str},
                       pk="id")


def _m007_shared_parts(db: sqlite_utils.Database) -> None:
    # A large campaign's reports all attach the same table of every player (turns.py
    # INLINE_PLAYERS): its bytes are kept once here, by their SHA-256, and each outbox row
    # holds a marker in their place (outbox.queue, stored_mail), so a turn's outbox and
    # write-ahead log grow with the players, not with their square.
    db["shared_parts"].create({"sha256": str, "data": bytes}, pk="sha256")


def _m008_publish_memo(db: sqlite_utils.Database) -> None:
    # What a publish keeps for the next one (gm.publish.memo): each turn's summary under
    # the digest of its stored record, and each page written to an archive folder under
    # the digest of what it shows, so a weekly publish derives and renders only what the
    # new turn changed. Public facts only: everything here is on the pages already.
    db["archive_turns"].create({"turn_index": int, "digest": str, "summary": str}, pk="turn_index")
    # each turn's record hashed when it is stored (record_digest), so a publish knows an old
    # turn unchanged without reading its states and events back
    db["turns"].add_column("digest", str)
    for row in db.query("select turn, state_before, state_after, events from turns"):
        db.execute("update turns set digest = ? where turn = ?", (record_digest(row), row["turn"]))
    db["archive_pages"].create({"out": str, "path": str, "digest": str, "size": int, "mtime_ns": int},
                               pk=("out", "path"))


def _m009_proof(db: sqlite_utils.Database) -> None:
    # docs/audit.md's proof: the game text the game commitment hashes (canonical JSON, kept
    # as written at start so the commitment never depends on a later gm's wording), each
    # accepted message's receipt, and each resolve's receipts played and record hash. A
    # campaign started before has none of them; its mail and archive show none.
    db["campaign"].add_column("game", str)
    db["campaign"].add_column("game_commitment", str)
    db["orders"].add_column("receipt_hash", str)
    db["turns"].add_column("receipts", str)
    db["turns"].add_column("record_hash", str)


def _m010_gm_end(db: sqlite_utils.Database) -> None:
    # CONTRACT.md `gm end`: how the GM ended a running campaign (gm.campaign.gm_end), as
    # JSON: the turn it ended after, by whom, the reason given, when, and the events of the
    # end (placings, boards closed); null while running or when the rules ended it
    db["campaign"].add_column("ended", str)


def _m011_signup(db: sqlite_utils.Database) -> None:
    # docs/rules/, Joining by mail: sign-up by mail before gm start (gm.campaign.signup.standing). A request becomes
    # a row only once confirmed from its address, in the order confirmed (`id`): `status`
    # where it stands (in, waiting, awaiting the GM, rejected, left; at gm start: playing,
    # or pool for those left waiting), `decision` the GM's under approve: gm, `told` the
    # status last told to the person. A JOIN not yet confirmed is its message alone. The
    # key signs confirmation codes (a code is no secret kept here: the key makes it); the
    # log says when sign-up opened and closed, for the archive's feed.
    db["signups"].create({
        "id": int, "player": str, "name": str, "email": str, "timezone": str, "keys": str,
        "asked_at": str, "confirmed_at": str, "changed_at": str, "status": str, "decision": str,
        "told": str, "join_message": int, "confirm_message": int,
    }, pk="id")
    # each JOIN and CONFIRM looks a request up by address, id and JOIN message, and a
    # CONFIRM finds its JOIN among the sender's mail: none of them may read the table
    # through (a 2,000-player sign-up would read it 2,000 times), nor a message's raw mail
    db["signups"].create_index(["email"])
    db["signups"].create_index(["status"])
    db["signups"].create_index(["player"])
    db["signups"].create_index(["join_message"])
    db["messages"].create_index(["sender", "outcome"])
    # a JOIN's request as read (name, id, zone, keys; JSON), kept with its message for the
    # CONFIRM that makes it count: reading the mail again cost a quarter of a CONFIRM
    db["messages"].add_column("request", str)
    db["signup_key"].create({"key": str})
    db["signup_key"].insert({"key": secrets.token_hex(32)})
    db["signup_log"].create({"id": int, "at": str, "event": str}, pk="id")


def _m012_parsed_files(db: sqlite_utils.Database) -> None:
    # campaign.yaml and the board files as parsed, under the digest of their bytes (a cache
    # that measured no faster for a user: dropped by 016)
    db["parsed_files"].create({"key": str, "value": bytes}, pk="key")


def _m013_password_failures(db: sqlite_utils.Database) -> None:
    # docs/rules/, "Passwords and RESET": failed password checks per player and UTC
    # day (gm.campaign.desk.trust), so the player is told at 20 (`told_at`, once a day) and mail
    # past 100 is refused without a check (`unchecked` counts those, for gm status). A day
    # is the calendar day in UTC, YYYY-MM-DD; `gm player password` sets the day's counts to 0.
    db["password_failures"].create(
        {"player": str, "day": str, "failures": int, "unchecked": int, "told_at": str},
        pk=("player", "day"),
    )


def _m014_unasked_caps(db: sqlite_utils.Database) -> None:
    # docs/rules/, Refusal caps: each reply anyone can make gm send (a refusal,
    # help, a sign-up code) is counted a UTC day to its address with any +tag dropped
    # (`address_key`), and, when it went to no player's address (`unasked` 1), towards the
    # campaign's cap on all of them; each count is an index range, however large a flood
    db["outbox"].add_column("address_key", str)
    db["outbox"].add_column("unasked", int)
    registered = {row[0] for row in db.execute("select lower(email) from players")}
    registered |= {row[0] for row in db.execute("select lower(email) from signups")}
    for row_id, recipient in db.execute(
            "select id, recipient from outbox where kind in ('refusal', 'help', 'signup-code')").fetchall():
        address = (recipient or "").lower()
        local, at, domain = address.rpartition("@")
        key = f"{local.split('+', 1)[0]}{at}{domain}" if at else address
        db.execute("update outbox set address_key = ?, unasked = ? where id = ?",
                   (key, int(address not in registered), row_id))
    db["outbox"].create_index(["address_key", "queued_at"])
    db["outbox"].create_index(["unasked", "queued_at"])
    db["outbox"].create_index(["kind", "queued_at"])
def _m015_signup_teams(db: sqlite_utils.Database) -> None:
    # docs/rules/advanced.md, Teams, and docs/campaign.md, signup: `requested` holds (JSON)
    # the ruleset's placed keys a request asked for under `signup: {teams: gm}`, which the
    # GM grants or not (`keys` holds what the player is seated with). `signup_links` holds
    # the words (case folded) by which the ruleset may relate a request to others: its id
    # and its placed keys' values (Ruleset.placed_keys), so that a new request is judged
    # beside the few places sharing one, never by reading every place held
    db["signups"].add_column("requested", str)
    db["signup_links"].create({"signup": int, "link": str})
    db["signup_links"].create_index(["link"])
    db["signup_links"].create_index(["signup"])
    # requests made before: their id and every key value (the ruleset's placed keys are
    # among them; a word too many only widens what a request is judged beside)
    for row in list(db.query("select id, player, keys from signups")):
        words = {row["player"].casefold(), *(str(v).casefold() for v in json.loads(row["keys"] or "{}").values())}
        db["signup_links"].insert_all({"signup": row["id"], "link": word} for word in sorted(words))


def _m016_no_parsed_files(db: sqlite_utils.Database) -> None:
    # campaign.yaml and the boards are parsed at every opening: the cache of 012 goes
    db["parsed_files"].drop(ignore=True)


def _m017_entropy(db: sqlite_utils.Database) -> None:
    # docs/audit.md, What the GM cannot choose: each player's ENTROPY words as kept, one a
    # player (a later one replaces it), and the message that brought them
    db["entropy"].create({"player": str, "words": str, "message": int}, pk="player")


def _m018_press(db: sqlite_utils.Database) -> None:
    # docs/rules/, Order mail: Press. No part of the game record: the audit never reads these.
    db["press_settings"].create({"id": int, "settings": str}, pk="id")
    db["press"].create({"id": int, "message": int, "turn": int, "player": str, "received_at": str, "day": str,
                        "said": str, "recipients": str, "anonymous": int, "to_all": int, "digest": int,
                        "cost": int, "text": str}, pk="id")
    db["press"].create_index(["player", "day"])
    db["press"].create_index(["turn"])
    db["press_floods"].create({"id": int, "player": str, "day": str, "at": str, "why": str}, pk="id")
    db["press_floods"].create_index(["day"])


def _m019_absences_and_votes(db: sqlite_utils.Database) -> None:
    # docs/rules/, Absences and extension votes: a player's declared absences (dates in the
    # player's zone, both days away; `cancelled` set by ABSENCE NONE), the votes to extend a
    # turn's deadline, and each deadline moved for them (kind absence|vote), which is what
    # limits the moves to once per turn and absence, and `per_turn` votes
    db["absences"].create({"id": int, "player": str, "start": str, "until": str, "declared_at": str,
                           "cancelled": int}, pk="id", defaults={"cancelled": 0})
    db["absences"].create_index(["player"])
    db["extend_votes"].create({"turn": int, "player": str, "days": int, "voted_at": str}, pk=("turn", "player"))
    db["deadline_moves"].create({"id": int, "turn": int, "kind": str, "absence": int, "old": str, "new": str,
                                 "at": str}, pk="id")
    db["deadline_moves"].create_index(["turn"])


def _m020_webhooks(db: sqlite_utils.Database) -> None:
    # a standalone campaign's notifications (docs/campaign.md, notify): one POST per event,
    # turn and address, queued once and sent until the endpoint takes it
    db.execute("""create table if not exists webhooks (
        id integer primary key, event text not null, turn integer not null, url text not null,
        format text not null, body text not null, status text not null default 'queued',
        attempts integer not null default 0, error text, queued_at text not null,
        unique (event, turn, url))""")
    # a sign-up code made unique within a judge (docs/deployment.md, A judge): the salt of
    # a request whose plain code was already another game's; a request absent here has none
    db.execute("create table if not exists signup_code_salts (message integer primary key, salt integer not null)")


MIGRATIONS: list[tuple[str, Callable[[sqlite_utils.Database], None]]] = [
    ("001_initial", _m001_initial),
    ("002_fixed_at_start", _m002_fixed_at_start),
    ("003_desk_trust", _m003_desk_trust),
    ("004_draws", _m004_draws),
    ("005_orders_as_json", _m005_orders_as_json),
    ("006_administration", _m006_administration),
    ("007_shared_parts", _m007_shared_parts),
    ("008_publish_memo", _m008_publish_memo),
    ("009_proof", _m009_proof),
    ("010_gm_end", _m010_gm_end),
    ("011_signup", _m011_signup),
    ("012_parsed_files", _m012_parsed_files),
    ("013_password_failures", _m013_password_failures),
    ("014_unasked_caps", _m014_unasked_caps),
    ("015_signup_teams", _m015_signup_teams),
    ("016_no_parsed_files", _m016_no_parsed_files),
    ("017_entropy", _m017_entropy),
    ("018_press", _m018_press),
    ("019_absences_and_votes", _m019_absences_and_votes),
    ("020_webhooks", _m020_webhooks),
]
