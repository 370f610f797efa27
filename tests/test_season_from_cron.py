"""The "done when": a new GM runs a campaign from cron through a pause, a replacement
and a reply to a refusal. Nothing but `gm turn` runs on a schedule (GM_NOW moving day by
day, as cron would run it); the GM types `gm pause`, `gm player replace` and `gm resume`
between runs; players read what arrives in mail/outbox and drop their mail in mail/inbox
(timed by delivery, docs/rules/, Order mail). Every `gm turn` exits 0.

The campaign is tests/campaignfixtures.py's: ann, ben, cat on boards A (12 squares) and B
(8), first deadline Sunday 2027-01-03 18:00 UTC, a week a turn."""

from __future__ import annotations

import email
import email.policy
import email.utils
import os
import re
import sqlite3
from datetime import datetime
from email.message import EmailMessage

from campaignfixtures import PLAYERS


class Players:
    """The players' side: their mailboxes are the campaign's outbox, their letters land in its inbox."""

    def __init__(self, campaign):
        self.campaign = campaign
        self.inbox = campaign.folder / "mail" / "inbox" / "new"
        self.outbox = campaign.folder / "mail" / "outbox"
        self.passwords = dict(PLAYERS)
        self.written = 0

    def received(self, address: str) -> list[EmailMessage]:
        """Every mail gm delivered to `address`, oldest first."""
        found = []
        for sub in ("new", "cur"):
            for path in sorted((self.outbox / sub).iterdir()):
                message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                if address in str(message["To"]):
                    found.append(message)
        return found

    def last(self, address: str, subject: str) -> EmailMessage:
        return [m for m in self.received(address) if subject in str(m["Subject"])][-1]

    def write(self, player: str, lines: str, *, at: str, reply_to: EmailMessage | None = None,
              password: bool = True) -> None:
        """A letter from `player` delivered to the inbox at `at`; a reply quotes what it answers."""
        self.written += 1
        message = EmailMessage()
        message["From"] = f"{player}@example.org"
        message["To"] = "gm@example.org"
        message["Message-ID"] = f"<season-{self.written}@example.org>"
        message["Date"] = email.utils.format_datetime(_time(at))
        body = (f"PLAYER {player}\nPASSWORD {self.passwords[player]}\n" if password else "") + lines
        if reply_to is None:
            message["Subject"] = "orders"
        else:
            subject = str(reply_to["Subject"])
            message["Subject"] = subject if subject.startswith("Re:") else f"Re: {subject}"
            message["In-Reply-To"] = reply_to["Message-ID"]
            message["References"] = reply_to["Message-ID"]
            quoted = reply_to.get_body(("plain",)).get_content().splitlines()
            body += "\n\nOn Sunday, gm wrote:\n" + "\n".join(f"> {line}" for line in quoted)
        message.set_content(body + "\n")
        path = self.inbox / f"season-{self.written}.eml"
        path.write_bytes(bytes(message))
        os.utime(path, (_time(at).timestamp(), _time(at).timestamp()))


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def outcomes(campaign) -> list[tuple[str, str | None]]:
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    return db.execute("select outcome, player from messages order by id").fetchall()


def cron(campaign, now: str) -> list[str]:
    """`gm turn` as cron runs it: it must exit 0 (the fixture checks) whatever the week holds."""
    return campaign("turn", now=now).splitlines()


def test_a_season_from_cron_through_a_pause_a_replacement_and_a_reply_to_a_refusal(campaign):
    players = Players(campaign)
    cron(campaign, "2027-01-01T06:00:00Z")  # the welcomes go out
    assert players.received("ann@example.org")

    # week 1: every order in on Saturday, so Saturday night's run resolves turn 1 early
    for player, number in (("ann", 2), ("ben", 5), ("cat", 1)):
        players.write(player, f"NUMBER {number}", at="2027-01-02T10:00:00Z")
    lines = cron(campaign, "2027-01-02T22:00:00Z")
    assert lines[0] == "ingest: 3 new messages (3 applied)"
    assert lines[1].startswith("resolve: turn 1 resolved")
    assert campaign.state()["turn"] == 2 and campaign.state()["deadline"] == "2027-01-10T18:00:00Z"

    # week 2: the GM pauses on Tuesday; the nightly run sends the notices, resolves nothing, exits 0
    campaign("pause", now="2027-01-05T09:00:00Z")
    lines = cron(campaign, "2027-01-05T22:00:00Z")
    assert lines[1] == "resolve: the campaign is paused: nothing is resolved until gm resume [WHEN]"
    for address in ("ann@example.org", "ben@example.org", "cat@example.org"):
        assert players.last(address, "is paused")
    # ann orders anyway: answered with a refusal saying the game is paused
    players.write("ann", "NUMBER 3", at="2027-01-06T08:00:00Z")
    lines = cron(campaign, "2027-01-06T22:00:00Z")
    assert lines[0] == "ingest: 1 new message (1 refused)" and "paused" in lines[1]
    refusal = players.last("ann@example.org", "not accepted: the game is paused")
    # past the old deadline, still paused: still nothing resolved, still exit 0
    assert "paused" in cron(campaign, "2027-01-11T22:00:00Z")[1]
    assert campaign.state()["turn"] == 2

    # ben leaves; dora takes his seat and gets her password by the next run
    campaign("player", "replace", "ben", "dora", "--name", "Dora", "--email", "dora@example.org",
             now="2027-01-12T09:00:00Z")
    cron(campaign, "2027-01-12T22:00:00Z")
    welcome = players.last("dora@example.org", "Welcome")
    players.passwords["dora"] = re.search(r"password: (\S+)", welcome.get_body(("plain",)).get_content()).group(1)

    # the GM resumes with a deadline on Sunday week; the run tells everyone
    campaign("resume", "2027-01-24 18:00", now="2027-01-13T09:00:00Z")
    cron(campaign, "2027-01-13T22:00:00Z")
    for address in ("ann@example.org", "dora@example.org", "cat@example.org"):
        assert players.last(address, "goes on")
    # ann hits Reply on the paused refusal, her password in the reply: applied and acknowledged
    players.write("ann", "NUMBER 3", at="2027-01-14T08:00:00Z", reply_to=refusal)
    # cat's out-of-office answers the same refusal without a password: kept, never answered
    players.write("cat", "I am away until the 20th.", at="2027-01-14T08:05:00Z", reply_to=refusal,
                  password=False)
    lines = cron(campaign, "2027-01-14T22:00:00Z")
    assert lines[0] == "ingest: 2 new messages (1 applied, 1 loop)"
    assert lines[1].startswith("resolve: not yet: turn 2 waits for dora, cat; deadline Sunday 24 January 2027")
    ack = players.last("ann@example.org", "Order #1 for turn 2 accepted")
    assert ack["In-Reply-To"] == "<season-5@example.org>"
    assert len([m for m in players.received("cat@example.org") if "not accepted" in str(m["Subject"])]) == 0
    status = campaign("status", now="2027-01-14T22:05:00Z")
    assert "cat@example.org" in status and "answers our refusal, not authenticated" in status

    # dora and cat order; the next run resolves turn 2 with dora in ben's seat
    players.write("dora", "NUMBER 4", at="2027-01-15T08:00:00Z")
    players.write("cat", "NUMBER 6", at="2027-01-15T09:00:00Z")
    lines = cron(campaign, "2027-01-15T22:00:00Z")
    assert lines[0] == "ingest: 2 new messages (2 applied)"
    assert lines[1].startswith("resolve: turn 2 resolved")
    state = campaign.state()
    assert state["turn"] == 3 and state["paused"] is False
    assert state["players"]["dora"]["held_by"] == ["ben"]
    assert [o for o, _ in outcomes(campaign)] == [
        "applied", "applied", "applied", "refused", "applied", "loop", "applied", "applied"]
    assert players.last("dora@example.org", "Turn 2 report")
    # nothing is left in the inbox's new/ nor queued: cron left the campaign tidy
    assert list(players.inbox.iterdir()) == []
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    assert db.execute("select count(*) from outbox where status != 'sent'").fetchone() == (0,)
