"""Sign-up's limits against abuse (docs/rules/postal.md, Joining by mail; docs/rules/advanced.md,
Teams; docs/campaign.md, signup): the waiting list holds at most `max_waiting`; in advanced
a stranger's TEAM is a request the GM grants (`gm signup accept ID --team T`) unless
`signup: {teams: open}`; a key's value is short, and refused without being said back; and a
request is judged beside the places it may concern, not by the ruleset re-reading every
place held."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from signupkit import SignupGame
from toyrules import Step

from gm.campaign.config.reading import load_config
from gm.errors import ConfigError
from gm.rules import registry

ANN, BOB, CAT, DAN = "ann@example.org", "bob@example.org", "cat@example.org", "dan@example.org"
ZED = {"id": "zed", "name": "Zed", "email": "zed@example.org", "team": "red"}


def advanced(tmp_path, monkeypatch, **signup: Any) -> SignupGame:
    return SignupGame.create(tmp_path / "adv", monkeypatch, ruleset="advanced", board="advanced.yaml",
                             players=[ZED], signup={"max_players": 6, **signup})


# -- campaign.yaml ----------------------------------------------------------------------------


def test_signup_max_waiting_and_teams_are_checked_with_every_other_problem(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(
        "id: c\nboards: {A: ../../boards/x.yaml}\nsignup:\n  max_waiting: -1\n  teams: anyone\n"
        "  approve: someone\n")
    with pytest.raises(ConfigError) as error:
        load_config(folder)
    problems = "\n".join(error.value.problems)
    assert "line 4: signup max_waiting must be a whole number of at least 0" in problems
    assert "line 5: signup teams must be gm or open" in problems
    assert "line 6: signup approve must be auto or gm" in problems
    assert "board" in problems  # the file's other problems are listed too


# -- the waiting list -------------------------------------------------------------------------


def test_a_join_beyond_max_waiting_is_told_the_waiting_list_is_full(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "c", monkeypatch, signup={"max_players": 1, "max_waiting": 1})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"))
    assert made.standing() == {"ann": "in", "bob": "waiting"}
    made.join(CAT, "Cat")
    made.gm("ingest")
    [refusal] = made.outbox(to=CAT)
    assert refusal.kind == "refusal"
    assert "the waiting list is full (1 request waiting for a place)" in refusal.text
    assert made.standing() == {"ann": "in", "bob": "waiting"}


def test_a_confirm_beyond_max_waiting_is_told_the_waiting_list_is_full(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "c", monkeypatch, signup={"max_players": 1, "max_waiting": 1})
    made.signed_up((ANN, "Ann"))
    made.join(BOB, "Bob")
    made.join(CAT, "Cat")  # both offered the waiting list while it had room
    made.gm("ingest")
    made.confirm(BOB)
    made.gm("ingest")
    made.confirm(CAT)
    made.gm("ingest")
    assert made.standing() == {"ann": "in", "bob": "waiting"}
    assert "the waiting list is full" in made.outbox(to=CAT)[-1].text
    # a place given up frees the list: the same code counts then
    made.mail(ANN, "LEAVE spring")
    made.gm("ingest")
    made.confirm(ANN)
    made.gm("ingest")
    assert made.standing() == {"ann": "left", "bob": "in"}
    made.confirm(CAT)
    made.gm("ingest")
    assert made.standing()["cat"] == "waiting"


def test_max_waiting_is_max_players_unless_campaign_yaml_says(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "c", monkeypatch, signup={"max_players": 2})
    made.signed_up(*((f"p{i}@example.org", f"P{i}") for i in range(5)))
    assert list(made.standing().values()) == ["in", "in", "waiting", "waiting"]
    assert "the waiting list is full (2 requests" in made.outbox(to="p4@example.org")[-1].text


def test_under_approve_gm_those_awaiting_the_gm_are_the_waiting_list(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "c", monkeypatch,
                             signup={"max_players": 5, "approve": "gm", "max_waiting": 2})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat"))
    assert made.standing() == {"ann": "awaiting", "bob": "awaiting"}
    made.gm("signup", "accept", "ann")
    made.signed_up((DAN, "Dan"))
    assert made.standing() == {"ann": "in", "bob": "awaiting", "dan": "awaiting"}


# -- key values -------------------------------------------------------------------------------


def test_a_team_longer_than_30_characters_is_refused_and_not_said_back(tmp_path, monkeypatch):
    made = advanced(tmp_path, monkeypatch)
    made.join(ANN, "Ann", "TEAM " + "q" * 5000)
    made.join(BOB, "Bob", "TEAM " + "b" * 30)
    made.gm("ingest")
    [refusal] = made.outbox(to=ANN)
    assert refusal.kind == "refusal"
    assert "TEAM is at most 30 characters" in refusal.text
    assert "qq" not in refusal.text and "qq" not in refusal.html
    assert "optional: the team you ask for; the GM places each player" in refusal.text
    assert made.outbox(to=BOB)[-1].kind == "signup-code"


# -- teams: gm (the default) ------------------------------------------------------------------


def test_a_strangers_team_is_a_request_and_does_not_put_them_on_it(tmp_path, monkeypatch):
    made = advanced(tmp_path, monkeypatch)
    made.join(ANN, "Ann", "TEAM red")
    made.gm("ingest")
    assert "red" not in made.outbox(to=ANN)[-1].text  # a code mail repeats nothing asked
    made.confirm(ANN)
    made.gm("ingest")
    told = made.outbox(to=ANN, kind="signup")[-1].text
    assert "Team: the GM's choice" in told and "Team: red" not in told
    [row] = made.signups()
    assert row["status"] == "in" and json.loads(row["keys"]) == {} and json.loads(row["requested"]) == {"team": "red"}
    assert "asks team=red" in made.gm("signup")
    assert "team requests: 1 sign-up asking for a team the GM has not given" in made.gm("status")
    made.gm("start")
    teams = made.state()["teams"]
    assert teams["red"]["members"] == ["zed"] and teams["ann"]["members"] == ["ann"]


def test_gm_signup_accept_team_places_them_and_gm_start_seats_them_there(tmp_path, monkeypatch):
    made = advanced(tmp_path, monkeypatch)
    made.signed_up((ANN, "Ann"), (BOB, "Bob"))
    made.join(CAT, "Cat", "TEAM blue")
    made.gm("ingest")
    made.confirm(CAT)
    made.gm("ingest")
    assert "ann: in, team red" in made.gm("signup", "accept", "ann", "--team", "red")  # campaign.yaml's team
    made.gm("signup", "accept", "bob", "cat", "--team", "blue")  # a new team
    listing = made.gm("signup")
    assert "team=red" in listing and "asks" not in listing and "asking for a team" not in listing
    made.gm("start")
    teams = made.state()["teams"]
    assert teams["red"]["members"] == ["zed", "ann"] and teams["blue"]["members"] == ["bob", "cat"]


def test_gm_signup_accept_team_the_rules_refuse_changes_nothing(tmp_path, monkeypatch):
    made = advanced(tmp_path, monkeypatch)
    made.signed_up((ANN, "Ann"))
    out = made.gm("signup", "accept", "ann", "--team", "zed", code=1)
    assert "team zed is the id of player zed, who is not in it" in out
    assert "differs from team red only in case" in made.gm("signup", "accept", "ann", "--team", "RED", code=1)
    assert json.loads(made.signups()[0]["keys"]) == {}


def test_gm_signup_accept_team_is_refused_where_the_ruleset_has_no_teams(tmp_path, monkeypatch):
    made = SignupGame.create(tmp_path / "c", monkeypatch)
    made.signed_up((ANN, "Ann"))
    assert "puts nobody on a team" in made.gm("signup", "accept", "ann", "--team", "red", code=1)


def test_teams_open_a_sign_up_joins_the_team_it_names(tmp_path, monkeypatch):
    made = advanced(tmp_path, monkeypatch, teams="open")
    made.signed_up((ANN, "Ann"))
    made.join(BOB, "Bob", "TEAM red")
    made.join(CAT, "Cat", "TEAM ann")  # ann plays alone: a team of one
    made.gm("ingest")
    assert "team (the value asked for) is the id of player" in made.outbox(to=CAT)[-1].text  # not said back
    made.confirm(BOB)
    made.gm("ingest")
    made.gm("start")
    assert made.state()["teams"]["red"]["members"] == ["zed", "bob"]


# -- one request, judged once ------------------------------------------------------------------


class Spied(Step):
    """A house ruleset with a player key of its own, counting the players its
    player_problems is asked about."""

    name = "spied-step"
    player_keys = ("crew",)
    longest: list[int] = []

    def player_problems(self, players: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        Spied.longest.append(len(players))
        return [f"player {p}: crew must be gold or silver" for p, keys in players
                if keys.get("crew") not in (None, "gold", "silver")]


@pytest.fixture
def spied():
    registry.register(Spied)
    Spied.longest = []
    yield
    registry.unregister(Spied.name)


def test_a_request_is_judged_beside_the_places_it_concerns_not_every_place_held(tmp_path, monkeypatch, spied):
    made = SignupGame.create(tmp_path / "c", monkeypatch, ruleset="spied-step", board="milton-bradley.yaml",
                             signup={"max_players": 40})
    made.signed_up(*((f"p{i}@example.org", f"P{i}") for i in range(30)))
    Spied.longest = []
    made.join("ann@example.org", "Ann", "CREW green")
    made.join("bob@example.org", "Bob", "CREW gold")
    made.gm("ingest")
    assert "crew must be gold or silver" in made.outbox(to="ann@example.org")[-1].text
    made.confirm("bob@example.org")
    made.gm("ingest")
    assert made.standing()["bob"] == "in"
    # 30 places held, none sharing an id or a placed key's value with them: each request
    # was judged alone (and a stand-in), not with the 30
    assert Spied.longest and max(Spied.longest) <= 2


def test_the_standing_mail_labels_a_key_in_sentence_case_like_name_and_time_zone(tmp_path, monkeypatch):
    made = advanced(tmp_path, monkeypatch, teams="open")
    made.join(ANN, "Ann", "TEAM red")
    made.gm("ingest")
    made.confirm(ANN)
    made.gm("ingest")
    told = made.outbox(to=ANN, kind="signup")[-1]
    assert "  Name: Ann" in told.text and "  Team: red" in told.text and "TEAM:" not in told.text
    assert "<li>Team: red</li>" in told.html and "TEAM:" not in told.html
