"""SMTP out (gm.mail.smtp) against a real aiosmtpd server, and the mail.smtp settings."""

from __future__ import annotations

import email.policy
from collections import Counter
from email.message import EmailMessage

import pytest

from gm.errors import ConfigError
from gm.mail.credentials import smtp_password
from gm.mail.settings import MailError, smtp_settings
from gm.mail.smtp import SendResult, SendSummary, default_backoff, send_batch
from gm.mail.smtpwire import Outgoing, wire_data
from gm.yamlfile import parse


def report(i: int, to: str | None = None) -> Outgoing:
    msg = EmailMessage()
    msg["From"] = "Snakes GM <gm@example.org>"
    msg["To"] = to or f"player{i}@example.org"
    msg["Subject"] = f"Turn 7 report {i}"
    msg["Message-ID"] = f"<report-{i}@example.org>"
    msg.set_content(f"Report {i}\n" + "Board A: you climbed a ladder.\n" * 40)
    return Outgoing(key=f"q{i}", sender="gm@example.org", recipients=(msg["To"],),
                    data=msg.as_bytes(policy=email.policy.SMTP))


class Recorder:
    """The caller's side: outcomes in order, and the sleeps it was asked for."""

    def __init__(self):
        self.outcomes: list[SendResult] = []
        self.sleeps: list[float] = []

    def __call__(self, outcome: SendResult) -> None:
        self.outcomes.append(outcome)

    async def sleep(self, seconds: float) -> None:  # no wall-clock waits in tests
        self.sleeps.append(seconds)

    def by_status(self) -> Counter:
        return Counter(o.status for o in self.outcomes)


def send(server, messages, recorder, **options) -> SendSummary:
    options.setdefault("sleep", recorder.sleep)
    return send_batch(server.settings(), server.password, messages, on_outcome=recorder,
                      **options)


def delivered_ids(server) -> Counter:
    return Counter(r.data.split(b"Message-ID: <", 1)[1].split(b">", 1)[0] for r in
                   server.received)


@pytest.mark.servers
def test_smtp_all_delivered_exactly_once_over_few_connections(smtp_server):
    messages = [report(i) for i in range(60)]
    recorder = Recorder()
    summary = send(smtp_server, messages, recorder, connections=3)
    assert summary == SendSummary(sent=60, temporary=0, permanent=0)
    assert sorted(o.key for o in recorder.outcomes) == sorted(m.key for m in messages)
    assert all(o.status == "sent" and o.code == 250 for o in recorder.outcomes)
    assert set(delivered_ids(smtp_server).values()) == {1}
    assert len(smtp_server.received) == 60
    assert smtp_server.connections == 3
    assert {r.data for r in smtp_server.received} == {m.data for m in messages}
    assert recorder.sleeps == []


@pytest.mark.servers
def test_smtp_each_recipients_mail_arrives_in_the_order_it_was_queued(smtp_server):
    """Several connections carry a batch, but one player's mail is never on two at once:
    an ack for order #2 must not overtake the ack for order #1."""
    recipients = [f"player{n}@example.org" for n in range(5)]
    messages = [report(i, to=recipients[i % 5] if i % 3 else recipients[0]) for i in range(60)]
    recorder = Recorder()
    assert send(smtp_server, messages, recorder, connections=4).sent == 60
    for recipient in recipients:
        queued = [m.data for m in messages if m.recipients == (recipient,)]
        arrived = [r.data for r in smtp_server.received if r.recipients == (recipient,)]
        assert arrived == queued, recipient


@pytest.mark.servers
def test_smtp_sent_is_reported_only_after_the_server_accepted(smtp_server):
    seen_by_server_at_report: list[int] = []

    def on_outcome(outcome: SendResult) -> None:
        seen_by_server_at_report.append(len(smtp_server.received))

    send_batch(smtp_server.settings(), smtp_server.password, [report(i) for i in range(5)],
               on_outcome=on_outcome, connections=1)
    assert seen_by_server_at_report == [1, 2, 3, 4, 5]


@pytest.mark.servers
def test_smtp_outcomes_are_handed_on_in_the_calling_thread(smtp_server):
    import threading

    threads = set()
    send_batch(smtp_server.settings(), smtp_server.password, [report(i) for i in range(12)],
               on_outcome=lambda o: threads.add(threading.get_ident()), connections=3)
    assert threads == {threading.get_ident()}  # so it may use the caller's SQLite connection


@pytest.mark.servers
def test_smtp_lines_starting_with_a_dot_and_bare_line_ends_arrive_intact(smtp_server):
    body = b"Subject: dots\r\n\r\n.first\r\n..two\r\nbare\nlf\rcr\r\n.\r\nend"
    message = Outgoing(key="dots", sender="gm@example.org", recipients=("p@example.org",),
                       data=body)
    send_batch(smtp_server.settings(), smtp_server.password, [message], on_outcome=Recorder())
    [received] = smtp_server.received
    assert received.data == body.replace(b"\r\n", b"\n").replace(b"\r", b"\n").replace(
        b"\n", b"\r\n") + b"\r\n"


def test_smtp_wire_data_stuffs_dots_and_ends_with_the_final_dot():
    assert wire_data(b".a\r\nb\r\n.\r\n") == b"..a\r\nb\r\n..\r\n.\r\n"
    assert wire_data(b"a\nb") == b"a\r\nb\r\n.\r\n"


@pytest.mark.servers
def test_smtp_drop_after_k_messages_is_retried_and_nothing_lost_or_doubled(smtp_server):
    smtp_server.faults.drop_after = 4  # every connection dies at its 5th message
    messages = [report(i) for i in range(30)]
    recorder = Recorder()
    progress: list[int] = []
    summary = send(smtp_server, messages, recorder, connections=2, progress=progress.append)
    assert summary == SendSummary(sent=30, temporary=0, permanent=0)
    assert Counter(o.key for o in recorder.outcomes) == Counter(m.key for m in messages)
    assert set(delivered_ids(smtp_server).values()) == {1}
    assert len(smtp_server.received) == 30
    assert smtp_server.connections > 2  # it did reconnect
    assert recorder.sleeps  # and backed off through the injected sleep
    assert progress == [1] * 30  # one step per outcome, as Progress.advance expects


@pytest.mark.servers
def test_smtp_451_then_250_is_delivered_once(smtp_server):
    smtp_server.faults.tempfail_once = {"player3@example.org"}
    recorder = Recorder()
    summary = send(smtp_server, [report(i) for i in range(6)], recorder, connections=1,
                   backoff=lambda attempt: 7.0 * attempt)
    assert summary.sent == 6
    assert smtp_server.handler.rcpt_attempts["player3@example.org"] == 2
    assert delivered_ids(smtp_server)[b"report-3@example.org"] == 1
    assert recorder.sleeps == [7.0]


@pytest.mark.servers
def test_smtp_timeout_is_retried_on_a_new_connection_and_delivered_once(smtp_server):
    smtp_server.faults.stall_once = {"player2@example.org"}
    recorder = Recorder()
    settings = smtp_server.settings(timeout=0.3)  # the server stalls for 5 s
    summary = send_batch(settings, smtp_server.password, [report(i) for i in range(4)],
                         on_outcome=recorder, connections=1, sleep=recorder.sleep)
    assert summary.sent == 4
    assert delivered_ids(smtp_server)[b"report-2@example.org"] == 1
    assert smtp_server.connections == 2 and len(recorder.sleeps) == 1


@pytest.mark.servers
def test_smtp_550_is_permanent_with_its_code_and_never_retried(smtp_server):
    smtp_server.faults.reject = {"nobody@example.org"}
    recorder = Recorder()
    messages = [report(0), report(1, to="nobody@example.org"), report(2)]
    summary = send(smtp_server, messages, recorder)
    assert summary == SendSummary(sent=2, temporary=0, permanent=1)
    [refused] = [o for o in recorder.outcomes if o.status == "permanent"]
    assert (refused.key, refused.code) == ("q1", 550)
    assert "No such user" in refused.detail
    assert smtp_server.handler.rcpt_attempts["nobody@example.org"] == 1
    assert recorder.sleeps == []


@pytest.mark.servers
def test_smtp_a_refused_sender_stops_the_run_instead_of_failing_every_message(smtp_server):
    smtp_server.faults.reject_sender = True
    recorder = Recorder()
    with pytest.raises(MailError, match="MAIL FROM gm@example.org refused: 553"):
        send(smtp_server, [report(i) for i in range(10)], recorder, connections=2)
    assert recorder.outcomes == [] and smtp_server.received == []


@pytest.mark.servers
def test_smtp_temporary_failures_past_retries_are_reported_temporary(smtp_server):
    smtp_server.faults.drop_after = 0  # the server never accepts anything
    recorder = Recorder()
    summary = send(smtp_server, [report(0), report(1)], recorder, connections=1, retries=2)
    assert summary == SendSummary(sent=0, temporary=2, permanent=0)
    assert smtp_server.received == []
    assert all(o.code is None and "connection lost" in o.detail for o in recorder.outcomes)


@pytest.mark.servers
def test_smtp_partial_recipient_refusal_counts_as_sent_and_names_who_refused(smtp_server):
    smtp_server.faults.reject = {"nobody@example.org"}
    message = report(0)
    message = Outgoing(key="both", sender=message.sender,
                       recipients=("player0@example.org", "nobody@example.org"),
                       data=message.data)
    recorder = Recorder()
    send(smtp_server, [message], recorder)
    [outcome] = recorder.outcomes
    assert outcome.status == "sent" and "nobody@example.org 550" in outcome.detail
    assert smtp_server.received[0].recipients == ("player0@example.org",)


@pytest.mark.servers
def test_smtp_wrong_password_is_a_one_line_mail_error_and_nothing_is_reported(smtp_server):
    recorder = Recorder()
    with pytest.raises(MailError, match="login as gm refused: 535") as refused:
        send_batch(smtp_server.settings(), "Wrong-Pass-9", [report(0)], on_outcome=recorder)
    assert "Wrong-Pass-9" not in str(refused.value) and "\n" not in str(refused.value)
    assert recorder.outcomes == [] and smtp_server.received == []


@pytest.mark.servers
def test_smtp_untrusted_certificate_is_refused_and_accepted_with_cafile(smtp_server):
    recorder = Recorder()
    with pytest.raises(MailError, match="certificate refused"):
        send_batch(smtp_server.settings(cafile=None), smtp_server.password, [report(0)],
                   on_outcome=recorder)
    assert recorder.outcomes == [] and smtp_server.received == []
    send_batch(smtp_server.settings(), smtp_server.password, [report(0)], on_outcome=recorder)
    assert [o.status for o in recorder.outcomes] == ["sent"]


# The fixture's aiosmtpd warns because it cannot see implicit TLS as TLS (see servers.py).
@pytest.mark.servers
@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_smtp_implicit_tls_delivers_and_checks_the_certificate(smtps_server):
    recorder = Recorder()
    with pytest.raises(MailError, match="certificate refused"):
        send_batch(
            smtps_server.settings(cafile=None), smtps_server.password, [report(0)],
            on_outcome=recorder)
    summary = send(smtps_server, [report(i) for i in range(5)], recorder, connections=2)
    assert summary.sent == 5 and len(smtps_server.received) == 5


def test_smtp_connection_refused_is_a_mail_error():
    from servers import free_port

    from gm.mail.settings import SmtpSettings

    settings = SmtpSettings(host="127.0.0.1", port=free_port(), user="gm", timeout=5)
    with pytest.raises(MailError, match="cannot connect"):
        send_batch(settings, "pw", [report(0)], on_outcome=lambda o: None)


@pytest.mark.servers
def test_smtp_a_failing_on_outcome_stops_the_run_without_unreported_sends(smtp_server):
    class Full(Exception):
        pass

    reported: list[str] = []

    def on_outcome(outcome: SendResult) -> None:
        reported.append(outcome.key)
        if len(reported) == 3:
            raise Full("database full")

    with pytest.raises(Full):
        send_batch(smtp_server.settings(), smtp_server.password,
                   [report(i) for i in range(40)], on_outcome=on_outcome, connections=4)
    # Every message the server accepted was handed to on_outcome (the 3rd raised there).
    assert len(smtp_server.received) == len(reported) < 40


@pytest.mark.servers
def test_smtp_empty_batch_connects_to_nothing(smtp_server):
    assert send(smtp_server, [], Recorder()) == SendSummary(0, 0, 0)
    assert smtp_server.connections == 0


def test_smtp_default_backoff_doubles_and_is_capped():
    assert [default_backoff(a) for a in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    assert default_backoff(20) == 30.0


# --- mail.smtp settings ---------------------------------------------------------------


def settings_from(text: str):
    return smtp_settings(parse(text)["smtp"])


def test_smtp_settings_default_to_starttls_submission_and_four_connections():
    s = settings_from("smtp: {host: mail.example.org, user: gm}\n")
    assert (s.ssl, s.starttls, s.effective_port, s.connections) == (False, True, 587, 4)


def test_smtp_settings_ssl_means_port_465_without_starttls():
    s = settings_from("smtp: {host: h, user: gm, ssl: true, connections: 8, timeout: 20}\n")
    assert (s.ssl, s.starttls, s.effective_port, s.connections, s.timeout) == (
        True, False, 465, 8, 20.0)


def test_smtp_settings_problems_are_all_listed_with_their_lines():
    with pytest.raises(ConfigError) as error:
        settings_from("smtp:\n  host: h\n  user: gm\n  connections: 0\n  folder: INBOX\n")
    assert error.value.source == "mail.smtp"
    assert error.value.problems == [
        "line 5: mail.smtp: unknown key 'folder'",
        "line 4: mail.smtp: 'connections' must be positive integer, not 0",
    ]


def test_smtp_password_comes_from_the_environment_only():
    assert smtp_password(environ={"GM_SMTP_PASSWORD": "pw"}) == "pw"
    with pytest.raises(MailError, match="GM_SMTP_PASSWORD is not set"):
        smtp_password(environ={})
