"""docs/audit.md, What the GM cannot choose (Players' entropy), and docs/rules/<ruleset>.md,
Fairness: players' ENTROPY words are mixed into the seed of every draw from turn 1 on, in every
ruleset; the GM's seed alone no longer decides the game, and the audit replays the mixed seed."""

from __future__ import annotations

import email
import email.policy
import hashlib
import json
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gm.audit.replay import audit, load_record
from gm.cli import cli
from gm.rules.entropy import draw_seed, entropy_hash, kept_words, mixed_seed

BOARDS = Path(__file__).resolve().parent.parent / "boards"
NAMES = {"ann": "Ann", "bob": "Bob", "cat": "Cat"}
START = datetime(2027, 1, 1, tzinfo=UTC)
SEED = 2**128 + 5


def _campaign(folder: Path, ruleset: str) -> None:
    folder.mkdir()
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "fair", "title": "Fair", "ruleset": ruleset, "seed": SEED, "first_deadline": "2027-01-08T18:00:00Z",
        "boards": {"A": str(BOARDS / "milton-bradley.yaml")},
        "players": [{"id": p, "name": n, "email": f"{p}@example.org", "password": f"pw-{p}"} for p, n in NAMES.items()],
    }))


def _gm(folder: Path, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, ["-C", str(folder), *args], env={"GM_NOW": START.isoformat()})
    assert result.exit_code == code, result.output
    return result.output


def _write(folder: Path, player: str, body: str, n: int) -> None:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"{player}@example.org", "gm@example.org", "orders"
    mail["Message-ID"] = f"<{n}-{player}@example.org>"
    mail.set_content(f"PLAYER {player}\nPASSWORD pw-{player}\n{body}\n")
    (folder / "mail" / "inbox" / "new" / f"{n}-{player}.eml").write_bytes(bytes(mail))
    _gm(folder, "ingest")


def _texts(folder: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted((folder / "mail" / "outbox" / "new").iterdir()):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        found.append((str(message["Subject"]), message.get_body(("plain",)).get_content()))
    return found


def test_mixed_seed_is_the_gm_seed_without_contributions_and_sorted_by_id():
    assert mixed_seed(SEED, {}) == SEED
    text = f"{SEED}\nann:{hashlib.sha256(b'red fox').hexdigest()}\nbob:{hashlib.sha256(b'x').hexdigest()}"
    assert mixed_seed(SEED, {"bob": "x", "ann": "red   fox "}) == int(hashlib.sha256(text.encode()).hexdigest(), 16)
    assert draw_seed(SEED, 0, {"ann": "x"}) == SEED and draw_seed(SEED, 1, {"ann": "x"}) != SEED
    assert kept_words("  a \t b  ") == "a b" and entropy_hash(" a  b") == hashlib.sha256(b"a b").hexdigest()


@pytest.mark.parametrize("ruleset", ["postal", "classic", "doubles"])
def test_fairness_entropy_changes_the_draws_and_the_audit_replays_them(tmp_path, ruleset):
    """docs/rules/<ruleset>.md, Fairness: with a player's ENTROPY the game differs from the
    one the GM's seed alone gives, and the record (entropy kept) audits with and without mail."""
    outcomes = {}
    for words in (None, "purple walrus juggles"):
        folder = tmp_path / f"{ruleset}-{bool(words)}"
        _campaign(folder, ruleset)
        _gm(folder, "start")
        _gm(folder, "send")
        welcome = next(text for subject, text in _texts(folder) if "Welcome" in subject)
        assert "ENTROPY " in welcome
        if words:
            _write(folder, "bob", f"ENTROPY {words}", 1)
        _gm(folder, "resolve", "--force")
        _gm(folder, "send")
        state = json.loads(_gm(folder, "state", "--json"))
        outcomes[words] = json.dumps(state, sort_keys=True)
        if words:
            report = [text for subject, text in _texts(folder) if "Welcome" not in subject and "accepted" not in subject]
            assert any(f"bob: {entropy_hash(words)}" in text for text in report)
            while not state.get("over"):
                _gm(folder, "resolve", "--force")
                state = json.loads(_gm(folder, "state", "--json"))
            _gm(folder, "reveal")
            _gm(folder, "publish")
            record = load_record(str(folder / "archive"))
            assert record["format"] == "gm-audit/3" and record["entropy"] == {"bob": words}
            assert audit(record).draws > 0
            _gm(folder, "audit", str(folder / "archive"), "--mail", str(folder / "mail" / "outbox"))
    assert outcomes[None] != outcomes["purple walrus juggles"]


def test_entropy_is_refused_after_the_first_resolve(tmp_path):
    folder = tmp_path / "late"
    _campaign(folder, "postal")
    _gm(folder, "start")
    _gm(folder, "resolve", "--force")
    _write(folder, "ann", "ENTROPY too late now", 1)
    _gm(folder, "send")
    refusal = [text for subject, text in _texts(folder) if "refused" in subject.lower() or "not" in subject.lower()]
    assert any("only before the first turn is resolved" in " ".join(t.split()) for t in refusal)


def test_entropy_of_more_than_200_characters_is_refused_and_a_later_one_replaces_it(tmp_path):
    folder = tmp_path / "long"
    _campaign(folder, "classic")
    _gm(folder, "start")
    _write(folder, "ann", "ENTROPY " + "x" * 201, 1)
    _write(folder, "ann", "ENTROPY first   words", 2)
    _write(folder, "ann", "ENTROPY second words", 3)
    _gm(folder, "send")
    texts = [" ".join(text.split()) for subject, text in _texts(folder)]
    assert any("ENTROPY needs 1 to 200 characters of words; this one has 201" in t for t in texts)
    _gm(folder, "resolve", "--force")
    state = json.loads(_gm(folder, "state", "--json"))
    assert state["turn"] == 2
    _gm(folder, "send")
    reports = [text for subject, text in _texts(folder) if "report" in subject.lower()]
    assert any(f"ann: {entropy_hash('second words')}" in text for text in reports)
    assert not any(entropy_hash("first words") in text for text in reports)
