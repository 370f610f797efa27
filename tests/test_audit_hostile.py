"""The auditor is safe against the archive. A player runs `gm audit` on their own
machine against a record the GM wrote, so a hostile record or server must end in exit 3
("could not be checked"), quickly and in bounded memory, never in exit 1 (a finding
against the game), a traceback or an exhausted machine."""

from __future__ import annotations

import http.server
import json
import resource
import subprocess
import sys
import threading
import time

import pytest
from auditforger import gm_audit

from gm.audit import source as audit_source


def record_file(tmp_path, text: str | bytes):
    path = tmp_path / "audit.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def a_record(**changes):
    record = {"format": "gm-audit/1", "campaign": "c", "ruleset": "postal",
              "seed": {"value": 1, "salt": "0" * 32, "commitment": "0" * 64},
              "boards": [], "options": {}, "players": [], "player_keys": {},
              "opening": {"draws": [], "players": [], "state": {}}, "turns": []}
    record.update(changes)
    return json.dumps(record)


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000 + "]" * 100_000, "nests more than"),
    (a_record(options={"deep": json.loads("[" * 40 + "1" + "]" * 40)}), "nests more than"),
    (a_record(turns=[{"turn": 1}]).replace('"turn": 1', '"turn": 1e400'), "out of range"),
    (a_record(turns=[{"turn": float("nan")}]), "not a JSON number"),
    (a_record(seed={"value": 10 ** 150, "salt": "", "commitment": ""}), "more than 100 digits"),
    (b"\xff\xfe not utf-8", "not JSON"),
    ("[1, 2", "not JSON"),
    ('{"format": "something else"}', "not an audit record"),
])
def test_25_a_hostile_record_exits_3_saying_why(tmp_path, text, words):
    result = gm_audit(record_file(tmp_path, text))
    assert result.exit_code == 3, result.output
    assert words in result.output and "Traceback" not in result.output


def test_25_a_record_of_empty_objects_is_refused_before_it_is_parsed(tmp_path):
    """21 MB of `{},` took 610 MB to parse: refused by its counts, before json.loads."""
    data = b'{"format": "gm-audit/1", "turns": [' + b"{}," * 7_000_000 + b"{}]}"
    assert audit_source.memory_estimate(data) > audit_source.MEMORY_BUDGET
    result = gm_audit(record_file(tmp_path, data))
    assert result.exit_code == 3 and "too many values for its size" in result.output


def test_25_the_memory_estimate_bounds_what_parsing_takes():
    """The estimate is an upper bound of the parsed size, so the budget really bounds memory."""
    samples = [b"[" + b"{}," * 10_000 + b"{}]", b"[" + b'"ab",' * 10_000 + b'"c"]',
               b"[" + b"123456," * 10_000 + b"1]", json.dumps({"x": [{"a": 1, "b": [2, 3]}] * 5000}).encode()]
    for data in samples:
        assert audit_source.memory_estimate(data) >= deep_size(json.loads(data))


def deep_size(value) -> int:
    seen, stack, total = set(), [value], 0
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        stack.extend(item.values() if isinstance(item, dict) else item if isinstance(item, list) else ())
    return total


def test_25_a_record_over_the_size_cap_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(audit_source, "MAX_RECORD_BYTES", 1000)
    result = gm_audit(record_file(tmp_path, a_record(campaign="x" * 2000)))
    assert result.exit_code == 3 and "larger than" in result.output


def test_25_another_scheme_is_refused(tmp_path):
    for source in ("ftp://127.0.0.1/audit.json", "file:///etc/passwd"):
        result = gm_audit(source)
        assert result.exit_code == 3 and "only http and https" in result.output


class Hostile(http.server.BaseHTTPRequestHandler):
    """/drip sends a byte every 0.2 s for ever (no single read ever times out);
    /redirect sends the reader to an ftp: address."""

    stop = threading.Event()

    def do_GET(self):  # noqa: N802 - http.server's name
        if self.path.startswith("/redirect"):
            self.send_response(302)
            self.send_header("Location", "ftp://127.0.0.1:1/audit.json")  # urllib follows ftp
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        while not self.stop.wait(0.2):  # the server's pace, not the test's clock
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:
                return

    def log_message(self, *args):
        pass


@pytest.fixture
def hostile_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    Hostile.stop.set()
    server.shutdown()
    Hostile.stop.clear()


def test_25_a_server_that_drips_is_cut_off_at_the_overall_deadline(hostile_server, monkeypatch):
    monkeypatch.setattr(audit_source, "DOWNLOAD_SECONDS", 1)
    began = time.monotonic()
    result = gm_audit(hostile_server + "/drip/audit.json")
    assert result.exit_code == 3 and "took longer than 1 s" in result.output
    assert time.monotonic() - began < 10


def test_25_a_redirect_to_another_scheme_is_refused(hostile_server):
    result = gm_audit(hostile_server + "/redirect/audit.json")
    assert result.exit_code == 3 and "only http and https" in result.output


def test_25_hostile_records_stay_within_30_s_and_1_gib(tmp_path):
    """The command itself, as a player runs it: its peak memory measured by the kernel."""
    big = tmp_path / "objects"
    big.mkdir()
    (big / "audit.json").write_bytes(b'{"format": "gm-audit/1", "turns": [' + b"{}," * 7_000_000 + b"{}]}")
    nested = tmp_path / "nested"
    nested.mkdir()
    (nested / "audit.json").write_text("[" * 1_000_000 + "]" * 1_000_000)
    for folder in (big, nested):
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-c", "from gm.cli import main; main()", "audit", str(folder)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 3, done.stderr
        assert time.monotonic() - began < 30
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 < 2**30
