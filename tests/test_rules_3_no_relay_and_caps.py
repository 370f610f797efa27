"""docs/rules/postal.md, Replies and Refusal caps: gm relays nothing for strangers. A reply
to a sender nobody vouches for (a sign-up's code, a refusal, help) quotes nothing the
sender wrote, and the replies anyone can make gm send are capped a UTC day: five to one
address with any +tag dropped, and in all `caps.unasked_per_day` plus the places sign-up
still has open, the GM told once a day. Driven through `gm` on the Maildir transport."""

from __future__ import annotations

import pytest
from signupkit import GM, SignupGame

from gm.campaign.desk.trust import CAP_STRANGER
from gm.campaign.outbox import address_key

ATTACK = "Your Bank Security Team"
LINK = "https://evil.example/login"
FREE_LINES = [f"Click {LINK} now, line {n}" for n in range(40)]
VICTIM = "victim@example.org"


@pytest.fixture
def game(tmp_path, monkeypatch):
    def make(**kwargs) -> SignupGame:
        return SignupGame.create(tmp_path / "spring", monkeypatch, **kwargs)

    return make


def _every_word(sent) -> str:
    return "\n".join((sent.subject, sent.text, sent.html))


def _quotes_the_attacker(sent) -> bool:
    words = _every_word(sent)
    return any(piece in words for piece in (ATTACK, "evil.example", "Click", "Bank"))


def test_replies_a_forged_join_gets_quote_nothing_the_sender_wrote(game):
    made = game(signup={"max_players": 10})
    made.mail(VICTIM, "JOIN spring", f"NAME {ATTACK}", "TIMEZONE Europe/Paris", *FREE_LINES)
    made.gm("ingest")
    [sent] = made.outbox(to=VICTIM)
    assert sent.kind == "signup-code" and not _quotes_the_attacker(sent)
    assert "Europe/Paris" not in _every_word(sent)
    assert "as player your-bank-security-team" in sent.text  # the id gm makes may be said
    assert "CONFIRM" in sent.text


def test_replies_a_refused_join_and_a_strangers_orders_quote_nothing(game):
    made = game(signup={"max_players": 10})
    made.mail("a@example.org", "JOIN autumn", f"NAME {ATTACK}", *FREE_LINES)  # another game
    made.mail("b@example.org", "JOIN spring", f"NAME {ATTACK}", f"ID {LINK}")  # an id gm does not take
    made.mail("c@example.org", "JOIN spring", f"NAME {ATTACK}", f"CONFIRM {LINK}")
    made.mail("d@example.org", "HELP", *FREE_LINES)
    made.mail("e@example.org", "PLAYER x", "PASSWORD y", *FREE_LINES)  # an order before the start
    made.gm("ingest")
    sent = made.outbox()
    assert [m.to[0] for m in sent] == list("abcde")
    assert not any(_quotes_the_attacker(m) for m in sent)
    assert "line 1: JOIN names another game" in sent[0].text
    made.signed_up(("ann@example.org", "Ann"))
    made.gm("start")
    after = made.last_id()
    made.mail("f@example.org", "JOIN spring", f"NAME {ATTACK}", *FREE_LINES)  # JOIN after the start
    made.mail("g@example.org", "PLAYER ann", "PASSWORD wrong", f"GAME {LINK}", f"TURN {LINK}", *FREE_LINES)
    made.mail("h@example.org", "HELP", *FREE_LINES)
    made.gm("ingest")
    sent = made.outbox(after=after)
    assert [m.to[0] for m in sent] == list("fgh")
    assert not any(_quotes_the_attacker(m) for m in sent)
    assert "TURN needs a whole turn number (1 or more)" in sent[1].text


def test_replies_an_authenticated_player_still_sees_the_lines_ignored(game):
    made = game(signup={"max_players": 10})
    made.signed_up(("ann@example.org", "Ann"))
    made.gm("start")
    password = made.password("ann")
    made.mail("ann@example.org", "PLAYER ann", f"PASSWORD {password}", "NUMBER 4", "Good luck all")
    made.gm("ingest")
    ack = made.outbox(to="ann@example.org")[-1]
    assert ack.kind == "ack" and "Good luck all" in ack.text


def test_refusal_caps_drop_a_plus_tag():
    assert address_key("Victim+7@Example.org") == "victim@example.org"
    assert address_key("victim@example.org") == "victim@example.org"
    assert address_key("a+b+c@x.example") == "a@x.example"


def test_refusal_caps_count_one_mailbox_under_all_its_plus_tags(game):
    made = game(signup={"max_players": 10})
    for n in range(50):
        made.mail(f"victim+{n}@example.org", "JOIN spring", f"NAME Person {n}")
    made.gm("ingest")
    assert len(made.outbox()) == CAP_STRANGER + 1  # and the GM's note
    assert made.outcomes().count("capped") == 50 - CAP_STRANGER


def test_refusal_caps_a_flood_of_forged_joins_costs_bounded_mail_and_one_note(game):
    # caps.unasked_per_day 20 and 3 places (3 more waiting): 26 code mails a day at most
    made = game(signup={"max_players": 3}, extra={"caps": {"unasked_per_day": 20}})
    for n in range(120):
        made.mail(f"target{n}@example{n % 7}.org", "JOIN spring", f"NAME {ATTACK} {n}", *FREE_LINES[:3])
    made.gm("ingest")
    sent = made.outbox()
    codes = [m for m in sent if m.kind == "signup-code"]
    notes = [m for m in sent if m.kind == "caps-note"]
    assert len(codes) == 20 + 3 + 3
    assert len(notes) == 1 and notes[0].to == GM and "Replies held back" in notes[0].subject
    assert not any(_quotes_the_attacker(m) for m in sent)
    status = made.gm("status")
    assert "CAPS: 94 messages not answered today (UTC) past a cap on replies; you were mailed at" in status
    # the next UTC day answers again, and tells the GM again once
    made.later(days=1)
    for n in range(40):
        made.mail(f"second{n}@example.org", "JOIN spring", f"NAME Second {n}")
    made.gm("ingest")
    later = made.outbox()[len(sent):]
    assert sum(m.kind == "signup-code" for m in later) == 26 and sum(m.kind == "caps-note" for m in later) == 1


def test_refusal_caps_confirmed_places_leave_the_cap_for_real_joiners(game):
    made = game(signup={"max_players": 2}, extra={"caps": {"unasked_per_day": 1}})
    made.signed_up(("ann@example.org", "Ann"), ("bob@example.org", "Bob"))
    # two places held (in): what is left open is the waiting list's two, and the cap's 1
    made.later(days=1)
    before = made.last_id()
    for n in range(6):
        made.mail(f"late{n}@example.org", "JOIN spring", f"NAME Late {n}")
    made.gm("ingest")
    assert sum(m.kind == "signup-code" for m in made.outbox(after=before)) == 1 + 2


def test_refusal_caps_a_replayed_confirm_is_told_again_once_a_day(game):
    made = game(signup={"max_players": 10})
    made.signed_up(("ann@example.org", "Ann"))
    code = made.code("ann@example.org")
    before = made.last_id()
    for n in range(10):
        made.mail("ann@example.org", f"CONFIRM {code}", message_id=f"<replay-{n}@example.org>")
    made.gm("ingest")
    assert len(made.outbox(after=before)) == 1
    assert made.outcomes()[-10:] == ["confirmed"] + ["capped"] * 9
    assert made.standing() == {"ann": "in"}


def test_refusal_caps_the_campaign_cap_is_a_whole_number(game):
    made = game(signup={"max_players": 10}, extra={"caps": {"unasked_per_day": 0, "per_hour": 3}})
    out = made.gm("status", code=1)
    assert "caps unasked_per_day must be a whole number of at least 1" in out
    assert "per_hour" in out


def test_replies_a_ready_order_sent_with_the_password_placeholder_says_to_put_the_password_there(game):
    made = game(signup={"max_players": 10})
    made.signed_up(("ann@example.org", "Ann"))
    made.gm("start")
    made.mail("ann@example.org", "PLAYER ann", "PASSWORD (your password)", "NUMBER 4", f"Click {LINK}")
    made.mail("ann@example.org", "PLAYER ann", "Password: <your password>", "NUMBER 4")
    made.gm("ingest")
    for refusal in made.outbox(to="ann@example.org")[-2:]:
        text = " ".join(refusal.text.split())
        assert refusal.kind == "refusal" and 'PASSWORD still says "your password", as our mail wrote it' in text
        assert "put your password on the PASSWORD line instead" in text and not _quotes_the_attacker(refusal)
    assert made.rows("select * from password_failures") == []  # a placeholder is no guess
