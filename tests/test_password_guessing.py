"""docs/rules/postal.md "Passwords and RESET": guessing a password by mail cannot succeed.
Issued passwords hold at least 48 bits; failed password checks are counted per player and
UTC day, whether or not a refusal was sent; at 20 the player is told once at the
registered address and `gm status` shows it; past 100 the player's mail is refused
unchecked (no scrypt run) until the next UTC day or until `gm player password`."""

from __future__ import annotations

import email
import email.policy
import math
import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit
from click.testing import CliRunner

from gm.campaign.admin import new_password
from gm.campaign.desk.inbound import Desk
from gm.campaign.desk.trust import CHECK_LIMIT, TELL_AT, failures_today
from gm.campaign.ingest import IngestReport, Pending, handle_all
from gm.campaign.passwords import PASSWORD_LENGTH, PASSWORD_WORDS, issue_password, scrypt_runs
from gm.cli import cli

STRANGER = "mallory@evil.example"
ALICE = "alice@example.org"
# what the guesser wrote, none of which the warning mail may quote
MARK = "zz-subject-of-the-guesser"
DAY_1 = datetime(2027, 1, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def kit(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    kit.at(DAY_1)
    yield kit
    kit.close()


def mail(sender: str, player: str, password: str, *, n: int) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm@example.org"
    message["Subject"] = MARK
    message["Date"] = "Sat, 02 Jan 2027 12:00:00 +0000"
    message["Message-ID"] = f"<guess-{n}@elsewhere.example>"
    message.set_content(f"PLAYER {player}\nPASSWORD {password}\nNUMBER 3\n")
    return message.as_bytes(policy=email.policy.SMTP)


def deliver(kit: CampaignKit, raw: bytes):
    kit.sent += 1
    with kit.campaign() as campaign:
        return Desk(campaign).handle(raw, source=f"guess:{kit.sent}", received_at=kit.now)


def guess(kit: CampaignKit, sender: str = STRANGER, player: str = "alice", password: str | None = None):
    return deliver(kit, mail(sender, player, password or f"guess-{kit.sent}", n=kit.sent))


def failures(kit: CampaignKit, player: str = "alice") -> int:
    with kit.campaign() as campaign:
        return failures_today(campaign.store.conn, player, kit.now)


def outbox(kit: CampaignKit, kind: str | None = None) -> list:
    with kit.campaign() as campaign:
        rows = campaign.store.rows("select * from outbox where queued_at > ? order by id", ("2027-01-01T00:00:00Z",))
    found = []
    for row in rows:
        if kind is None or row["kind"] == kind:
            message = email.message_from_bytes(row["raw"], policy=email.policy.default)
            message.kind, message.to = row["kind"], row["recipient"]
            found.append(message)
    return found


def warnings(kit: CampaignKit) -> list:
    return [m for m in outbox(kit, "notice") if "wrong passwords" in m["Subject"]]


def body(message, kind: str = "plain") -> str:
    return message.get_body((kind,)).get_content()


def status(kit: CampaignKit) -> str:
    result = CliRunner().invoke(cli, ["-C", str(kit.folder), "status"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


# -- issued passwords ---------------------------------------------------------------------


def test_issued_passwords_hold_at_least_48_bits():
    words = set(PASSWORD_WORDS)
    assert len(words) == len(PASSWORD_WORDS)  # a word listed twice would add no choice
    assert PASSWORD_LENGTH * math.log2(len(words)) >= 48
    for _ in range(50):
        password = issue_password()
        parts = password.split("-")
        # readable: lowercase words joined by "-", each from the list, as many as counted
        assert len(parts) == PASSWORD_LENGTH and all(part in words for part in parts), password
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", password)


def test_issued_passwords_in_mail_are_the_words_and_are_accepted(kit):
    with kit.campaign() as campaign:
        new_password(campaign, "alice")
    (mailed,) = [m for m in outbox(kit, "reset")]
    password = re.search(r"Your new password: (\S+)", body(mailed)).group(1)
    assert len(password.split("-")) == PASSWORD_LENGTH
    assert guess(kit, sender=ALICE, password=password).outcome == "applied"


# -- counting failed checks -----------------------------------------------------------------


def test_failed_password_checks_are_counted_per_player_per_utc_day(kit):
    for _ in range(3):
        assert guess(kit).outcome == "refused"
    guess(kit, player="nobody")  # no player: nothing to count
    guess(kit, sender=STRANGER, password="pw-alice")  # the right password from a wrong sender: no failed check
    guess(kit, player="bob", password="pw-bob")  # a right password
    assert (failures(kit), failures(kit, "bob"), failures(kit, "nobody")) == (3, 0, 0)
    # the UTC day, not 24 hours: a minute after midnight UTC the count starts again
    kit.at(datetime(2027, 1, 2, 23, 59, tzinfo=UTC))
    guess(kit)
    assert failures(kit) == 4
    kit.at(datetime(2027, 1, 3, 0, 1, tzinfo=UTC))
    assert failures(kit) == 0
    guess(kit)
    assert failures(kit) == 1


def test_failed_password_checks_are_counted_whether_or_not_a_refusal_was_sent(kit):
    outcomes = [guess(kit).outcome for _ in range(8)]
    assert outcomes == ["refused"] * 5 + ["capped"] * 3  # at most 5 refusals a day to a stranger
    assert failures(kit) == 8


def test_failed_checks_are_counted_in_the_transaction_that_records_the_message(kit, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    working = Desk.reply
    monkeypatch.setattr(Desk, "reply", broken)
    with pytest.raises(RuntimeError):
        guess(kit)
    # neither the message nor its failed check was recorded: a rerun counts it once
    assert failures(kit) == 0
    with kit.campaign() as campaign:
        assert campaign.store.one("select count(*) as n from messages")["n"] == 0
    monkeypatch.setattr(Desk, "reply", working)
    kit.sent -= 1
    guess(kit)
    assert failures(kit) == 1


def test_the_player_is_told_once_at_20_failed_checks_quoting_nothing_the_sender_wrote(kit):
    for n in range(TELL_AT - 1):
        guess(kit, sender=f"guesser-{n}@evil.example")
    assert warnings(kit) == []
    for n in range(TELL_AT - 1, TELL_AT + 10):
        guess(kit, sender=f"guesser-{n}@evil.example")
    (told,) = warnings(kit)
    assert told.to == ALICE and told["To"] == ALICE
    assert "20 wrong passwords were tried for you today" in told["Subject"]
    for part in (body(told), body(told, "html")):
        assert "2027-01-02" in part and "alice" in part
        assert "guesser-" not in part and "evil.example" not in part and MARK not in part and "guess-" not in part
    assert "guesser-" not in told.as_string() and MARK not in told.as_string()
    # the next UTC day, told again at 20
    kit.at(DAY_1 + timedelta(days=1))
    for n in range(TELL_AT):
        guess(kit, sender=f"guesser-{n}@evil.example")
    assert len(warnings(kit)) == 2


def test_gm_status_shows_players_with_20_failed_checks_today(kit):
    for _ in range(TELL_AT - 1):
        guess(kit)
    assert "WRONG PASSWORDS" not in status(kit)
    guess(kit)
    assert f"WRONG PASSWORDS for alice today (2027-01-02, UTC): {TELL_AT} (the player was told at {TELL_AT})" \
        in status(kit)
    kit.at(DAY_1 + timedelta(days=1))
    assert "WRONG PASSWORDS" not in status(kit)


# -- past 100: refused unchecked --------------------------------------------------------------


def reach_the_limit(kit: CampaignKit, upto: int = CHECK_LIMIT) -> None:
    for n in range(upto):
        guess(kit, sender=f"guesser-{n}@evil.example")
    assert failures(kit) == upto


def test_past_100_failed_checks_mail_is_refused_unchecked_as_a_wrong_password_is(kit):
    reach_the_limit(kit, CHECK_LIMIT - 1)
    wrong = guess(kit, sender=ALICE, password="not-it")  # the 100th failed check, refused as any
    before = scrypt_runs()
    right = guess(kit, sender=ALICE, password="pw-alice")
    assert scrypt_runs() == before  # no scrypt at all
    assert (wrong.outcome, right.outcome) == ("refused", "refused")
    assert "password not checked" in right.detail and "password not checked" not in wrong.detail
    # the refusal reads the same as a wrong password's: the sender learns nothing
    refusals = [m for m in outbox(kit, "refusal") if m.to == ALICE]
    assert len(refusals) == 2 and body(refusals[0]) == body(refusals[1])
    assert body(refusals[0], "html") == body(refusals[1], "html")
    # counted for the GM, not as a failed check
    assert failures(kit) == CHECK_LIMIT
    assert "1 message refused unchecked so far" in status(kit)
    assert "gm player password alice" in status(kit)


def test_past_100_failed_checks_passwords_are_not_checked_ahead(kit):
    reach_the_limit(kit)
    raws = [mail(ALICE, "alice", "pw-alice", n=1000), mail(STRANGER, "alice", "another-guess", n=1001),
            mail("bob@example.org", "bob", "pw-bob", n=1002)]
    before = scrypt_runs()
    with kit.campaign() as campaign:
        desk = Desk(campaign)
        desk.check_passwords_ahead(raws)
        assert scrypt_runs() <= before + 1  # bob's alone
        outcomes = [desk.handle(raw, source=f"ahead:{i}").outcome for i, raw in enumerate(raws)]
    assert outcomes == ["refused", "refused", "applied"]
    assert scrypt_runs() <= before + 1


def test_gm_player_password_resets_the_days_count(kit):
    reach_the_limit(kit)
    with kit.campaign() as campaign:
        new_password(campaign, "alice")
    assert failures(kit) == 0
    assert "WRONG PASSWORDS" not in status(kit)
    (mailed,) = [m for m in outbox(kit, "reset")]
    password = re.search(r"Your new password: (\S+)", body(mailed)).group(1)
    assert guess(kit, sender=ALICE, password=password).outcome == "applied"
    # told once a day: 20 more the same day tell the player nothing new
    for n in range(TELL_AT):
        guess(kit, sender=f"again-{n}@evil.example")
    assert len(warnings(kit)) == 1


# -- the finding, replayed ----------------------------------------------------------------------


def ingest(kit: CampaignKit, raws: list[bytes], tag: str) -> IngestReport:
    """As `gm ingest` hands a fetched batch to the desk: passwords checked ahead a chunk at a
    time, then each message in order of receipt."""
    report = IngestReport()
    items = [Pending(source=f"{tag}:{i}", received_at=kit.now + timedelta(seconds=i), read=lambda raw=raw: raw)
             for i, raw in enumerate(raws)]
    with kit.campaign() as campaign:
        handle_all(campaign, items, report, in_memory=True)
    return report


@pytest.mark.parametrize("until", ["the next UTC day", "gm player password"])
def test_500_forged_guesses_then_the_right_password_cost_at_most_100_checks(kit, until):
    flood = [mail(ALICE, "alice", f"guess-{n}", n=n) for n in range(500)]
    right = mail(ALICE, "alice", "pw-alice", n=500)
    before = scrypt_runs()
    report = ingest(kit, [*flood, right], "flood")
    assert scrypt_runs() - before <= CHECK_LIMIT, scrypt_runs() - before
    assert report.total == 501 and not report.errors
    with kit.campaign() as campaign:
        last = campaign.store.one("select outcome, detail from messages where source = 'flood:500'")
        told = campaign.store.one("select count(*) as n from outbox where kind = 'notice' and recipient = ?",
                                  (ALICE,))["n"]
    assert last["outcome"] in ("refused", "capped") and "password not checked" in last["detail"]
    assert told == 1 and failures(kit) == CHECK_LIMIT
    if until == "gm player password":
        kit.at(DAY_1 + timedelta(hours=1))
        with kit.campaign() as campaign:
            new_password(campaign, "alice")
        (mailed,) = outbox(kit, "reset")
        password = re.search(r"Your new password: (\S+)", body(mailed)).group(1)
    else:
        kit.at(datetime(2027, 1, 3, 0, 0, 1, tzinfo=UTC))
        password = "pw-alice"
    again = ingest(kit, [mail(ALICE, "alice", password, n=501)], "again")
    assert again.outcomes["applied"] == 1
