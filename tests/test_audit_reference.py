"""docs/audit.md alone suffices for a second, independent checker.

tests/audit_reference.py was written from the page without reading gm's code. Here it
and `gm audit` judge the same records: every ruleset's demo, with and without the players'
mail, a campaign whose seats change hands, and records a forger changed (recomputing
every hash a forger can): both must accept what is right and both reject what is not.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from audit_reference import canonical, check, salt_of, sha
from campaignkit import PLAIN_PLAYERS, CampaignKit, KitPlayer
from click.testing import CliRunner

from gm.cli import cli as gm_cli

RULESETS = ("postal", "classic", "doubles", "advanced", "unleashed")
GOLDEN = Path(__file__).resolve().parent / "data" / "golden" / "archive"


def gm(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(gm_cli, [str(arg) for arg in args], catch_exceptions=False)
    return result.exit_code, result.output


def gm_audit(record: Path, mail: Path | None = None) -> tuple[int, str]:
    return gm("audit", record, *(["--mail", mail] if mail else []))


@dataclass
class Demo:
    ruleset: str
    folder: Path

    @property
    def archive(self) -> Path:
        return self.folder / "archive"

    @property
    def mail(self) -> Path:
        return self.folder / "mail" / "outbox"

    def record(self) -> dict[str, Any]:
        return json.loads((self.archive / "audit.json").read_text(encoding="utf-8"))


class Demos:
    """Each ruleset's demo, played at most once per module: they take seconds each."""

    def __init__(self, root: Path):
        self.root, self.played = root, {}

    def __call__(self, ruleset: str) -> Demo:
        if ruleset not in self.played:
            folder = self.root / ruleset
            code, output = gm("demo", folder, "--ruleset", ruleset, "--quiet")
            assert code == 0, output
            if not (folder / "archive" / "audit.json").exists():
                for command in ("reveal", "publish"):
                    code, output = gm("-C", folder, command)
                    assert code == 0, output
            self.played[ruleset] = Demo(ruleset, folder)
        return self.played[ruleset]


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Demos:
    return Demos(tmp_path_factory.mktemp("demos"))


def write(record: dict[str, Any], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "audit.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def rechain(record: dict[str, Any]) -> dict[str, Any]:
    """Recompute every record hash, as a forger who changed a turn would."""
    seed, previous = int(record["seed"]["value"]), record["game"]["commitment"]
    for turn in record["turns"]:
        flat = {p: r and r["receipt"] for p, r in turn["receipts"].items()}
        text = canonical({"turn": turn["turn"], "receipts": flat, "draws": turn["draws"],
                          "state": turn["state"]})
        previous = sha(f"{previous}\n{salt_of(seed, turn['turn'], 'record', 'chain')}\n{text}")
        turn["record_hash"] = previous
    end = record.get("end")
    if record["format"] == "gm-audit/3" and isinstance(end, dict):  # docs/audit.md, The end's link
        text = canonical({"end": {"by": end["by"], "turn": end["turn"], "reason": end["reason"]}})
        end["record_hash"] = sha(f"{previous}\n{salt_of(seed, end['turn'], 'record', 'end')}\n{text}")
    return record


def flip(hex_text: str) -> str:
    return ("1" if hex_text[0] == "0" else "0") + hex_text[1:]


# ---------------------------------------------------------------- the forgeries


def change_a_receipt(record: dict[str, Any]) -> dict[str, Any]:
    turn = next(t for t in record["turns"] if any(t["receipts"].values()))
    receipt = next(r for r in turn["receipts"].values() if r)
    receipt["receipt"] = flip(receipt["receipt"])
    return rechain(record)


def change_a_record_hash(record: dict[str, Any]) -> dict[str, Any]:
    turn = record["turns"][len(record["turns"]) // 2]
    turn["record_hash"] = flip(turn["record_hash"])
    return record


def change_a_draw_index(record: dict[str, Any]) -> dict[str, Any]:
    draws = [d for t in record["turns"] for d in t["draws"]] + record["opening"]["draws"]
    draw = next(d for d in draws if len(d["candidates"]) > 1)
    draw["index"] = (draw["index"] + 1) % len(draw["candidates"])
    return rechain(record)


def change_an_option(record: dict[str, Any]) -> dict[str, Any]:
    record["options"]["max_turns"] += 1
    return record


def drop_the_last_turn(record: dict[str, Any]) -> dict[str, Any]:
    record["turns"].pop()
    return record


def null_a_board_commitment(record: dict[str, Any]) -> dict[str, Any]:
    board = record["boards"][0]
    # Unleashed's default board has none already, made from the seed: deny that instead.
    board["commitment"], board["from_seed"] = None, False
    return record


def edit_nmr(record: dict[str, Any]) -> dict[str, Any]:
    turn = next(t for t in record["turns"] if t["orders"])
    writer = next(p for p in turn["players"] if p in turn["orders"])
    turn["nmr"] = [p for p in turn["players"] if p in turn["nmr"] or p == writer]
    return record


FORGERIES: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = {
    "receipt": (change_a_receipt, "receipt"),
    "record_hash": (change_a_record_hash, "record hash"),
    "draw_index": (change_a_draw_index, "the seed gives index"),
    "option": (change_an_option, "the game text's options"),
    "last_turn": (drop_the_last_turn, "the record stops at turn"),
    "board_commitment": (null_a_board_commitment, "no commitment"),
    "nmr": (edit_nmr, "nmr"),
}


def recommit_the_game(record: dict[str, Any]) -> dict[str, Any]:
    """A GM who changed an option after the start and remade every hash after it."""
    game = json.loads(record["game"]["text"])
    game["options"]["max_turns"] += 1
    record["options"]["max_turns"] += 1
    record["game"]["text"] = canonical(game)
    record["game"]["commitment"] = sha(record["game"]["text"])
    return rechain(record)


# ---------------------------------------------------------------- the page's own example


def test_worked_example_of_the_receipt_and_record_hash_on_the_golden_archive():
    """docs/audit.md's worked example: alice's turn-1 receipt and turn 1's record hash. The
    game text names gm's release, so a new release changes the game commitment and every
    record hash: the page's example is updated with the golden archive."""
    record = json.loads((GOLDEN / "audit.json").read_text(encoding="utf-8"))
    assert record["game"]["commitment"] == (
        "1966b6c9a5efcbf545b51d1e216d786ff54b6fe622a868b4cb2a449cfdbeb50f")
    assert salt_of(20270321, 1, "receipt", "alice/1") == "9c4718c50b0b6d11da1c29f7ab29a600"
    assert salt_of(20270321, 1, "record", "chain") == "2e66595bbe0a6b014dd7a34da6be90b7"
    turn = record["turns"][0]
    assert turn["orders"]["alice"] == {"numbers": {"*": 1}, "trapdoors": {}}
    assert turn["receipts"]["alice"]["receipt"] == (
        "66aa6107884993deae1ad7a386fd3053fa41f75788b06a72fe9aaf7e73a6a8c8")
    assert turn["record_hash"] == (
        "160dfb8b6eb3283c94ae6f02cd16f1705b2f0ea94384ca11f7a2c1b318e730e2")
    verdict = check(GOLDEN)
    assert verdict.ok, verdict.reason
    assert gm_audit(GOLDEN)[0] == 0


def test_canonical_json_sorts_by_utf16_and_writes_big_numbers_as_strings():
    """The page's canonical JSON: RFC 8785 key order, no white space, 2^53 as a string."""
    assert canonical({"b": 1, "a": [True, None], "\U0001f600": 0, "\uffff": 0}) == (
        '{"a":[true,null],"b":1,"\U0001f600":0,"\uffff":0}')
    assert canonical({"n": 2**53, "m": 2**53 - 1}) == '{"m":9007199254740991,"n":"9007199254740992"}'
    assert canonical("é\n\u2028") == '"é\\n\u2028"'


# ---------------------------------------------------------------- every ruleset's demo


@pytest.mark.parametrize("ruleset", RULESETS)
def test_demo_record_and_mail_pass_both_checkers(demos: Demos, ruleset: str):
    demo = demos(ruleset)
    alone = check(demo.archive)
    assert alone.ok, alone.reason
    assert "orders not checked against any receipt" in alone.not_checked
    assert "the game announced not checked" in alone.not_checked
    with_mail = check(demo.archive, [demo.mail])
    assert with_mail.ok, with_mail.reason
    assert "orders not checked against any receipt" not in with_mail.not_checked
    code, output = gm_audit(demo.archive)
    assert code == 0, output
    code, output = gm_audit(demo.archive, demo.mail)
    assert code == 0, output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_demo_game_commitment_given_is_held_by_both(demos: Demos, ruleset: str):
    demo = demos(ruleset)
    announced = demo.record()["game"]["commitment"]
    assert check(demo.archive, game_commitment=announced).ok
    other = flip(announced)
    verdict = check(demo.archive, game_commitment=other)
    assert verdict.status == "fail" and other in verdict.reason
    assert gm("audit", demo.archive, "--game-commitment", announced)[0] == 0
    assert gm("audit", demo.archive, "--game-commitment", other)[0] == 1


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
@pytest.mark.parametrize("ruleset", RULESETS)
def test_forged_record_is_rejected_by_both(demos: Demos, ruleset: str, forgery: str,
                                           tmp_path: Path):
    forge, reason = FORGERIES[forgery]
    path = write(forge(copy.deepcopy(demos(ruleset).record())), tmp_path)
    verdict = check(path)
    assert verdict.status == "fail", verdict
    assert reason in verdict.reason
    code, output = gm_audit(path)
    assert code == 1, output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_game_recommitted_is_caught_only_with_the_mail_by_both(demos: Demos, ruleset: str,
                                                               tmp_path: Path):
    """The record is consistent with itself; only X-GM-Game in the mail shows the change."""
    demo = demos(ruleset)
    path = write(recommit_the_game(copy.deepcopy(demo.record())), tmp_path)
    alone = check(path)
    assert alone.ok, alone.reason
    assert gm_audit(path)[0] == 0
    with_mail = check(path, [demo.mail])
    assert with_mail.status == "fail" and "X-GM-Game" in with_mail.reason
    assert gm_audit(path, demo.mail)[0] == 1


def played_receipts(record: dict[str, Any]) -> set[str]:
    return {r["receipt"] for t in record["turns"] for r in t["receipts"].values() if r}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_mail_acknowledging_another_order_is_rejected_by_both(demos: Demos, ruleset: str,
                                                              tmp_path: Path):
    """A player's last acknowledgement names a receipt the record does not play."""
    demo = demos(ruleset)
    mail = tmp_path / "mail"
    shutil.copytree(demo.mail, mail)
    played = played_receipts(demo.record())
    for path in sorted(mail.rglob("*")):
        if not path.is_file():
            continue
        raw = path.read_bytes()
        found = re.search(rb"receipt=([0-9a-f]{64})", raw)
        if found and found.group(1).decode() in played:
            path.write_bytes(raw.replace(found.group(1), flip(found.group(1).decode()).encode()))
            break
    else:
        pytest.fail("no acknowledgement of a played order in the demo's mail")
    verdict = check(demo.archive, [mail])
    assert verdict.status == "fail" and "last acknowledgement" in verdict.reason
    assert gm_audit(demo.archive, mail)[0] == 1


# ---------------------------------------------------------------- seats that change hands


def _password(kit: CampaignKit, player: str) -> str:
    for message in kit.outbox(player=player):
        found = re.search(r"password:\s*(\S+)", message.get_body(("plain",)).get_content(),
                          re.IGNORECASE)
        if found:
            return found.group(1)
    raise AssertionError(f"no welcome with a password for {player}")


@pytest.fixture(scope="module")
def handover(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Postal under per-board numbers and double turns: alice's seat passes to zoe with
    alice's order standing, bob's to yan who then writes her own, carol leaves, and the GM
    ends the campaign with gm end."""
    folder = tmp_path_factory.mktemp("handover") / "c"
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(folder, setenv=patch.setenv, players=PLAIN_PLAYERS, options={
            "close_after": 3, "max_turns": 30, "double_turns": True, "numbers": "per-board"})
        kit.play_turn()
        kit.play_turn()
        with kit.campaign() as campaign:
            deadline = campaign.deadline()
        kit.at(deadline - timedelta(days=2))
        assert kit.order("alice", ["NUMBER A 2", "NUMBER B 3"]).outcome == "applied"
        assert kit.order("bob", ["NUMBER A 4", "NUMBER B 4"]).outcome == "applied"
        kit.close()
        for old, new in (("alice", "zoe"), ("bob", "yan")):
            code, output = gm("-C", folder, "player", "replace", old, new, "--name",
                              new.title(), "--email", f"{new}@example.org")
            assert code == 0, output
        players = [p for p in kit.players if p.id not in ("alice", "bob")]
        zoe = KitPlayer("zoe", "Zoe", "zoe@example.org", _password(kit, "zoe"))
        yan = KitPlayer("yan", "Yan", "yan@example.org", _password(kit, "yan"))
        kit.players = (*players, zoe, yan)
        kit.at(deadline - timedelta(days=1))
        assert kit.order("yan", ["NUMBER A 6", "NUMBER B 6"]).outcome == "applied"
        kit.players = (*players, yan)  # zoe plays alice's standing order
        kit.play_turn()
        kit.close()
        assert gm("-C", folder, "player", "drop", "carol")[0] == 0
        kit.players = (*[p for p in players if p.id != "carol"], zoe, yan)
        for _ in range(4):
            kit.play_turn()
        kit.close()
        for command in (("end", "--reason", "enough"), ("reveal",), ("send",), ("publish",)):
            code, output = gm("-C", folder, *command)
            assert code == 0, output
    yield folder


def _mail_of(folder: Path, player: str, into: Path) -> Path:
    into.mkdir()
    for path in (folder / "mail" / "outbox").rglob("*"):
        if path.is_file() and re.search(rf"^To: .*{player}@example\.org", path.read_text(
                encoding="utf-8", errors="replace"), re.MULTILINE):
            shutil.copy(path, into / path.name)
    return into


def test_4_seats_handed_over_and_a_drop_pass_both_checkers(handover: Path):
    record = json.loads((handover / "archive" / "audit.json").read_text(encoding="utf-8"))
    inherited = record["turns"][2]["receipts"]["zoe"]
    assert inherited["player"] == "alice", "zoe's first turn plays alice's standing order"
    assert record["end"]["by"] == "gm"
    verdict = check(handover / "archive", [handover / "mail" / "outbox"])
    assert verdict.ok, verdict.reason
    assert gm_audit(handover / "archive", handover / "mail" / "outbox")[0] == 0


@pytest.mark.parametrize("player", ["alice", "bob", "zoe", "yan", "carol", "dave"])
def test_each_players_mail_alone_passes_both_checkers(handover: Path, player: str,
                                                      tmp_path: Path):
    """alice's acknowledgement stands for zoe; bob's gave way to yan's own order, which
    only yan's mail can show."""
    mail = _mail_of(handover, player, tmp_path / player)
    verdict = check(handover / "archive", [mail])
    assert verdict.ok, verdict.reason
    gave_way = any("gave way" in line for line in verdict.not_checked)
    assert gave_way == (player == "bob")
    assert gm_audit(handover / "archive", mail)[0] == 0


def test_inherited_order_that_differs_from_the_former_holders_receipt_is_rejected_by_both(
        handover: Path, tmp_path: Path):
    """A forger replaces the order zoe inherited (and its receipt, and the chain): alice's
    mail still holds the receipt she was sent."""
    record = json.loads((handover / "archive" / "audit.json").read_text(encoding="utf-8"))
    turn = record["turns"][2]
    seed = int(record["seed"]["value"])
    turn["orders"]["zoe"] = {"numbers": {"A": 6, "B": 6}, "trapdoors": {}}
    text = canonical({"turn": turn["turn"], "player": "alice", "order": turn["orders"]["zoe"]})
    turn["receipts"]["zoe"]["receipt"] = sha(
        salt_of(seed, turn["turn"], "receipt", "alice/1") + "\n" + text)
    path = write(rechain(record), tmp_path / "forged")
    mail = _mail_of(handover, "alice", tmp_path / "alice")
    with_mail = check(path, [mail])
    assert with_mail.status == "fail" and "alice" in with_mail.reason
    assert gm_audit(path, mail)[0] == 1


@pytest.fixture(scope="module")
def early_handovers(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """A campaign of `gm campaign new` whose first seat passes from alice to zoe before
    turn 1, resolved twice and ended by the GM: turn 0's draws keep alice's id."""
    made: dict[str, Path] = {}

    def make(ruleset: str) -> Path:
        if ruleset not in made:
            folder = tmp_path_factory.mktemp(f"early-{ruleset}") / "c"
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("GM_NOW", "2027-01-01T00:00:00Z")
                assert gm("campaign", "new", folder, "--ruleset", ruleset)[0] == 0
                steps = [("start",), ("player", "replace", "alice", "zoe", "--name", "Zoe",
                                      "--email", "zoe@example.org")]
                for step in steps:
                    code, output = gm("-C", folder, *step)
                    assert code == 0, output
                for day in ("2027-01-09", "2027-01-17"):
                    patch.setenv("GM_NOW", f"{day}T00:00:00Z")
                    code, output = gm("-C", folder, "resolve", "--force")
                    assert code == 0, output
                for step in (("end",), ("reveal",), ("send",), ("publish",)):
                    code, output = gm("-C", folder, *step)
                    assert code == 0, output
            made[ruleset] = folder
        return made[ruleset]

    return make


@pytest.mark.parametrize("ruleset", RULESETS)
def test_seat_handed_over_before_turn_1_passes_both_checkers(early_handovers, ruleset: str):
    folder = early_handovers(ruleset)
    record = json.loads((folder / "archive" / "audit.json").read_text(encoding="utf-8"))
    assert record["seats"][0][0] == {"player": "alice", "from_turn": 1, "until_turn": 0,
                                     "dropped_turn": None}
    assert record["opening"]["players"][0] == "zoe"
    verdict = check(folder / "archive", [folder / "mail" / "outbox"])
    assert verdict.ok, verdict.reason
    code, output = gm_audit(folder / "archive", folder / "mail" / "outbox")
    assert code == 0, output


@pytest.mark.parametrize("excess", ["digits", "nesting"])
def test_record_over_a_limit_cannot_be_checked_by_either(demos: Demos, excess: str,
                                                         tmp_path: Path):
    """Numbers of more than 100 digits and JSON nested more than 32 levels: exit 3."""
    record = demos("postal").record()
    if excess == "digits":
        record["options"]["max_turns"] = 10**101
    else:
        deep: list[Any] = []
        for _ in range(40):
            deep = [deep]
        record["turns"][0]["orders"]["ada"]["trapdoors"] = {"A": deep}
    path = write(record, tmp_path)
    verdict = check(path)
    assert verdict.status == "unreadable", verdict
    code, output = gm_audit(path)
    assert code == 3, output


@pytest.fixture(scope="module")
def max_turns_campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A postal campaign cut off by its option max_turns (3) while the race goes on."""
    folder = tmp_path_factory.mktemp("max-turns") / "c"
    with pytest.MonkeyPatch.context() as patch:
        kit = CampaignKit.create(folder, setenv=patch.setenv, players=PLAIN_PLAYERS,
                                 options={"close_after": 3, "max_turns": 3})
        kit.play_to_end()
        kit.close()
        for command in ("reveal", "send", "publish"):
            code, output = gm("-C", folder, command)
            assert code == 0, output
    return folder


def test_6_end_by_max_turns_passes_both_and_a_forged_end_fails_both(max_turns_campaign: Path,
                                                                    tmp_path: Path):
    archive = max_turns_campaign / "archive"
    record = json.loads((archive / "audit.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in record["end"].items() if k != "record_hash"} == {
        "by": "max_turns", "turn": 3, "reason": None, "state": None}
    verdict = check(archive, [max_turns_campaign / "mail" / "outbox"])
    assert verdict.ok, verdict.reason
    assert gm_audit(archive, max_turns_campaign / "mail" / "outbox")[0] == 0
    record["end"]["by"] = "rules"
    path = write(record, tmp_path)
    verdict = check(path)
    assert verdict.status == "fail" and "max_turns" in verdict.reason
    assert gm_audit(path)[0] == 1


@pytest.mark.parametrize("forged", [{"turn": 7}, {"by": "rules", "state": None}])
def test_6_gm_end_forged_fails_both(handover: Path, forged: dict[str, Any], tmp_path: Path):
    """The GM's end after turn 8: another turn, or a claim the rules ended it."""
    record = json.loads((handover / "archive" / "audit.json").read_text(encoding="utf-8"))
    record["end"].update(forged)
    path = write(record, tmp_path)
    assert check(path).status == "fail"
    assert gm_audit(path)[0] == 1


def _without_nmr(record: dict[str, Any]) -> None:
    del record["turns"][0]["nmr"]


def _orders_as_list(record: dict[str, Any]) -> None:
    record["turns"][0]["orders"] = list(record["turns"][0]["orders"])


def _seed_as_number(record: dict[str, Any]) -> None:
    record["seed"]["value"] = int(record["seed"]["value"])


@pytest.mark.parametrize("reshape", [_without_nmr, _orders_as_list, _seed_as_number],
                         ids=["without_nmr", "orders_as_list", "seed_as_number"])
def test_record_of_another_shape_cannot_be_checked_by_either(demos: Demos, reshape: Callable,
                                                             tmp_path: Path):
    """docs/audit.md, A record of the wrong shape: a gm-audit/3 record that is JSON within the
    limits but not of the page's shape is refused (exit 1); a gm-audit/2 one cannot be checked
    (exit 3)."""
    record = demos("postal").record()
    reshape(record)
    path = write(record, tmp_path)
    verdict = check(path)
    assert verdict.status == "fail" and "shape" in verdict.reason, verdict
    code, output = gm_audit(path)
    assert code == 1 and "the record's shape" in output, output
    record["format"] = "gm-audit/2"
    code, output = gm_audit(write(record, tmp_path / "two"))
    assert code == 3 and "the record's shape" in output, output
