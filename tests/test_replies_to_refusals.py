"""docs/rules/, Order mail: a message whose In-Reply-To or References names a refusal or help reply gm
sent is a person correcting an order (the most natural thing a player does) or an
auto-responder that ignores Auto-Submitted. It is handled like any other message when it
authenticates (a registered sender and the player's password); otherwise it is kept, never
answered, and `gm status` shows its sender and subject.

Driven through the CLI on tests/campaignfixtures.py's campaign (ann, ben, cat; first
deadline 2027-01-03 18:00 UTC); replies are written as a mail program writes them: Re:
subject, In-Reply-To and References naming our reply, our text quoted below."""

from __future__ import annotations

import email
import email.policy
import sqlite3
from email.message import EmailMessage
from pathlib import Path

from campaignfixtures import PLAYERS

NOW = "2027-01-02T12:00:00Z"
DATE = "Sat, 02 Jan 2027 11:00:00 +0000"


def rows(campaign, sql: str, *args) -> list[tuple]:
    return sqlite3.connect(campaign.folder / "gm.sqlite").execute(sql, args).fetchall()


def our_last(campaign, kind: str):
    """The last reply of `kind` gm queued, parsed."""
    (raw,) = rows(campaign, "select raw from outbox where kind = ? order by id desc limit 1", kind)[0]
    return email.message_from_bytes(raw, policy=email.policy.default)


def reply(campaign, ours, body: str, *, sender: str = "ann@example.org") -> str:
    """A reply to `ours` from `sender`, quoting it, as a mail program writes one."""
    campaign.count += 1
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm@example.org"
    subject = str(ours["Subject"])
    message["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    message["Date"] = DATE
    message["Message-ID"] = f"<reply-{campaign.count}@example.org>"
    message["In-Reply-To"] = ours["Message-ID"]
    message["References"] = ours["Message-ID"]
    quoted = "\n".join("> " + line for line in ours.get_body(("plain",)).get_content().splitlines())
    message.set_content(f"{body}\n\n{quoted}\n")
    campaign.mails.mkdir(exist_ok=True)
    path = campaign.mails / f"reply-{campaign.count}.eml"
    path.write_bytes(bytes(message))
    return str(path)


def outcome_of_last(campaign) -> tuple[str, str | None]:
    return rows(campaign, "select outcome, player from messages order by id desc limit 1")[0]


def refused_first(campaign):
    """ann's first order asks for a number nobody holds: refused, and the refusal is what she answers."""
    campaign("ingest", str(campaign.order("ann", "NUMBER 9\n", date=DATE)), now=NOW)
    assert outcome_of_last(campaign) == ("refused", "ann")
    return our_last(campaign, "refusal")


def test_3_reply_to_refusal_that_authenticates_is_applied(campaign):
    refusal = refused_first(campaign)
    out = campaign("ingest", reply(campaign, refusal, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 2"), now=NOW)
    assert "1 applied" in out
    assert outcome_of_last(campaign) == ("applied", "ann")
    ack = our_last(campaign, "ack")
    assert ack["To"] == "ann@example.org" and ack["In-Reply-To"].startswith("<reply-")
    assert "kept:" not in campaign("status", now=NOW)


def test_3_reply_to_help_that_authenticates_is_applied(campaign):
    campaign.count += 1
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ann@example.org", "gm@example.org", "how do I play?"
    message["Date"], message["Message-ID"] = DATE, "<help-1@example.org>"
    message.set_content("HELP\n")
    (campaign.mails / "help.eml").parent.mkdir(exist_ok=True)
    (campaign.mails / "help.eml").write_bytes(bytes(message))
    campaign("ingest", str(campaign.mails / "help.eml"), now=NOW)
    help_reply = our_last(campaign, "help")
    campaign("ingest", reply(campaign, help_reply, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 4"), now=NOW)
    assert outcome_of_last(campaign) == ("applied", "ann")


def test_3_reply_to_refusal_that_still_has_a_problem_is_answered_with_a_refusal(campaign):
    refusal = refused_first(campaign)
    campaign("ingest", reply(campaign, refusal, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 8"), now=NOW)
    assert outcome_of_last(campaign) == ("refused", "ann")
    assert rows(campaign, "select count(*) from outbox where kind = 'refusal'") == [(2,)]


def test_3_reply_to_refusal_without_the_password_is_kept_unanswered_and_status_shows_it(campaign):
    refusal = refused_first(campaign)
    campaign("ingest", reply(campaign, refusal, "NUMBER 2"), now=NOW)
    assert outcome_of_last(campaign)[0] == "loop"
    assert rows(campaign, "select count(*) from outbox where kind in ('refusal', 'ack', 'help')") == [(1,)]
    status = campaign("status", now=NOW).splitlines()
    assert any(line.startswith("kept: 1 loop message (") for line in status)
    (shown,) = [line for line in status if "ann@example.org" in line and "Re: " in line]
    assert f'"{refusal["Subject"]}"' in shown and "answers our refusal, not authenticated" in shown


def test_3_reply_to_refusal_with_the_password_from_an_unregistered_address_is_kept(campaign):
    refusal = refused_first(campaign)
    campaign("ingest", reply(campaign, refusal, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 2",
                             sender="ann.at.work@elsewhere.example"), now=NOW)
    assert outcome_of_last(campaign)[0] == "loop"
    assert rows(campaign, "select count(*) from orders") == [(0,)]
    assert "ann.at.work@elsewhere.example" in campaign("status", now=NOW)


def test_3_an_auto_responder_answering_a_refusal_is_kept_and_never_answered(campaign):
    refusal = refused_first(campaign)
    for n in range(3):  # the responder answers nothing gm sends, so there is no loop
        campaign("ingest", reply(campaign, refusal, f"I am away until Monday ({n})."), now=NOW)
    assert [outcome for (outcome,) in rows(campaign, "select outcome from messages order by id")] == [
        "refused", "loop", "loop", "loop"]
    assert rows(campaign, "select count(*) from outbox where kind = 'refusal'") == [(1,)]
    status = campaign("status", now=NOW)
    assert "kept: 3 loop messages" in status


def test_3_reply_to_an_ack_changes_the_order_as_any_message_does(campaign):
    campaign("ingest", str(campaign.order("ann", "NUMBER 2\n", date=DATE)), now=NOW)
    ack = our_last(campaign, "ack")
    campaign("ingest", reply(campaign, ack, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 5"), now=NOW)
    assert outcome_of_last(campaign) == ("applied", "ann")
    assert "number 5" in campaign("orders", "--full", now=NOW)


def test_3_a_hostile_reply_to_a_refusal_is_kept_and_never_answered(campaign):
    """Refused unread (docs/rules/, Order mail "Hostile mail"): its password cannot be read, so it cannot
    authenticate, and a reply to a refusal that does not is never answered."""
    refusal = refused_first(campaign)
    path = reply(campaign, refusal, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 2")
    mail = Path(path)
    mail.write_bytes(b"X-Padding: " + b"a" * 17000 + b"\n" + mail.read_bytes())  # a header over 16 KiB
    campaign("ingest", path, now=NOW)
    assert outcome_of_last(campaign)[0] == "loop"
    assert rows(campaign, "select count(*) from outbox where kind = 'refusal'") == [(1,)]
