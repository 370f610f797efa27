"""A player's password: issued as words, kept as a salted, slow hash (docs/rules/, Order mail), checked
once per process."""

from __future__ import annotations

import hashlib
import secrets
import threading
from functools import lru_cache

from .password_words import WORDS

# scrypt cost: 2**13 takes ~30 ms here, so starting 500 players costs ~15 s once. Guessing
# is bounded by the words, not by this cost: 48 bits and more, and at most 100 failed
# checks per player a day (gm.campaign.desk.trust), leave a guesser no chance.
SCRYPT = {"n": 2**13, "r": 8, "p": 1}
# An issued password: this many words of PASSWORD_WORDS, joined by "-" (docs/rules/,
# "Passwords and RESET": at least 48 bits)
PASSWORD_LENGTH = 5
PASSWORD_WORDS = WORDS


class _Runs:
    """How many scrypt hashes this process has computed (hash_password), so a test or a
    benchmark can tell the work a batch of mail cost without replacing anything. Counted
    under a lock: Desk.check_passwords_ahead hashes on several threads at once."""

    count = 0
    lock = threading.Lock()


def scrypt_runs() -> int:
    """The number of scrypt hashes computed so far in this process."""
    return _Runs.count


def hash_password(password: str, *, salt: bytes | None = None, n: int | None = None) -> str:
    """`scrypt:N:r:p$<salt hex>$<hash hex>`: salted and slow, never reversible; the cost is
    stored with the hash so it can be raised later without locking anyone out."""
    salt = salt or secrets.token_bytes(16)
    with _Runs.lock:
        _Runs.count += 1
    n, r, p = n or SCRYPT["n"], SCRYPT["r"], SCRYPT["p"]
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"scrypt:{n}:{r}:{p}${salt.hex()}${digest.hex()}"


@lru_cache(maxsize=4096)
def check_password(password: str, stored: str | None) -> bool:
    """Whether `password` matches the stored hash. Remembered for the process, so a batch
    of mail from one player, or the demo's many turns, pays for scrypt once per player."""
    try:
        params, salt_hex, _ = (stored or "").split("$")
        kind, n, r, p = params.split(":")
        if kind != "scrypt" or (int(r), int(p)) != (SCRYPT["r"], SCRYPT["p"]):
            raise ValueError(params)
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        # still pay for one hash, so a wrong player id costs as long as a wrong password
        hash_password(password, salt=b"\0" * 16)
        return False
    return secrets.compare_digest(hash_password(password, salt=salt, n=int(n)), stored)


def issue_password() -> str:
    """Five common words joined by "-": easy to read and to type on a phone, and 51.9 bits
    (each word drawn alike and on its own from 1,329), so guessing by mail cannot succeed."""
    return "-".join(secrets.choice(PASSWORD_WORDS) for _ in range(PASSWORD_LENGTH))
