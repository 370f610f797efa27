"""Test set-up: make tests/ importable, register the real mail server fixtures, and mark
the tests that start real servers or a browser, so the fast tier (`pytest -m "not servers
and not browser"`) leaves them out without each test having to say so."""

import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
# pyproject.toml sets no pythonpath; put the checkout and tests/ on sys.path ourselves.
for _path in (_HERE.parent, _HERE):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

pytest_plugins = ["servers", "campaignfixtures"]

# the fixtures (tests/servers.py, tests/test_browser.py) that start Dovecot, aiosmtpd or
# Chromium, or make the certificates only those servers use: a test asking for one,
# directly or through another fixture, gets the marker (the OAuth token server and the
# echoing IMAP server are threads of the test's own process, and stay in the fast tier)
SERVER_FIXTURES = frozenset({
    "tls_ca", "dovecot", "imap_account", "smtp_server", "smtps_server", "smtp_oauth_server",
    "dovecot_oauth", "oauth_account",
})
BROWSER_FIXTURES = frozenset({"browser"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & SERVER_FIXTURES and not item.get_closest_marker("servers"):
            item.add_marker(pytest.mark.servers)
        if used & BROWSER_FIXTURES and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
