"""docs/audit.md's proof formulas, each recomputed here from its text with hashlib alone, as
an auditor in another language would: canonical JSON (RFC 8785, whole numbers of 2^53 or
more as strings), salts from the seed, the game commitment, receipts and the record chain."""

from __future__ import annotations

import hashlib

import pytest

from gm.commitment import (
    canonical_json,
    derived_salt,
    game_commitment,
    game_text,
    receipt,
    record_hash,
)

SEED = 2**130 + 7


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_5_canonical_json_sorts_keys_writes_no_space_and_big_numbers_as_strings():
    assert canonical_json({"b": 1, "a": [True, None, "é"], "n": 2**53, "m": 2**53 - 1}) == \
        '{"a":[true,null,"é"],"b":1,"m":9007199254740991,"n":"9007199254740992"}'
    assert canonical_json({"x": -(2**60)}) == '{"x":"-1152921504606846976"}'


def test_5_canonical_json_sorts_keys_by_utf16_code_units():
    """U+FB01 sorts after an astral character in UTF-16 (surrogates D800-DFFF < FB01) though
    not by code point: RFC 8785 says UTF-16."""
    assert canonical_json({"\ufb01": 1, "\U0001f600": 2}) == '{"\U0001f600":2,"\ufb01":1}'


def test_5_canonical_json_refuses_what_has_no_canonical_form():
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})
    with pytest.raises(TypeError):
        canonical_json({"x": {1, 2}})


def test_5_a_salt_is_the_first_32_hex_digits_of_the_seed_formula():
    assert derived_salt(SEED, 3, "receipt", "ada/2") == sha(f"{SEED}:3:receipt:ada/2")[:32]


def test_5_the_game_commitment_hashes_the_canonical_game_text():
    game = game_text("spring", "postal", "gm 1.0", {"nmr": "random"}, ["bob", "ada"], {"bob": {}},
                     {"A": "a" * 64}, "b" * 64)
    text = ('{"boards":{"A":"' + "a" * 64 + '"},"campaign":"spring","format":"gm-game/1",'
            '"options":{"nmr":"random"},"player_keys":{"bob":{}},"ruleset":"postal",'
            '"ruleset_version":"gm 1.0","seats":["bob","ada"],"seed":"' + "b" * 64 + '"}')
    assert game_commitment(game) == sha(text)


def test_5_a_receipt_salts_the_turn_player_and_order():
    order = {"number": 4, "trapdoors": {}}
    salt = sha(f"{SEED}:2:receipt:ada/3")[:32]
    text = '{"order":{"number":4,"trapdoors":{}},"player":"ada","turn":2}'
    assert receipt(SEED, 2, "ada", 3, order) == sha(salt + "\n" + text)


def test_5_each_record_hash_chains_to_the_one_before():
    salt = sha(f"{SEED}:1:record:chain")[:32]
    text = '{"draws":[],"receipts":{"ada":null,"bob":"' + "c" * 64 + '"},"state":{"turn":2},"turn":1}'
    first = record_hash(SEED, "g" * 64, 1, {"bob": "c" * 64, "ada": None}, [], {"turn": 2})
    assert first == sha("g" * 64 + "\n" + salt + "\n" + text)
    assert record_hash(SEED, first, 1, {"bob": "c" * 64, "ada": None}, [], {"turn": 2}) != first
