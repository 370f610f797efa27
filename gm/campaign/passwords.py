"""A player's password: issued as words, kept as a salted, slow hash (RULES.md 3), checked
once per process."""

from __future__ import annotations

import hashlib
import secrets
from functools import lru_cache

# scrypt cost: 2**13 takes ~30 ms here, so starting 500 players costs ~15 s once; issued
# passwords carry ~2**28 choices, so this is plenty against guessing.
SCRYPT = {"n": 2**13, "r": 8, "p": 1}
PASSWORD_WORDS = (
    "amber", "basil", "cedar", "delta", "ember", "fable", "glade", "hazel", "ivory", "jolly",
    "koala", "lemon", "maple", "noble", "ocean", "pearl", "quill", "raven", "sable", "tulip",
    "umber", "vivid", "willow", "xenon", "yodel", "zesty", "acorn", "brook", "coral", "dune",
    "eagle", "flint", "grove", "heron", "inlet", "juniper", "kelp", "lotus", "moss", "nectar",
    "otter", "pine", "quartz", "reef", "stone", "thistle", "upland", "violet", "wren", "yarrow",
)


def hash_password(password: str, *, salt: bytes | None = None, n: int | None = None) -> str:
    """`scrypt:N:r:p$<salt hex>$<hash hex>`: salted and slow, never reversible; the cost is
    stored with the hash so it can be raised later without locking anyone out."""
    salt = salt or secrets.token_bytes(16)
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
    """Three words and two digits: easy to type on a phone, about 2**28 guesses."""
    words = [secrets.choice(PASSWORD_WORDS) for _ in range(3)]
    return "-".join(words) + f"-{secrets.randbelow(100):02d}"
