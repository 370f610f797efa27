"""docs/rules/, Joining by mail, sign-up by mail before the start: one test per rule, through the `gm`
command line on the Maildir transport (tests/signupkit.py)."""

from __future__ import annotations

import json

import pytest
from signupkit import SignupGame

from gm.campaign.config.reading import load_config
from gm.errors import ConfigError


@pytest.fixture
def game(tmp_path, monkeypatch):
    def make(**kwargs) -> SignupGame:
        return SignupGame.create(tmp_path / "spring", monkeypatch, **kwargs)

    return make


ANN, BOB, CAT, DAN = "ann@example.org", "bob@example.org", "cat@example.org", "dan@example.org"


# -- campaign.yaml ----------------------------------------------------------------------------


def test_3_1_signup_keys_are_checked_each_on_its_line(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(
        "id: c\nboards: {A: ../../boards/x.yaml}\nsignup:\n  open: maybe\n  max_players: 0\n"
        "  closes: next tuesday\n  approve: someone\n  opens: now\n")
    with pytest.raises(ConfigError) as error:
        load_config(folder)
    problems = "\n".join(error.value.problems)
    assert "line 4: signup open must be true or false" in problems
    assert "line 5: signup max_players must be a whole number of at least 1" in problems
    assert "line 6: signup closes must be a date and time" in problems
    assert "line 7: signup approve must be auto or gm" in problems
    assert "line 8: signup: unknown key 'opens'" in problems


def test_3_1_players_may_be_empty_while_signup_is_open(game):
    made = game(players=[])
    config = load_config(made.folder)
    assert config.players == () and config.signup.max_players == 10
    made.edit(lambda data: data.pop("signup"))
    with pytest.raises(ConfigError, match="players must be a list"):
        load_config(made.folder)


def test_3_1_closes_is_a_time_in_the_campaigns_zone(game):
    made = game(signup={"closes": "2027-03-14 18:00"}, extra={"timezone": "Europe/Berlin"})
    closes = load_config(made.folder).signup.closes
    assert closes.isoformat() == "2027-03-14T18:00:00+01:00"


def test_3_1_max_players_cannot_pass_the_rulesets_most(game):
    made = game(ruleset="unleashed", board=None, signup={"max_players": 7})
    with pytest.raises(ConfigError, match="the unleashed ruleset is played by at most 6 players"):
        load_config(made.folder)


def test_3_1_gm_campaign_new_writes_signup_commented(tmp_path):
    from click.testing import CliRunner

    from gm.cli import cli

    result = CliRunner().invoke(cli, ["campaign", "new", str(tmp_path / "n")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "n" / "campaign.yaml").read_text()
    assert "# signup:" in text and "#   approve: auto" in text
    uncommented = text.replace("# signup:", "signup:")
    for key in ("open", "max_players", "closes", "approve"):
        uncommented = uncommented.replace(f"#   {key}:", f"  {key}:")
    (tmp_path / "n" / "campaign.yaml").write_text(uncommented)
    assert load_config(tmp_path / "n").signup.max_players == 500


# -- JOIN and CONFIRM ---------------------------------------------------------------------------


def test_3_1_join_is_answered_to_the_senders_address_only_with_a_code(game):
    made = game()
    made.join(ANN, "Ann Smith", **{"Reply-To": "someone@else.example", "Cc": "third@party.example"})
    made.gm("ingest")
    [sent] = made.outbox()
    assert sent.kind == "signup-code" and sent.to == ANN
    assert sent.headers["To"] == ANN and "else.example" not in json.dumps(sent.headers)
    assert sent.headers["Auto-Submitted"] == "auto-replied"
    assert "CONFIRM " in sent.text and made.code(ANN) in sent.subject
    assert made.signups() == []  # nothing counts until it is confirmed


def test_3_1_the_request_counts_once_confirm_comes_back_from_that_address(game):
    made = game()
    made.join(ANN, "Ann Smith")
    made.gm("ingest")
    code = made.code(ANN)
    made.mail(BOB, f"CONFIRM {code}")  # the right code from another address
    made.gm("ingest")
    assert made.signups() == []
    assert "no request from this address has that code" in made.outbox(to=BOB)[-1].text
    made.mail(ANN, f"confirm {code.lower().replace('-', ' ')}")  # any case, any spacing
    made.gm("ingest")
    assert made.standing() == {"ann-smith": "in"}
    [told] = made.outbox(to=ANN, kind="signup")
    assert "You are in" in told.subject and "ann-smith" in told.text


def test_3_1_a_reply_to_the_code_mail_confirms(game):
    made = game()
    made.join(ANN, "Ann Smith")
    made.gm("ingest")
    [code_mail] = made.outbox(to=ANN)
    quoted = "\n".join(f"> {line}" for line in code_mail.text.splitlines())
    made.mail(ANN, f"CONFIRM {made.code(ANN)}", "", quoted, headers={"In-Reply-To": code_mail.message_id})
    made.gm("ingest")
    assert made.standing() == {"ann-smith": "in"}


def test_3_1_the_id_is_made_from_the_name_unique_and_said(game):
    made = game(players=[{"id": "zoe-angstrom", "name": "Zoe", "email": "zoe@example.org"}])
    made.signed_up((ANN, "Zoë Ångström"), (BOB, "Zoë  Ångström!"), (CAT, "李小龍"))
    assert made.standing() == {"zoe-angstrom-2": "in", "zoe-angstrom-3": "in", "player": "in"}
    assert "as player zoe-angstrom-2 (an id made from the name asked for)" in made.outbox(to=ANN, kind="signup-code")[0].text


def test_3_1_the_id_asked_for_is_taken_when_free(game):
    made = game(players=[{"id": "ann", "name": "Ann", "email": "ann.listed@example.org"}])
    made.join(BOB, "Bob", "ID Ann")  # ids are case-insensitive: ann plays already
    made.join(CAT, "Cat", "ID Kitty")
    made.join(DAN, "Dan", "ID dan_the_man")
    made.gm("ingest")
    assert "ID ann is taken" in made.outbox(to=BOB)[-1].text
    # an id gm does not take is not said back: the sender is nobody gm vouches for
    refused = made.outbox(to=DAN)[-1].text
    assert "line 3: ID: an id is 1 to 32 lowercase letters" in refused and "dan_the_man" not in refused
    made.confirm(CAT)
    made.gm("ingest")
    assert made.standing() == {"kitty": "in"}


def test_3_1_an_address_holds_at_most_one_place(game):
    made = game(players=[{"id": "zed", "name": "Zed", "email": "zed@example.org"}])
    made.signed_up((ANN, "Ann"))
    made.join(ANN, "Ann Again")
    made.join("zed@example.org", "Zed Again")
    made.gm("ingest")
    assert "this address has a place in this game already, as ann (in)" in made.outbox(to=ANN)[-1].text
    assert "this address plays in this game already, as zed" in made.outbox(to="zed@example.org")[-1].text
    # two JOINs from one address before any confirmation: the one confirmed counts, once
    made.join(BOB, "Bob One")
    made.gm("ingest")
    first = made.code(BOB)
    made.join(BOB, "Bob Two")
    made.gm("ingest")
    made.confirm(BOB)
    made.later(minutes=1)
    made.mail(BOB, f"CONFIRM {first}")
    made.gm("ingest")
    assert made.standing() == {"ann": "in", "bob-two": "in"}


def test_3_1_timezone_and_an_unknown_line(game):
    made = game()
    made.join(ANN, "Ann", "TIMEZONE america/new_york", "I love this game")
    made.join(BOB, "Bob", "TIMEZONE Mars/Olympus")
    made.gm("ingest")
    # the code mail repeats nothing the sender wrote; the request is shown once confirmed
    text = made.outbox(to=ANN)[-1].text
    assert "America/New_York" not in text and "I love this game" not in text
    refused = made.outbox(to=BOB)[-1].text
    assert "TIMEZONE is not a time zone" in refused and "Mars" not in refused
    made.confirm(ANN)
    made.gm("ingest")
    assert made.signups()[0]["timezone"] == "America/New_York"
    assert "Time zone: America/New_York" in made.outbox(to=ANN, kind="signup")[-1].text


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules", "Etc/GMT+2", "EST5EDT", "+02:00"])
def test_3_5_a_timezone_line_without_a_region_is_refused_saying_what_a_zone_is(game, zone):
    made = game()
    made.join(ANN, "Ann", f"TIMEZONE {zone}")
    made.join(BOB, "Bob", "TIMEZONE etc/utc")
    made.gm("ingest")
    text = made.outbox(to=ANN)[-1].text  # the zone refused is not said back to a stranger
    assert "TIMEZONE is not a time zone" in text and "Europe/London" in text and zone not in text
    assert made.outbox(to=BOB)[-1].kind == "signup-code"
    made.confirm(BOB)
    made.gm("ingest")
    assert "Time zone: Etc/UTC" in made.outbox(to=BOB)[-1].text


def test_3_1_a_join_is_read_whole_or_not_at_all(game):
    made = game()
    made.mail(ANN, "JOIN spring")  # no NAME
    made.mail(BOB, "JOIN autumn", "NAME Bob")  # another game
    made.mail(CAT, "JOIN spring", "NAME Cat", "CONFIRM ABCD-EFGH")
    made.mail(DAN, "CONFIRM", "NAME Dan")
    made.gm("ingest")
    assert made.outcomes() == ["refused"] * 4
    assert "JOIN needs your name" in made.outbox(to=ANN)[-1].text
    assert "JOIN names another game: this is the sign-up desk of spring" in made.outbox(to=BOB)[-1].text
    assert "autumn" not in made.outbox(to=BOB)[-1].text
    assert "send one request a message" in made.outbox(to=CAT)[-1].text
    dan = made.outbox(to=DAN)[-1].text
    assert "CONFIRM needs a value" in dan and "NAME goes with JOIN" in dan


# -- where each stands ---------------------------------------------------------------------------


def test_3_1_auto_the_first_max_players_confirmed_are_in_and_the_rest_wait(game):
    made = game(signup={"max_players": 3}, players=[{"id": "zed", "name": "Zed", "email": "zed@example.org"}])
    for address, name in ((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat")):
        made.join(address, name)
    made.gm("ingest")
    for address in (CAT, BOB, ANN):  # confirmed in the reverse order of joining
        made.later(minutes=1)
        made.confirm(address)
    made.gm("ingest")
    assert made.standing() == {"cat": "in", "bob": "in", "ann": "waiting"}
    waiting = made.outbox(to=ANN, kind="signup")[-1]
    assert "On the waiting list" in waiting.subject and "number 1" in waiting.text


def test_3_1_everyone_is_told_once_and_again_when_it_changes(game):
    made = game(signup={"max_players": 1, "max_waiting": 5})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat"))
    assert made.standing() == {"ann": "in", "bob": "waiting", "cat": "waiting"}
    told = made.last_id()
    made.gm("ingest")
    made.gm("signup")
    assert made.outbox(after=told) == []  # told once
    made.mail(ANN, "LEAVE spring")
    made.gm("ingest")
    made.confirm(ANN)
    made.gm("ingest")
    assert made.standing() == {"ann": "left", "bob": "in", "cat": "waiting"}
    news = made.outbox(after=told, kind="signup")
    assert [(m.to, m.subject.split("] ")[1].split(":")[0]) for m in news] == [
        (ANN, "You have left Spring Snakes"), (BOB, "You are in")]
    assert "a place came free" in news[1].text
    # the GM adds places: the first waiting moves in, and is told
    made.edit(lambda data: data["signup"].update(max_players=5))
    made.gm("signup")
    assert made.standing()["cat"] == "in"
    assert "You are in" in made.outbox(to=CAT, kind="signup")[-1].subject


def test_3_1_approve_gm_each_waits_for_the_gms_decision(game):
    made = game(signup={"max_players": 2, "approve": "gm", "max_waiting": 5})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat"))
    assert set(made.standing().values()) == {"awaiting"}
    assert "waits for the GM" in made.outbox(to=ANN, kind="signup")[-1].subject
    out = made.gm("signup")
    assert "awaiting the GM (gm signup accept|reject ID...): 3" in out
    made.gm("signup", "accept", "ghost", code=1)
    assert made.standing() == {"ann": "awaiting", "bob": "awaiting", "cat": "awaiting"}
    # those accepted are taken in the order they confirmed, whatever the order accepted
    out = made.gm("signup", "accept", "cat", "ANN", "bob")
    assert "cat: accepted, waiting for a place" in out and "ann: in" in out and "bob: in" in out
    made.gm("signup", "reject", "bob")
    assert made.standing() == {"ann": "in", "bob": "rejected", "cat": "in"}
    subjects = [m.subject.split("] ")[1] for m in made.outbox(to=CAT, kind="signup")]
    assert subjects == ["Your request waits for the GM: Spring Snakes", "On the waiting list: Spring Snakes",
                        "You are in: Spring Snakes"]
    assert "Your request was not taken" in made.outbox(to=BOB, kind="signup")[-1].subject


def test_3_1_leave_withdraws_before_the_start_once_confirmed(game):
    made = game()
    made.signed_up((ANN, "Ann"))
    made.mail(ANN, "LEAVE spring", name="Not Ann")  # anyone can write this: a code goes to ANN
    made.gm("ingest")
    assert made.standing() == {"ann": "in"}
    assert made.outbox(to=ANN)[-1].kind == "signup-code"
    made.confirm(ANN)
    made.gm("ingest")
    assert made.standing() == {"ann": "left"}
    made.mail(BOB, "LEAVE spring")
    made.gm("ingest")
    assert "this address holds no place" in made.outbox(to=BOB)[-1].text
    # a JOIN again comes after those confirmed before it
    made.signed_up((CAT, "Cat"), (ANN, "Ann"))
    assert [(r["player"], r["status"]) for r in made.signups()] == [("ann", "left"), ("cat", "in"), ("ann", "in")]


def test_3_1_join_after_closes_says_so_and_offers_the_waiting_list(game):
    made = game(signup={"closes": "2027-03-02 09:00", "max_players": 10})
    made.signed_up((ANN, "Ann"))
    made.later(days=2)
    made.join(BOB, "Bob")
    made.gm("ingest")
    code_mail = made.outbox(to=BOB)[-1]
    assert "Sign-up has closed: confirm and you join the waiting list" in code_mail.text
    made.confirm(BOB)
    made.gm("ingest")
    assert made.standing() == {"ann": "in", "bob": "waiting"}
    # places left do not move a late request in: the GM does
    made.gm("signup", "accept", "bob")
    assert made.standing() == {"ann": "in", "bob": "in"}


def test_3_1_join_for_a_full_list_says_so_and_offers_the_waiting_list(game):
    made = game(signup={"max_players": 1})
    made.signed_up((ANN, "Ann"))
    made.join(BOB, "Bob")
    made.gm("ingest")
    assert "Every place is taken: confirm and you join the waiting list" in made.outbox(to=BOB)[-1].text


def test_3_1_open_false_closes_sign_up(game):
    made = game(signup={"open": False})
    made.join(ANN, "Ann")
    made.gm("ingest")
    assert "Sign-up has closed" in made.outbox(to=ANN)[-1].text


# -- the start -----------------------------------------------------------------------------------


def test_3_1_gm_start_takes_the_listed_players_then_those_in_by_order_confirmed(game):
    made = game(signup={"max_players": 4}, players=[{"id": "zed", "name": "Zed", "email": "zed@example.org"}])
    for address, name in ((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat"), (DAN, "Dan")):
        made.join(address, name, "TIMEZONE Asia/Tokyo" if address == BOB else "TIMEZONE UTC")
    made.gm("ingest")
    for address in (DAN, BOB, ANN, CAT):
        made.later(minutes=1)
        made.confirm(address)
    made.gm("ingest")
    told = made.last_id()
    out = made.gm("start")
    assert "started spring: 4 players (3 joined by mail)" in out
    assert list(made.state()["players"]) == ["zed", "dan", "bob", "ann"]
    welcomes = made.outbox(after=told, kind="welcome")
    assert sorted(m.to for m in welcomes) == sorted(["zed@example.org", DAN, BOB, ANN])  # exactly those in
    assert all("Your password:" in m.text for m in welcomes)
    assert "Asia/Tokyo" in next(m for m in welcomes if m.to == BOB).text  # their own zone
    [pool] = made.outbox(after=told, kind="signup")
    assert pool.to == CAT and "started without you" in pool.subject
    assert made.standing() == {"dan": "playing", "bob": "playing", "ann": "playing", "cat": "pool"}
    gm_mail = made.outbox(after=told, kind="gm-start")[0].text
    assert "3 players of them joined by mail" in gm_mail and "1 person left waiting" in gm_mail


def test_3_1_gm_start_is_not_fooled_by_the_signup_store(game):
    made = game()
    made.signed_up((ANN, "Ann"))
    assert (made.folder / "gm.sqlite").exists()
    made.gm("start")
    made.gm("start", code=1)


def test_3_1_gm_start_refuses_without_players_and_changes_nothing(game):
    made = game()
    out = made.gm("start", code=1)
    assert "no players" in out
    made.signed_up((ANN, "Ann"))
    made.gm("start")


def test_3_1_every_command_that_needs_a_started_game_refuses_cleanly_before(game):
    made = game()
    made.signed_up((ANN, "Ann"))
    before = made.rows("select count(*) as n from outbox")
    for args in (["state"], ["state", "--json"], ["orders"], ["remind"], ["resolve"], ["resolve", "--preview"],
                 ["undo"], ["deadline"], ["deadline", "+1d"], ["pause"], ["resume"], ["end"], ["reveal"],
                 ["player", "drop", "ann"], ["player", "email", "ann", "x@example.org"],
                 ["player", "password", "ann"], ["player", "replace", "ann", "bob", "--name", "B", "--email", BOB]):
        out = made.gm(*args, code=1)
        assert out.startswith("Error: campaign spring has not started yet"), (args, out)
    assert made.rows("select count(*) as n from outbox") == before


def test_3_1_gm_turn_before_the_start_answers_sign_ups_and_exits_0(game):
    made = game()
    made.join(ANN, "Ann")
    out = made.gm("turn")
    assert "ingest: 1 new message (1 join)" in out
    assert "resolve: the campaign has not started" in out
    assert "send: 1 delivered" in out and "publish:" in out
    assert len(list((made.folder / "mail" / "outbox" / "new").iterdir())) == 1


def test_3_1_order_mail_before_the_start_is_refused_and_help_says_how_to_join(game):
    made = game()
    made.mail(ANN, "PLAYER ann", "PASSWORD x", "NUMBER 3")
    made.mail(BOB, "HELP")
    made.gm("ingest")
    assert "the game has not started, so no orders are taken yet" in made.outbox(to=ANN)[-1].text
    help_mail = made.outbox(to=BOB)[-1]
    assert help_mail.kind == "help" and "JOIN spring" in help_mail.text and "CONFIRM <code>" in help_mail.text


def test_3_1_join_after_the_start_offers_the_pool_and_replace_seats_from_it(game):
    made = game(signup={"max_players": 2})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat"))
    made.gm("start")
    made.join(DAN, "Dan")
    made.gm("ingest")
    assert "The game has started: confirm and you join the GM's list" in made.outbox(to=DAN)[-1].text
    made.confirm(DAN)
    made.gm("ingest")
    assert made.standing() == {"ann": "playing", "bob": "playing", "cat": "pool", "dan": "pool"}
    assert "pool: waiting for a seat" in made.gm("signup")
    assert "sign-up pool: 2 people waiting for a seat" in made.gm("status")
    out = made.gm("player", "replace", "bob", "dan")
    assert "a password was mailed to dan@example.org" in out
    assert list(made.state()["players"]) == ["ann", "dan"]
    assert made.standing()["dan"] == "playing"
    assert "bob@example.org" in made.gm("signup").split("(seat handed to dan)")[0].splitlines()[-1]
    made.gm("player", "replace", "ann", "eve", code=1)  # not of the pool: name and address needed


def test_3_1_what_is_fixed_at_start_covers_the_joined_players(game):
    made = game(players=[{"id": "zed", "name": "Zed", "email": "zed@example.org"}])
    made.signed_up((ANN, "Ann"))
    made.gm("start")
    made.gm("status")  # campaign.yaml lists zed only: the joined player is the stored game's
    made.edit(lambda data: data["players"].append({"id": "ann", "name": "Ann S.", "email": ANN}))
    made.gm("status")  # listed as well: the same seat
    made.edit(lambda data: data["players"][1].update(email="other@example.org"))
    assert "player ann (email)" in made.gm("status", code=1)
    made.edit(lambda data: data.update(players=[]))
    assert "player zed (removed)" in made.gm("status", code=1)


def test_3_1_the_game_commitment_covers_the_joined_players_as_seats(game):
    made = game(players=[{"id": "zed", "name": "Zed", "email": "zed@example.org"}])
    made.signed_up((ANN, "Ann"), (BOB, "Bob"))
    made.gm("start")
    [row] = made.rows("select game from campaign")
    assert json.loads(row["game"])["seats"] == ["zed", "ann", "bob"]


# -- the GM's view -------------------------------------------------------------------------------


def test_3_1_gm_signup_lists_them_and_gm_status_counts_them(game):
    made = game(signup={"max_players": 1, "max_waiting": 5, "closes": "2027-03-14 18:00"})
    made.signed_up((ANN, "Ann"), (BOB, "Bob"))
    made.join(CAT, "Cat")
    made.join(CAT, "Cat Again")
    made.gm("ingest")
    out = made.gm("signup")
    assert "sign-up open until Sunday 14 March 2027, 18:00 UTC; approve: auto" in out
    assert "in: 1" in out and "waiting: 1" in out
    assert "ann@example.org" in out and "bob@example.org" in out
    assert "unconfirmed: 1 address sent JOIN and no CONFIRM yet" in out and "cat@example.org" in out
    assert "(2 JOINs)" in out
    status = made.gm("status")
    assert "sign-ups: 1 in of 1 places, 1 waiting, 0 awaiting the GM, 1 unconfirmed" in status
    assert "gm start: 1 player (0 listed in campaign.yaml, 1 joined by mail)" in status


def test_3_1_the_clock_is_gm_now(game):
    made = game(signup={"closes": "2027-03-01 10:00"})
    assert "sign-up open until" in made.gm("status")
    made.later(hours=2)
    assert "sign-up closed" in made.gm("status")


def test_3_1_a_near_miss_of_the_campaign_id_asks_did_you_mean_without_saying_the_word(game):
    made = game()
    made.mail(BOB, "JOIN sprng", "NAME Bob")
    made.mail(CAT, "JOIN spring", "NAME Cat", "GAME spirng")
    made.mail(DAN, "JOIN winter", "NAME Dan")
    made.gm("ingest")
    bob, cat, dan = (made.outbox(to=who)[-1].text for who in (BOB, CAT, DAN))
    assert "this is the sign-up desk of spring; did you mean JOIN spring?" in bob and "sprng" not in bob
    assert "this is the order desk of spring; did you mean GAME spring?" in cat and "spirng" not in cat
    assert "did you mean" not in dan and "winter" not in dan


def test_3_1_the_waiting_list_mail_says_whether_sign_up_had_closed_or_every_place_is_taken(game):
    made = game(signup={"closes": "2027-03-02 09:00", "max_players": 1, "max_waiting": 5})
    made.signed_up((ANN, "Ann"))
    made.join(BOB, "Bob")
    made.gm("ingest")
    made.confirm(BOB)
    made.gm("ingest")
    full = made.outbox(to=BOB, kind="signup")[-1]
    assert "Every place is taken now." in " ".join(full.text.split()) and "had closed" not in full.text + full.html
    made.later(days=2)
    made.join(CAT, "Cat")
    made.gm("ingest")
    made.confirm(CAT)
    made.gm("ingest")
    assert made.standing() == {"ann": "in", "bob": "waiting", "cat": "waiting"}
    late = made.outbox(to=CAT, kind="signup")[-1]
    assert "Sign-up had closed when you confirmed, so the GM decides" in " ".join(late.text.split())
    assert "Sign-up had closed when you confirmed" in late.html and "taken now" not in late.text + late.html


def test_3_1_the_mail_to_a_confirmed_person_gives_the_closing_time_in_their_own_zone(game):
    made = game(signup={"closes": "2027-03-14 18:00"})
    made.join(BOB, "Bob", "TIMEZONE Asia/Tokyo")
    made.gm("ingest")
    code_mail = made.outbox(to=BOB, kind="signup-code")[-1]
    assert "14 March 2027, 18:00 UTC" in code_mail.text and "Tokyo" not in code_mail.text + code_mail.html
    made.confirm(BOB)
    made.gm("ingest")
    told = made.outbox(to=BOB, kind="signup")[-1]
    assert "Monday 15 March 2027, 03:00 Asia/Tokyo" in " ".join(told.text.split())
    assert "15 March 2027, 03:00 Asia/Tokyo" in " ".join(told.html.split())
