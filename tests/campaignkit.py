"""Build and play a whole campaign in a folder, from Python, in well under a second.

Players have fixed passwords, the clock is set through GM_NOW (by a `setenv` you pass,
e.g. pytest's `monkeypatch.setenv`), and orders go through the real order desk as real
mail. Any test that needs a campaign in some state can use it:

    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv)
    kit.play_to_end()            # or kit.play_turn() a few times
    kit.outbox()                 # every queued mail, parsed

Everything is deterministic: the same call gives the same campaign, turn by turn.
"""

from __future__ import annotations

import email
import email.policy
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import yaml

BOARDS = Path(__file__).resolve().parent.parent / "boards"
START = datetime(2027, 1, 1, 0, 0, tzinfo=UTC)


@dataclass(frozen=True)
class KitPlayer:
    id: str
    name: str
    email: str
    password: str
    timezone: str | None = None


# Names chosen to break any page or mail that forgets to escape what people type.
HOSTILE_PLAYERS = (
    KitPlayer("alice", "<script>alert('alice')</script>", "alice@example.org", "pw-alice"),
    KitPlayer("bob", "Bob \"><img src=x onerror=alert(1)>", "bob@example.org", "pw-bob", "Europe/Berlin"),
    KitPlayer("carol", "Carol & Zoë </td></table>", "carol@example.org", "pw-carol"),
    KitPlayer("dave", "{{ 7*7 }} {% raw %}Dave", "dave@example.org", "pw-dave", "America/New_York"),
)
PLAIN_PLAYERS = (
    KitPlayer("alice", "Alice Liddell", "alice@example.org", "pw-alice"),
    KitPlayer("bob", "Bob Cratchit", "bob@example.org", "pw-bob", "Europe/Berlin"),
    KitPlayer("carol", "Carol Danvers", "carol@example.org", "pw-carol"),
    KitPlayer("dave", "Dave Bowman", "dave@example.org", "pw-dave", "America/New_York"),
)


def default_pick(turn: int, player: str, held: Sequence[int]) -> int | None:
    """A spread of choices that differs by player and turn; None means send no number."""
    if player == "dave" and turn % 4 == 2:
        return None  # an NMR now and then
    return held[(turn + len(player)) % len(held)]


def default_nominate(turn: int, player: str, boards: Mapping[str, int]) -> dict[str, int]:
    """Most players nominate the same square on every second turn, so trapdoors are elected."""
    if turn % 2:
        return {}
    return {board: min(squares, 5 + 2 * turn) for board, squares in boards.items()}


@dataclass
class CampaignKit:
    folder: Path
    players: tuple[KitPlayer, ...]
    setenv: Callable[[str, str], None]
    now: datetime = START
    sent: int = 0
    log: list[Any] = field(default_factory=list)
    _opened: Any = None

    # -- making one --------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        folder: Path,
        *,
        setenv: Callable[[str, str], None] | None = None,
        players: Sequence[KitPlayer] = HOSTILE_PLAYERS,
        boards: Mapping[str, str | Path] | None = None,
        options: Mapping[str, Any] | None = None,
        seed: int = 20270321,
        campaign_id: str = "kit-2027",
        title: str = "Kit <Cup> & Friends",
        start: bool = True,
    ) -> CampaignKit:
        """Write campaign.yaml into `folder` and (by default) start the campaign."""
        folder.mkdir(parents=True, exist_ok=True)
        boards = boards or {"A": BOARDS / "small.yaml", "B": BOARDS / "ziggurat.yaml"}
        data = {
            "id": campaign_id,
            "title": title,
            "ruleset": "postal",
            "seed": seed,
            "timezone": "UTC",
            "turn_days": 7,
            "boards": {b: str(Path(path).resolve()) for b, path in boards.items()},
            "players": [
                {k: v for k, v in vars(p).items() if v is not None} for p in players
            ],
            "options": dict(options or {"close_after": 3, "max_turns": 30}),
            "mail": {"transport": "maildir", "from": "Snakes GM <gm@example.org>"},
        }
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        (folder / "campaign.yaml").write_text(text, encoding="utf-8")
        kit = cls(folder, tuple(players), setenv or _environ_setenv)
        if start:
            kit.start()
        return kit

    def start(self) -> None:
        from gm.campaign.campaign import start

        self.at(self.now)
        campaign, _ = start(self.folder)
        campaign.close()

    # -- the clock and the campaign -----------------------------------------------------

    def at(self, moment: datetime) -> None:
        self.now = moment
        self.setenv("GM_NOW", moment.strftime("%Y-%m-%dT%H:%M:%SZ"))

    @contextmanager
    def campaign(self) -> Iterator[Any]:
        """The campaign, opened once and kept open: reading campaign.yaml and the boards for
        every order would make a whole campaign take seconds."""
        from gm.campaign.folder import Campaign

        if self._opened is None:
            self._opened = Campaign.open(self.folder)
        yield self._opened

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()
            self._opened = None

    def player(self, player_id: str) -> KitPlayer:
        return next(p for p in self.players if p.id == player_id)

    # -- orders -----------------------------------------------------------------------

    def mail(self, player_id: str, body: str, *, subject: str = "orders") -> bytes:
        """A real order mail from the player's registered address."""
        player = self.player(player_id)
        self.sent += 1
        message = EmailMessage()
        message["From"] = player.email
        message["To"] = "gm@example.org"
        message["Subject"] = subject
        message["Date"] = format_datetime(self.now)
        message["Message-ID"] = f"<kit-{self.sent}@example.org>"
        message.set_content(body)
        return message.as_bytes(policy=email.policy.SMTP)

    def order(self, player_id: str, lines: Sequence[str]) -> Any:
        """Send order lines (PLAYER and PASSWORD are added) through the order desk."""
        from gm.campaign.desk.inbound import Desk

        player = self.player(player_id)
        body = "\n".join([f"PLAYER {player.id}", f"PASSWORD {player.password}", *lines]) + "\n"
        raw = self.mail(player_id, body)
        with self.campaign() as campaign:
            return Desk(campaign).handle(raw, source=f"kit:{self.sent}", received_at=self.now)

    def state(self) -> Any:
        with self.campaign() as campaign:
            return campaign.state()

    # -- turns ------------------------------------------------------------------------

    def play_turn(
        self,
        pick: Callable[[int, str, Sequence[int]], int | None] = default_pick,
        nominate: Callable[[int, str, Mapping[str, int]], dict[str, int]] = default_nominate,
    ) -> Any:
        """Every player orders a day before the deadline, then the GM resolves just after it."""
        from gm.campaign.standing import order_view
        from gm.campaign.turns import resolve

        with self.campaign() as campaign:
            deadline = campaign.deadline()
            turn = campaign.state().turn
            sizes = {b: board.squares for b, board in campaign.config.boards.items()}
            views = {p.id: order_view(campaign, p.id) for p in self.players}
        self.at(deadline - timedelta(days=1))
        for player in self.players:
            lines = []
            for hand in views[player.id]["hands"]:
                if hand["status"] != "needed":
                    continue
                number = pick(turn, player.id, hand["held"])
                if number is not None:
                    lines.append(f"NUMBER {hand['board']} {number}" if hand["board"] else f"NUMBER {number}")
            lines += [f"TRAPDOOR {b} {sq}" for b, sq in nominate(turn, player.id, sizes).items()]
            if lines:
                self.log.append(self.order(player.id, lines))
        self.at(deadline + timedelta(hours=1))
        with self.campaign() as campaign:
            return resolve(campaign, force=True)

    def play_to_end(self, *, max_turns: int = 60, **strategy: Any) -> int:
        """Play turns until the campaign is over; returns how many were resolved."""
        played = 0
        while not self.state().over:
            if played >= max_turns:
                raise AssertionError(f"the campaign did not end within {max_turns} turns")
            self.play_turn(**strategy)
            played += 1
        return played

    # -- what came out ------------------------------------------------------------------

    def outbox(self, *, kind: str | None = None, player: str | None = None) -> list[Any]:
        """Queued and sent mail, oldest first, parsed; each has `.kind` and `.player`."""
        from gm.campaign.outbox import stored_mail

        sql = "select * from outbox order by id"
        with self.campaign() as campaign:
            rows = campaign.store.rows(sql)
        messages = []
        for row in rows:
            if kind is not None and row["kind"] != kind:
                continue
            if player is not None and row["player"] != player:
                continue
            raw = stored_mail(campaign.store.db.conn, row["raw"])
            message = email.message_from_bytes(raw, policy=email.policy.default)
            message.kind, message.player, message.turn = row["kind"], row["player"], row["turn"]
            messages.append(message)
        return messages


def _environ_setenv(name: str, value: str) -> None:
    os.environ[name] = value
