"""Players' names (docs/rules/postal.md, Joining by mail; docs/campaign.md, Players): at
most 60 characters once control, zero-width and bidirectional formatting characters are
removed; no two alike after NFKC, case folding and Unicode's confusable skeleton (UTS #39);
none holding `://` or `www.`; text mail shows them cleaned. Judged wherever a name enters:
campaign.yaml, a JOIN's NAME and its CONFIRM, gm signup accept, gm start and gm player
replace."""

from __future__ import annotations

import sqlite3

import pytest
import yaml
from signupkit import BOARDS, SignupGame

from gm.campaign import names
from gm.campaign.config.reading import load_config
from gm.errors import ConfigError

ANN, BOB, CAT, DAN = "ann@example.org", "bob@example.org", "cat@example.org", "dan@example.org"
ALICE = "Alice Liddell"
# Alice Liddell as a stranger might write her to pass for her
ALIKE = {
    "zero-width space": "Alice\u200b Liddell",
    "Cyrillic A": "\u0410lice Liddell",
    "fullwidth letters": "\uff21\uff4c\uff49\uff43\uff45 Liddell",
    "another case": "ALICE liddell",
    "capital I for l": "AIice LiddeII",
    "digit one for l": "Alice Lidde11",
}
BIDI = {
    "right-to-left override": "Bob \u202egnp.exe",
    "nested embeddings and isolates": "Bob \u2067\u202b\u202egnp\u202c.exe\u2069\u202c",
    "marks and zero-width joiners": "\u200fBob\u200d \u200egnp.exe\u2066",
}
CONTROLS = ("\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
            "\u200b", "\u200c", "\u200d", "\u200e", "\u200f")
SIXTY = "A" + "b" * 58 + "c"


@pytest.fixture
def game(tmp_path, monkeypatch):
    def make(**kwargs) -> SignupGame:
        return SignupGame.create(tmp_path / "spring", monkeypatch, **kwargs)

    return make


def listed_alice(**signup) -> dict:
    return {"players": [{"id": "alice", "name": ALICE, "email": "alice@example.org"}],
            "signup": signup or {"max_players": 10}}


def refusal(made: SignupGame, address: str) -> str:
    [sent] = made.outbox(to=address)
    assert sent.kind == "refusal", sent.text
    return sent.text


# -- the rules themselves ---------------------------------------------------------------------


@pytest.mark.parametrize("how", ALIKE)
def test_a_name_alike_by_invisible_look_alike_fullwidth_or_case_letters_is_alike(how):
    assert names.alike(ALICE, ALIKE[how])
    assert names.first_alike(ALIKE[how], [("bob", "Bob"), ("alice", ALICE)]) == "alice"


@pytest.mark.parametrize("other", ["Alicia Liddell", "Allce Liddell", "Alice Liddel", "Alice"])
def test_a_different_name_is_not_alike(other):
    assert not names.alike(ALICE, other)


@pytest.mark.parametrize("how", BIDI)
def test_bidirectional_and_zero_width_controls_are_removed_from_a_name(how):
    cleaned = names.clean(BIDI[how])
    assert not any(c in cleaned for c in CONTROLS)
    assert cleaned == "Bob gnp.exe"


def test_invisible_fillers_and_white_space_are_removed_or_collapsed():
    assert names.clean("\u3164") == "" and names.problems("\u3164 \u115f\u2800") == [names.EMPTY]
    assert names.clean(" Ann\u3164\t\n Smith\u00a0 ") == "Ann Smith"


def test_a_name_is_at_most_60_characters_once_cleaned():
    assert names.problems(SIXTY) == []
    assert names.problems(SIXTY + "d") == [names.LONG]
    assert names.problems(SIXTY + "\u200b" * 40) == []  # what is removed does not count


@pytest.mark.parametrize("name", ["https://evil.example", "www.evil.example", "Bob HTTP://x", "WWW.EVIL",
                                  "\uff57\uff57\uff57\uff0eevil", "\u051d\u051d\u051d.evil.example",
                                  "Bob ftp://files"])
def test_a_name_holding_a_web_address_is_refused(name):
    assert names.LINK in names.problems(name)


# -- campaign.yaml --------------------------------------------------------------------------


def write_campaign(folder, players) -> None:
    folder.mkdir()
    (folder / "campaign.yaml").write_text(yaml.safe_dump({
        "id": "c", "boards": {"A": str(BOARDS / "milton-bradley.yaml")}, "players": players}, sort_keys=False))


def test_campaign_yaml_with_two_pairs_of_alike_names_lists_every_problem(tmp_path):
    write_campaign(tmp_path / "c", [
        {"id": "alice", "name": ALICE, "email": "alice@example.org"},
        {"id": "bob", "name": "Bob", "email": "bob@example.org"},
        {"id": "alice2", "name": ALIKE["Cyrillic A"], "email": "alice2@example.org"},
        {"id": "bob2", "name": "B0B", "email": "bob2@example.org"},
        {"id": "url", "name": "https://evil.example", "email": "url@example.org"},
        {"id": "long", "name": SIXTY + "d", "email": "long@example.org"},
    ])
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "c")
    problems = error.value.problems
    assert any(p.startswith("line 12: player alice2: name is too like player alice's") for p in problems), problems
    assert any(p.startswith("line 15: player bob2: name is too like player bob's") for p in problems), problems
    assert "line 18: player url: name holds a web address ('://' or 'www.')" in problems
    assert "line 21: player long: name is longer than 60 characters" in problems


def test_campaign_yaml_names_are_kept_cleaned(tmp_path):
    write_campaign(tmp_path / "c", [{"id": "bob", "name": BIDI["right-to-left override"], "email": "b@x.org"},
                                    {"id": "ann", "email": "a@x.org"}])
    config = load_config(tmp_path / "c")
    assert [p.name for p in config.players] == ["Bob gnp.exe", "ann"]


# -- sign-up by mail ------------------------------------------------------------------------


@pytest.mark.parametrize("how", ALIKE)
def test_join_with_a_name_alike_a_players_is_refused_without_quoting_it(game, how):
    made = game(**listed_alice())
    made.join(BOB, ALIKE[how])
    made.gm("ingest")
    text = refusal(made, BOB)
    assert "NAME is too like the name of someone in this game already" in text
    assert "Liddell" not in text and "LIDDELL" not in text and "alice" not in text.lower()
    assert made.signups() == []


def test_join_with_a_name_alike_a_waiting_request_is_refused(game):
    made = game(signup={"max_players": 1})
    made.signed_up((ANN, ALICE), (BOB, "Bob"))  # ann is in, bob waits
    assert made.standing() == {"alice-liddell": "in", "bob": "waiting"}
    made.join(CAT, "BOB")
    made.join(DAN, ALIKE["zero-width space"])
    made.gm("ingest")
    assert "NAME is too like" in refusal(made, CAT)
    assert "NAME is too like" in refusal(made, DAN)


def test_a_name_is_judged_again_at_its_confirm(game):
    made = game()
    made.join(ANN, ALICE)
    made.join(BOB, ALIKE["Cyrillic A"])
    made.gm("ingest")  # both get a code: neither holds a place yet
    made.confirm(ANN)
    made.gm("ingest")
    made.confirm(BOB)
    made.gm("ingest")
    assert made.standing() == {"alice-liddell": "in"}
    assert "NAME is too like" in made.outbox(to=BOB)[-1].text


def test_a_join_kept_from_before_the_rule_meets_it_at_its_confirm(game):
    made = game()
    made.join(ANN, "Ann")
    made.gm("ingest")
    with sqlite3.connect(made.folder / "gm.sqlite") as db:  # as a JOIN was kept before names were judged
        db.execute("update messages set request = json_set(request, '$.name', ?) where outcome = 'join'",
                   ("www.evil.example \u202e" + "x" * 60,))
    made.confirm(ANN)
    made.gm("ingest")
    text = made.outbox(to=ANN)[-1].text
    assert "NAME is at most 60 characters" in text and "NAME may not hold a web address" in text
    assert "evil" not in text and made.signups() == []


def test_join_with_a_61_character_name_is_refused_and_60_is_taken(game):
    made = game()
    made.join(ANN, SIXTY + "d")
    made.join(BOB, SIXTY + "\u200b\u202e")  # 60 once cleaned
    made.gm("ingest")
    assert "NAME is at most 60 characters" in refusal(made, ANN)
    made.confirm(BOB)
    made.gm("ingest")
    assert [r["name"] for r in made.signups()] == [SIXTY]


@pytest.mark.parametrize("name", ["https://evil.example", "www.evil.example"])
def test_join_with_a_web_address_for_a_name_is_refused_without_quoting_it(game, name):
    made = game()
    made.join(ANN, name)
    made.gm("ingest")
    text = refusal(made, ANN)
    assert 'NAME may not hold a web address ("://" or "www.")' in text
    assert "evil" not in text


@pytest.mark.parametrize("how", BIDI)
def test_bidi_controls_in_a_joins_name_are_removed_before_any_mail_or_the_archive(game, how):
    made = game()
    made.signed_up((ANN, BIDI[how]))
    assert [r["name"] for r in made.signups()] == ["Bob gnp.exe"]
    for sent in made.outbox(to=ANN):
        assert not any(c in sent.text or c in sent.subject for c in CONTROLS), sent.text
    made.gm("publish")
    page = (made.folder / "archive" / "index.html").read_text()
    # the archive isolates each name itself, with FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE
    assert "Bob gnp.exe" in page and not any(c in page for c in CONTROLS if c not in "\u2068\u2069")


def test_a_name_stored_with_a_bidi_control_before_the_rule_reaches_no_text_mail_raw(game):
    made = game(signup={"max_players": 1})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"))
    with sqlite3.connect(made.folder / "gm.sqlite") as db:  # as a name came in before names were cleaned
        db.execute("update signups set name = ? where player = 'bob'", (BIDI["nested embeddings and isolates"],))
    made.later(minutes=1)
    made.mail(ANN, "LEAVE spring")
    made.gm("ingest")
    made.confirm(ANN)
    made.gm("ingest")  # ann leaves, so bob is in and told
    told = made.outbox(to=BOB, kind="signup")[-1]
    assert "You are in" in told.subject and "Hello Bob gnp.exe," in told.text
    assert not any(c in told.text for c in CONTROLS)
    assert "Bob gnp.exe" in made.gm("signup")


# -- the GM's commands ----------------------------------------------------------------------


def test_gm_signup_accept_refuses_a_name_alike_a_player_listed_since(game):
    made = game(signup={"approve": "gm"})
    made.signed_up((ANN, ALIKE["fullwidth letters"]))
    made.edit(lambda data: data["players"].append({"id": "alice", "name": ALICE, "email": "alice@example.org"}))
    out = made.gm("signup", "accept", "alice-liddell", code=1)
    assert "alice-liddell's name is too like alice's" in out
    assert made.standing() == {"alice-liddell": "awaiting"}


def test_gm_start_refuses_a_sign_up_alike_a_player_listed_since_and_lists_it(game):
    made = game()
    made.signed_up((ANN, ALIKE["another case"]), (BOB, "Bob"))
    made.edit(lambda data: data["players"].append({"id": "alice", "name": ALICE, "email": "alice@example.org"}))
    out = made.gm("start", code=1)
    assert "player alice: name is too like player alice-liddell's" in out
    assert not made.rows("select * from campaign")


def test_gm_start_judges_sign_ups_stored_before_the_rule(game):
    made = game()
    made.signed_up((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat"))
    with sqlite3.connect(made.folder / "gm.sqlite") as db:
        db.execute("update signups set name = 'ANN' where player = 'bob'")
        db.execute("update signups set name = 'www.evil.example' where player = 'cat'")
    out = made.gm("start", code=1)
    assert "player bob (joined by mail): name is too like player ann's" in out
    assert "player cat (joined by mail): name holds a web address" in out


@pytest.mark.parametrize(("name", "why"), [
    ("ANN", "the new player's name is too like ann's"),
    ("\u0410nn", "the new player's name is too like ann's"),
    ("Ben", "the new player's name is too like ben's"),  # the holder being replaced: the history says who
    (SIXTY + "d", "the new player's name is longer than 60 characters"),
    ("https://evil.example", "the new player's name holds a web address"),
    ("\u202e\u200b", "the new player needs a name"),
])
def test_gm_player_replace_refuses_a_bad_or_alike_name_and_changes_nothing(campaign, name, why):
    state = campaign.state()
    out = campaign("player", "replace", "ben", "dora", "--name", name, "--email", "dora@example.org",
                   now="2027-01-02T10:00:00Z", code=1)
    assert why in out
    assert campaign.state() == state


def test_gm_player_replace_keeps_the_name_cleaned(campaign):
    campaign("player", "replace", "ben", "dora", "--name", "Dora \u202eraaM", "--email", "dora@example.org",
             now="2027-01-02T10:00:00Z")
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    assert db.execute("select name from players where id = 'dora'").fetchone()[0] == "Dora raaM"


def test_a_players_name_stored_with_a_bidi_control_reaches_no_report_raw(campaign):
    db = sqlite3.connect(campaign.folder / "gm.sqlite")
    with db:
        db.execute("insert into players (id, name, email, password_hash, seat, from_turn, replaced_by, until_turn) "
                   "select 'old', ?, 'old@example.org', password_hash, seat, 1, 'ben', 0 from players "
                   "where id = 'ben'", ("Old \u202eBen",))
    from gm.campaign.folder import Campaign

    opened = Campaign.open(campaign.folder)
    try:
        assert opened.names()["old"] == "Old Ben"
        assert [r["name"] for r in opened.holders() if r["player"] == "old"] == ["Old Ben"]
    finally:
        opened.close()


def test_a_name_confirmed_earlier_in_the_same_batch_is_one_a_later_confirm_may_not_look_like(tmp_path, monkeypatch):
    from signupkit import SignupGame

    made = SignupGame.create(tmp_path / "spring", monkeypatch, signup={"max_players": 10})
    made.join("ann@example.org", "Ann Smith")
    made.join("cat@example.org", "ANN SMITH")  # nobody holds the name yet: both get a code
    made.gm("ingest")
    made.later(minutes=1)
    made.confirm("ann@example.org")
    made.later(minutes=1)
    made.confirm("cat@example.org")
    made.gm("ingest")  # one batch: ann's place counts before cat's CONFIRM is judged
    assert made.standing() == {"ann-smith": "in"}
    assert "NAME is too like the name of someone" in made.outbox(to="cat@example.org")[-1].text
