"""The project's documentation stands on its own: README.md and docs/ link only
files a user's clone holds, each ruleset gm ships has a complete rules page, every command
is in docs/commands.md and every campaign.yaml key in docs/campaign.md."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest
from test_cli_docs import COMMANDS

from gm.campaign.config.reading import TOP_KEYS
from gm.rules.registry import BUILT_IN, find_ruleset

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
PAGE_IDS = [page.relative_to(ROOT).as_posix() for page in PAGES]

# [text](target) and [text]: target; an image's ![alt](target) too
_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)


def _prose(text: str) -> str:
    """The page without fenced blocks and code spans: a link written inside code is an
    example, not a link."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    prose = _prose(text)
    return _INLINE_LINK.findall(prose) + _REFERENCE_LINK.findall(prose)


def local_links(text: str) -> list[str]:
    return [t for t in links(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.IGNORECASE)]


def _github_slug(heading: str) -> str:
    heading = re.sub(r"[`*_]", "", heading).strip().lower()
    return re.sub(r" ", "-", re.sub(r"[^\w\- ]", "", heading))


def anchors(page: Path) -> set[str]:
    """The heading anchors of a page that both renderers make alike: python-markdown's
    toc (the archive renders the rules pages with it) and GitHub's (where the README is
    read). A heading whose two slugs differ gives no anchor, so that a link to it cannot
    work in one place and break in the other."""
    renderer = markdown.Markdown(extensions=["tables", "toc"])
    renderer.convert(page.read_text(encoding="utf-8"))
    found: set[str] = set()

    def walk(tokens):
        for token in tokens:
            if token["id"] == _github_slug(token["name"]):
                found.add(token["id"])
            walk(token["children"])

    walk(renderer.toc_tokens)
    return found


def test_link_finder_sees_links_and_skips_code():
    text = "see [a](docs/x.md#y) and ![i](img.png)\n\n[ref]: other.md\n\n`[no](code.md)`\n```\n[no](fence.md)\n```\n"
    assert local_links(text) == ["docs/x.md#y", "img.png", "other.md"]


def test_anchors_are_the_headings_both_renderers_agree_on(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Title\n\n## Fairness: seeds and commitments\n\n## gm state --json\n", encoding="utf-8")
    # python-markdown makes gm-state-json, GitHub gm-state---json: no anchor to rely on
    assert anchors(page) == {"title", "fairness-seeds-and-commitments"}


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_relative_link_resolves_to_a_file_and_heading_in_the_repository(page):
    broken = []
    for target in local_links(page.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
        elif not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (file.suffix != ".md" or anchor not in anchors(file)):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


_OUTSIDE = ("../shared", "CONTRACT.md", "RULES.md")
# Not even a mention of a file a user's clone does not have.
OWN_WORDS = PAGES


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_nothing_links_shared_rules_or_contract(page):
    # the rules and file formats are the project's own now: a user's clone has no ../shared
    bad = [t for t in links(page.read_text(encoding="utf-8")) if any(word in t for word in _OUTSIDE)]
    assert not bad, f"{page.relative_to(ROOT)} links {bad}"


@pytest.mark.parametrize("page", OWN_WORDS, ids=[p.relative_to(ROOT).as_posix() for p in OWN_WORDS])
def test_no_page_sends_readers_to_shared_rules_or_contract(page):
    text = page.read_text(encoding="utf-8")
    for word in _OUTSIDE:
        assert word not in text, f"{page.relative_to(ROOT)} mentions {word}"


COMMANDS_PAGE = (DOCS / "commands.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [name for name, _ in COMMANDS])
def test_every_command_is_in_the_command_reference(name):
    assert re.search(rf"\bgm {re.escape(name)}\b(?![-\w])", COMMANDS_PAGE), f"docs/commands.md never mentions `gm {name}`"


@pytest.mark.parametrize("name", [name for name, command in COMMANDS if command.params])
def test_every_option_of_every_command_is_in_the_command_reference(name):
    command = dict(COMMANDS)[name]
    section = COMMANDS_PAGE.split(f"### gm {name}\n", 1)
    assert len(section) == 2, f"docs/commands.md has no heading `### gm {name}`"
    body = section[1].split("\n### ", 1)[0]
    for param in command.params:
        for flag in getattr(param, "opts", ()):
            if flag.startswith("--"):
                assert flag in body, f"docs/commands.md: gm {name} leaves out {flag}"


def test_exit_statuses_are_documented():
    assert re.search(r"0 on success; 1 when the command was refused.*2 for a usage error", COMMANDS_PAGE, re.DOTALL)


RULESETS = sorted(BUILT_IN)


@pytest.mark.parametrize("name", RULESETS)
def test_every_builtin_ruleset_has_its_rules_page(name):
    assert (DOCS / "rules" / f"{name}.md").is_file(), f"docs/rules/{name}.md is missing"
    index = (DOCS / "rules" / "index.md").read_text(encoding="utf-8")
    assert f"({name}.md)" in index, f"docs/rules/index.md does not link {name}.md"


@pytest.mark.parametrize("name", RULESETS)
def test_rules_page_names_every_order_keyword_of_the_grammar(name):
    page = (DOCS / "rules" / f"{name}.md").read_text(encoding="utf-8")
    grammar = find_ruleset(name).grammar(None)  # the defaults; keywords never depend on options
    from gm.rules.grammar import ENVELOPE

    for keyword in (*ENVELOPE, *grammar.keywords):
        assert re.search(rf"`{keyword}\b", page), f"docs/rules/{name}.md never shows the command {keyword}"


@pytest.mark.parametrize("name", RULESETS)
def test_rules_page_gives_every_option_with_its_default(name):
    from gm.campaign.config.reading import CAMPAIGN_OPTIONS

    page = (DOCS / "rules" / f"{name}.md").read_text(encoding="utf-8")
    options = page.split("## Options", 1)
    assert len(options) == 2, f"docs/rules/{name}.md has no Options section"
    table = options[1].split("\n## ", 1)[0]
    for key in (*find_ruleset(name).option_keys, *CAMPAIGN_OPTIONS):
        assert re.search(rf"^\| `{key}` \| `[^`]+` \|", table, re.MULTILINE), (
            f"docs/rules/{name}.md: option {key} is not in its Options table with a default"
        )


@pytest.mark.parametrize("name", RULESETS)
def test_rules_page_covers_order_mail_and_fairness(name):
    page = (DOCS / "rules" / f"{name}.md").read_text(encoding="utf-8")
    for heading in ("## Order mail", "### A worked example", "## Fairness: seeds and commitments", "## Rulings"):
        assert f"\n{heading}\n" in page, f"docs/rules/{name}.md has no section {heading!r}"
    # the draw formula of the seeded choices, exactly
    assert 'int(sha256(f"{seed}:{turn}:{kind}:{key}".encode()).hexdigest(), 16) % n' in page


def test_postal_page_carries_the_rulings_the_readme_used_to():
    page = (DOCS / "rules" / "postal.md").read_text(encoding="utf-8")
    rulings = page.split("## Rulings", 1)[1]
    for ruling in ("forced", "already standing on the trapdoor", "duplicate", "`loop`", "`capped`",
                   "`hostile`", "`unreadable`", "RESET", "`GAME` line is optional"):
        assert ruling in rulings, f"docs/rules/postal.md's Rulings leave out {ruling!r}"


def test_campaign_page_names_every_campaign_yaml_key():
    page = (DOCS / "campaign.md").read_text(encoding="utf-8")
    for key in TOP_KEYS:
        assert f"| `{key}` |" in page, f"docs/campaign.md has no row for the key {key}"
    for variable in ("GM_IMAP_PASSWORD", "GM_SMTP_PASSWORD"):
        assert variable in page
    for added in ("`paused`", "`dropped`", "`held_by`"):
        assert added in page, f"docs/campaign.md does not explain gm state --json's {added}"


README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_quickstart_is_two_commands_in_one_block():
    section = README.split("## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert blocks, "the Quickstart has no sh block"
    commands = [line for line in blocks[0].splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/gm demo demo-campaign",
        "./scripts/test",
    ]


def test_readme_says_how_to_reach_gm_after_the_quickstart():
    after = README.split("## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    assert "source .venv/bin/activate" in after and ".venv/bin/gm" in after


def test_readme_links_the_rules_commands_and_files():
    targets = set(local_links(README))
    for page in ("docs/commands.md", "docs/campaign.md", "docs/rules/index.md",
                 *(f"docs/rules/{name}.md" for name in RULESETS)):
        assert page in targets, f"README.md does not link {page}"


@pytest.mark.parametrize("command", [
    "player replace", "player drop", "player email", "player password", "pause", "resume", "deadline", "status",
])
def test_readme_shows_each_administration_command_with_an_example(command):
    section = README.split("### Administration\n", 1)[1].split("\n### ", 1)[0]
    # an example is the command run on a campaign: `gm -C $C player drop carol`
    assert re.search(rf"`gm -C \S+ {command}\b[^`]*`", section), f"README's Administration has no example of gm {command}"


@pytest.mark.parametrize("name", RULESETS)
def test_rules_page_renders_as_written_with_the_archives_markdown(name):
    # the archive renders docs/rules/<name>.md with python-markdown's tables and toc only:
    # a fenced block would come out as one run-on line of code
    html = markdown.markdown((DOCS / "rules" / f"{name}.md").read_text(encoding="utf-8"), extensions=["tables", "toc"])
    assert "```" not in html and "~~~" not in html
    assert "<table>" in html and "<pre><code>" in html
