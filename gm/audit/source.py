"""Reading an audit record without trusting it: the auditor is a player on their
own machine and the record comes from the GM, so the read is bounded before anything is
built. Only http(s) is fetched, a redirect to any other scheme is refused, the whole
download has one deadline and a size cap, and the JSON is refused before it is parsed
when it would take more memory than a small multiple of its size (a record of a million
`{}` costs some 70 bytes of memory per 3 bytes of text), nests deeper than any record
does, or holds a number no record holds. Every such refusal is `RecordUnreadable`: `gm
audit` exits 3 for it, never 1, which is a finding about the game."""

from __future__ import annotations

import json
import math
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from ..errors import GmError

__all__ = ["AUDIT_FILE", "MAX_RECORD_BYTES", "RecordMalformed", "RecordRefused", "RecordUnreadable", "fetch", "parse"]

AUDIT_FILE = "audit.json"
FORMAT = "gm-audit/3"  # the record gm writes now, which docs/audit.md's strict rules hold to
MAX_RECORD_BYTES = 64 * 2**20  # 2,000 players on three boards for 50 turns write about 30 MiB
MEMORY_BUDGET = 768 * 2**20  # what the parsed record may take: with the replay, well under 1 GiB
DOWNLOAD_SECONDS = 60  # the whole download, however slowly the server sends
MAX_DEPTH = 32  # a record nests 9 deep at most
MAX_DIGITS = 100  # a 256-bit seed has 78


class RecordUnreadable(GmError):
    """The record could not be checked at all: unreadable, over a limit, or from an unsafe
    source. Not a finding against the game (exit 3, not 1)."""

    exit_code = 3


class RecordMalformed(GmError):
    """The record is not of docs/audit.md's shape (a key missing, a value of another type):
    it cannot be replayed at all, so it cannot be checked (exit 3), named by its key."""

    exit_code = 3


class RecordRefused(RecordMalformed):
    """A gm-audit/3 record of the wrong shape (docs/audit.md, A record of the wrong shape):
    a finding against the GM who wrote it (exit 1), named by its key."""

    exit_code = 1


def fetch(source: str) -> bytes:
    """The bytes of the audit record at `source`: a folder (or its index.html), an
    audit.json file, or an http(s) address of the archive."""
    parsed = urllib.parse.urlparse(source)
    if parsed.scheme in ("http", "https"):
        url = source if source.endswith(".json") else urllib.parse.urljoin(source.rstrip("/") + "/", AUDIT_FILE)
        return _download(url)
    if parsed.scheme and len(parsed.scheme) > 1:  # "c:" is a Windows drive, not a scheme
        raise RecordUnreadable(f"{source}: only http and https addresses are read")
    path = Path(source)
    if path.is_dir():
        path = path / AUDIT_FILE
    elif path.name.endswith(".html"):
        path = path.with_name(AUDIT_FILE)
    if not path.is_file():
        raise RecordUnreadable(f"{path}: no audit record: the archive publishes {AUDIT_FILE} once the campaign is "
                               "revealed (gm reveal, then gm publish)")
    with path.open("rb") as stream:
        return _capped(stream.read(MAX_RECORD_BYTES + 1))


def _capped(data: bytes) -> bytes:
    if len(data) > MAX_RECORD_BYTES:
        raise RecordUnreadable(f"the audit record is larger than {MAX_RECORD_BYTES // 2**20} MiB")
    return data


class _HttpOnly(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to another http(s) address (urllib would follow ftp too)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 - urllib's signature
        if urllib.parse.urlparse(newurl).scheme not in ("http", "https"):
            raise RecordUnreadable(f"{req.full_url} redirects to {newurl}: only http and https addresses are read")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _download(url: str) -> bytes:
    """The body at `url`, within DOWNLOAD_SECONDS in all and MAX_RECORD_BYTES. A socket
    timeout bounds each read only, so a server sending a byte every few seconds would
    never be cut off: the download runs in a thread the deadline abandons."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            opener = urllib.request.build_opener(_HttpOnly)
            with opener.open(url, timeout=DOWNLOAD_SECONDS) as response:
                outcome["data"] = response.read(MAX_RECORD_BYTES + 1)
        except RecordUnreadable as error:
            outcome["error"] = error
        except (OSError, ValueError) as error:  # URLError and HTTPError are OSErrors
            outcome["error"] = RecordUnreadable(f"cannot read {url}: {getattr(error, 'reason', error)}")

    worker = threading.Thread(target=run, name="audit-download", daemon=True)
    worker.start()
    worker.join(DOWNLOAD_SECONDS)
    if worker.is_alive():
        raise RecordUnreadable(f"cannot read {url}: the download took longer than {DOWNLOAD_SECONDS} s")
    if "error" in outcome:
        raise outcome["error"]
    return _capped(outcome["data"])


def parse(data: bytes) -> Any:
    """The JSON of `data`, refused (RecordUnreadable) when it would be too costly to hold or
    holds what no record holds: nesting past MAX_DEPTH, numbers past MAX_DIGITS digits,
    non-finite numbers."""
    need = memory_estimate(data)
    if need > MEMORY_BUDGET:
        raise RecordUnreadable(f"the audit record would take about {need // 2**20} MiB of memory to read "
                               f"(at most {MEMORY_BUDGET // 2**20} MiB): it holds too many values for its size")
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_int=_whole, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise RecordUnreadable(f"the audit record nests more than {MAX_DEPTH} deep") from None
    except RecordUnreadable:
        raise
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise RecordUnreadable(f"the audit record is not JSON: {error}") from None
    if depth(value) > MAX_DEPTH:
        raise RecordUnreadable(f"the audit record nests more than {MAX_DEPTH} deep")
    return value


def memory_estimate(data: bytes) -> int:
    """An upper bound of what json.loads makes of `data`, from counts taken at C speed:
    each object, array, value and string costs its Python object and a slot."""
    return (2 * len(data) + 240 * data.count(b"{") + 120 * data.count(b"[")
            + 48 * (data.count(b",") + data.count(b":")) + 32 * data.count(b'"'))


def depth(value: Any) -> int:
    """How deep `value` nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        stack.extend((child, level + 1) for child in children)
    return deepest


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise RecordUnreadable(f"the audit record holds a number of more than {MAX_DIGITS} digits")
    return int(text)


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise RecordUnreadable(f"the audit record holds a number out of range: {text[:40]}")
    return number


def _no_constant(text: str) -> Any:
    raise RecordUnreadable(f"the audit record holds {text}, which is not a JSON number")
