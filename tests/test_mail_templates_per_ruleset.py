"""Each ruleset words its own mail. A mail of kind `report` in a campaign of
ruleset R is rendered from `templates/mail/R/report.*` when R has it, else from the
generic `templates/mail/report.*`, which speak of no ruleset's concepts. Postal's live
under `mail/postal/`; a ruleset kept outside gm brings its own folder (`Ruleset.templates`).
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit
from toyrules import Step

from gm.campaign import turns
from gm.mail.mailout import find_template, render
from gm.resources import shipped
from gm.rules import registry
from gm.rules.postal import Postal

TEMPLATES = shipped("templates")
KINDS = ("welcome", "gm_start", "help", "ack", "refusal", "reminder", "report", "final", "reset",
         "gm_report")
PARTIALS = ("_order", "_turn")
# what only the postal game speaks of (docs/rules/postal.md): no generic template may
# in mail the toy's own words may say "a whole number from 1 to 3"
POSTAL_MAIL_WORDS = re.compile(r"\bNUMBER\b|\b[Nn]umbers\b|[Tt]rapdoor|TRAPDOOR|\bNMR\b|\b[Cc]ycles?\b|\b[Hh]ands?\b")


class Stride(Step):
    """The toy ruleset under another name, with a folder of its own templates (only the
    report: every other mail falls back to the generic ones)."""

    name = "stride"
    templates = str(Path(__file__).parent / "data" / "stride-templates")


CAMPAIGN = """\
id: toy-1
title: Toy <Cup>
ruleset: {ruleset}
seed: 99
timezone: UTC
turn_days: 7
boards: {{A: b.yaml}}
players:
  - {{id: alice, name: Alice Liddell, email: alice@example.org, password: pw-alice}}
  - {{id: bob, name: Bob Cratchit, email: bob@example.org, password: pw-bob}}
options: {{max_turns: 8}}
mail: {{transport: maildir, from: "Toy GM <gm@example.org>"}}
"""


def play(folder: Path, ruleset: str, setenv) -> CampaignKit:
    """A whole campaign of a toy ruleset through gm's own layers: start, help, an ack, a
    refusal, a RESET, a reminder, every turn's reports and the final results."""
    folder.mkdir(parents=True)
    (folder / "b.yaml").write_text("squares: 12\n")
    (folder / "campaign.yaml").write_text(CAMPAIGN.format(ruleset=ruleset))
    kit = CampaignKit(folder, PLAIN_PLAYERS[:2], setenv)
    kit.start()
    kit.order("alice", ["HELP"])
    kit.order("alice", ["STEP 2"])
    kit.order("bob", ["STEP 7"])  # refused: STEP needs 1 to 3
    kit.order("bob", ["RESET"])
    raw = kit.mail("bob", "RESET\nPLAYER bob\n")
    from gm.campaign.desk.inbound import Desk

    with kit.campaign() as campaign:
        Desk(campaign).handle(raw, source="reset", received_at=kit.now)
        turns.remind(campaign)
    while not kit.state().over:
        with kit.campaign() as campaign:
            kit.at(campaign.deadline() + timedelta(hours=1))
            turns.resolve(campaign, force=True)
        if not kit.state().over:
            kit.order("alice", ["STEP 3"])
    return kit


@pytest.fixture(scope="module")
def toy_mail(tmp_path_factory):
    registry.register(Step)
    registry.register(Stride)
    with pytest.MonkeyPatch.context() as patch:
        root = tmp_path_factory.mktemp("toys")
        step, stride = play(root / "step", "step", patch.setenv), play(root / "stride", "stride", patch.setenv)
        yield step.outbox(), stride.outbox()
        step.close()
        stride.close()
    registry.unregister("step")
    registry.unregister("stride")


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message) -> str:
    return message.get_body(("html",)).get_content()


def test_postal_templates_live_under_mail_postal():
    """Postal's own words are under mail/postal/; a mail whose only postal part is the
    standing order (a refusal) is the generic one, which imports postal's order partial."""
    for kind in PARTIALS:
        for ext in ("txt", "html"):
            assert (TEMPLATES / "mail" / "postal" / f"{kind}.{ext}").is_file(), f"{kind}.{ext}"
    for kind in KINDS:
        for engine, ext in (("text", "txt"), ("html", "html")):
            found = find_template(engine, "mail", f"{kind}.{ext}", {"ruleset": "postal"}).name
            assert found in (f"mail/postal/{kind}.{ext}", f"mail/{kind}.{ext}")
    assert find_template("text", "mail", "refusal.txt", {"ruleset": "postal"}).name == "mail/refusal.txt"
    assert 'partial("_order.txt")' in (TEMPLATES / "mail" / "refusal.txt").read_text()
    assert find_template("text", "mail", "_order.txt", {"ruleset": "postal"}).name == "mail/postal/_order.txt"
    assert find_template("text", "calendar", "deadline.txt", {"ruleset": "postal"}).name == "calendar/postal/deadline.txt"


def test_a_ruleset_derived_from_postal_is_worded_as_postal_where_it_has_no_templates():
    class House(Postal):
        name = "house"

    registry.register(House)
    try:
        assert find_template("text", "mail", "report.txt", {"ruleset": "house"}).name == "mail/postal/report.txt"
        assert find_template("html", "mail", "welcome.html", {"ruleset": "house"}).name == "mail/postal/welcome.html"
    finally:
        registry.unregister("house")


def test_every_mail_kind_has_a_generic_fallback():
    for kind in KINDS + PARTIALS:
        for ext in ("txt", "html"):
            assert (TEMPLATES / "mail" / f"{kind}.{ext}").is_file(), f"{kind}.{ext}"
    assert find_template("text", "mail", "report.txt", {"ruleset": "step"}).name == "mail/report.txt"
    assert (TEMPLATES / "calendar" / "deadline.txt").is_file()



def test_a_mail_context_must_name_its_ruleset():
    with pytest.raises(ValueError, match="must name its ruleset"):
        render("report", {"campaign": "c"})


def test_a_ruleset_without_templates_gets_every_mail_from_the_generic_ones(toy_mail):
    messages, _ = toy_mail
    kinds = {m.kind for m in messages}
    assert kinds >= {"welcome", "gm-start", "help", "ack", "refusal", "reminder", "report", "gm-report", "reset"}
    for message in messages:
        text, html = text_of(message), html_of(message)
        for body in (text, html):
            assert POSTAL_MAIL_WORDS.search(body) is None, (message.kind, message["Subject"])
        assert "Toy &lt;Cup&gt;" in html and "<Cup>" not in html  # escaped like every mail
    welcome = next(m for m in messages if m.kind == "welcome")
    assert "STEP <1-3>" in text_of(welcome) and "Board A: 12 squares" in text_of(welcome)
    ack = next(m for m in messages if m.kind == "ack")
    assert "Your order for turn 1:\n  Step: 2\n  Square: 0" in text_of(ack)
    refusal = next(m for m in messages if m.kind == "refusal")
    assert 'STEP needs a whole number from 1 to 3, got "7"' in text_of(refusal)


def test_generic_reports_show_each_piece_and_the_orders_to_send(toy_mail):
    messages, _ = toy_mail
    reports = [m for m in messages if m.kind == "report" and m.player == "bob"]
    first, last = text_of(reports[0]), text_of(reports[-1])
    assert reports[0]["Subject"].startswith("[toy-1] Turn 1 report; turn 2 due")
    assert "- Alice Liddell: Start -> 2\n- Bob Cratchit: Start -> 1" in first
    assert "  TURN 2\n  STEP <1-3>" in first
    assert reports[-1]["Subject"] == "[toy-1] Final results after turn 8"
    assert "FINAL STANDINGS\n1. Alice Liddell\n2. Bob Cratchit" in last and "You finished 2nd." in last
    # alice finished in turn 5: her later reports send no order
    alice = [text_of(m) for m in messages if m.kind == "report" and m.player == "alice"]
    assert "you send no order" in alice[5] and "STEP <1-3>" not in alice[5]
    calendar = next(p for p in reports[0].walk() if p.get_content_type() == "text/calendar")
    assert "Reply to the game master's mail with your order." in calendar.get_content().replace("\r\n ", "")


def test_a_ruleset_with_its_own_template_folder_words_its_report(toy_mail):
    _, messages = toy_mail
    reports = [m for m in messages if m.kind == "report" and "Final" not in m["Subject"]]
    assert reports and all("the stride ruleset's own report" in text_of(m) for m in reports)
    assert all("the stride ruleset's own report" in html_of(m) for m in reports)
    assert "Bob Cratchit strode from Start to 1" in text_of(reports[1])
    # it has no ack or final template of its own: those come from the generic ones
    ack = next(m for m in messages if m.kind == "ack")
    assert "Your order for turn 1:\n  Step: 2" in text_of(ack)
    final = next(m for m in messages if "Final" in m["Subject"])
    assert "FINAL STANDINGS" in text_of(final)
