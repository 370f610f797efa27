"""IMAP in (gm.mail.imap) against a real private Dovecot, and the mail.imap settings."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gm.errors import ConfigError
from gm.mail.credentials import imap_password
from gm.mail.imap import ImapInbox, uid_set
from gm.mail.settings import ImapSettings, MailError, imap_settings
from gm.yamlfile import parse


def order_mail(i: int) -> bytes:
    return (f"From: player{i}@example.org\r\nTo: gm@example.org\r\nSubject: orders {i}\r\n"
            f"Message-ID: <order-{i}@example.org>\r\n\r\nA: 3\r\n").encode()


def count_fetches(inbox: ImapInbox) -> list[tuple]:
    """Record every UID FETCH command the inbox's connection sends to the server."""
    imap = inbox.client._imap
    sent: list[tuple] = []
    original = imap._command

    def recording(name, *args):
        if name == "UID" and args and args[0] == "FETCH":
            sent.append(args)
        return original(name, *args)

    imap._command = recording
    return sent


# --- against Dovecot ------------------------------------------------------------------

@pytest.mark.servers
@pytest.mark.parametrize(("n", "batch"), [(23, 5), (10, 10), (1, 500)])
def test_imap_fetch_sends_one_uid_fetch_per_batch(imap_account, n, batch):
    imap_account.append(order_mail(i) for i in range(n))
    with ImapInbox(imap_account.settings(), imap_account.password, batch=batch) as inbox:
        fetches = count_fetches(inbox)
        uids = inbox.uids()
        batches = list(inbox.fetch(uids))
    assert len(fetches) == math.ceil(n / batch)
    assert [len(b) for b in batches][:-1] == [batch] * (len(batches) - 1)
    got = [m.raw for b in batches for m in b]
    assert got == imap_account.bodies()
    assert [m.uid for b in batches for m in b] == uids


@pytest.mark.servers
def test_imap_internaldate_is_timezone_aware_and_names_the_same_instant(imap_account):
    # In the past: Dovecot replaces an APPEND date in the future with the present.
    received = datetime(2026, 3, 21, 18, 30, 5, tzinfo=timezone(timedelta(hours=2)))
    imap_account.append([order_mail(1)], msg_time=received)
    with ImapInbox(imap_account.settings(), imap_account.password) as inbox:
        [[fetched]] = list(inbox.fetch(inbox.uids()))
    # Maildir keeps the instant (as the file's mtime), not the offset it was given in.
    assert fetched.internaldate.utcoffset() is not None
    assert fetched.internaldate == received


@pytest.mark.servers
def test_imap_fetch_does_not_mark_mail_seen(imap_account):
    imap_account.append([order_mail(1)])
    with ImapInbox(imap_account.settings(), imap_account.password) as inbox:
        list(inbox.fetch(inbox.uids()))
    with imap_account.client() as client:
        client.select_folder("INBOX", readonly=True)
        assert client.search("UNSEEN") != []


@pytest.mark.servers
def test_imap_move_processed_creates_the_folder_and_loses_nothing(imap_account):
    imap_account.append(order_mail(i) for i in range(12))
    assert not imap_account.folder_exists("gm-processed")
    before = imap_account.bodies()
    with ImapInbox(imap_account.settings(), imap_account.password, batch=5) as inbox:
        uids = inbox.uids()
        inbox.move_processed(uids[:7])
        assert inbox.uids() == uids[7:]
        inbox.move_processed(uids[7:])
        assert inbox.uids() == []
    assert imap_account.count("INBOX") == 0
    assert sorted(imap_account.bodies("gm-processed")) == sorted(before)


@pytest.mark.servers
def test_imap_uids_skip_what_the_caller_already_recorded(imap_account):
    imap_account.append(order_mail(i) for i in range(5))
    with ImapInbox(imap_account.settings(), imap_account.password) as inbox:
        every = inbox.uids()
        assert inbox.uids(skip={every[0], every[3]}) == [every[1], every[2], every[4]]


@pytest.mark.servers
def test_imap_uidvalidity_is_exposed_and_stable_across_connections(imap_account):
    imap_account.append([order_mail(1)])
    with imap_account.client() as client:
        expected = client.select_folder("INBOX")[b"UIDVALIDITY"]
    with ImapInbox(imap_account.settings(), imap_account.password) as first:
        pass
    with ImapInbox(imap_account.ssl_settings(), imap_account.password) as second:
        pass
    assert first.uidvalidity == second.uidvalidity == expected > 0


@pytest.mark.servers
def test_imap_server_stopped_mid_fetch_raises_mail_error_and_rerun_fetches_the_rest(
    imap_account, dovecot
):
    imap_account.append(order_mail(i) for i in range(30))
    recorded: dict[tuple[int, int], bytes] = {}  # the caller's database, as the docs say

    inbox = ImapInbox(imap_account.settings(), imap_account.password, batch=10)
    with pytest.raises(MailError) as failure, inbox:
        for batch in inbox.fetch(inbox.uids()):
            for m in batch:
                recorded[(inbox.uidvalidity, m.uid)] = m.raw
            dovecot.stop()  # the server goes away after the first batch was recorded
    assert len(recorded) == 10
    assert "\n" not in str(failure.value) and "UID FETCH" in str(failure.value)

    dovecot.start()
    with ImapInbox(imap_account.settings(), imap_account.password, batch=10) as inbox:
        seen = {uid for (validity, uid) in recorded if validity == inbox.uidvalidity}
        for batch in inbox.fetch(inbox.uids(skip=seen)):
            for m in batch:
                assert (inbox.uidvalidity, m.uid) not in recorded  # nothing doubled
                recorded[(inbox.uidvalidity, m.uid)] = m.raw
            inbox.move_processed([m.uid for m in batch])
        inbox.move_processed(sorted(seen))
    assert sorted(recorded.values()) == sorted(order_mail(i) for i in range(30))
    assert imap_account.count("INBOX") == 0
    assert imap_account.count("gm-processed") == 30


@pytest.mark.servers
@pytest.mark.parametrize("implicit_tls", [False, True], ids=["starttls", "imaps"])
def test_imap_untrusted_certificate_is_refused_and_accepted_with_cafile(
    imap_account, implicit_tls
):
    make = imap_account.ssl_settings if implicit_tls else imap_account.settings
    with pytest.raises(MailError, match="certificate refused") as refused:
        ImapInbox(make(cafile=None), imap_account.password).connect()
    assert "\n" not in str(refused.value)
    with ImapInbox(make(), imap_account.password) as inbox:
        assert inbox.uids() == []


@pytest.mark.servers
def test_imap_wrong_password_is_one_line_and_never_shows_the_password(imap_account):
    wrong = "not-the-Password-42"
    with pytest.raises(MailError, match="login as") as refused:
        ImapInbox(imap_account.settings(), wrong).connect()
    text = str(refused.value)
    assert wrong not in text and "\n" not in text and imap_account.user in text


@pytest.mark.servers
def test_imap_missing_folder_is_a_mail_error(imap_account):
    with pytest.raises(MailError, match="IMAP"):
        ImapInbox(imap_account.settings(folder="Orders"), imap_account.password).connect()


def test_imap_connection_refused_is_a_mail_error():
    from servers import free_port

    settings = ImapSettings(host="127.0.0.1", port=free_port(), user="gm", ssl=False)
    with pytest.raises(MailError, match="cannot connect"):
        ImapInbox(settings, "pw").connect()


# --- pure parts -----------------------------------------------------------------------


def expand(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition(":")
        out.update(range(int(low), int(high or low) + 1))
    return out


@given(st.sets(st.integers(min_value=1, max_value=400), min_size=1))
@example({1, 2, 3, 5, 7, 8})
@example({4294967295})
def test_uid_set_names_exactly_the_uids_given(uids):
    text = uid_set(sorted(uids))
    assert expand(text) == uids
    assert len(text.split(",")) <= len(uids)


def test_uid_set_writes_runs_as_ranges():
    assert uid_set([7, 3, 4, 5, 9]) == "3:5,7,9"


# --- mail.imap settings ---------------------------------------------------------------


def settings_from(text: str):
    return imap_settings(parse(text)["imap"])


def test_imap_settings_defaults_to_implicit_tls_and_inbox():
    s = settings_from("imap: {host: mail.example.org, user: gm}\n")
    assert (s.ssl, s.starttls, s.effective_port, s.folder, s.processed_folder) == (
        True, False, 993, "INBOX", "gm-processed")


def test_imap_settings_starttls_means_the_plain_port():
    s = settings_from("imap: {host: h, user: gm, starttls: true, cafile: /ca.pem}\n")
    assert (s.ssl, s.starttls, s.effective_port, s.cafile) == (False, True, 143, "/ca.pem")


def test_imap_settings_problems_are_all_listed_with_their_lines():
    text = "mail:\n  imap:\n    host: h\n    prot: 993\n    ssl: yes please\n    batch: 3\n"
    with pytest.raises(ConfigError) as error:
        imap_settings(parse(text)["mail"]["imap"])
    problems = error.value.problems
    assert error.value.source == "mail.imap"
    assert "line 4: mail.imap: unknown key 'prot' (did you mean 'port'?)" in problems
    assert "line 3: mail.imap: 'user' is required" in problems  # the mapping's own line
    assert "line 5: mail.imap: 'ssl' must be true or false, not 'yes please'" in problems
    assert any(p.startswith("line 6: mail.imap: unknown key 'batch'") for p in problems)


def test_imap_settings_port_must_be_a_positive_integer_not_a_boolean():
    with pytest.raises(ConfigError, match="'port' must be positive integer"):
        settings_from("imap: {host: h, user: u, port: true}\n")


def test_imap_settings_refuse_ssl_and_starttls_together():
    with pytest.raises(ConfigError, match="cannot both be true"):
        settings_from("imap: {host: h, user: u, ssl: true, starttls: true}\n")


def test_imap_password_comes_from_the_environment_only():
    assert imap_password(environ={"GM_IMAP_PASSWORD": "pw"}) == "pw"
    with pytest.raises(MailError, match="GM_IMAP_PASSWORD is not set"):
        imap_password(environ={})
