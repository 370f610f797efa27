"""GM_NOW: the present moment for testing and replaying a campaign, documented
in docs/commands.md and the README; its formats; a value that is no time refuses the
command in one line naming GM_NOW, and changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_config import GOOD, write

from gm import clock
from gm.cli import cli
from gm.errors import GmError

ROOT = Path(__file__).resolve().parent.parent


# the examples docs/commands.md gives, and the moment each means
DOCUMENTED = {
    "2027-04-05T19:30:00Z": datetime(2027, 4, 5, 19, 30, tzinfo=UTC),
    "2027-04-05T19:30Z": datetime(2027, 4, 5, 19, 30, tzinfo=UTC),
    "2027-04-05T19:30+01:00": datetime(2027, 4, 5, 18, 30, tzinfo=UTC),
    "2027-04-05 19:30": datetime(2027, 4, 5, 19, 30, tzinfo=UTC),  # no zone: UTC
}


@pytest.mark.parametrize(("value", "meant"), [*DOCUMENTED.items(), ("2027-04-05", datetime(2027, 4, 5, tzinfo=UTC))])
def test_gm_now_takes_the_documented_formats(monkeypatch, value, meant):
    monkeypatch.setenv("GM_NOW", value)
    assert clock.now() == meant


def test_without_gm_now_the_clock_is_the_machines(monkeypatch):
    monkeypatch.delenv("GM_NOW", raising=False)
    before = datetime.now(UTC)
    assert before <= clock.now() <= datetime.now(UTC)


def test_a_gm_now_that_is_no_time_refuses_in_one_line_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("GM_NOW", "next tuesday")
    with pytest.raises(GmError, match=r"^GM_NOW is not a date and time: 'next tuesday'"):
        clock.now()
    folder = write(tmp_path / "c", GOOD)
    result = CliRunner().invoke(cli, ["-C", str(folder), "start"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: GM_NOW is not a date and time")
    assert not (folder / "gm.sqlite").exists()


def test_gm_now_is_documented_for_testing_and_replaying():
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    section = commands[commands.index("### Testing and replaying at a chosen time"):]
    section = section[: section.index("\n## ")]
    for said in (*DOCUMENTED, "GM_NOW", "ISO 8601", "without a zone is UTC", "What it changes",
                 "What it does not change", "time of receipt", "testing and replaying only"):
        assert said in section, said
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`GM_NOW`" in readme and "docs/commands.md#testing-and-replaying-at-a-chosen-time" in readme
