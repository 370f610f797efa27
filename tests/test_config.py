"""campaign.yaml (CONTRACT.md): every problem named with its line; `gm campaign new`
writes a starter that starts as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gm.campaign.config.reading import load_config
from gm.cli import cli
from gm.errors import ConfigError

BOARDS = Path(__file__).resolve().parent.parent / "boards"


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.yaml").write_text(text.replace("BOARDS", str(BOARDS)))
    return folder


GOOD = """\
id: spring-2027
title: Spring 2027
ruleset: postal
seed: 20270321
boards:
  A: BOARDS/milton-bradley.yaml
players:
  - {id: alice, name: Alice, email: alice@example.org}
  - {id: bob, name: Bob, email: bob@example.org, password: "s3cret-horse"}
options:
  close_after: all
mail:
  transport: maildir
  from: "Snakes GM <gm@example.org>"
"""


def test_contract_example_campaign_loads(tmp_path):
    config = load_config(write(tmp_path / "c", GOOD))
    assert config.id == "spring-2027" and list(config.boards) == ["A"]
    assert config.options.close_after == "all" and config.players[1].password == "s3cret-horse"
    assert config.mail.address == "gm@example.org"


def test_unknown_and_misspelt_keys_are_refused_with_their_lines(tmp_path):
    text = GOOD.replace("seed: 20270321", "seeed: 20270321").replace("close_after: all", "close_afterr: all")
    text = text.replace("{id: alice, name: Alice,", "{id: alice, nmae: Alice,")
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path / "c", text))
    problems = error.value.problems
    assert "line 4: unknown key 'seeed' (did you mean 'seed'?)" in problems
    assert "line 11: options: unknown key 'close_afterr' (did you mean 'close_after'?)" in problems
    assert any(p.startswith("line 8: player: unknown key 'nmae'") for p in problems)
    # CONTRACT.md: seed is optional (gm start draws one), so only the misspelling is reported
    assert not any("missing key 'seed'" in p for p in problems)


def test_press_keys_misspelt_or_given_twice_are_refused_with_their_lines_as_every_block(tmp_path):
    text = GOOD + "press:\n  mode: grey\n  mode: white\n  max_per_dya: 5\n"
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path / "c", text))
    problems = error.value.problems
    assert any(p.endswith("press: key 'mode' given twice") for p in problems), problems
    assert any(p.endswith("press: unknown key 'max_per_dya' (did you mean 'max_per_day'?)") for p in problems)


def test_bad_values_and_bad_boards_are_all_listed(tmp_path):
    bad_board = tmp_path / "bad.yaml"
    bad_board.write_text("squares: 10\nsnakes: [[3, 8]]\n")
    text = GOOD.replace("BOARDS/milton-bradley.yaml", str(bad_board)).replace("close_after: all", "nmr: sometimes")
    text = text.replace("bob@example.org", "not-an-address").replace("transport: maildir", "transport: pigeon")
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path / "c", text))
    joined = "\n".join(error.value.problems)
    assert "board A: line 2: snake 3->8: head below tail" in joined
    assert "option nmr must be random, lowest or highest" in joined
    assert "email 'not-an-address' is not an address" in joined
    assert "mail transport must be maildir or imap+smtp" in joined


def test_player_ids_are_unique_ignoring_case(tmp_path):
    text = GOOD.replace("{id: bob,", "{id: ALICE,")
    with pytest.raises(ConfigError, match="the same as"):
        load_config(write(tmp_path / "c", text))


def test_campaign_new_writes_a_starter_that_starts(tmp_path):
    runner = CliRunner()
    folder = tmp_path / "campaigns" / "autumn"
    result = runner.invoke(cli, ["campaign", "new", str(folder)])
    assert result.exit_code == 0, result.output
    text = (folder / "campaign.yaml").read_text()
    assert "# " in text and "id: autumn" in text
    result = runner.invoke(cli, ["-C", str(folder), "start"])
    assert result.exit_code == 0, result.output
    assert "passwords issued to 3" in result.output
    again = runner.invoke(cli, ["campaign", "new", str(folder)])
    assert again.exit_code == 1 and "already exists" in again.output


def test_start_on_a_bad_campaign_exits_1_listing_problems_and_creates_nothing(tmp_path):
    folder = write(tmp_path / "c", GOOD.replace("seed: 20270321", "seed: many"))
    result = CliRunner().invoke(cli, ["-C", str(folder), "start"])
    assert result.exit_code == 1
    assert "seed must be a whole number" in result.output
    assert not (folder / "gm.sqlite").exists()


def test_the_renamed_sample_board_is_refused_with_its_new_name(tmp_path):
    """boards/classic.yaml became boards/milton-bradley.yaml (it is no `classic` ruleset)."""
    (tmp_path / "boards").mkdir()
    text = GOOD.replace("BOARDS/milton-bradley.yaml", "boards/classic.yaml")
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path / "c", text.replace("boards/classic.yaml", "../boards/classic.yaml")))
    assert any("classic.yaml was renamed milton-bradley.yaml" in p for p in error.value.problems)


def test_observers_and_archive_url_are_read_and_every_problem_listed_with_its_line(tmp_path):
    good = GOOD + "observers:\n  - {name: Lewis Carroll, email: Lewis@Example.org}\narchive_url: https://example.org/spring\n"
    config = load_config(write(tmp_path / "good", good))
    assert [(o.name, o.email) for o in config.observers] == [("Lewis Carroll", "lewis@example.org")]
    assert config.archive_url == "https://example.org/spring/"  # a folder: pages are linked under it
    bad = GOOD + "observers:\n  - {name: Lewis, email: nobody}\n  - just a name\n  - {nmae: X, email: x@example.org}\narchive_url: ftp://example.org\n"
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path / "bad", bad))
    problems = "\n".join(error.value.problems)
    assert "line 16: observer email 'nobody' is not an address" in problems
    assert "line 17: an observer is a mapping with name and email" in problems
    assert "line 18" in problems and "nmae" in problems
    assert "line 19: archive_url must be an http(s) address" in problems


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules", "+02:00", "GMT+2", "Etc/GMT+2", "EST5EDT",
                                  "US/Eastern", "Europe/Nowhere", "Europe/../../etc/passwd"])
def test_3_5_a_time_zone_without_a_region_is_refused_for_the_campaign_and_a_player(tmp_path, zone):
    text = GOOD.replace("title: Spring 2027", f"title: Spring 2027\ntimezone: '{zone}'")
    text = text.replace("bob@example.org,", f"bob@example.org, timezone: '{zone}',")
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path / "c", text))
    problems = error.value.problems
    assert any(p.startswith("line 3: timezone must be an IANA time zone with a region, such as Europe/London")
               for p in problems), problems
    assert any(f"player bob: time zone {zone!r} is not an IANA time zone with a region" in p
               for p in problems), problems


@pytest.mark.parametrize("zone", ["UTC", "Etc/UTC", "Europe/London", "America/Argentina/Buenos_Aires",
                                  "Antarctica/Troll", "Pacific/Chatham"])
def test_3_5_a_time_zone_with_a_region_or_utc_is_taken(tmp_path, zone):
    text = GOOD.replace("title: Spring 2027", f"title: Spring 2027\ntimezone: {zone}")
    text = text.replace("bob@example.org,", f"bob@example.org, timezone: {zone},")
    config = load_config(write(tmp_path / "c", text))
    assert config.timezone == zone and config.players[1].timezone == zone
