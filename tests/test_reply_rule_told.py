"""What refusals, help mails and the rules pages say of a reply to them is what gm does
(docs/rules/, Replies): a reply is read when it authenticates (the player's PLAYER and
PASSWORD lines from their registered address; a sign-up's CONFIRM with its code), and any
other reply is kept unanswered. None of them says a reply "is not read"."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaignfixtures import PLAYERS
from handoverkit import RULESETS, flat, html_of, new_game, text_of
from signupkit import SignupGame
from test_replies_to_refusals import NOW, outcome_of_last, refused_first, reply

RULE = ("A reply to this mail is read only when it has your PLAYER and PASSWORD lines and comes from "
        "your registered address; any other reply is kept unanswered (it stops mail loops).")
HELP_RULE = ("a reply is read only when it has your PLAYER and PASSWORD lines and comes from your "
             "registered address; any other reply is kept unanswered (it stops mail loops).")
DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_a_refusal_says_an_authenticated_reply_is_read_and_one_is(campaign):
    refusal = refused_first(campaign)
    text = flat(text_of(refusal))
    assert RULE in text and "is not read" not in text
    campaign("ingest", reply(campaign, refusal, f"PLAYER ann\nPASSWORD {PLAYERS['ann']}\nNUMBER 2"), now=NOW)
    assert outcome_of_last(campaign) == ("applied", "ann")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_rulesets_help_and_refusals_say_when_a_reply_is_read(tmp_path, monkeypatch, ruleset):
    game = new_game(tmp_path, monkeypatch, ruleset)
    game.order("alice", "HELP", now="2027-01-02T10:00:00Z")
    game.order("alice", "NOSUCHCOMMAND 1", now="2027-01-02T10:01:00Z")
    game.gm("pause", now="2027-01-02T11:00:00Z")
    game.order("alice", "HELP", now="2027-01-02T11:01:00Z")  # help is answered while paused too
    game.order("bob", "HELP", now="2027-01-02T11:02:00Z")
    refusals = game.outbox(kind="refusal")
    helps = game.outbox(kind="help")
    assert refusals and helps
    for mail in refusals:
        assert RULE in flat(text_of(mail)) and RULE in flat(html_of(mail)), text_of(mail)
    for mail in helps:
        assert HELP_RULE in flat(text_of(mail)) and HELP_RULE in flat(html_of(mail)), text_of(mail)
        assert "is not read" not in text_of(mail)


def test_a_sign_up_refusal_says_a_confirm_with_its_code_is_read(tmp_path, monkeypatch):
    game = SignupGame.create(tmp_path / "spring", monkeypatch)
    game.mail("ann@example.org", "JOIN spring")  # no NAME: refused
    game.gm("ingest")
    (refusal,) = game.outbox(to="ann@example.org")
    said = ("A reply to this mail is read only when it is a CONFIRM with the code gm mailed to your address; "
            "any other reply is kept unanswered (it stops mail loops).")
    assert said in flat(refusal.text) and said in flat(refusal.html)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_rules_pages_say_a_reply_to_a_refusal_is_read_when_it_authenticates(ruleset):
    text = flat((DOCS / f"{ruleset}.md").read_text(encoding="utf-8"))
    assert "A reply to a refusal or to the help mail is read only when it authenticates" in text
    assert "unless it authenticates" in text
    assert "is never answered (it could be an auto-responder's)" not in text
