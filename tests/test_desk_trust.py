"""docs/rules/, Order mail, the order desk's trust holes: what a stranger, a broken mail or an
auto-responder can make gm do. A stranger must not drop a player's order by reusing its
Message-ID, nor make gm answer a loop, mail-bomb a third party, answer an empty address,
or learn or change anything by RESET."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import re
import sqlite3
from datetime import timedelta
from email.message import EmailMessage

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit

import gm.campaign.desk.outcome
import gm.campaign.standing
import gm.campaign.store
import gm.mail.inbound
from gm.campaign.desk.inbound import Desk
from gm.mail.orderlang import parse_orders

STRANGER = "mallory@evil.example"
VICTIM = "victim@elsewhere.example"


@pytest.fixture
def kit(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    kit.at(kit.now + timedelta(days=1))
    yield kit
    kit.close()


def mail(sender: str, body: str, *, message_id: str, in_reply_to: str | None = None, only_in_reply_to: bool = False,
         received: str | None = None) -> bytes:
    message = EmailMessage()
    if received:
        message["Received"] = received
    message["From"] = sender
    message["To"] = "gm@example.org"
    message["Subject"] = "orders"
    message["Date"] = "Sat, 02 Jan 2027 00:00:00 +0000"
    message["Message-ID"] = message_id
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        # some programs keep an older thread in References and name the parent only here
        message["References"] = "<older@thread.example>" if only_in_reply_to else in_reply_to
    message.set_content(body)
    return message.as_bytes(policy=email.policy.SMTP)


def deliver(kit: CampaignKit, raw: bytes) -> gm.campaign.desk.outcome.Fate:
    kit.sent += 1
    with kit.campaign() as campaign:
        return Desk(campaign).handle(raw, source=f"trust:{kit.sent}", received_at=kit.now)


def replies(kit: CampaignKit) -> list:
    """Everything queued after the start (welcomes and the GM's summary left out)."""
    with kit.campaign() as campaign:
        rows = campaign.store.rows("select * from outbox where queued_at > ? order by id", ("2027-01-01T00:00:00Z",))
    result = []
    for row in rows:
        message = email.message_from_bytes(row["raw"], policy=email.policy.default)
        message.kind, message.to, message.id = row["kind"], row["recipient"], row["message_id"]
        result.append(message)
    return result


def text(message) -> str:
    return message.get_body(("plain",)).get_content()


def numbers(kit: CampaignKit, player: str) -> dict:
    with kit.campaign() as campaign:
        order, _ = gm.campaign.standing.standing_order(campaign, campaign.state().turn, player)
    return dict(order.numbers)


# -- Message-ID ---------------------------------------------------------------------------


def test_3_message_id_reused_by_a_stranger_does_not_drop_the_order(kit):
    forged = mail(STRANGER, "PLAYER alice\nPASSWORD guess\nNUMBER 1\n", message_id="<order-7@example.org>")
    real = mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n", message_id="<order-7@example.org>")
    assert deliver(kit, forged).outcome == "refused"
    outcome = deliver(kit, real)
    assert outcome.outcome == "applied"
    assert list(numbers(kit, "alice").values()) == [4]
    assert [(m.kind, m.to) for m in replies(kit)] == [("refusal", STRANGER), ("ack", "alice@example.org")]


def test_3_the_same_mail_delivered_twice_is_recorded_and_answered_once(kit):
    body = "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n"
    first = mail("alice@example.org", body, message_id="<twice@example.org>",
                 received="from a by mx1.example; Sat, 02 Jan 2027 00:00:01 +0000")
    # the same mail by another route: a server added its own header, the body is the same
    again = mail("alice@example.org", body, message_id="<twice@example.org>",
                 received="from a by mx2.example; Sat, 02 Jan 2027 00:00:09 +0000")
    assert first != again
    assert deliver(kit, first).outcome == "applied"
    assert deliver(kit, again).outcome == "duplicate"
    assert [m.kind for m in replies(kit)] == ["ack"]
    with kit.campaign() as campaign:
        assert campaign.store.one("select count(*) as n from orders")["n"] == 1
        assert campaign.store.one("select count(*) as n from messages")["n"] == 2


def test_3_a_database_from_before_the_body_digest_still_knows_its_messages(tmp_path, monkeypatch):
    # a campaign started and fed mail before migration 003 existed
    every = gm.campaign.store.MIGRATIONS
    monkeypatch.setattr(gm.campaign.store, "MIGRATIONS", [m for m in every if m[0] != "003_desk_trust"])
    kit = CampaignKit.create(tmp_path / "old", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    raw = mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n", message_id="<old@example.org>")
    with kit.campaign() as campaign, campaign.store.transaction() as db:
        db["messages"].insert({"message_id": "<old@example.org>", "source": "file:old", "sender": "alice@example.org",
                               "raw": raw, "outcome": "applied", "turn": 1})
    kit.close()
    monkeypatch.setattr(gm.campaign.store, "MIGRATIONS", every)
    kit = CampaignKit(kit.folder, kit.players, monkeypatch.setenv)
    kit.at(kit.now + timedelta(days=1))
    try:
        assert deliver(kit, raw).outcome == "duplicate"
        assert replies(kit) == []
    finally:
        kit.close()


# -- loops --------------------------------------------------------------------------------


def test_3_a_reply_to_a_refusal_or_help_is_never_answered(kit):
    deliver(kit, mail(STRANGER, "PLAYER alice\nPASSWORD guess\nNUMBER 1\n", message_id="<m1@evil.example>"))
    deliver(kit, mail(STRANGER, "HELP\n", message_id="<m2@evil.example>"))
    refusal, help_reply = replies(kit)
    assert (refusal.kind, help_reply.kind) == ("refusal", "help")
    # an auto-responder that ignores Auto-Submitted answers each of them; gm answered it forever
    for n, ours in enumerate((refusal, help_reply)):
        outcome = deliver(kit, mail(STRANGER, "I am away until Monday.\n", message_id=f"<away{n}@evil.example>",
                                    in_reply_to=ours.id))
        assert outcome.outcome == "loop" and ours.kind in outcome.detail
    assert len(replies(kit)) == 2


def test_3_a_reply_naming_a_refusal_in_in_reply_to_but_not_references_is_never_answered(kit):
    deliver(kit, mail(STRANGER, "PLAYER alice\nPASSWORD guess\nNUMBER 1\n", message_id="<m1@evil.example>"))
    (refusal,) = replies(kit)
    outcome = deliver(kit, mail(STRANGER, "Out of office.\n", message_id="<away@evil.example>",
                                in_reply_to=refusal.id, only_in_reply_to=True))
    assert outcome.outcome == "loop"
    assert len(replies(kit)) == 1


def test_3_a_reply_to_an_ack_is_answered(kit):
    deliver(kit, mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n", message_id="<a1@example.org>"))
    (ack,) = replies(kit)
    outcome = deliver(kit, mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 5\n",
                                message_id="<a2@example.org>", in_reply_to=ack.id))
    assert outcome.outcome == "applied"
    assert [m.kind for m in replies(kit)] == ["ack", "ack"]


# -- refusal caps -------------------------------------------------------------------------


def forged(n: int, sender: str = VICTIM) -> bytes:
    return mail(sender, f"PLAYER alice\nPASSWORD wrong-{n}\nNUMBER 3\n", message_id=f"<forged-{n}@elsewhere.example>")


def test_3_thirty_forged_mails_to_a_third_party_produce_exactly_5_refusals(campaign, tmp_path):
    paths = []
    for n in range(30):
        path = tmp_path / f"forged-{n}.eml"
        path.write_bytes(forged(n))
        paths.append(str(path))
    out = campaign("ingest", *paths, now="2027-01-02T12:00:00Z")
    assert "25 capped" in out and "5 refused" in out  # shown to the GM
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    assert db.execute("select count(*) from outbox where recipient = ?", (VICTIM,)).fetchone() == (5,)
    details = [d for (d,) in db.execute("select detail from messages where outcome = 'capped'")]
    assert len(details) == 25 and all("cap 5" in d for d in details)
    status = campaign("status", now="2027-01-02T12:00:00Z")
    assert "kept: 25 capped messages (past a cap on the replies a day to one address or to strangers in all, not answered)" in status
    # a day is the UTC day the message is handled in: late that day, still capped ...
    (tmp_path / "later.eml").write_bytes(forged(100))
    campaign("ingest", str(tmp_path / "later.eml"), now="2027-01-02T23:59:59Z")
    assert db.execute("select count(*) from outbox where recipient = ?", (VICTIM,)).fetchone() == (5,)
    # ... and from midnight UTC, one more is answered
    (tmp_path / "next-day.eml").write_bytes(forged(101))
    campaign("ingest", str(tmp_path / "next-day.eml"), now="2027-01-03T00:00:01Z")
    assert db.execute("select count(*) from outbox where recipient = ?", (VICTIM,)).fetchone() == (6,)


def test_3_refusals_to_a_registered_address_are_capped_at_20_a_day_and_acks_are_not(kit):
    for n in range(25):
        deliver(kit, mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 9\n",
                          message_id=f"<bad-{n}@example.org>"))
    kinds = [m.kind for m in replies(kit)]
    assert kinds == ["refusal"] * 20 + ["caps-note"]  # and the GM is told, once
    outcome = deliver(kit, mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 9\n",
                                message_id="<bad-x@example.org>"))
    assert outcome.outcome == "capped" and outcome.reply is None and "NUMBER" in outcome.detail
    good = deliver(kit, mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 2\n",
                             message_id="<good@example.org>"))
    assert good.outcome == "applied" and replies(kit)[-1].kind == "ack"


def test_3_help_to_a_stranger_counts_towards_the_cap(kit):
    outcomes = [deliver(kit, mail(VICTIM, "HELP\n", message_id=f"<help-{n}@x>")).outcome for n in range(8)]
    assert outcomes == ["help"] * 5 + ["capped"] * 3


# -- hostile and unreadable mail -------------------------------------------------------------


@pytest.mark.parametrize(("reason", "words"), [
    ("too-large", "your message is larger than 1 MiB of raw mail"),
    ("long-header", "one of its headers is longer than 16 KiB"),
    ("too-deep", "it nests MIME parts deeper than 20 levels"),
    ("unparseable", "it could not be read as mail"),
])
def test_3_hostile_mail_is_recorded_never_applied_and_refused_once_saying_why(kit, monkeypatch, reason, words):
    real = gm.campaign.desk.inbound.read_mail
    monkeypatch.setattr(gm.campaign.desk.inbound, "read_mail", lambda raw, **kw: dataclasses.replace(real(raw, **kw), hostile=reason))
    raw = mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n", message_id="<big@example.org>")
    outcome = deliver(kit, raw)
    assert outcome.outcome == "hostile" and words in outcome.detail
    assert numbers(kit, "alice") == {}
    assert deliver(kit, raw).outcome == "duplicate"
    (refusal,) = replies(kit)
    assert refusal.kind == "refusal" and refusal.to == "alice@example.org"
    assert words in text(refusal) and "pw-alice" not in text(refusal)
    with kit.campaign() as campaign:
        kept = campaign.store.one("select raw from messages where outcome = 'hostile'")["raw"]
    assert kept == raw


def test_3_mail_larger_than_max_message_bytes_is_refused_unread_in_words(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "small", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS,
                             options={"max_message_bytes": 4096})
    kit.at(kit.now + timedelta(days=1))
    try:
        body = "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n" + "padding\n" * 600
        outcome = deliver(kit, mail("alice@example.org", body, message_id="<large@example.org>"))
        assert outcome.outcome == "hostile" and numbers(kit, "alice") == {}
        (refusal,) = replies(kit)
        assert "your message is larger than 4 KiB of raw mail" in text(refusal)
    finally:
        kit.close()


def test_3_a_message_with_no_usable_sender_is_never_answered(kit):
    outcome = deliver(kit, mail("Just A Name", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n", message_id="<n@x>"))
    assert outcome.outcome == "unreadable" and "no usable sender" in outcome.detail
    assert replies(kit) == [] and numbers(kit, "alice") == {}


@pytest.mark.parametrize("from_lines", [
    # an encoded name that decodes into a line break and a second address: once read as
    # the sender `_evil@c.example?=`, and answered there
    ["=?utf-8?q?foo=0D=0ABcc:_evil@c.example?= <alice@example.org>"],
    ["=?utf-8?q?Bcc:_evil@c.example?= <alice@example.org>"],
    ["alice@example.org, evil@c.example"],
    ["<alice@example.org> <evil@c.example>"],
    ["undisclosed-recipients:;"],
    ["alice@example.org", "evil@c.example"],
], ids=["encoded-line-break", "encoded-address", "two-addresses", "two-angle-addresses", "no-address",
        "two-from-headers"])
def test_3_a_from_naming_more_or_less_than_one_sender_is_kept_and_never_answered(kit, from_lines):
    head = "".join(f"From: {line}\r\n" for line in from_lines)
    raw = (f"{head}To: gm@example.org\r\nSubject: orders\r\nDate: Sat, 02 Jan 2027 00:00:00 +0000\r\n"
           f"Message-ID: <from-{len(head)}@example.org>\r\n\r\n"
           "PLAYER alice\r\nPASSWORD pw-alice\r\nNUMBER 4\r\n").encode()
    outcome = deliver(kit, raw)
    assert outcome.outcome == "unreadable" and re.search(r"no usable sender \(.*From header", outcome.detail)
    assert replies(kit) == [] and numbers(kit, "alice") == {}
    with kit.campaign() as campaign:
        assert campaign.store.one("select count(*) as n from messages where outcome = 'unreadable'")["n"] == 1


def test_3_a_message_read_mail_cannot_read_is_never_answered_to_an_empty_address(kit, monkeypatch):
    # what read_mail gives when even the raw header block defeats it: no sender at all
    unreadable = gm.mail.inbound.InboundMail(
        message_id=None, sender="", subject="", received_at=None, references=(), text="", loop=None,
        bounced_recipients=(), oversize=False, ignored_parts=(), broken="could not be read (RecursionError)",
        hostile="unparseable")
    monkeypatch.setattr(gm.campaign.desk.inbound, "read_mail", lambda raw, **kw: unreadable)
    outcome = deliver(kit, mail("alice@example.org", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n", message_id="<r@x>"))
    assert outcome.outcome == "unreadable" and "RecursionError" in outcome.detail
    assert replies(kit) == [] and numbers(kit, "alice") == {}


def test_3_mime_deeper_than_the_recursion_limit_gets_no_reply_to_an_empty_address(kit):
    text_part = "Content-Type: text/plain\n\nPLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n"
    for i in range(2000):
        text_part = f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n{text_part}\n--b{i}--\n'
    raw = ("From: alice@example.org\nTo: gm@example.org\nSubject: deep\nMessage-ID: <deep@x>\n"
           "MIME-Version: 1.0\n" + text_part).encode()
    deliver(kit, raw)
    deliver(kit, raw)
    assert [m.to for m in replies(kit)] in ([], ["alice@example.org"])
    assert numbers(kit, "alice") == {}


# -- RESET --------------------------------------------------------------------------------


def reset(kit: CampaignKit, sender: str = STRANGER, player: str = "alice") -> gm.campaign.desk.outcome.Fate:
    kit.sent += 1
    return deliver(kit, mail(sender, f"RESET\nPLAYER {player}\n", message_id=f"<reset-{kit.sent}@x>"))


def new_password(message) -> str:
    return re.search(r"Your new password: (\S+)", text(message)).group(1)


def order(kit: CampaignKit, password: str, number: int) -> str:
    kit.sent += 1
    return deliver(kit, mail("alice@example.org", f"PLAYER alice\nPASSWORD {password}\nNUMBER {number}\n",
                            message_id=f"<o-{kit.sent}@example.org>")).outcome


def test_3_reset_from_a_stranger_mails_the_registered_address_only(kit):
    outcome = reset(kit)
    assert outcome.outcome == "reset" and outcome.reply is None
    (mailed,) = replies(kit)
    assert mailed.to == "alice@example.org" and mailed["To"] == "alice@example.org"
    assert STRANGER not in mailed.as_string()
    assert new_password(mailed) != "pw-alice"


def test_3_reset_for_anyone_or_no_one_answers_the_sender_nothing(kit):
    assert reset(kit, player="nobody").outcome == "reset"
    assert replies(kit) == []
    reset(kit, player="bob")
    assert [m.to for m in replies(kit)] == ["bob@example.org"]


def test_3_reset_old_password_works_until_the_new_one_is_used(kit):
    reset(kit)
    password = new_password(replies(kit)[0])
    assert order(kit, "pw-alice", 4) == "applied"  # a stranger's RESET locks nobody out
    assert order(kit, password, 5) == "applied"
    assert order(kit, "pw-alice", 6) == "refused"  # the new one, once used, is the password
    assert order(kit, password, 6) == "applied"
    assert list(numbers(kit, "alice").values()) == [6]


def test_3_a_second_reset_the_same_day_sends_nothing(kit):
    reset(kit)
    kit.at(kit.now + timedelta(hours=23))
    second = reset(kit, sender="alice@example.org")
    assert second.outcome == "reset" and "nothing sent" in second.detail
    assert len(replies(kit)) == 1
    kit.at(kit.now + timedelta(hours=1, seconds=1))
    reset(kit, sender="alice@example.org")
    assert len(replies(kit)) == 2


def test_3_reset_with_a_password_or_orders_is_refused_and_sends_no_password(kit):
    outcome = deliver(kit, mail(STRANGER, "RESET\nPLAYER alice\nPASSWORD guess\n", message_id="<rp@x>"))
    assert outcome.outcome == "refused"
    (refusal,) = replies(kit)
    assert refusal.to == STRANGER and "RESET is for a lost password" in text(refusal)
    assert parse_orders("reset\nplayer alice\nnumber 3").problems
    assert parse_orders("RESET").problems and parse_orders("PLAYER alice\nRESET").reset


def test_3_reset_leaves_no_password_in_plain_text_after_gm_send(campaign, tmp_path):
    path = tmp_path / "reset.eml"
    path.write_bytes(mail(STRANGER, "RESET\nPLAYER ann\n", message_id="<r@evil.example>"))
    campaign("ingest", str(path), now="2027-01-02T00:00:00Z")
    campaign("send", now="2027-01-02T00:01:00Z")
    delivered = [p for p in (campaign.folder / "mail" / "outbox" / "new").iterdir()
                 if b"Your new password" in p.read_bytes()]
    assert len(delivered) == 1
    message = email.message_from_bytes(delivered[0].read_bytes(), policy=email.policy.default)
    assert message["To"] == "ann@example.org"
    password = new_password(message)
    dump = "\n".join(sqlite3.connect(campaign.folder / "gm.sqlite").iterdump())
    assert password not in dump
    assert password.encode().hex() not in dump.lower()  # blobs dump as hex
    # and the new password works
    order_path = tmp_path / "order.eml"
    order_path.write_bytes(mail("ann@example.org", f"PLAYER ann\nPASSWORD {password}\nNUMBER 3\n",
                                message_id="<o@example.org>"))
    assert "1 applied" in campaign("ingest", str(order_path), now="2027-01-02T00:02:00Z")


def test_3_help_names_reset(kit):
    deliver(kit, mail(STRANGER, "HELP\n", message_id="<h@x>"))
    assert "RESET" in text(replies(kit)[0])

