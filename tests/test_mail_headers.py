"""The headers of every mail gm sends (docs/rules/, Order mail: replies say they are automatic), for
each ruleset, from a real campaign: its welcome and GM start mail, help, an ack, a
refusal, a RESET, a reminder, every GM administration notice, an observer's copy, every
turn's reports and the final results. Every kind of mail the templates folder holds
(templates/mail/*.txt) must come out of it, so a new kind is checked as soon as it has
a template. Also: References per RFC 5322, long subjects folded between words, the
deadline in each player's own zone, the links into the archive, the rules, and the note
of who held a seat when."""

from __future__ import annotations

import email
import email.policy
import re
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from campaignkit import BOARDS, PLAIN_PLAYERS, CampaignKit

from gm.mail import mailout, mime
from gm.resources import shipped

TEMPLATES = shipped("templates") / "mail"
RULESETS = ("postal", "classic", "doubles", "advanced")
ARCHIVE = "https://games.example.org/kit/"
# every mail kind: a template of its own in templates/mail/ (parts start with "_"; the
# refusal reasons' words are no mail). A judge's own replies (judge_*) come from no
# campaign: tests/test_judge.py checks their headers.
KINDS = sorted(p.stem for p in TEMPLATES.glob("*.txt")
               if not p.name.startswith(("_", "judge_")) and p.stem != "problems")
# answers to a message (signup_status here answers a CONFIRM; the GM's accept sends one unasked)
REPLIES = ("help", "ack", "press_ack", "away_ack", "refusal", "signup_help", "signup_refusal", "signup_code",
           "signup_status")
AUTOMATIC = (*REPLIES, "reset", "password_failures", "caps_note", "press")  # sent because a message came, not because the GM acted
OPTIONS = {
    "postal": {"close_after": 3, "max_turns": 12},
    "classic": {"close_after": 2, "max_turns": 12},
    "doubles": {"close_after": "all", "max_turns": 12},
    "advanced": {"max_turns": 12},
}
ACK_ORDER = {"postal": ["NUMBER 3"], "classic": ["RESIGN NONE"], "doubles": ["RESIGN NONE"],
             "advanced": ["MOVE"]}


def _tagging_msgid(rendered: list[str]) -> Callable[..., str]:
    """make_msgid that names the template compose just rendered, so a test can tell which
    template each queued mail came from (the outbox's kind groups several)."""
    real = mailout.make_msgid

    def make_msgid(*args: Any, **kwargs: Any) -> str:
        return real(idstring=rendered[-1], **kwargs) if rendered else real(*args, **kwargs)

    return make_msgid


def template_of(message: Any) -> str:
    found = re.match(r"<\d+\.\d+\.\d+\.([a-z_]+)@", message["Message-ID"].strip())
    assert found, message["Message-ID"]
    return found.group(1)


def campaign_folder(folder: Path, ruleset: str, setenv: Callable[[str, str], None], *,
                    archive_url: str | None = ARCHIVE) -> CampaignKit:
    """CampaignKit's players (bob in Berlin, dave in New York) on the ruleset's starter
    board, an observer, and the archive's address; not started."""
    from gm.rules import registry

    kit = CampaignKit.create(folder, setenv=setenv, players=PLAIN_PLAYERS, start=False, seed=2**128 + 2027,
                             campaign_id=f"kit-{ruleset}", options=OPTIONS[ruleset])
    config = yaml.safe_load((folder / "campaign.yaml").read_text(encoding="utf-8"))
    config["ruleset"] = ruleset
    if ruleset != "postal":
        config["boards"] = {"A": str(BOARDS / registry.find_ruleset(ruleset).starter_board)}
    if ruleset == "advanced":
        config["players"][1]["team"] = config["players"][2]["team"] = "red"
    config["observers"] = [{"name": "Olive Watcher", "email": "olive@example.org"}]
    config["press"] = {"mode": "grey"}
    if archive_url:
        config["archive_url"] = archive_url
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                                          encoding="utf-8")
    return kit


def raw_mail(kit: CampaignKit, sender: str, body: str, **headers: str) -> bytes:
    kit.sent += 1
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm@example.org"
    message["Subject"] = headers.pop("subject", "orders")
    message["Date"] = format_datetime(kit.now)
    message["Message-ID"] = f"<kit-{kit.sent}@example.org>"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message.as_bytes(policy=email.policy.SMTP)


def handle(kit: CampaignKit, raw: bytes) -> Any:
    from gm.campaign.desk.inbound import Desk

    with kit.campaign() as campaign:
        return Desk(campaign).handle(raw, source=f"test:{kit.sent}", received_at=kit.now)


def signing_up(kit: CampaignKit, ruleset: str) -> None:
    """Before the start, sign-up by mail (docs/rules/, Joining by mail) sends its four kinds: a HELP, a JOIN
    refused, a JOIN's code, and where the confirmed joiner stands. She leaves again (by a
    confirmed LEAVE), so the game is the same as without her."""
    import re

    from click.testing import CliRunner

    from gm.cli import cli

    path = kit.folder / "campaign.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["signup"] = {"max_players": 6}
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    inbox = kit.folder / "mail" / "inbox" / "new"
    inbox.mkdir(parents=True, exist_ok=True)

    def mail_in(body: str) -> None:
        (inbox / f"signup-{kit.sent}.eml").write_bytes(raw_mail(kit, "nina@example.org", body))

    def ingest() -> str:
        result = CliRunner().invoke(cli, ["-C", str(kit.folder), "ingest"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    def code() -> str:
        db = sqlite3.connect(kit.folder / "gm.sqlite")
        raw = db.execute("select raw from outbox where kind = 'signup-code' order by id desc").fetchone()[0]
        db.close()
        text = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",)).get_content()
        return re.search(r"CONFIRM ([A-Z0-9]{4}-[A-Z0-9]{4})", text).group(1)

    mail_in("HELP\n")
    mail_in(f"JOIN kit-{ruleset}\n")  # refused: no NAME
    mail_in(f"JOIN kit-{ruleset}\nNAME Nina Joiner\n")
    ingest()
    mail_in(f"CONFIRM {code()}\n")
    ingest()
    mail_in(f"LEAVE kit-{ruleset}\n")
    ingest()
    mail_in(f"CONFIRM {code()}\n")
    ingest()


def every_kind_of_mail(folder: Path, ruleset: str, setenv: Callable[[str, str], None]) -> CampaignKit:
    """A campaign that sends every kind of mail once at least, played to its end."""
    from gm.campaign import admin, schedule
    from gm.campaign.turns import remind, resolve

    kit = campaign_folder(folder, ruleset, setenv)
    signing_up(kit, ruleset)
    kit.start()
    kit.at(kit.now + timedelta(hours=1))
    kit.order("alice", ["HELP"])
    kit.order("alice", ACK_ORDER[ruleset])
    kit.order("bob", ["JUMP 3"])  # refused
    kit.order("carol", ["PRESS TO alice", "Shall we?", "ENDPRESS", "PRESS TO ALL ANONYMOUS", "Hello"])
    # docs/rules/, Absences and extension votes: one vote is a quorum here, so where somebody
    # must write the deadline moves and everyone is told (dice players write nothing: refused)
    path = kit.folder / "campaign.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "extend: {quorum: 0.01}\n", encoding="utf-8")
    kit.close()  # campaign.yaml is read at each opening
    kit.order("alice", ["ABSENCE 2031-01-01 2031-01-02"])
    kit.order("alice", ["EXTEND 1"])
    # a reply from a mail app that quotes a long subject and names its thread
    handle(kit, raw_mail(kit, "carol@example.org", "PLAYER carol\nPASSWORD pw-carol\nHELP\n",
                         subject="Re: " + "a very long subject line " * 8,
                         References="<first@example.org> <kit-1@example.org>",
                         In_Reply_To="<kit-1@example.org>"))
    handle(kit, raw_mail(kit, "bob@example.org", "RESET\nPLAYER bob\n"))
    # 20 wrong passwords for alice in a day: she is told (docs/rules/postal.md "Passwords and RESET")
    for n in range(20):
        handle(kit, raw_mail(kit, "guesser@evil.example", f"PLAYER alice\nPASSWORD guess-{n}\nNUMBER 3\n"))
    with kit.campaign() as campaign:
        remind(campaign)
        deadline = campaign.deadline()
    kit.at(deadline + timedelta(hours=1))
    with kit.campaign() as campaign:
        resolve(campaign, force=True)
    # the GM's administration, between turns 1 and 2: each notice, a new holder for bob's seat
    steps = [
        lambda c: schedule.move_deadline(c, "+3d"),
        schedule.pause,
        schedule.resume,
        lambda c: admin.new_password(c, "carol"),
        lambda c: admin.change_email(c, "carol", "carol.d@example.org"),
        lambda c: admin.replace_player(c, "bob", "erin", name="Erin Brockovich", email="erin@example.org"),
        lambda c: admin.drop_player(c, "dave"),
    ]
    for step in steps:
        kit.close()  # each command opens the campaign afresh, as `gm` does
        with kit.campaign() as campaign:
            step(campaign)
    for _ in range(40):
        kit.close()
        with kit.campaign() as campaign:
            if campaign.state().over:
                break
            kit.at(max(kit.now, campaign.deadline()) + timedelta(hours=1))
            resolve(campaign, force=True)
    assert kit.state().over
    return kit


@pytest.fixture(scope="module", params=RULESETS)
def sent_mail(request, tmp_path_factory) -> tuple[str, list[Any]]:
    """(ruleset, every queued mail parsed, each with .template and .raw)."""
    rendered: list[str] = []
    real_render = mailout.render

    def render(template: str, context: Any) -> Any:
        rendered.append(template)
        return real_render(template, context)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mailout, "render", render)
        patch.setattr(mailout, "make_msgid", _tagging_msgid(rendered))
        import gm.campaign.passwords

        patch.setitem(gm.campaign.passwords.SCRYPT, "n", 2**10)
        kit = every_kind_of_mail(tmp_path_factory.mktemp(f"mail-{request.param}") / "c", request.param,
                                 patch.setenv)
        with kit.campaign() as campaign:
            rows = campaign.store.rows("select raw from outbox order by id")
        messages = []
        for row in rows:
            message = email.message_from_bytes(row["raw"], policy=email.policy.default)
            message.raw, message.template = row["raw"], template_of(message)
            messages.append(message)
        kit.close()
    return request.param, messages


def text_of(message: Any) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message: Any) -> str:
    return message.get_body(("html",)).get_content()


def raw_header(message: Any, name: str) -> list[str]:
    """The header's lines exactly as they travel (folded)."""
    head = message.raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    lines = head.split("\r\n")
    start = next(i for i, line in enumerate(lines) if line.lower().startswith(name.lower() + ":"))
    end = start + 1
    while end < len(lines) and lines[end][:1] in (" ", "\t"):
        end += 1
    return lines[start:end]


def test_every_mail_kind_in_the_templates_folder_is_sent(sent_mail):
    ruleset, messages = sent_mail
    sent = {m.template for m in messages}
    # a kind only a ruleset can send (postal's reminder: dice players need send nothing)
    missing = set(KINDS) - sent - ({"reminder"} if ruleset != "postal" else set())
    missing -= {"deadline_extended"} if ruleset in ("classic", "doubles") else set()  # nobody writes: no vote
    assert not missing, f"{ruleset}: no mail of kind {sorted(missing)}: trigger it in every_kind_of_mail"
    assert "help" in KINDS and "welcome" in KINDS and len(KINDS) >= 10


def test_every_mail_has_one_short_subject_line_with_the_campaign_tag(sent_mail):
    ruleset, messages = sent_mail
    for message in messages:
        subject = message["Subject"]
        where = f"{ruleset} {message.template}: {subject!r}"
        assert f"[kit-{ruleset}]" in subject, where
        assert "\n" not in subject and len(subject) <= mailout.MAX_SUBJECT, where
        assert not re.search(r"[{}%]|Orders are|Hello |\s\s", subject), where
        # the body's first words never end up in the subject (help's old bug)
        first_words = " ".join(text_of(message).split()[:3])
        assert first_words not in subject, where
        lines = raw_header(message, "Subject")
        assert lines[0].strip() != "Subject:" and all(len(line) <= 78 for line in lines), (where, lines)


def test_every_mail_has_sender_addressee_date_and_message_id(sent_mail):
    ruleset, messages = sent_mail
    ids = [m["Message-ID"] for m in messages]
    assert len(set(ids)) == len(ids)
    for message in messages:
        where = f"{ruleset} {message.template}"
        assert message["From"] == "Snakes GM <gm@example.org>", where
        assert "@" in message["To"] and message["Date"] is not None, where
        assert message["Date"].datetime.tzinfo is not None, where
        assert re.fullmatch(r"<[^<>\s]+@example\.org>", message["Message-ID"].strip()), where


def test_replies_name_their_thread_and_automatic_mail_says_so(sent_mail):
    ruleset, messages = sent_mail
    for message in messages:
        where = f"{ruleset} {message.template}"
        if message.template in REPLIES:
            parent = message["In-Reply-To"]
            assert parent and message["References"].split()[-1] == parent, where
        else:
            assert message["In-Reply-To"] is None and message["References"] is None, where
        if message.template in AUTOMATIC:
            assert message["Auto-Submitted"] == "auto-replied", where  # docs/rules/, Order mail
        else:
            assert message["Auto-Submitted"] is None, where


def test_references_are_the_parents_then_its_id_each_once(sent_mail):
    """RFC 5322 3.6.4: carol's reply named <first> and <kit-1> (also its In-Reply-To)."""
    _, messages = sent_mail
    reply = next(m for m in messages if m.template == "help" and m["To"] == "carol@example.org")
    ids = reply["References"].split()
    assert ids == ["<first@example.org>", "<kit-1@example.org>", reply["In-Reply-To"]]
    assert len(set(ids)) == len(ids)


def test_references_are_not_repeated_when_the_parent_lists_itself():
    assert mailout.references_header(["<a@x>", "<b@x>", "<c@x>"], "<c@x>") == "<a@x> <b@x> <c@x>"
    assert mailout.references_header([], "<c@x>") == "<c@x>"
    many = [f"<{n}@x>" for n in range(30)]
    kept = mailout.references_header(many, "<new@x>").split()
    assert len(kept) == 10 and kept[0] == "<0@x>" and kept[-1] == "<new@x>"


@pytest.mark.parametrize("length", [60, 70, 74, 77, 78, 120, 200])
def test_a_long_subject_folds_between_words_never_after_subject_alone(length):
    """The email package moved a 70-77 character subject whole to the next line."""
    words = "Re: [winter-cup] " + " ".join(f"word{n}" for n in range(60))
    subject = mailout.subject_line(words[:length])
    message = EmailMessage()
    message["Subject"] = subject
    message["To"] = "a@example.org"
    message.set_content("body")
    raw = message.as_bytes(policy=mime.MAIL_POLICY)
    head = raw.split(b"\r\n\r\n")[0].decode("ascii").split("\r\n")
    lines = head[: 1 + next((i for i, line in enumerate(head[1:]) if not line.startswith(" ")), len(head))]
    assert lines[0].startswith("Subject: Re: [winter-cup]"), lines
    assert all(len(line) <= 78 for line in lines) and all(line.strip() for line in lines), lines
    assert all(not line.rstrip().endswith(" ") for line in lines)
    back = email.message_from_bytes(raw, policy=email.policy.default)
    assert back["Subject"] == subject and len(subject) <= mailout.MAX_SUBJECT
    if length > mailout.MAX_SUBJECT:
        assert subject.endswith("...") and words.startswith(subject[:-3])


def test_a_subject_that_runs_into_its_body_cannot_be_written():
    """A Subject line ending in a block tag keeps its newline (trim_blocks ate it)."""
    env = mailout.environment("text")
    template = env.from_string(
        '{% import "mail/_links.txt" as l %}Subject: [c] Help{% if x %} (turn 2){% endif %}\n'
        "{% if y %}\nnever\n{% endif %}\nOrders are plain lines\n")
    # from_string skips the loader's name check: the extension works on the source
    assert template.render(x=False, y=False).startswith("Subject: [c] Help\nOrders are")
    shipped_help = (TEMPLATES / "postal" / "help.txt").read_text(encoding="utf-8")
    out = env.preprocess(shipped_help, "mail/postal/help.txt")
    assert "{% endif +%}" in out.splitlines()[0]


def test_welcome_mail_gives_the_deadline_in_each_players_own_zone(sent_mail):
    ruleset, messages = sent_mail
    welcomes = {m["To"]: text_of(m) for m in messages if m.template == "welcome"}
    berlin, new_york, utc = (welcomes["bob@example.org"], welcomes["dave@example.org"],
                             welcomes["alice@example.org"])
    assert re.search(r"Deadline: \w+ \d\d \w+ 2027, \d\d:\d\d UTC \(.*Europe/Berlin \(CET\)\)", berlin), berlin
    assert "America/New_York (EST)" in new_york and "Europe/Berlin" not in new_york
    assert "UTC (" not in utc and "Deadline: " in utc


def test_reports_link_the_turns_archive_page_and_welcome_the_front_page(sent_mail):
    ruleset, messages = sent_mail
    reports = [m for m in messages if m.template in ("report", "final")]
    assert reports
    for message in reports:
        turn = int(re.search(r"[Tt]urns? (\d+)", message["Subject"]).group(1))
        page = f"{ARCHIVE}turn-{turn:03d}.html"
        assert page in text_of(message) and f'href="{page}"' in html_of(message), message["Subject"]
    for message in (m for m in messages if m.template == "welcome"):
        assert f"{ARCHIVE}index.html" in text_of(message)
        assert f'href="{ARCHIVE}index.html"' in html_of(message)


def test_help_and_welcome_link_the_rules_and_carry_them(sent_mail):
    ruleset, messages = sent_mail
    rules = (shipped("docs") / "rules" / f"{ruleset}.md").read_text(encoding="utf-8")
    for message in (m for m in messages if m.template in ("help", "welcome")):
        assert f"{ARCHIVE}rules.html" in text_of(message)
        assert f'href="{ARCHIVE}rules.html"' in html_of(message)
        attached = [p for p in message.iter_attachments() if p.get_filename() == f"rules-{ruleset}.md"]
        assert len(attached) == 1, message.template
        assert attached[0].get_content_type() == "text/markdown"
        assert attached[0].get_content_charset() == "utf-8"
        assert attached[0].get_content().replace("\r\n", "\n") == rules


def test_without_an_archive_url_mail_links_nothing_but_still_carries_the_rules(tmp_path, monkeypatch):
    kit = campaign_folder(tmp_path / "c", "classic", monkeypatch.setenv, archive_url=None)
    kit.start()
    kit.order("alice", ["HELP"])
    with kit.campaign() as campaign:
        from gm.campaign.turns import resolve

        kit.at(campaign.deadline() + timedelta(hours=1))
        resolve(campaign, force=True)
    messages = kit.outbox()
    kit.close()
    for message in messages:
        assert "http" not in text_of(message) and "archive:" not in text_of(message), message["Subject"]
        assert "http" not in html_of(message)
    help_mail = next(m for m in messages if m.kind == "help")
    assert "The rules are attached (rules-classic.md)." in text_of(help_mail)
    assert [p.get_filename() for p in help_mail.iter_attachments()] == ["rules-classic.md"]


def test_reports_say_who_held_a_seat_when(sent_mail):
    """erin took bob's seat in turn 2: every later report and the final results say so."""
    ruleset, messages = sent_mail
    note = "Erin Brockovich holds the seat Bob Cratchit held until turn 1."
    later = [m for m in messages if m.template in ("report", "final") and not m["Subject"].startswith(
        f"[kit-{ruleset}] Turn 1 ")]
    assert later
    for message in later:
        assert note in " ".join(text_of(message).split()), message["Subject"]
        assert note.replace("'", "&#39;") in " ".join(html_of(message).split())
    first = [m for m in messages if m["Subject"].startswith(f"[kit-{ruleset}] Turn 1 ")]
    assert first and all("holds the seat" not in text_of(m) for m in first)


def test_seat_notes_render_from_the_shared_partial():
    seats = ({"player": "carol", "name": "Carol", "held_by": [
        {"player": "alice", "name": "Alice", "from_turn": 1, "until_turn": 3},
        {"player": "bob", "name": "Bob <b>", "from_turn": 4, "until_turn": 6},
        {"player": "carol", "name": "Carol", "from_turn": 7, "until_turn": None}]},)
    text = mailout.environment("text").get_template("mail/_notes.txt").module.seats(seats)
    assert " ".join(str(text).split()) == "Carol holds the seat Alice held until turn 3, and Bob <b> then held until turn 6."
    html = str(mailout.environment("html").get_template("mail/_notes.html").module.seats(seats))
    assert "Bob &lt;b&gt;" in html and "<b>" not in html
    assert str(mailout.environment("text").get_template("mail/_notes.txt").module.seats(())).strip() == ""
