"""A ruleset's own files are found exactly like a built-in's. A toy ruleset kept
outside gm (tests/toyrules.py's Step, derived at run time with its own folders) brings its
mail, calendar and archive templates, its rules page and its boards; gm's mail, archive,
`gm campaign new` and the rules attached to mail find them through one lookup
(gm.rules.templating, gm.rules.files)."""

from __future__ import annotations

import ast
from pathlib import Path

import jinja2
import pytest
import yaml
from click.testing import CliRunner
from maildirkit import START, MaildirGame
from toyrules import Step

from gm.cli import cli
from gm.mail.mailout import find_template
from gm.publish.render import _environment
from gm.resources import shipped
from gm.rules import registry
from gm.rules.files import lineage, rules_file, ruleset_board, template_folders
from gm.rules.templating import GENERIC, TemplateLoader, candidates

RULES_TEXT = "# Toy Steps\n\nEach turn every player steps one, two or three squares (toy rules page).\n"
BOARD = "name: Toy Lane\nsquares: 8\n"
ARCHIVE_MARK = "toy-archive-turn-body"
CALENDAR_MARK = "toy steps due"
MAIL_MARK = "Told by the toy ruleset's own turn partial."

# the toy's copy of the generic turn partial: each macro the generic mails call, its own
# words added to one, the rest the generic part's (named plainly: the super() rule)
TURN_PARTIAL = """{% import "mail/_turn.txt" as generic %}
{% macro turns_label(view) %}{{ generic.turns_label(view) }}{% endmacro %}
{% macro boards(view) %}{{ generic.boards(view) }}{% endmacro %}
{% macro standings(view) %}{{ generic.standings(view) }}{% endmacro %}
{% macro own_facts(own) %}
""" + MAIL_MARK + """
{{ generic.own_facts(own) }}{% endmacro %}
{% macro commands_lines(commands, player, campaign, turn) %}{{ generic.commands_lines(commands, player, campaign, turn) }}{% endmacro %}
"""


def toy_files(root: Path) -> dict[str, str]:
    """A plugin's package folder: templates, rules page and boards, laid out as gm's."""
    (root / "templates" / "archive" / "toysteps").mkdir(parents=True)
    (root / "templates" / "mail" / "toysteps").mkdir(parents=True)
    (root / "templates" / "archive" / "toysteps" / "_turn_body.html").write_text(
        f'<p class="{ARCHIVE_MARK}">Turn {{{{ label }}}} as the toy tells it.</p>\n')
    (root / "templates" / "mail" / "toysteps" / "_turn.txt").write_text(TURN_PARTIAL)
    (root / "templates" / "calendar" / "toysteps").mkdir(parents=True)
    (root / "templates" / "calendar" / "toysteps" / "deadline.txt").write_text(
        '{% from "mail/_when.txt" import when %}Summary: {{ title }}: ' + CALENDAR_MARK + ' (turn {{ next_turn }})\n'
        "Step by {{ when(deadline) }}.\n")
    (root / "rules.md").write_text(RULES_TEXT)
    (root / "boards").mkdir()
    (root / "boards" / "toy-lane.yaml").write_text(BOARD)
    return {"templates": str(root / "templates"), "rules_page": str(root / "rules.md"),
            "boards_folder": str(root / "boards")}


@pytest.fixture
def toy(tmp_path):
    """The toy ruleset `toysteps`, derived from Step (whose own templates folder holds its
    problems.txt), registered as a plugin would be."""
    files = toy_files(tmp_path / "toysteps_pkg")
    toy_class = type("ToySteps", (Step,), {"name": "toysteps", "starter_board": "toy-lane.yaml", **files})
    registry.register(toy_class)
    yield toy_class
    registry.unregister("toysteps")


# -- the lookup rule ------------------------------------------------------------------------


def test_a_name_is_looked_up_along_the_lineage_then_generic():
    assert candidates("mail/_turn.txt", ("house", "postal")) == (
        "mail/house/_turn.txt", "mail/postal/_turn.txt", "mail/_turn.txt")
    assert candidates("calendar/deadline.txt", ("dice",)) == ("calendar/dice/deadline.txt", "calendar/deadline.txt")
    assert candidates("archive/turn.html", ()) == ("archive/turn.html",)


def test_a_name_naming_a_ruleset_of_the_lineage_or_generic_is_taken_as_written():
    assert candidates("mail/unleashed/_turn.txt", ("unleashed",)) == ("mail/unleashed/_turn.txt",)
    assert candidates(GENERIC + "mail/_order.txt", ("postal",)) == ("mail/_order.txt",)
    assert candidates("other/x.txt", ("postal",)) == ("other/x.txt",)


def test_a_rulesets_folder_is_searched_before_gms_and_its_parents(toy):
    folders = template_folders(lineage("toysteps"))
    assert folders == (Path(toy.templates), Path(Step.templates), shipped("templates"))
    assert lineage("toysteps") == ("toysteps", "step")


def test_a_rulesets_copy_naming_the_part_it_replaces_gets_the_next_one(tmp_path):
    """mail/dice/observer.html extends mail/observer.html: the generic, never itself."""
    (tmp_path / "mail" / "toy").mkdir(parents=True)
    (tmp_path / "mail" / "page.txt").write_text("generic page")
    (tmp_path / "mail" / "toy" / "page.txt").write_text('{% extends "mail/page.txt" %}')
    (tmp_path / "mail" / "frame.txt").write_text('[{% include "mail/page.txt" %}]')
    from gm.rules.templating import Environment

    env = Environment(loader=TemplateLoader((jinja2.FileSystemLoader(str(tmp_path)),), ("toy",)))
    assert env.get_template("mail/page.txt").render() == "generic page"
    assert env.get_template("mail/frame.txt").render() == "[generic page]"


def test_a_plain_import_in_a_generic_mail_finds_the_rulesets_own_part(toy):
    report = find_template("text", "mail", "report.txt", {"ruleset": "toysteps"})
    assert report.name == "mail/report.txt"  # the toy has no report of its own
    assert find_template("text", "mail", "_turn.txt", {"ruleset": "toysteps"}).filename.startswith(toy.templates)
    # its problems are Step's, found in Step's own folder through the lineage
    assert find_template("text", "mail", "problems.txt", {"ruleset": "toysteps"}).name == "mail/step/problems.txt"


def test_the_archive_environment_loads_the_rulesets_own_part(toy):
    env = _environment(lineage("toysteps"))
    assert ARCHIVE_MARK in env.get_template("archive/_turn_body.html").render(label="1")
    assert ARCHIVE_MARK not in _environment(("postal",)).get_template("archive/_turn_body.html").filename


# -- rules page and boards --------------------------------------------------------------------


def test_the_rules_page_is_the_rulesets_own_then_gms_docs_along_the_lineage(toy):
    assert rules_file(lineage("toysteps")) == Path(toy.rules_page)
    assert rules_file(("postal",)) == shipped("docs") / "rules" / "postal.md"
    assert rules_file(("house-rules", "postal")) == shipped("docs") / "rules" / "postal.md"
    assert rules_file(("step",)) is None  # Step has none, and gm ships none for it


def test_a_board_comes_from_the_rulesets_boards_folder_then_gms(toy):
    assert ruleset_board(toy(), "toy-lane.yaml") == Path(toy.boards_folder) / "toy-lane.yaml"
    assert ruleset_board(toy(), "milton-bradley.yaml") == shipped("boards") / "milton-bradley.yaml"
    assert ruleset_board(registry.find_ruleset("postal"), "milton-bradley.yaml") == (
        shipped("boards") / "milton-bradley.yaml")


def test_campaign_new_copies_the_rulesets_starter_board_and_names_its_rules_page(toy, tmp_path):
    folder = tmp_path / "new"
    result = CliRunner().invoke(cli, ["campaign", "new", str(folder), "--ruleset", "toysteps"])
    assert result.exit_code == 0, result.output
    assert (folder / "boards" / "toy-lane.yaml").read_text() == BOARD
    text = (folder / "campaign.yaml").read_text()
    assert f"{toy.rules_page} gives the meaning" in text and "docs/rules/toysteps.md" not in text
    assert yaml.safe_load(text)["boards"] == {"A": "boards/toy-lane.yaml"}


def test_campaign_new_names_gms_rules_page_for_a_built_in(tmp_path):
    result = CliRunner().invoke(cli, ["campaign", "new", str(tmp_path / "p"), "--ruleset", "postal"])
    assert result.exit_code == 0, result.output
    assert "docs/rules/postal.md gives the meaning" in (tmp_path / "p" / "campaign.yaml").read_text()


# -- a campaign of the toy, by mail, published ------------------------------------------------


def play_toy_campaign(folder: Path) -> MaildirGame:
    """gm start, one order mail a player a week, gm turn after each deadline, gm publish."""
    game = MaildirGame.create(folder, ruleset="toysteps", seed=2**70, board=BOARD, board_file="lane.yaml",
                              players={"ann": "pw-ann-1", "ben": "pw-ben-2"}, options={"max_turns": 2},
                              campaign_id="toy")
    game.gm("start", now=START)
    for week in (1, 2):
        for player in game.players:
            game.mail(player, "STEP 2")
        game.turn(week)
    assert game.state()["over"]
    game.gm("publish")
    return game


def test_a_toy_campaign_uses_its_archive_template_mail_partial_and_rules_page(toy, tmp_path):
    game = play_toy_campaign(tmp_path / "toy")
    folder = game.folder
    # gm publish: the toy's own archive/toysteps/_turn_body.html, and its rules page
    assert ARCHIVE_MARK in (folder / "archive" / "turn-001.html").read_text()
    rules_page = (folder / "archive" / "rules.html").read_text()
    assert "Toy Steps" in rules_page and "toy rules page" in rules_page
    assert 'href="rules.html"' in (folder / "archive" / "index.html").read_text()
    mails = game.outbox()
    # report.txt (generic) imports "mail/_turn.txt": the toy's own copy
    reports = [m for m in mails if "report" in str(m["Subject"]).lower() and "GM report" not in str(m["Subject"])]
    assert reports and all(MAIL_MARK in m.get_body(("plain",)).get_content() for m in reports)
    # the deadline attached to a report is worded by the toy's calendar/toysteps/deadline.txt
    calendars = [part.get_content() for m in reports for part in m.iter_attachments()
                 if part.get_content_type() == "text/calendar"]
    assert calendars and all(CALENDAR_MARK in text for text in calendars)
    # the welcome carries the toy's own rules page
    welcomes = [m for m in mails if "Welcome" in str(m["Subject"])]
    assert welcomes
    for welcome in welcomes:
        attached = {part.get_filename(): part.get_content() for part in welcome.iter_attachments()}
        assert attached.get("rules-toysteps.md", "").replace("\r\n", "\n") == RULES_TEXT


# -- import direction -------------------------------------------------------------------------


def _imported_modules(path: Path, package: str) -> set[str]:
    """Every module `path` imports, at the top, inside functions or under TYPE_CHECKING."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


GM = Path(__file__).resolve().parent.parent / "gm"


def test_mail_imports_nothing_from_publish_and_the_lookup_nothing_from_either():
    for path in sorted((GM / "mail").glob("*.py")):
        imported = _imported_modules(path, "gm.mail." + path.stem)
        assert not {m for m in imported if m.startswith("gm.publish")}, path.name
    for name in ("rules.templating", "rules.files", "pagenames", "resources"):
        imported = _imported_modules(GM / f"{name.replace('.', '/')}.py", f"gm.{name}")
        assert not {m for m in imported if m.startswith(("gm.mail", "gm.publish", "gm.campaign"))}, name


@pytest.mark.parametrize("name", ["postal", "classic", "doubles", "advanced", "unleashed"])
def test_a_built_in_names_its_files_by_the_class_attributes_a_plugin_uses(name):
    """gm's own rulesets are a plugin's equals: their templates folder, rules page and boards
    folder are class attributes read by the same lookup, not a special case of it."""
    cls = type(registry.find_ruleset(name))
    assert Path(cls.templates) == shipped("templates")
    assert Path(cls.boards_folder) == shipped("boards")
    assert Path(cls.rules_page) == shipped("docs") / "rules" / f"{name}.md"
    assert rules_file(lineage(name)) == Path(cls.rules_page)
    assert template_folders(lineage(name)) == (shipped("templates"),)  # gm's folder once, not twice
    assert ruleset_board(cls(), cls.starter_board) == shipped("boards") / cls.starter_board


@pytest.mark.parametrize("ext", ["txt", "html"])
def test_the_generic_turn_part_defines_every_macro_the_generic_mails_call(ext):
    """A ruleset without its own mail/<name>/_turn.* gets gm's: every macro a generic mail
    calls on it (observer mail's leaders and top_standings for a large campaign among them)
    must be there, or that mail fails for a plugin that attaches a table but keeps gm's part."""
    import re

    mail = shipped("templates") / "mail"
    part = re.escape(f"_turn.{ext}")
    imports = re.compile(rf'import (?:"mail/{part}"|partial\("{part}"\)) as t')
    called: set[str] = set()
    for path in mail.glob(f"*.{ext}"):
        text = path.read_text(encoding="utf-8")
        if imports.search(text):
            called |= set(re.findall(r"\bt\.(\w+)\(", text)) | set(re.findall(r'once\(t, "(\w+)"', text))
    defined = set(re.findall(r"\{%-? macro (\w+)\(", (mail / f"_turn.{ext}").read_text(encoding="utf-8")))
    assert {"leaders", "top_standings", "boards", "standings"} <= called
    assert called <= defined, f"called but not defined: {sorted(called - defined)}"


@pytest.mark.parametrize("ext", ["txt", "html"])
def test_the_generic_top_standings_lists_the_first_ten_of_many(ext):
    from gm.mail.mailout import environment
    from gm.rules.views import PublicView

    fields = {f: None for f in PublicView.__dataclass_fields__}
    standings = [type("S", (), {"place": i + 1, "name": f"Player {i + 1}"})() for i in range(60)]
    view = PublicView(**{**fields, "turns": (3,), "boards": (), "standings": tuple(standings), "over": False})
    module = environment(ext if ext == "html" else "text").get_template(f"generic:mail/_turn.{ext}").module
    shown = str(module.top_standings(view))
    assert "Player 10" in shown and "Player 11" not in shown and "10 of 60" in shown.replace("</span>", "")
