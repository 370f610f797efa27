"""A login in clear: IMAP or SMTP with neither ssl nor starttls sends the password (or the
OAuth token) as it is, so gm does it only to this machine (localhost, 127.0.0.0/8, ::1) or
where campaign.yaml's mail.imap or mail.smtp says `allow_plaintext: true` (docs/campaign.md).
Refused in campaign.yaml with the line, and again before connecting for settings made by
code; nothing is sent either way."""

from __future__ import annotations

import socket

import pytest
from test_config import GOOD, write

from gm.campaign.config.reading import load_config
from gm.errors import ConfigError
from gm.mail.imap import ImapInbox
from gm.mail.settings import ImapSettings, MailError, SmtpSettings, is_loopback
from gm.mail.smtpconnect import check_login


def campaign(tmp_path, imap: str, smtp: str):
    mail = ("mail:\n  transport: imap+smtp\n  from: \"Snakes GM <gm@example.org>\"\n"
            f"  imap: {{{imap}}}\n  smtp: {{{smtp}}}\n")
    return load_config(write(tmp_path / "c", GOOD[:GOOD.index("\nmail:") + 1] + mail))


def problems_of(tmp_path, imap: str, smtp: str) -> list[str]:
    with pytest.raises(ConfigError) as error:
        campaign(tmp_path, imap, smtp)
    return error.value.problems


def test_plain_imap_and_smtp_to_another_host_are_refused_with_their_line(tmp_path):
    problems = problems_of(tmp_path, "host: imap.example.org, user: gm, ssl: false",
                           "host: smtp.example.org, user: gm, starttls: false")
    assert problems == [
        "line 15: mail.imap: with neither ssl nor starttls the login would cross the network "
        "to imap.example.org in clear: set ssl: true or starttls: true, or allow_plaintext: "
        "true if that network is trusted",
        "line 16: mail.smtp: with neither ssl nor starttls the login would cross the network "
        "to smtp.example.org in clear: set ssl: true or starttls: true, or allow_plaintext: "
        "true if that network is trusted"]


def test_allow_plaintext_true_lets_a_plain_login_to_another_host_through(tmp_path):
    mail = campaign(tmp_path, "host: imap.lan, user: gm, ssl: false, allow_plaintext: true",
                    "host: smtp.lan, user: gm, starttls: false, allow_plaintext: true").mail
    assert mail.imap.allow_plaintext and not mail.imap.ssl and not mail.imap.starttls
    assert mail.smtp.allow_plaintext and mail.smtp.effective_port == 25


def test_allow_plaintext_must_be_true_or_false(tmp_path):
    problems = problems_of(tmp_path, "host: imap.lan, user: gm, allow_plaintext: yes please",
                           "host: smtp.lan, user: gm")
    assert problems == ["line 15: mail.imap: 'allow_plaintext' must be true or false, "
                        "not 'yes please'"]


def test_tls_or_starttls_needs_no_allow_plaintext(tmp_path):
    mail = campaign(tmp_path, "host: imap.example.org, user: gm, starttls: true",
                    "host: smtp.example.org, user: gm, ssl: true").mail
    assert not mail.imap.allow_plaintext and not mail.smtp.allow_plaintext


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "localhost", "LOCALHOST.", "::1",
                                  "[::1]"])
def test_plain_logins_to_this_machine_need_no_allow_plaintext(tmp_path, host):
    assert is_loopback(host)
    mail = campaign(tmp_path, f"host: '{host}', user: gm, ssl: false",
                    f"host: '{host}', user: gm, starttls: false").mail
    assert not mail.imap.ssl and not mail.smtp.starttls


@pytest.mark.parametrize("host", ["128.0.0.1", "localhost.example.org", "10.0.0.1", "::2"])
def test_hosts_not_this_machine_are_not_loopback(host):
    assert not is_loopback(host)


@pytest.fixture
def listener():
    """A TCP port on a routable address of this machine, to see that nothing connects."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # UDP: picks the outgoing address, sends nothing
        except OSError:
            pytest.skip("this machine has no route off itself")
        address = probe.getsockname()[0]
    if is_loopback(address):
        pytest.skip("this machine has no address but loopback")
    with socket.create_server((address, 0)) as server:
        server.settimeout(0)
        yield server


def nothing_connected(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return True
    return False


def test_settings_made_by_code_are_refused_before_a_byte_goes_out(listener):
    host, port = listener.getsockname()[:2]
    imap = ImapSettings(host=host, port=port, user="gm", ssl=False, starttls=False)
    with pytest.raises(MailError, match=f"IMAP {host}:{port}: with neither ssl nor starttls"
                                        " the login would cross the network") as error:
        ImapInbox(imap, "the-password").connect()
    assert error.value.cause == "tls"
    smtp = SmtpSettings(host=host, port=port, user="gm", ssl=False, starttls=False)
    with pytest.raises(MailError, match=f"SMTP {host}:{port}: with neither ssl nor starttls"):
        check_login(smtp, "the-password")
    assert nothing_connected(listener)
