"""An opened campaign folder: its configuration, its database and its current state, as
every command reads them (`gm start` makes one: gm.campaign.campaign)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import clock
from ..commitment import matches, seed_text
from ..errors import GmError
from ..mail.maildir import make_mailboxes
from .campaign_end import end_of
from .config.reading import load_config
from .config.values import CampaignConfig, PlayerConfig
from .fixed import Fixed, differences, played_config
from .names import clean
from .press import settings
from .store import DB_NAME, Store


@dataclass
class Campaign:
    """An opened campaign: configuration plus database."""

    folder: Path
    config: CampaignConfig
    store: Store

    @classmethod
    def open(cls, folder: str | Path, *, must_exist: bool = True) -> Campaign:
        """Open the campaign in `folder`. Once started it is played from what `gm start`
        fixed; campaign.yaml and the board files must still agree with that copy. A
        campaign taking sign-ups by mail (docs/rules/, Joining by mail) has its store, and its Maildirs,
        before the start: made by the first command that opens it."""
        folder = Path(folder)
        db_path = folder / DB_NAME
        if not db_path.exists():
            config = load_config(folder)
            if must_exist and config.signup is None:
                raise GmError(f"campaign {config.id} has not started yet (run: gm -C {folder} start)")
            if config.signup is not None:
                make_mailboxes(folder)
        store = Store(db_path)
        try:
            store.migrate()
            # players who joined by mail are the stored game's, not campaign.yaml's
            started = _started(store)
            config = load_config(folder, joined=joined_players(store) if started else None)
            campaign = cls(folder, config, store)
            if started:
                campaign.config = campaign._played_config()
        except BaseException:
            store.close()
            raise
        return campaign

    def started(self) -> bool:
        return _started(self.store)

    def _played_config(self) -> CampaignConfig:
        fixed = self._fixed()
        rows = self.store.rows("select * from players order by seat, from_turn")
        changed = differences(fixed, self.config, _seats(fixed, rows, self.store.rows(
            "select detail from admin where command = 'email'")))
        if changed:
            raise GmError(
                f"campaign.yaml or a board file differs from what gm start fixed: {', '.join(changed)}; "
                "restore them (players change only through gm player)"
            )
        return _with_holders(played_config(self.config, fixed), fixed, rows)

    def _fixed(self) -> Fixed:
        row = self.row()
        if row.get("fixed"):
            return Fixed.from_json(row["fixed"])
        # Started before the copy was kept: the boards table holds the committed boards, and
        # a seed is taken from campaign.yaml only when it matches its commitment.
        seed = self.config.seed
        if seed is None or not matches(row["seed_commitment"], row["seed_salt"], seed_text(seed)):
            raise GmError("the seed in campaign.yaml does not match the commitment published at start; restore it")
        boards = {r["id"]: r["canonical"] for r in self.store.rows("select id, canonical from boards order by rowid")}
        fixed = dataclasses.replace(Fixed.of(self.config, seed), boards=boards)
        with self.store.transaction() as db:
            db["campaign"].update(row["id"], {"fixed": fixed.to_json()})
        return fixed

    def close(self) -> None:
        self.store.close()

    # -- state ----------------------------------------------------------------------

    @property
    def ruleset(self):
        return self.config.ruleset

    @property
    def setup(self):
        return self.config.setup

    def row(self) -> dict[str, Any]:
        row = self.store.one("select * from campaign")
        if row is None:
            raise GmError(f"campaign {self.config.id} has not started yet (run: gm start)")
        return row

    def state(self) -> Any:
        return self.ruleset.load_state(json.loads(self.row()["state"]))

    def deadline(self) -> datetime | None:
        text = self.row()["deadline"]
        return clock.parse_time(text) if text else None

    def mail_basics(self) -> dict[str, Any]:
        """What every mail to players says of the campaign: all public. `ruleset` picks the
        templates (mailout), `facts` is what they need of the ruleset (Ruleset.mail_facts),
        `commands` the forms of its order commands."""
        config, ruleset = self.config, self.ruleset
        return {
            "campaign": config.id,
            "title": config.title,
            "ruleset": ruleset.name,
            "gm_address": config.mail.address,
            "boards": [{"id": b, "squares": board.squares} for b, board in config.boards.items()],
            "facts": ruleset.mail_facts(self.setup),
            "commands": ruleset.grammar(self.setup.options).offered,  # an exclusive group on one line
            # the published archive, when the GM names where (campaign.yaml archive_url)
            "archive_url": config.archive_url,
            # docs/rules/, Order mail: Press: the help and welcome say which press the game has
            "press_mode": settings(self).mode,
            # docs/audit.md: shown by welcomes and the final mail, and an X-GM-Game header on
            # every mail, so any mail a player kept holds it (None: started before it existed)
            "game_commitment": self.row().get("game_commitment"),
        }

    def _seat_rows(self) -> list[list[dict[str, Any]]]:
        """holders() grouped by seat, in seat order: each seat's holders oldest first, the
        current one last."""
        by_seat: dict[int, list[dict[str, Any]]] = {}
        for row in self.holders():
            by_seat.setdefault(row["seat"], []).append(row)
        return [by_seat[seat] for seat in sorted(by_seat)]

    def opening_setup(self) -> Any:
        """The setup with each seat's first holder: the opening's events (throws before turn
        1) keep the ids of that time."""
        setup = self.setup
        first = tuple(rows[0]["player"] for rows in self._seat_rows())
        if not first or first == setup.players:
            return setup
        keys = {first[seat]: setup.player_keys[p] for seat, p in enumerate(setup.players) if p in setup.player_keys}
        return dataclasses.replace(setup, players=first, player_keys=keys)

    def seat_holders(self) -> dict[str, str]:
        """Every id that ever held a seat -> the seat's current holder: a seat's history
        told as one line under its holder now (the archive)."""
        return {row["player"]: rows[-1]["player"] for rows in self._seat_rows() for row in rows}

    def seat_changes(self) -> tuple[dict[str, Any], ...]:
        """The seats that changed hands, for the reports' note of who held a seat when:
        the current holder, and every holder of the seat oldest first."""
        names = self.names()
        return tuple(
            {"player": rows[-1]["player"], "name": names.get(rows[-1]["player"], rows[-1]["name"]),
             "held_by": [{"player": r["player"], "name": names.get(r["player"], r["name"]),
                          "from_turn": r["from_turn"], "until_turn": r["until_turn"],
                          "left_order": bool(r["left_order"])} for r in rows]}
            for rows in self._seat_rows() if len(rows) > 1)

    def opening_view(self) -> Any:
        """The ruleset's public view of the start (Ruleset.opening_view)."""
        stored = json.loads(self.row()["opening"] or "{}")
        events = [self.ruleset.event_from_json(e) for e in stored.get("events", ())]
        return self.ruleset.opening_view(self.opening_setup(), events, self.names())

    def state_notes(self) -> dict[str, str]:
        """What the ruleset adds for the GM beside each board and player (Ruleset.state_notes)."""
        return dict(self.ruleset.state_notes(self.setup, self.state()))

    def names(self) -> dict[str, str]:
        """Every id that has held a seat, with its name: a former holder's name stays in the
        history (reports and the archive say who held the seat when)."""
        former = {r["id"]: clean(r["name"]) for r in self.store.rows(
            "select id, name from players where replaced_by is not null")} if self.started() else {}
        return former | {p.id: p.name for p in self.config.players}

    def paused(self) -> bool:
        """`gm pause` holds the campaign: nothing resolves, orders are refused."""
        return bool(self.row().get("paused"))

    def dropped(self, player: str) -> bool:
        """Whether the player has left the game (`gm player drop`)."""
        row = self.store.one("select dropped_turn from players where id = ?", (player,))
        return bool(row and row["dropped_turn"] is not None)

    def dropped_players(self, turn: int | None = None) -> set[str]:
        """The players who have left the game; with `turn`, those gone by that turn (a player
        dropped with an order acknowledged for the open turn leaves after it)."""
        if turn is None:
            return {r["id"] for r in self.store.rows("select id from players where dropped_turn is not null")}
        return {r["id"] for r in self.store.rows("select id from players where dropped_turn <= ?", (turn,))}

    def held_by(self) -> dict[str, list[str]]:
        """Each current holder's seat's former holders, oldest first (CONTRACT `held_by`)."""
        return {rows[-1]["player"]: [r["player"] for r in rows[:-1]] for rows in self._seat_rows()}

    def holders(self) -> list[dict[str, Any]]:
        """Who held which seat when: one row per holder (seat, player, name, from_turn,
        until_turn: the last turn they held it, None for the current holder; left_order:
        whether the turn after until_turn was resolved with the order this holder had sent
        for it, which stood for the seat's next holder), by seat, each seat's holders oldest
        first and its current holder last."""
        rows = self.store.rows(
            "select seat, id as player, name, from_turn, until_turn, " + _LEFT_ORDER + " as left_order "
            "from players p order by seat, replaced_by is null, from_turn, rowid")
        # a name stored before names were cleaned as they came in is cleaned as it is read
        return [row | {"name": clean(row["name"])} for row in rows]

    def player_state_json(self, player: str) -> dict[str, Any]:
        """`gm state --json --player ID` (CONTRACT.md, Unleashed): what `player` may see,
        without any other player's secrets, plus their private facts."""
        found = self.config.player(player)
        if found is None:
            raise GmError(f"no player {player!r} in campaign {self.config.id}")
        private = self.ruleset.private_json(self.setup, self.state(), found.id)
        if private is None:
            raise GmError(f"the {self.ruleset.name} ruleset keeps no private facts: gm state --json shows them all")
        data = self.state_json()
        for other, facts in data["players"].items():
            if other != found.id:
                for key in self.ruleset.private_player_keys:
                    facts.pop(key, None)
        data["private"] = private
        return data

    def state_json(self) -> dict[str, Any]:
        """`gm state --json` exactly as CONTRACT.md gives it."""
        row = self.row()
        state = self.state()
        boards = {b["id"]: b for b in self.store.rows("select * from boards")}
        result: dict[str, Any] = {"campaign": self.config.id, "ruleset": row["ruleset"]}
        result |= self.ruleset.state_json(self.setup, state)
        result["commitments"] = {
            "seed": row["seed_commitment"],
            "boards": {b: boards[b]["commitment"] for b in self.config.boards if boards[b]["commitment"]},
        }
        result["revealed"] = None
        if row["revealed_at"]:
            result["revealed"] = {
                "seed": {"salt": row["seed_salt"], "value": self.config.seed},
                "boards": {
                    b: {"salt": boards[b]["salt"], "canonical": boards[b]["canonical"]}
                    for b in self.config.boards
                },
            }
        result["deadline"] = row["deadline"]
        # CONTRACT.md's added keys: the GM's administration
        result["paused"] = bool(row.get("paused"))
        # how the campaign ended ({"by": "rules" | "max_turns" | "gm", "turn", "reason"}), or
        # null while it runs: as the audit record's `end` says it (gm.campaign.gm_end)
        end = end_of(row, self.setup, state)
        result["end"] = end.to_json() if end else None
        dropped, held_by = self.dropped_players(), self.held_by()
        for player, facts in result.get("players", {}).items():
            facts["dropped"] = player in dropped
            facts["held_by"] = held_by.get(player, [])
        return result


def _started(store: Store) -> bool:
    return "campaign" in store.table_names() and store.one("select id from campaign") is not None


# Whether a former holder's order was played after they left (Campaign.holders): the seat's
# last order for the turn after `until_turn` came in a message of theirs, and that turn is
# resolved. The order stays the seat's when it changes hands (admin.replace_player).
_LEFT_ORDER = (
    "coalesce((select m.player = p.id from orders o join messages m on m.id = o.message"
    " where p.until_turn is not null and o.turn = p.until_turn + 1"
    " and o.player in (select q.id from players q where q.seat = p.seat)"
    " and exists (select 1 from turns t where t.turn = o.turn)"
    " order by o.receipt desc, o.message desc limit 1), 0)"
)


def _seats(fixed: Fixed, rows: list[dict[str, Any]], email_changes: list[dict[str, Any]]):
    """Every id and address each seat has had (fixed.Seats), from the players table (one
    row per holder) and the addresses `gm player email` replaced."""
    ids = [{player} for player, _ in fixed.players]
    emails = [{email} for _, email in fixed.players]
    seat_of = {}
    for row in rows:
        if row["seat"] is None or row["seat"] >= len(ids):
            continue
        ids[row["seat"]].add(row["id"])
        emails[row["seat"]].add(row["email"])
        seat_of[row["id"]] = row["seat"]
    for change in email_changes:
        detail = json.loads(change["detail"])
        if detail.get("player") in seat_of:
            emails[seat_of[detail["player"]]].add(detail["old"])
    return tuple((frozenset(i), frozenset(e)) for i, e in zip(ids, emails, strict=True))


def _with_holders(config: CampaignConfig, fixed: Fixed, rows: list[dict[str, Any]]) -> CampaignConfig:
    """The players as they are now: each seat's current holder with the address on record
    (`gm player` changes them, not campaign.yaml), and the name and time zone campaign.yaml
    gives that id, which are free to edit. A seat keeps the ruleset's keys (a team)."""
    current = [r for r in rows if r["replaced_by"] is None and r["seat"] is not None]
    if not current:  # not started yet
        return config
    listed = {p.id: p for p in config.players}
    start_ids = [player for player, _ in fixed.players]
    players = []
    for row in current:
        own = listed.get(row["id"])
        players.append(PlayerConfig(
            id=row["id"], name=own.name if own else clean(row["name"]), email=row["email"],
            timezone=own.timezone if own else row["timezone"],
            extra=dict(fixed.player_keys.get(start_ids[row["seat"]], {})),
        ))
    return dataclasses.replace(config, players=tuple(players))



def joined_players(store: Any) -> tuple[PlayerConfig, ...]:
    """The players who joined by mail, as gm start seated them (Fixed.joined): config's
    `joined` for a started campaign. Their first holder's id, address, name and keys."""
    row = store.one("select fixed from campaign") if "campaign" in store.table_names() else None
    if not row or not row["fixed"]:
        return ()
    fixed = Fixed.from_json(row["fixed"])
    if not fixed.joined:
        return ()
    names = {r["id"]: (clean(r["name"]), r["timezone"]) for r in store.rows("select id, name, timezone from players")}
    return tuple(PlayerConfig(id=player, name=names.get(player, (player, None))[0], email=email,
                              timezone=names.get(player, (None, None))[1],
                              extra=dict(fixed.player_keys.get(player, {})))
                 for player, email in fixed.players[-fixed.joined:])
