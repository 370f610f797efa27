"""Files from outside: board files are shared between GMs and a campaign may
name any path as a board, so what gm reads must never echo a file that is not a board,
never let a small file take the machine, and never let a name reorder the archive.

* a file that is not a board is refused without quoting its text (keys or values);
* YAML aliases, tags and deep nesting are refused before anything is built; the file
  size, `squares` (docs/rules/, The board: N <= 10,000) and the number of snakes and ladders are
  bounded before anything of that size is allocated or compared pairwise;
* every player name, campaign title and board name in the archive is isolated (`<bdi>`,
  or U+2068...U+2069 where no markup can go), so a U+202E in a name reorders only itself.
"""

from __future__ import annotations

import re
import time
import tracemalloc
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from campaignkit import BOARDS, PLAIN_PLAYERS, CampaignKit, KitPlayer
from click.testing import CliRunner

from gm import yamlfile
from gm.boards.board import load_board
from gm.boards.model import Board
from gm.campaign.config.reading import load_config
from gm.cli import cli
from gm.errors import BoardError, ConfigError

SECRET = "hunter2-SECRET-8f2a91"
MAX_SQUARES = 10_000  # docs/rules/, The board


def board_check(*paths: Path):
    result = CliRunner().invoke(cli, ["board", "check", *map(str, paths)])
    return result.exit_code, result.output


def costs(action):
    """Run `action` twice: timed, then with its memory traced (tracing slows it tenfold).
    Return what it raised, its CPU seconds and its peak bytes allocated."""

    def attempt():
        try:
            action()
        except Exception as error:  # noqa: BLE001 - the test judges what was raised
            return error
        return None

    started = time.process_time()
    caught = attempt()
    spent = time.process_time() - started
    tracemalloc.start()
    try:
        attempt()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return caught, spent, peak


# -- 1. a file that is not a board is never echoed ------------------------------------------


def passwd_like(tmp_path: Path) -> Path:
    """An /etc/passwd whose first entry's comment field holds ': ', so YAML reads a mapping
    with the entry as a key, as gm board check used to print: unknown key 'root:x:0:0...'."""
    path = tmp_path / "passwd"
    path.write_text(
        f"root:x:0:0:Super User: {SECRET}\n"
        f"backup:x:34:34:{SECRET}: /var/backups\n"
        f"{SECRET}: 1\n",
        encoding="utf-8",
    )
    return path


def test_1_password_file_is_not_a_board_and_is_not_echoed(tmp_path):
    code, output = board_check(passwd_like(tmp_path))
    assert code == 1
    assert "not a board file" in output
    assert SECRET not in output and "root:x" not in output and "backup" not in output


def test_1_password_file_named_by_a_campaign_is_not_echoed(tmp_path):
    passwd = passwd_like(tmp_path)
    folder = tmp_path / "c"
    CampaignKit.create(folder, players=PLAIN_PLAYERS, boards={"A": passwd}, start=False)
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    text = "\n".join(caught.value.lines())
    assert "board A: not a board file" in text
    assert SECRET not in text and "root:x" not in text


def test_1_board_like_file_quotes_no_value_and_no_key_that_is_not_a_name(tmp_path):
    """A board with mistakes still gets every problem with its line, and a typo its
    suggestion, but text values and keys that are not plain names are described, not quoted."""
    path = tmp_path / "board.yaml"
    path.write_text(
        "name: Mistakes\n"
        f"squares: {SECRET}\n"
        "snake: [[20, 5]]\n"
        f"ladders: [[2, 9], [{SECRET}, 3], '{SECRET}']\n"
        f"'password={SECRET}': 1\n"
        f"chains: {SECRET}\n"
        f"shape: {{levels: '{SECRET}', serpentine: '{SECRET}'}}\n",
        encoding="utf-8",
    )
    code, output = board_check(path)
    assert code == 1
    assert SECRET not in output
    assert "line 3: unknown key 'snake' (did you mean 'snakes'?)" in output
    assert "line 5: unknown key (expected one of: name, squares, shape, snakes, ladders, chains)" in output
    assert "line 2: squares must be a positive whole number, not text" in output
    assert "line 6: chains must be true or false, not text" in output
    assert output.count("is not a [from, to] pair of squares") == 2


def test_1_binary_file_is_refused_without_its_bytes_or_reading_it_whole(tmp_path):
    """A 20 MB binary (a core dump, a disk image) is read no further than the size bound;
    one that happens to be UTF-8 is refused at its first control character, in one line."""
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" + SECRET.encode() + bytes(range(256)) * 80_000)
    nul = tmp_path / "nul.bin"
    nul.write_bytes(b"squares: 10\n\x00\x01" + SECRET.encode())
    error, _, peak = costs(lambda: load_board(garbage))
    assert isinstance(error, BoardError) and peak < 5e6
    code, output = board_check(garbage, nul)
    assert code == 1
    assert output.splitlines() == [
        f"{garbage}: larger than 1024 KiB: no board or campaign file is",
        f"{nul}: YAML syntax: character #x0000 at position 12 is not allowed in YAML",
    ]


def test_1_huge_single_line_file_is_refused_quickly_in_one_line(tmp_path):
    huge = tmp_path / "huge.yaml"
    huge.write_text(SECRET * 200_000, encoding="utf-8")  # 4 MB, one line
    long = tmp_path / "long.yaml"
    long.write_text(SECRET * 40_000, encoding="utf-8")  # 800 KB, under the bound
    started = time.process_time()
    code, output = board_check(huge, long)
    assert time.process_time() - started < 5
    assert code == 1
    lines = output.splitlines()
    assert len(lines) == 2 and all(len(line) < 200 for line in lines)
    assert "huge.yaml: larger than 1024 KiB" in lines[0]
    assert "long.yaml: not a board file" in lines[1]
    assert SECRET not in output


# -- 2. bounded work for any file -------------------------------------------------------------


def billion_laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines.append(f"squares: 100\nsnakes: *a{levels}\nname: *a{levels}")
    return "\n".join(lines) + "\n"


def test_2_alias_bomb_board_is_refused_quickly_in_bounded_memory(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(billion_laughs(), encoding="utf-8")
    error, seconds, peak = costs(lambda: load_board(path))
    print(f"alias bomb board: {seconds:.3f} s CPU, peak {peak / 1e6:.2f} MB")
    assert isinstance(error, BoardError)
    assert error.problems == ["line 1: anchors and aliases (& and *) are not allowed in gm files"]
    assert seconds < 1 and peak < 50e6


def test_2_alias_bomb_in_campaign_yaml_is_refused_quickly(tmp_path):
    folder = tmp_path / "c"
    CampaignKit.create(folder, players=PLAIN_PLAYERS, start=False)
    config = folder / "campaign.yaml"
    config.write_text(billion_laughs() + config.read_text(encoding="utf-8"), encoding="utf-8")
    error, seconds, peak = costs(lambda: load_config(folder))
    print(f"alias bomb campaign.yaml: {seconds:.3f} s CPU, peak {peak / 1e6:.2f} MB")
    assert isinstance(error, ConfigError)
    assert "anchors and aliases" in str(error)
    assert seconds < 1 and peak < 50e6


def test_2_a_billion_squares_is_refused_before_anything_that_size(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("name: Too Big\nsquares: 1000000000\nladders: [[2, 999999999]]\n", encoding="utf-8")
    error, seconds, peak = costs(lambda: load_board(path))
    assert isinstance(error, BoardError)
    assert error.problems[0] == "line 2: squares: 1000000000 is more than a board may have (at most 10,000)"
    assert seconds < 1 and peak < 50e6
    # the same bound holds for boards built in code (gm board design, the canonical text)
    error, seconds, peak = costs(lambda: Board.build(10**9))
    assert isinstance(error, BoardError) and "at most 10,000" in str(error)
    assert seconds < 1 and peak < 50e6


def test_2_hundred_thousand_snakes_are_refused_quickly(tmp_path):
    path = tmp_path / "many.yaml"
    path.write_text("squares: 100\nsnakes: [" + ", ".join(["[20, 5]"] * 100_000) + "]\n", encoding="utf-8")
    error, seconds, peak = costs(lambda: load_board(path))
    print(f"100,000 snakes: {seconds:.3f} s CPU, peak {peak / 1e6:.2f} MB")
    assert isinstance(error, BoardError)
    assert len(error.problems) == 1 and "more than 100,000 values" in error.problems[0]
    assert seconds < 1 and peak < 50e6


def test_2_more_items_than_the_board_holds_are_refused_in_one_line(tmp_path):
    """6,000 items on 10,000 squares (each needs two squares of its own): one line, and no
    pairwise comparison of the items."""
    path = tmp_path / "crowded.yaml"
    snakes = "".join(f"  - [{n + 1}, {n}]\n" for n in range(1, 12_001, 2))
    path.write_text(f"squares: {MAX_SQUARES}\nsnakes:\n{snakes}", encoding="utf-8")
    error, seconds, _ = costs(lambda: load_board(path))
    assert isinstance(error, BoardError)
    assert error.problems == [
        "line 2: 6000 snakes and ladders on 10000 squares: a board holds at most 5000 "
        "(each takes two squares of its own)"
    ]
    assert seconds < 5


def test_2_items_all_on_one_square_list_a_bounded_number_of_problems():
    """5,000 snakes sharing one tail: refused quickly, with a bounded list of problems."""
    started = time.process_time()
    with pytest.raises(BoardError) as caught:
        Board.build(MAX_SQUARES, snakes=[(head, 1) for head in range(2, 5002)])
    assert time.process_time() - started < 2
    assert 1 < len(caught.value.problems) <= 101
    assert caught.value.problems[-1].startswith("more items share squares")


def test_2_deep_nesting_and_tags_are_refused_without_a_traceback(tmp_path):
    deep = tmp_path / "deep.yaml"
    deep.write_text("squares: " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    tagged = tmp_path / "tagged.yaml"
    tagged.write_text(f"squares: !{SECRET} 100\n", encoding="utf-8")
    code, output = board_check(deep, tagged)
    assert code == 1
    assert "deep.yaml: line 1: nested more than 32 deep" in output
    assert "tagged.yaml: line 1: YAML tags (!...) are not used in gm files" in output
    assert SECRET not in output and "Traceback" not in output


class _LibyamlWithANestingLimit(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):
    """A libyaml build that scans ahead and stops at its own nesting limit (some do, at
    1,000 levels) before it hands over the event at gm's limit."""

    def check_event(self, *choices):
        raise yaml.parser.ParserError(None, None, "exceeded maximum nesting depth", None)


def test_2_deep_nesting_is_named_in_gms_words_whichever_libyaml_reads_it():
    text = "squares: " + "[" * 50_000 + "]" * 50_000 + "\n"
    with pytest.raises(yamlfile.Refused, match="nested more than 32 deep"):
        yamlfile._check_events(text, _LibyamlWithANestingLimit)


def test_2_a_level_a_billion_columns_out_is_refused(tmp_path):
    """gm board show draws every column between the outermost levels: an offset of a
    billion would loop a billion times per level."""
    path = tmp_path / "far.yaml"
    path.write_text("squares: 10\nshape: {levels: [5, 5], offsets: [0, 1000000000]}\n", encoding="utf-8")
    started = time.process_time()
    result = CliRunner().invoke(cli, ["board", "show", str(path)])
    assert time.process_time() - started < 2
    assert result.exit_code == 1
    assert "line 2: shape: offset 1000000000 is further out than 10,000 columns" in result.output


def test_1_board_name_with_terminal_escapes_is_refused(tmp_path):
    """A shared board's name reaches the GM's terminal (gm board show): no control characters."""
    path = tmp_path / "escape.yaml"
    path.write_text('name: "\\e]0;pwned\\a\\e[2J"\nsquares: 10\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["board", "show", str(path)])
    assert result.exit_code == 1
    assert "line 1: name: must not hold control characters" in result.output
    assert "\x1b" not in result.output and "pwned" not in result.output
    canonical = Board.build(10).canonical_text().replace('"name":""', '"name":"\\u001b]0;pwned\\u0007"')
    with pytest.raises(BoardError):  # gm verify of a canonical text from an archive
        Board.from_canonical(canonical)


# -- 3. names in the archive are isolated -----------------------------------------------------

EVIL = "\u202eevil"
# a player's name keeps no bidi control (names are cleaned, docs/campaign.md, Players), but
# a right-to-left name still reorders what follows it unless isolated
RTL_NAME = "\u05e2\u05e8\u05d1 evil"
EVIL_TITLE = "\u202bCup of \u202eSpite"
EVIL_BOARD = "\u202eBoard of Lies"
FSI, PDI = "\u2068", "\u2069"


class Isolation(HTMLParser):
    """Each text holding one of `needles`, with whether it sits inside <bdi> or an element
    with dir="auto", or (where no markup can go: <title>, SVG text) between FSI and PDI."""

    def __init__(self, needles: tuple[str, ...]):
        super().__init__(convert_charrefs=True)
        self.needles, self.stack, self.found = needles, [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append((tag, dict(attrs).get("dir") == "auto"))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        isolated = any(tag == "bdi" or auto for tag, auto in self.stack)
        for needle in self.needles:
            for match in re.finditer(re.escape(needle), data):
                wrapped = data[max(match.start() - 1, 0):match.start()] == FSI and \
                    data[match.end():match.end() + 1] == PDI
                self.found.append((needle, isolated or wrapped, self.stack[-1][0] if self.stack else ""))


def test_3_every_name_and_title_in_the_archive_is_isolated(tmp_path, monkeypatch):
    board = tmp_path / "lies.yaml"
    board.write_text((BOARDS / "small.yaml").read_text(encoding="utf-8")
                     .replace("name: The Garden Path", f'name: "{EVIL_BOARD}"'), encoding="utf-8")
    assert load_board(board).name == EVIL_BOARD
    players = (KitPlayer("eve", RTL_NAME, "eve@example.org", "pw-eve"), *PLAIN_PLAYERS[:2])
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=players, title=EVIL_TITLE,
                             boards={"A": board, "B": BOARDS / "ziggurat.yaml"})
    kit.play_to_end()
    kit.close()
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["-C", str(kit.folder), "reveal", "--out", str(out)])
    assert result.exit_code == 0, result.output
    pages = sorted(out.glob("*.html"))
    assert len(pages) > 4
    seen = set()
    for page in pages:
        parser = Isolation((RTL_NAME, EVIL_TITLE, EVIL_BOARD))
        parser.feed(page.read_text(encoding="utf-8"))
        for needle, isolated, where in parser.found:
            seen.add(needle)
            assert isolated, f"{page.name}: {needle!r} in <{where}> is not isolated"
    assert seen == {RTL_NAME, EVIL_TITLE, EVIL_BOARD}
