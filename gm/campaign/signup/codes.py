"""Sign-up's confirmation codes (docs/rules/, Joining by mail): made from the request's message row and its
sender with the campaign's key, so only gm can make one, only the sender's mailbox receives
it, and nothing is kept for a JOIN nobody confirms."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

# 8 of 32 symbols (no 0, O, 1 or I, which are read for each other): 40 bits, typed on a
# phone in two groups of four
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 8



def campaign_key(store: Any) -> bytes:
    row = store.one("select key from signup_key")
    assert row is not None, "the signup migration makes the key"
    return bytes.fromhex(row["key"])


def code_for(key: bytes, message: int, sender: str, salt: int = 0) -> str:
    """The confirmation code of the request that message `message` from `sender` made:
    only gm can make it, and only the sender's mailbox receives it. `salt` is nonzero only
    where the plain code was already another game's of the same judge (gm.campaign.signup.unique)."""
    text = f"{message}:{sender}" + (f":{salt}" if salt else "")
    digest = hmac.new(key, text.encode(), hashlib.sha256).digest()
    number = int.from_bytes(digest[:5], "big")
    return "".join(CODE_ALPHABET[(number >> (5 * i)) & 31] for i in range(CODE_LENGTH))


def shown_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def matching_request(store: Any, key: bytes, sender: str, code: str) -> dict[str, Any] | None:
    """The JOIN or LEAVE message from `sender` whose code `code` is, if any."""
    for row in store.rows("select id, outcome from messages where sender = ? and outcome in ('join', 'leave') "
                          "order by id desc", (sender,)):
        if hmac.compare_digest(code_for(key, row["id"], sender, salt_of(store, row["id"])), code):
            return row
    return None


def salt_of(store: Any, message: int) -> int:
    """The salt the code of `message` was made with: 0 unless it was made unique in a judge."""
    if store.one("select 1 x from sqlite_master where name = 'signup_code_salts'") is None:
        return 0
    row = store.one("select salt from signup_code_salts where message = ?", (message,))
    return row["salt"] if row else 0
