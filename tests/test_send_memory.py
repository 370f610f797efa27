"""`gm send` streams a turn's mail from the store: it reads the outbox a page of
rows at a time and each message's bytes when its turn comes, so what it holds is a window
of messages, not the turn (a 2,000-player turn is 320 MB of mail). Sizes, not times: the
peak of Python's allocations while a turn's worth of large reports goes out."""

from __future__ import annotations

import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
import yaml
from servers import SmtpServer
from test_smtp import Recorder, report

from gm import clock
from gm.campaign.campaign import start
from gm.campaign.delivery import send
from gm.campaign.turns import resolve
from gm.mail.smtp import send_batch
from gm.mail.smtpwire import Outgoing

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = 300
SIZE = 160 * 1024  # a report of a 2,000-player campaign
PLAYERS = 60  # more than INLINE_PLAYERS: each report attaches the table, stored once


def padded(raw: bytes, size: int) -> bytes:
    """`raw` grown to about `size` bytes by an epilogue of text lines after its last one
    (one in 40 starting with a dot, to be stuffed on the wire). Long lines: the server
    reads DATA a line at a time, and under tracemalloc short ones made the test slow."""
    line = b"x" * 990 + b"\r\n"
    count = max(0, size - len(raw)) // len(line)
    return raw + b"".join(b"." + line[1:] if i % 40 == 39 else line for i in range(count))


def turn_of_large_mail(folder: Path, mail: dict) -> object:
    """A campaign of PLAYERS whose first turn is resolved (each report holding a marker
    for the turn's table, kept once in shared_parts), its reports padded to SIZE and
    copied until MESSAGES are queued, every earlier mail sent."""
    folder.mkdir()
    config = {
        "id": "memory", "seed": 3, "first_deadline": "2027-01-08T00:00:00Z",
        "boards": {"A": str(ROOT / "boards" / "milton-bradley.yaml")},
        "players": [{"id": f"p{i}", "name": f"Player {i}", "email": f"p{i}@example.org",
                     "password": "pw-memory"} for i in range(PLAYERS)],
        "mail": mail,
    }
    (folder / "campaign.yaml").write_text(yaml.safe_dump(config))
    with clock.frozen(clock.parse_time("2027-01-01T00:00:00Z")):
        campaign, _ = start(folder)
    with campaign.store.transaction() as db:
        db.execute("update outbox set status = 'sent'")
    with clock.frozen(clock.parse_time("2027-01-08T00:30:00Z")):
        resolve(campaign, force=True)
    reports = campaign.store.rows("select * from outbox where kind = 'report'")
    assert len(reports) == PLAYERS and all(b"gm-shared-part" in r["raw"] for r in reports)
    with campaign.store.transaction() as db:
        db.execute("delete from outbox where status = 'queued'")
        for n in range(MESSAGES):
            row = reports[n % PLAYERS]
            db["outbox"].insert(dict(row, id=None, raw=padded(row["raw"], SIZE)))
    return campaign


def peak_while(action) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# The turn is MESSAGES x SIZE, 48 MB, all of which gm send held before it streamed. What it
# may hold now: over SMTP the window of messages read ahead, one on each connection and
# its copy as it goes on the wire, and the server's copy of each (aiosmtpd runs in this
# process): about (WINDOW + 4 x 3 + 4 x 2) x SIZE, 4.5 MB; into a Maildir, one message.
BOUND = MESSAGES * SIZE / 6


def test_gm_send_into_a_maildir_holds_one_message_not_the_turn(tmp_path):
    campaign = turn_of_large_mail(tmp_path / "c", {"from": "GM <gm@example.org>"})
    try:
        result, peak = peak_while(lambda: send(campaign))
        assert result.sent == MESSAGES
        assert campaign.store.one("select count(*) as n from outbox where status != 'sent'")["n"] == 0
    finally:
        campaign.close()
    files = list((tmp_path / "c" / "mail" / "outbox" / "new").iterdir())
    new = [f for f in files if f.stat().st_size >= SIZE * 0.9]
    assert len(new) == MESSAGES
    assert all(b"gm-shared-part" not in f.read_bytes() for f in new)  # each sent whole
    assert peak < 8 * SIZE, f"peak {peak / 2**20:.1f} MB"


@pytest.mark.servers
def test_gm_send_over_smtp_holds_a_window_of_messages_not_the_turn(tmp_path, tls_ca, monkeypatch):
    server = SmtpServer(tls_ca, record=False).start()  # keeps no copies: only gm's are measured
    try:
        settings = server.settings()
        mail = {"transport": "imap+smtp", "from": "GM <gm@example.org>",
                "imap": {"host": settings.host, "user": server.user},
                "smtp": {"host": settings.host, "port": settings.port, "user": server.user,
                         "starttls": True, "cafile": settings.cafile, "connections": 4}}
        monkeypatch.setenv("GM_SMTP_PASSWORD", server.password)
        campaign = turn_of_large_mail(tmp_path / "c", mail)
        try:
            result, peak = peak_while(lambda: send(campaign))
            assert (result.sent, result.temporary, result.permanent) == (MESSAGES, 0, [])
            assert campaign.store.one("select count(*) as n from outbox where status != 'sent'")["n"] == 0
        finally:
            campaign.close()
        assert server.handler.accepted == MESSAGES
    finally:
        server.stop()
    assert peak < BOUND, f"peak {peak / 2**20:.1f} MB"


@pytest.mark.servers
def test_smtp_reads_the_messages_a_window_ahead_of_their_outcomes(smtp_server):
    """The caller's messages are read as connections need them: never more than the
    window waiting and one on each connection ahead of the outcomes handed back."""
    read: list[int] = []
    ahead: list[int] = []
    recorder = Recorder()

    def messages():
        for i in range(80):
            read.append(i)
            yield report(i)

    def on_outcome(outcome) -> None:
        recorder(outcome)
        ahead.append(len(read) - len(recorder.outcomes) + 1)  # this one is still undecided

    summary = send_batch(smtp_server.settings(), smtp_server.password, messages(),
                         on_outcome=on_outcome, connections=3, window=5, sleep=recorder.sleep)
    assert summary.sent == 80 == len(read)
    assert max(ahead) <= 5 + 3
    assert sorted(o.key for o in recorder.outcomes) == sorted(f"q{i}" for i in range(80))


@pytest.mark.servers
def test_smtp_order_per_recipient_and_retry_first_hold_over_a_small_window(smtp_server):
    """A player's mail still goes in the order it was queued when it is read a little at
    a time, and a 451 goes back to the front: ben's second message waits for his first."""
    recipients = ["ann@example.org", "ben@example.org", "cat@example.org"]
    messages = [report(i, to=recipients[i % 3] if i % 4 else recipients[1]) for i in range(45)]
    smtp_server.faults.tempfail_once = {"ben@example.org"}
    recorder = Recorder()
    summary = send_batch(smtp_server.settings(), smtp_server.password, iter(messages),
                         on_outcome=recorder, connections=3, window=2, sleep=recorder.sleep)
    assert summary.sent == 45 and len(recorder.sleeps) == 1
    for recipient in recipients:
        queued = [m.data for m in messages if m.recipients == (recipient,)]
        assert [r.data for r in smtp_server.received if r.recipients == (recipient,)] == queued


@pytest.mark.servers
def test_smtp_server_gone_mid_run_every_message_read_or_not_gets_one_outcome(tls_ca):
    """When every connection gives up on the server, the messages still unread are read
    and reported temporary too (they stay queued): each of them gets exactly one outcome."""
    server = SmtpServer(tls_ca, record=False).start()
    recorder = Recorder()

    def on_outcome(outcome) -> None:
        recorder(outcome)
        if len(recorder.outcomes) == 2:
            server.stop()  # the server goes away: nothing more can be sent

    messages = (Outgoing(key=f"q{i}", sender="gm@example.org", recipients=(f"p{i % 7}@example.org",),
                         data=report(i).data) for i in range(60))
    summary = send_batch(server.settings(), server.password, messages, on_outcome=on_outcome,
                         connections=2, window=4, retries=1, sleep=recorder.sleep)
    keys = Counter(o.key for o in recorder.outcomes)
    assert set(keys) == {f"q{i}" for i in range(60)} and set(keys.values()) == {1}
    assert summary.sent >= 2 and summary.sent + summary.temporary == 60
    assert server.handler.accepted == summary.sent
