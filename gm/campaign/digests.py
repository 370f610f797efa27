"""Digests of what a campaign stores: a message's body (the desk's test for a message
already seen) and a turn's record (what the archive derives a turn from). Below the
store, whose migrations fill them in for rows stored before."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any


def body_digest(raw: bytes) -> str:
    """sha256 of a raw message's body (what follows the header block, or the whole of a
    message without one; line ends made LF). The same mail delivered twice has the same
    digest whatever headers servers added on the way (docs/rules/, Order mail: the desk's test for a
    message already seen)."""
    raw = raw.replace(b"\r\n", b"\n")
    end = raw.find(b"\n\n")
    return hashlib.sha256(raw[end + 2 :] if end >= 0 else raw).hexdigest()


def record_digest(turn: Mapping[str, Any]) -> str:
    """The SHA-256 of a stored turn's states and events: what the archive derives it from."""
    hasher = hashlib.sha256()
    for key in ("state_before", "state_after", "events"):
        data = turn[key].encode("utf-8")
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()
