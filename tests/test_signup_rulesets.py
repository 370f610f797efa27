"""docs/rules/, Joining by mail in every ruleset: players join by mail with the ruleset's own player keys
(TEAM in advanced; a house ruleset's keys too), its rules judge them (Ruleset.player_problems:
a team naming another player, a word of unleashed's order language), and gm start seats
them for a game that then plays by mail as any other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from signupkit import SignupGame
from toyrules import Step

from gm.rules import registry

BOARD = {"postal": "milton-bradley.yaml", "classic": "milton-bradley.yaml", "doubles": "milton-bradley.yaml",
         "advanced": "advanced.yaml", "unleashed": None}
PEOPLE = (("ann@example.org", "Ann"), ("bob@example.org", "Bob"), ("cat@example.org", "Cat"))


class HouseStep(Step):
    """A GM's house rules derived from the toy ruleset, with a player key of their own."""

    name = "house-step"
    player_keys = ("colour",)

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        return [f"player {p}: colour must be red or blue, not {keys['colour']!r}"
                for p, keys in players if keys.get("colour") not in (None, "red", "blue")]


@pytest.fixture
def house():
    registry.register(HouseStep)
    yield
    registry.unregister(HouseStep.name)


@pytest.mark.parametrize("ruleset", sorted(BOARD))
def test_3_1_every_ruleset_takes_its_players_by_mail(tmp_path, monkeypatch, ruleset):
    made = SignupGame.create(tmp_path / ruleset, monkeypatch, ruleset=ruleset, board=BOARD[ruleset],
                             signup={"max_players": 6})
    made.signed_up(*PEOPLE)
    assert made.standing() == {"ann": "in", "bob": "in", "cat": "in"}
    made.gm("start")
    state = made.state()
    assert sorted(state["players"]) == ["ann", "bob", "cat"]
    assert len(made.outbox(kind="welcome")) == 3
    # the game plays by mail as any other: a joined player's order is read and answered
    made.gm("status")
    made.mail("ann@example.org", "PLAYER ann", "PASSWORD wrong")
    made.gm("ingest")
    assert made.outcomes()[-1] == "refused"


def test_3_1_advanced_team_is_a_join_line_and_its_rules_judge_it(tmp_path, monkeypatch):
    # signup teams: open, a sign-up joins the team it names (by default the GM places it)
    made = SignupGame.create(tmp_path / "adv", monkeypatch, ruleset="advanced", board="advanced.yaml",
                             players=[{"id": "zed", "name": "Zed", "email": "zed@example.org"}],
                             signup={"max_players": 10, "teams": "open"})
    made.join("ann@example.org", "Ann", "TEAM red")
    made.join("bob@example.org", "Bob", "Team: Red")  # differs only in case from red: refused at CONFIRM time
    made.join("cat@example.org", "Cat", "TEAM zed")  # zed plays alone: a team of one
    made.join("dan@example.org", "Dan", "TEAM red")
    made.gm("ingest")
    assert "red" not in made.outbox(to="ann@example.org")[-1].text  # a code mail repeats no key
    refused = made.outbox(to="cat@example.org")[-1]
    assert refused.kind == "refusal" and "team (the value asked for)" in refused.text.casefold()
    for address in ("ann@example.org", "dan@example.org", "bob@example.org"):
        made.later(minutes=1)
        made.confirm(address)
    made.gm("ingest")
    assert made.standing() == {"ann": "in", "dan": "in"}
    assert "Team: red" in made.outbox(to="ann@example.org", kind="signup")[-1].text
    assert "only in case" in made.outbox(to="bob@example.org")[-1].text
    made.gm("start")
    teams = made.state()["teams"]
    assert teams["red"]["members"] == ["ann", "dan"] and teams["zed"]["members"] == ["zed"]


def test_3_1_a_team_line_is_no_command_where_the_ruleset_has_no_teams(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "postal", monkeypatch)
    made.join("ann@example.org", "Ann", "TEAM red")
    made.gm("ingest")
    # an ignored line, which a code mail never lists back: the sender is nobody gm vouches for
    assert "TEAM" not in made.outbox(to="ann@example.org")[-1].text


def test_3_1_unleashed_ids_are_never_words_of_its_order_language(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "unl", monkeypatch, ruleset="unleashed", board=None, signup={})
    made.join("ann@example.org", "Ann", "ID leader")
    made.join("bob@example.org", "Next")  # the id made from the name is not `next`
    made.gm("ingest")
    assert "is a word of the order language" in made.outbox(to="ann@example.org")[-1].text
    made.confirm("bob@example.org")
    made.gm("ingest")
    assert made.standing() == {"next-2": "in"}


def test_3_1_unleashed_gm_start_judges_the_whole_list(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "unl", monkeypatch, ruleset="unleashed", board=None, signup={})
    made.signed_up(("ann@example.org", "Ann"))
    assert "2 to 6 players, not 1" in made.gm("start", code=1)
    made.signed_up(("bob@example.org", "Bob"))
    made.gm("start")


def test_3_1_unleashed_gives_no_more_than_its_six_places(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "unl", monkeypatch, ruleset="unleashed", board=None, signup={})
    made.signed_up(*((f"p{i}@example.org", f"P{i}") for i in range(7)))
    assert list(made.standing().values()) == ["in"] * 6 + ["waiting"]


def test_3_1_a_house_rulesets_player_keys_join_by_mail(tmp_path, monkeypatch, house):
    made = SignupGame.create(tmp_path / "house", monkeypatch, ruleset="house-step",
                             board="milton-bradley.yaml", signup={"max_players": 4})
    made.join("ann@example.org", "Ann", "COLOUR blue")
    made.join("bob@example.org", "Bob", "COLOUR green")
    made.gm("ingest")
    assert "blue" not in made.outbox(to="ann@example.org")[-1].text
    assert "colour must be red or blue, not '(the value asked for)'" in made.outbox(to="bob@example.org")[-1].text
    help_text = made.outbox(to="bob@example.org")[-1].text
    assert "COLOUR <colour>" in help_text
    made.confirm("ann@example.org")
    made.gm("ingest")
    made.signed_up(("cat@example.org", "Cat"))
    made.gm("start")
    [row] = made.rows("select fixed from campaign")
    assert '"colour": "blue"' in row["fixed"]
