"""Commitments (RULES.md 5, CONTRACT.md): published at the start, checkable by anyone at
the end. A commitment binds the GM to a board or seed without showing it."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_salt() -> str:
    """32 lowercase hex digits from a cryptographic source."""
    return secrets.token_hex(16)


def commitment(salt: str, canonical_text: str) -> str:
    return hashlib.sha256((salt + "\n" + canonical_text).encode("utf-8")).hexdigest()


def seed_text(seed: int) -> str:
    """The seed's canonical text: the seed as a decimal integer."""
    return str(int(seed))


def matches(expected: str, salt: str, canonical_text: str) -> bool:
    return hmac.compare_digest(expected.strip().lower(), commitment(salt, canonical_text))
