"""docs/audit.md, Players' entropy: what the GM cannot choose. Each attack of a dishonest GM
replayed and caught: the outcome chosen in advance, an acknowledged order erased by a claimed
drop, an acknowledgement backdated, the end's reason rewritten, and loose records."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from auditforger import gm_audit, tampered

from gm.audit.checks import Difference
from gm.audit.mail import Ack, Mailed, check_mail
from gm.audit.source import AUDIT_FILE
from gm.demo import run as demo_run

WHEN = datetime(2027, 1, 5, tzinfo=UTC)


@pytest.fixture(scope="module")
def postal(tmp_path_factory) -> Path:
    """The postal demo, played to the end and revealed (its robots send ENTROPY)."""
    base = tmp_path_factory.mktemp("fair")
    demo_run.play(base / "postal", ruleset="postal", echo=lambda line: None)
    return base / "postal"


def test_players_entropy_the_demo_record_holds_the_robots_words_and_audits_with_and_without_mail(postal):
    record = json.loads((postal / "archive" / AUDIT_FILE).read_text())
    assert record["format"] == "gm-audit/3" and record["entropy"]
    assert gm_audit(postal / "archive").exit_code == 0
    assert gm_audit(postal / "archive", "--mail", postal / "mail" / "outbox").exit_code == 0


def test_players_entropy_a_contribution_left_out_changes_every_draw_from_turn_1(postal, tmp_path):
    """The seed chosen in advance: a GM who plays with their own seed alone (dropping the
    players' words from the record) is caught by the draws."""
    archive = tampered(postal / "archive", tmp_path, lambda record: record.update(entropy={}))
    result = gm_audit(archive)
    assert result.exit_code == 1, result.output


def test_the_ends_link_a_reason_rewritten_after_the_fact_is_caught(postal, tmp_path):
    def rewrite(record):
        record["end"]["reason"] = "ann was caught cheating"
    result = gm_audit(tampered(postal / "archive", tmp_path, rewrite))
    assert result.exit_code == 1 and "the chain's last link" in result.output


def test_the_ends_link_is_the_final_mails_record_hash(postal):
    record = json.loads((postal / "archive" / AUDIT_FILE).read_text())
    finals = [p.read_text(errors="replace") for p in (postal / "mail" / "outbox" / "new").iterdir()]
    assert record["end"]["record_hash"] and any(record["end"]["record_hash"] in text for text in finals)


@pytest.mark.parametrize("change, key, code", [
    (lambda r: r["end"].update(reason=42), "end.reason", 1),
    (lambda r: r["player_keys"].update(nobody={"team": "x"}), "player_keys.nobody", 1),
    (lambda r: r["options"].pop(sorted(r["options"])[0]), "options.", 1),
    (lambda r: r["options"].update(max_turns=10**90), "options.max_turns", 1),
    (lambda r: r["seed"].update(value="7" * 200_000), "seed.value", 3),
    (lambda r: r["seed"].update(value="0" + r["seed"]["value"]), "seed.value", 3),
], ids=["reason_42", "player_keys_non_player", "option_missing", "max_turns_10_90", "seed_200000_digits",
        "seed_leading_zero"])
def test_a_record_of_the_wrong_shape_is_refused_naming_its_key(postal, tmp_path, change, key, code):
    result = gm_audit(tampered(postal / "archive", tmp_path, change))
    assert result.exit_code == code and key in result.output, result.output
    assert "Traceback" not in result.output


def _replayed(receipts, dropped=()):
    entry = {"players": ["ann", "bob"], "receipts": receipts, "dropped": list(dropped), "record_hash": "h"}
    seats = SimpleNamespace(later=lambda one, other: False, seat_of=lambda p: None)
    return SimpleNamespace(game_commitment=None, entries={1: entry}, seats=seats, last_turn=1, format="gm-audit/3")


def test_acknowledged_means_played_the_highest_k_is_the_last_whatever_its_date():
    """Backdating: the GM plays bob's superseded order #1 and writes an earlier Date on #2."""
    mailed = Mailed(acks=[Ack(1, "bob", 1, "r1", WHEN.replace(day=6), "one"),
                          Ack(1, "bob", 2, "r2", WHEN.replace(day=4), "two")])
    found = check_mail(_replayed({"ann": None, "bob": {"player": "bob", "count": 1, "receipt": "r1"}}), mailed)
    assert isinstance(found, Difference) and found.expected == "r2"


def test_acknowledged_means_played_an_order_of_a_player_claimed_dropped_is_a_difference():
    """A claimed drop: the record says bob had left in turn 1; his acknowledged order is not played."""
    mailed = Mailed(acks=[Ack(1, "bob", 1, "r1", WHEN, "one")])
    found = check_mail(_replayed({"ann": None, "bob": None}, dropped=["bob"]), mailed)
    assert isinstance(found, Difference) and "had left" in found.what


def test_two_acknowledgements_of_one_message_must_agree():
    mailed = Mailed(acks=[Ack(1, "bob", 1, "r1", WHEN, "one"), Ack(1, "bob", 1, "rX", WHEN, "two")])
    found = check_mail(_replayed({"ann": None, "bob": {"player": "bob", "count": 1, "receipt": "r1"}}), mailed)
    assert isinstance(found, Difference) and "one message" in found.what
