"""docs/rules/, Order mail and 2.4 through the real order desk: every fixture mail in tests/data/mail
gets exactly the reply it must get, or none, on a campaign whose players are the
fixtures' senders."""

from __future__ import annotations

import email
import email.policy
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.cli import cli

DATA = Path(__file__).parent / "data" / "mail"
BOARDS = Path(__file__).resolve().parent.parent / "boards"

# (id, email, password) of every sender in tests/data/mail that writes orders
FIXTURE_PLAYERS = [
    ("olive", "olive@example.org", "0live-0il"),
    ("hanna", "hanna@example.com", "b4se-sixty"),
    ("sören", "soren@example.se", "björn"),
    ("pat", "pat@example.org", "pa55"),
    ("rosa", "rosa@example.org", "r0sa"),
    ("quentin", "quentin@example.org", "qapla’"),
    ("tess", "tess@example.org", "t3ss"),
    ("frank", "frank.baum@gmail.example", "Oz-1900"),
    ("dinah", "dinah@example.com", "Cat&Mouse"),
    ("edith", "edith@example.net", "Lory’s-Key"),
    ("jürgen", "juergen@example.de", "Süß"),
    ("carol", "carol@example.org", "x9"),
    ("mary", "mary@example.co.uk", "Pop-Pins"),
    ("uma", "uma@example.org", "um4"),
    ("alice", "alice@example.org", "Tea-Party-6"),
    ("gudrun", "gudrun@example.de", "Grün-Tee"),
    ("bob", "bob@example.org", "s3cret-horse"),
    ("nick", "nick@example.org", "n1ck-of-time"),
    ("lars", "lars@example.dk", "Smørrebrød"),
    ("kate", "kate@example.ie", "shamrock"),
    ("victor", "victor@example.org", "vv-vv-vv"),
    ("wendy", "wendy@example.org", "ww-ww-ww"),
    ("xavier", "xavier@example.org", "x-marks-the-spot"),
]

# fixture -> (outcome, reply template or None, words the reply must contain)
EXPECTED = {
    "plain": ("refused", "refusal", ["TURN 7: the turn now taking orders is 1"]),
    "received": ("applied", "ack", ["Number: 6"]),
    "no_message_id": ("applied", "ack", ["Number: 2"]),
    "html_only": ("applied", "ack", ["Number: 5", "board A: square 37"]),
    "iphone": ("applied", "ack", ["Number: 2", "board A: square 44"]),
    "gmail_reply": ("applied", "ack", ["Number: 5", "board A: square 37"]),
    "quoted_printable": ("applied", "ack", ["Number: 4"]),
    "base64": ("refused", "refusal", ["name the board"]),
    "latin1": ("applied", "ack", ["Number: 6"]),
    "windows1252": ("applied", "ack", ["Number: 3"]),
    "utf8": ("applied", "ack", ["Number: 2", "board A: square 50", "board B: square 51"]),
    "outlook_reply": ("applied", "ack", ["Number: 3"]),
    "signature": ("applied", "ack", ["Number: 1"]),
    "attachment": ("applied", "ack", ["Number: 5"]),
    "broken_base64": ("applied", "ack", ["Number: 2"]),
    "broken_charset": ("applied", "ack", ["Number: 4"]),
    "broken_boundary": ("applied", "ack", ["Number: 6"]),
    "broken_8bit_headers": ("applied", "ack", ["Number: 5"]),
    "broken_truncated": ("applied", "ack", ["Number: 3"]),
    "oversize": ("refused", "refusal", ["longer than"]),
    "auto_replied": ("loop", None, []),
    "vacation_bulk": ("loop", None, []),
    "bounce": ("loop", None, []),
    "thunderbird_flowed": ("applied", "ack", ["Number: 6"]),
}


def write_campaign(folder: Path, players=FIXTURE_PLAYERS, **options) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "id": "spring-2027",
        "title": "Spring 2027",
        "ruleset": "postal",
        "seed": 20270321,
        "first_deadline": "2026-11-29T18:00:00Z",
        "boards": {"A": str(BOARDS / "milton-bradley.yaml"), "B": str(BOARDS / "milton-bradley.yaml")},
        "players": [{"id": i, "name": i.title(), "email": e, "password": p} for i, e, p in players],
        "options": options,
        "mail": {"transport": "maildir", "from": "Snakes GM <gm@example.org>"},
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return folder


@pytest.fixture
def gm(tmp_path, monkeypatch):
    """Run gm commands on a started campaign of the fixture senders, at a fixed time."""
    folder = write_campaign(tmp_path / "spring")
    monkeypatch.setenv("GM_NOW", "2026-11-22T18:30:00Z")
    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, ["-C", str(folder), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    run("start")
    run.folder = folder  # type: ignore[attr-defined]
    return run


def replies(folder: Path) -> list[dict]:
    """Queued replies (not welcomes), parsed, oldest first."""
    db = sqlite3.connect(folder / "gm.sqlite")
    rows = db.execute(
        "select kind, recipient, raw from outbox where kind not in ('welcome', 'gm-start') order by id"
    ).fetchall()
    result = []
    for kind, recipient, raw in rows:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        result.append(
            {
                "kind": kind,
                "to": recipient,
                "message": message,
                "text": message.get_body(("plain",)).get_content(),
                "html": message.get_body(("html",)).get_content(),
            }
        )
    return result


def outcomes(folder: Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(folder / "gm.sqlite")
    return db.execute("select outcome, coalesce(player, '') from messages order by id").fetchall()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_3_every_fixture_mail_gets_the_reply_it_must(gm, name):
    outcome, template, words = EXPECTED[name]
    gm("ingest", str(DATA / f"{name}.eml"))
    assert [o for o, _ in outcomes(gm.folder)] == [outcome]
    sent = replies(gm.folder)
    if template is None:
        assert sent == []
        return
    assert len(sent) == 1
    reply = sent[0]
    assert reply["kind"] == template
    for word in words:
        assert word in reply["text"]
    original = email.message_from_bytes((DATA / f"{name}.eml").read_bytes(), policy=email.policy.default)
    assert reply["message"]["Auto-Submitted"] == "auto-replied"
    if original["Message-ID"]:
        assert reply["message"]["In-Reply-To"] == original["Message-ID"].strip()
        assert original["Message-ID"].strip() in reply["message"]["References"]


def test_3_no_reply_ever_echoes_a_password(gm):
    gm("ingest", *[str(DATA / f"{name}.eml") for name in EXPECTED])
    passwords = [p for _, _, p in FIXTURE_PLAYERS]
    for reply in replies(gm.folder):
        for password in passwords:
            assert password not in reply["text"] and password not in reply["html"]


def test_3_bounce_marks_the_player_address_failing(gm):
    gm("ingest", str(DATA / "bounce.eml"))
    status = gm("status")
    assert "FAILING address bob@example.org (bob)" in status
    assert replies(gm.folder) == []


def order_mail(sender: str, body: str, *, message_id: str, date: str = "Sun, 22 Nov 2026 18:00:00 +0000",
               html: bool = False) -> bytes:
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"] = sender
    message["To"] = "Snakes GM <gm@example.org>"
    message["Subject"] = "my orders"
    message["Date"] = date
    message["Message-ID"] = message_id
    if html:
        message.set_content("<html><body>" + "<br>".join(body.splitlines()) + "</body></html>", subtype="html")
    else:
        message.set_content(body)
    return message.as_bytes()


def drop(folder: Path, name: str, raw: bytes) -> Path:
    path = folder / f"{name}.eml"
    path.write_bytes(raw)
    return path


def test_3_forged_sender_and_unknown_player_get_the_same_refusal(gm, tmp_path):
    forged = drop(tmp_path, "forged", order_mail(
        "mallory@evil.example", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<f1@evil.example>"))
    unknown = drop(tmp_path, "unknown", order_mail(
        "mallory@evil.example", "PLAYER zed\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<f2@evil.example>"))
    wrong = drop(tmp_path, "wrong", order_mail(
        "mallory@evil.example", "PLAYER alice\nPASSWORD guess\nNUMBER 3\n", message_id="<f3@evil.example>"))
    gm("ingest", str(forged))
    gm("ingest", str(unknown))
    gm("ingest", str(wrong))
    texts = [r["text"] for r in replies(gm.folder)]
    assert len(texts) == 3
    assert texts[0] == texts[1] == texts[2]
    assert all(r["to"] == "mallory@evil.example" for r in replies(gm.folder))
    assert "Tea-Party-6" not in texts[0]
    assert [o for o, _ in outcomes(gm.folder)] == ["refused"] * 3


def test_3_replayed_message_id_is_recorded_never_applied_or_answered_twice(gm, tmp_path):
    first = drop(tmp_path, "first", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<same@example.org>"))
    # the same mail delivered again by another relay: one more Received header, same body
    replay = tmp_path / "replay.eml"
    replay.write_bytes(b"Received: from relay2.example.org; Sat, 02 Jan 2027 10:05:00 +0000\r\n" + first.read_bytes())
    gm("ingest", str(first))
    gm("ingest", str(replay))
    assert [o for o, _ in outcomes(gm.folder)] == ["applied", "duplicate"]
    assert len(replies(gm.folder)) == 1
    assert "alice" in gm("orders", "--full") and "number 3" in gm("orders", "--full")


def test_3_same_file_ingested_twice_is_handled_once(gm, tmp_path):
    mail = drop(tmp_path, "once", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<once@example.org>"))
    gm("ingest", str(mail))
    out = gm("ingest", str(mail))
    assert "already recorded" in out
    assert len(outcomes(gm.folder)) == 1


def test_2_4_a_later_message_replaces_only_what_it_names(gm, tmp_path):
    one = drop(tmp_path, "one", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\nTRAPDOOR A 44\nTRAPDOOR B 12\n",
        message_id="<r1@example.org>"))
    two = drop(tmp_path, "two", order_mail(
        "alice@example.org", "player ALICE\npassword Tea-Party-6\ntrapdoor b none\n",
        message_id="<r2@example.org>", date="Sun, 22 Nov 2026 18:10:00 +0000"))
    gm("ingest", str(one), str(two))
    full = gm("orders", "--full")
    assert "number 3; trapdoors A 44" in full
    last = replies(gm.folder)[-1]["text"]
    assert "order #2 received (replaces #1)" in last
    assert "board A: square 44" in last and "board B" not in last


def test_3_a_message_is_taken_whole_or_not_at_all(gm, tmp_path):
    bad = drop(tmp_path, "bad", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\nTRAPDOOR A 101\nNUMBER 9\n",
        message_id="<whole@example.org>"))
    gm("ingest", str(bad))
    text = replies(gm.folder)[0]["text"]
    assert "line 5: NUMBER" in text  # every problem, by line
    assert "line 3" not in text or "NUMBER 3" not in gm("orders", "--full")
    assert "MISSING" in [line for line in gm("orders").splitlines() if "alice" in line][0]


def test_3_html_only_order_is_read(gm, tmp_path):
    mail = drop(tmp_path, "html", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 4\n", message_id="<h@example.org>",
        html=True))
    gm("ingest", str(mail))
    assert replies(gm.folder)[0]["kind"] == "ack"


def test_3_help_without_password_reveals_nothing_and_with_password_shows_the_order(gm, tmp_path):
    anon = drop(tmp_path, "anon", order_mail("stranger@example.org", "HELP\n", message_id="<help1@x>"))
    known = drop(tmp_path, "known", order_mail(
        "alice@example.org", "HELP\nPLAYER alice\nPASSWORD Tea-Party-6\n", message_id="<help2@x>"))
    gm("ingest", str(anon), str(known))
    anon_reply, known_reply = replies(gm.folder)
    assert anon_reply["kind"] == known_reply["kind"] == "help"
    assert "NUMBER" in anon_reply["text"] and "Your order for turn" not in anon_reply["text"]
    assert "Your order for turn 1" in known_reply["text"]


def test_2_4_late_orders_are_refused(gm, tmp_path):
    late = drop(tmp_path, "late", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<late@x>",
        date="Mon, 30 Nov 2026 09:00:00 +0000"))
    gm("ingest", str(late))
    reply = replies(gm.folder)[0]
    assert reply["kind"] == "refusal" and "arrived after it" in reply["text"]


def test_3_an_order_from_the_gm_address_is_never_answered(gm, tmp_path):
    own = drop(tmp_path, "own", order_mail("gm@example.org", "NUMBER 3\n", message_id="<own@x>"))
    gm("ingest", str(own))
    assert outcomes(gm.folder) == [("loop", "")]
    assert replies(gm.folder) == []


def test_3_ingest_reads_the_campaign_maildir_and_an_mbox(gm, tmp_path):
    import mailbox

    inbox = mailbox.Maildir(gm.folder / "mail" / "inbox")
    inbox.add(order_mail("alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<m1@x>"))
    box = mailbox.mbox(tmp_path / "orders.mbox")
    box.add(order_mail("bob@example.org", "PLAYER bob\nPASSWORD s3cret-horse\nNUMBER 2\n", message_id="<m2@x>"))
    box.flush()
    assert "1 new message (1 applied)" in gm("ingest")
    assert "1 new message (1 applied)" in gm("ingest", "--mbox", str(tmp_path / "orders.mbox"))
    assert list((gm.folder / "mail" / "inbox" / "new").iterdir()) == []
    assert len(list((gm.folder / "mail" / "inbox" / "cur").iterdir())) == 1
    assert "no new mail" in gm("ingest")


def test_state_json_has_the_contract_keys(gm):
    data = json.loads(gm("state", "--json"))
    assert set(data) >= {"campaign", "ruleset", "turn", "over", "boards", "players", "commitments", "revealed"}
    assert data["turn"] == 1 and data["revealed"] is None
    assert data["players"]["alice"] == {"numbers_left": [1, 2, 3, 4, 5, 6], "aggregate": None, "place": None,
                                        "dropped": False, "held_by": []}  # CONTRACT: the added keys
    assert len(data["commitments"]["seed"]) == 64


def test_fixture_campaign_folder_is_reusable(tmp_path):
    # the campaign writer itself refuses nothing it should accept
    folder = write_campaign(tmp_path / "x")
    shutil.rmtree(folder)



def test_sent_welcome_mail_leaves_no_password_in_the_database(gm):
    gm("send")
    db = sqlite3.connect(gm.folder / "gm.sqlite")
    raws = b"".join(raw for (raw,) in db.execute("select raw from outbox"))
    hashes = "".join(h for (h,) in db.execute("select password_hash from players"))
    for _, _, password in FIXTURE_PLAYERS:
        assert password.encode() not in raws
        assert password not in hashes
    assert hashes.count("scrypt:") == len(FIXTURE_PLAYERS)


def test_3_a_refusal_shows_the_standing_order_in_the_rulesets_own_words(gm, tmp_path):
    """The refusal is the generic template; its standing order is postal's partial
    (mail/postal/_order.*, found by `partial`), in both parts."""
    good = drop(tmp_path, "good", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 3\n", message_id="<good@x>"))
    bad = drop(tmp_path, "bad", order_mail(
        "alice@example.org", "PLAYER alice\nPASSWORD Tea-Party-6\nNUMBER 9\n", message_id="<bad@x>"))
    gm("ingest", str(good), str(bad))
    refusal = [r for r in replies(gm.folder) if r["kind"] == "refusal"][0]
    assert "Your standing order is unchanged" in refusal["text"]
    assert "Number: 3" in refusal["text"] and "Number: 3" in refusal["html"].replace("<strong>", "").replace("</strong>", "")
