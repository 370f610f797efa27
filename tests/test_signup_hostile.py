"""docs/rules/, Joining by mail against hostile mail: forged JOINs, replays, auto-replies, JOIN bombs from
one address and guessed codes change nothing but the refusal caps' counters (docs/rules/, Order mail),
and sign-up mail meets the same limits as orders."""

from __future__ import annotations

import pytest
from signupkit import CODE, GM, SignupGame

from gm.campaign.desk.trust import CAP_STRANGER

VICTIM = "victim@example.org"
ANN = "ann@example.org"


@pytest.fixture
def made(tmp_path, monkeypatch) -> SignupGame:
    return SignupGame.create(tmp_path / "spring", monkeypatch, signup={"max_players": 3})


def _state(made: SignupGame) -> dict:
    """Everything a request could change: who stands where, and the sign-up log."""
    return {"signups": made.signups(), "log": made.rows("select * from signup_log")}


def test_3_1_a_forged_join_costs_the_address_one_mail_and_signs_nobody_up(made):
    made.gm("ingest")
    before = _state(made)
    made.join(VICTIM, "Victim Name", "ID victim")  # the sender is forged: the victim never wrote
    made.gm("ingest")
    assert _state(made) == before
    [sent] = made.outbox()
    assert sent.to == VICTIM and sent.kind == "signup-code"
    assert "if you did not ask to join, ignore this mail" in sent.text
    # the id asked for is not held for the forger: the victim's own JOIN still gets it
    made.later(minutes=5)
    made.join(ANN, "Ann", "ID victim")
    made.gm("ingest")
    made.confirm(ANN)
    made.gm("ingest")
    assert made.standing() == {"victim": "in"}


def test_3_1_a_join_bomb_from_one_address_changes_nothing_but_the_caps(made):
    made.gm("ingest")
    before = _state(made)
    for number in range(3 * CAP_STRANGER):
        made.join(VICTIM, f"Name {number}")
    made.gm("ingest")
    assert _state(made) == before
    assert len(made.outbox(to=VICTIM)) == CAP_STRANGER
    outcomes = made.outcomes()
    assert outcomes.count("join") == CAP_STRANGER and outcomes.count("capped") == 2 * CAP_STRANGER
    listed = made.gm("signup")
    assert "unconfirmed: 1 address sent JOIN" in listed and f"({CAP_STRANGER} JOINs)" in listed
    assert "kept: 10 capped messages" in made.gm("status")
    # the address's owner can still confirm a code it was sent
    made.confirm(VICTIM)
    made.gm("ingest")
    assert made.standing() == {"name-4": "in"}


def test_3_1_guessed_codes_confirm_nothing_and_are_capped(made):
    made.join(ANN, "Ann")
    made.gm("ingest")
    for guess in ("ABCD-EFGH", "2345-6789", "KQ7M-4XPA", "ZZZZ-ZZZZ", "MNPQ-RSTU", "HHHH-JJJJ", "2222-3333"):
        made.mail(ANN, f"CONFIRM {guess}")
    made.gm("ingest")
    assert made.signups() == []
    assert [m.kind for m in made.outbox(to=ANN)] == ["signup-code"] + ["refusal"] * (CAP_STRANGER - 1)
    assert made.outcomes().count("capped") == 7 - (CAP_STRANGER - 1)


def test_3_1_replays_are_recorded_and_never_applied_twice(made):
    made.join(ANN, "Ann")
    made.gm("ingest")
    confirm = made.confirm(ANN).read_bytes()  # read now: ingest moves it to cur/
    made.gm("ingest")
    made.mail(ANN, "LEAVE spring")
    made.gm("ingest")
    made.confirm(ANN)
    made.gm("ingest")
    assert made.standing() == {"ann": "left"}
    told = made.last_id()
    made.mail(ANN, raw=confirm.replace(b"\n", b"\r\n"))  # the same message again
    made.gm("ingest")
    assert made.outcomes()[-1] == "duplicate"
    assert made.standing() == {"ann": "left"} and made.outbox(after=told) == []
    # the JOIN's code and the LEAVE's again, in new messages: each was confirmed once, and
    # the sender is told where they stand
    join_code, leave_code = (CODE.search(m.text).group(1) for m in made.outbox(to=ANN, kind="signup-code"))
    made.mail(ANN, f"CONFIRM {join_code}")
    made.mail(ANN, f"CONFIRM {leave_code}")
    made.mail(ANN, "JOIN spring", "NAME Ann B.", message_id="<1.ann@example.org>")  # reuses a Message-ID
    made.gm("ingest")
    assert made.standing() == {"ann": "left"}
    # a reused Message-ID is its own message; a replayed CONFIRM is told again once a UTC day
    assert made.outcomes()[-3:] == ["confirmed", "capped", "join"]
    assert ["You have left" in m.subject for m in made.outbox(after=told, kind="signup")] == [True]
    made.later(days=1)
    made.mail(ANN, f"CONFIRM {join_code}")
    made.gm("ingest")
    assert made.outcomes()[-1] == "confirmed" and made.standing() == {"ann": "left"}


@pytest.mark.parametrize(("headers", "sender"), [
    ({"Auto-Submitted": "auto-replied"}, ANN),
    ({"Precedence": "bulk"}, ANN),
    ({"X-Autoreply": "yes"}, ANN),
    ({}, "mailer-daemon@example.org"),
    ({}, GM),
])
def test_3_1_auto_replies_and_loops_are_kept_and_never_answered(made, headers, sender):
    made.join(ANN, "Ann")
    made.gm("ingest")
    made.mail(sender, f"CONFIRM {made.code(ANN)}", "JOIN spring", "NAME Loop", headers=headers)
    made.gm("ingest")
    assert made.outcomes() == ["join", "loop"]
    assert made.signups() == [] and len(made.outbox()) == 1


def test_3_1_a_reply_to_a_code_mail_that_does_not_confirm_is_kept_unanswered(made):
    made.join(ANN, "Ann")
    made.gm("ingest")
    [code_mail] = made.outbox()
    # an auto-responder that ignores Auto-Submitted, quoting our mail back
    made.mail(ANN, "I am away.", "", *[f"> {line}" for line in code_mail.text.splitlines()],
              headers={"In-Reply-To": code_mail.message_id})
    made.mail(ANN, "JOIN spring", "NAME Ann Again", headers={"In-Reply-To": code_mail.message_id})
    made.mail(ANN, "CONFIRM ABCD-EFGH", headers={"In-Reply-To": code_mail.message_id})
    made.gm("ingest")
    assert made.outcomes() == ["join", "loop", "loop", "loop"]
    assert made.signups() == [] and len(made.outbox()) == 1
    assert "answers our signup-code, not authenticated" in made.gm("status")


def test_3_1_hostile_mail_before_the_start_is_refused_unread_in_sign_up_words(made):
    made.mail(ANN, "JOIN spring", "NAME Ann", "x" * (1024 * 1024 + 10))
    made.mail(ANN, raw=b"From: ann@example.org\r\nSubject: x\r\n" + b"X-Long: " + b"a" * 20000 + b"\r\n\r\nJOIN spring\r\n")
    made.gm("ingest")
    assert made.outcomes() == ["hostile", "hostile"]
    assert made.signups() == []
    replies = made.outbox(to=ANN)
    assert [m.kind for m in replies] == ["refusal", "refusal"]
    assert "larger than 1 MiB of raw mail" in replies[0].text and "To join Spring Snakes" in replies[0].text


def test_3_1_an_order_sent_to_the_sign_up_changes_nothing(made):
    made.signed_up((ANN, "Ann"))
    before = _state(made)
    made.mail(ANN, "PLAYER ann", "PASSWORD guess", "NUMBER 4", "JOIN spring")  # a player's mail is an order
    made.mail(ANN, "RESET", "PLAYER ann")
    made.gm("ingest")
    assert _state(made) == before
    assert made.outcomes()[-2:] == ["refused", "reset"]
