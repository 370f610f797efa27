"""The order language (docs/rules/, Order mail): the text of one order mail, turned into
commands.

This module owns syntax only: which lines are commands, what each command's values must
look like, where reading stops, and every problem found, line by line. It reads the
envelope every ruleset shares (GAME, PLAYER, PASSWORD, TURN, END, HELP, RESET); the
commands that carry the orders are the campaign's ruleset's, declared as a
`gm.rules.grammar.Grammar` and read here through it. What the commands mean for a game
(does the player exist, is the password right, does the value fit the game's state) is
the caller's, with the game state at hand.

The text is whatever a mail program produced: top-posted replies quoting the last turn
report, Outlook replies quoting it without '>' markers, phone signatures, bold text that
Gmail's plain alternative writes as *TURN 7*. `parse_orders` never raises on any text.
Which lines are the player's own is gm.mail.ownlines'; whether a word misspells a command,
gm.mail.typos'.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, field, replace

from ..rules.grammar import (
    ENVELOPE,
    Command,
    CommandProblem,
    Grammar,
    ruleset_keywords,
    whole_number,
)
from ..rules.problem import Problem
from .masking import MASK, PASSWORD_PLACEHOLDERS, hider, shown
from .ownlines import readable_lines
from .typos import INFLECTED, NEAR_MISS_LETTERS, typo_budget, typo_cost

__all__ = ["LineProblem", "OrderText", "parse_orders"]

# Each envelope command's written form, quoted back in problems for the player to copy.
FORMS = {
    "GAME": "GAME <campaign>",
    "PLAYER": "PLAYER <player>",
    "PASSWORD": "PASSWORD <password>",
    "TURN": "TURN <turn number>",
}

# Sentence punctuation: "Move fast!", "Numbr, I think, is 3" and "Play on, everyone." are
# words to the GM, never commands, misspelt or another game's.
_PROSE = re.compile(r"[,.!?;]")
# Another game's keyword opening a line of more words than this, not in capitals, opens a
# sentence ("Play nice with the others"), not a command for the wrong game.
PROSE_WORDS = 4

_EMPTY = Grammar()


@dataclass(frozen=True)
class LineProblem:
    """One problem on one line: `text` is the line as written (a password masked), `why`
    the code and facts a template words (gm.mail.words), on this line."""

    line: int
    text: str
    why: Problem


@dataclass(frozen=True)
class OrderText:
    """What one mail's text says, before any game state is consulted. `commands` are the
    ruleset's command lines, in the order written; a command given twice with the same
    value appears once (its first line)."""

    game: str | None = None
    player: str | None = None
    password: str | None = None
    turn: int | None = None
    commands: tuple[Command, ...] = ()
    help: bool = False
    reset: bool = False  # RESET: mail a new password to PLAYER's registered address
    entropy: str | None = None  # ENTROPY: the player's words for the seed (docs/audit.md)
    problems: tuple[LineProblem, ...] = ()
    ignored: tuple[tuple[int, str], ...] = ()
    # the line of each envelope command that set a value (GAME, PLAYER, PASSWORD, TURN),
    # so that a problem the caller finds with it (a wrong TURN) is told on its line
    lines: Mapping[str, int] = field(default_factory=dict)
    # the message's press blocks (gm.mail.press), read apart from the commands
    press: tuple = ()

    @property
    def ok(self) -> bool:
        """True when nothing is wrong: a message is taken whole or not at all (docs/rules/, What is read)."""
        return not self.problems


# --- reading lines -----------------------------------------------------------------------

# A keyword, then whitespace, a colon (`Turn: 7`) or the end of the line.
_COMMAND = re.compile(r"(?P<kw>[A-Za-z]+)(?:\s*:\s*|\s+|$)(?P<rest>.*)", re.DOTALL)


@dataclass(frozen=True)
class _Line:
    """A line that names a known command."""

    line: int
    keyword: str
    text: str  # as written, password masked
    args: tuple[str, ...]
    rest: str  # everything after the keyword, as written


@functools.lru_cache(maxsize=64)
def _glued(keywords: tuple[str, ...]) -> re.Pattern[str]:
    """`TURN7`, `TURN=7`: clearly meant as a command, but guessing is not ours."""
    words = "|".join(sorted(keywords, key=len, reverse=True))
    return re.compile(rf"(?P<kw>{words})\s*(?:[=#]\s*)?(?P<rest>\d.*)", re.IGNORECASE | re.DOTALL)


class _Reader:
    """Collects commands line by line; one instance per parse_orders call."""

    def __init__(self, grammar: Grammar, other_keywords: Collection[str]):
        self.grammar = grammar
        self.known = (*ENVELOPE, *grammar.keywords)
        self.foreign = frozenset(k.upper() for k in other_keywords) - set(self.known)
        self.glued = _glued(("TURN", *grammar.keywords))
        self.game: str | None = None
        self.player: str | None = None
        self.password: str | None = None
        self.turn: int | None = None
        self.commands: list[Command] = []
        self.help = False
        self.reset_line: _Line | None = None
        self.entropy: str | None = None
        self.problems: list[LineProblem] = []
        self.ignored: list[tuple[int, str]] = []
        self.secrets: set[str] = set()
        # (keyword, target) -> the first line that set it, its target and its value
        self.seen: dict[tuple[str, Hashable], tuple[_Line, Hashable, object]] = {}
        # an exclusive group of the grammar -> the first line that named one of its commands
        self.chosen: dict[tuple[str, ...], _Line] = {}

    def problem(self, line: _Line, code: str, **facts: object) -> None:
        self.problems.append(LineProblem(line.line, line.text, Problem(code, facts, line.line)))

    def first_time(self, line: _Line, target: Hashable, value: object) -> bool:
        """True the first time a command names its target; the same target again with a
        different value is a problem naming both lines."""
        key = (line.keyword, target)
        if key not in self.seen:
            self.seen[key] = (line, target, value)
            return True
        first, first_target, first_value = self.seen[key]
        if first_value != value:
            self.problem(line, "given_twice", keyword=line.keyword,
                         target=None if target is None else str(first_target),
                         first_line=first.line, first_text=first.text, at=line.line, text=line.text)
        return False

    def one_value(self, line: _Line) -> str | None:
        form = FORMS[line.keyword]
        if not line.args:
            self.problem(line, "needs_value", keyword=line.keyword, form=form)
            return None
        if len(line.args) > 1:
            self.problem(line, "one_value", keyword=line.keyword, form=form, rest=line.rest)
            return None
        return line.args[0]

    def read(self, line: _Line) -> None:
        if line.keyword in ENVELOPE:
            getattr(self, "read_" + line.keyword.lower())(line)
            return
        spec = self.grammar.spec(line.keyword)
        assert spec is not None
        try:
            target, value = spec.read(line.args, line.rest, self.grammar.context)
        except CommandProblem as problem:
            self.problems.append(LineProblem(line.line, line.text, problem.problem.on_line(line.line)))
            return
        if not self.one_of_group(line):
            return
        if spec.repeatable or self.first_time(line, target, value):
            self.commands.append(Command(line.line, line.text, line.keyword, target, value))

    def one_of_group(self, line: _Line) -> bool:
        """False, with a problem on this line, when an earlier line named another command
        of this one's exclusive group (Grammar.exclusive: ROLL or HOLD, not both)."""
        group = self.grammar.group(line.keyword)
        if not group:
            return True
        first = self.chosen.setdefault(group, line)
        if first.keyword == line.keyword:
            return True
        self.problem(line, "exclusive_commands", keyword=line.keyword, other=first.keyword, group=group,
                     first_line=first.line, first_text=first.text)
        return False

    def read_game(self, line: _Line) -> None:
        value = self.one_value(line)
        if value is not None and self.first_time(line, None, value.casefold()):
            self.game = value

    def read_player(self, line: _Line) -> None:
        value = self.one_value(line)
        if value is not None and self.first_time(line, None, value.casefold()):
            self.player = value

    def read_password(self, line: _Line) -> None:
        # The rest of the line is the password, so one with a space in it still works.
        if not line.rest:
            self.problem(line, "needs_value", keyword="PASSWORD", form=FORMS["PASSWORD"])
            return
        if line.rest.casefold() in PASSWORD_PLACEHOLDERS:
            # a ready order from our mail sent unedited: the placeholder is no guess, and
            # the reply says so in fixed words
            self.problem(line, "password_placeholder")
            return
        self.secrets.add(line.rest)
        if self.first_time(line, None, line.rest):
            self.password = line.rest

    def read_turn(self, line: _Line) -> None:
        value = self.one_value(line)
        if value is None:
            return
        turn = whole_number(value, 1)
        if turn is None:
            self.problem(line, "turn_not_whole", value=value)
        elif self.first_time(line, None, turn):
            self.turn = turn

    def read_help(self, line: _Line) -> None:
        # "Help me please" is a plea for help, not a syntax error worth refusing.
        self.help = True

    def read_entropy(self, line: _Line) -> None:  # the words; a later line replaces them
        self.entropy = line.rest

    def read_reset(self, line: _Line) -> None:
        # Words after RESET ("reset please") change nothing; the PLAYER line says who.
        self.reset_line = self.reset_line or line

    def not_a_command(self, lineno: int, line: str, folded: str, word: str | None) -> None:
        """A line that names no command of this game: a problem when it names another
        ruleset's command (docs/rules/, What is read), glues a value to a keyword or misspells one;
        else listed back as ignored."""
        if word is not None and word in self.foreign and not _is_prose(folded):
            own = self.grammar.keywords or self.known
            self.problems.append(LineProblem(lineno, shown(line),
                                             Problem("foreign_command", {"word": word, "commands": list(own)}, lineno)))
            return
        glued = self.glued.fullmatch(folded)
        if glued is not None:
            keyword = glued["kw"].upper()
            self.problems.append(LineProblem(lineno, line, Problem("glued", {"keyword": keyword, "rest": glued["rest"]}, lineno)))
            return
        meant = self.near_miss(word, folded)
        if meant is not None:
            # a misspelt PASSWORD line holds the password: show only the word
            text = f"{line.split()[0]} {MASK}" if meant == "PASSWORD" else shown(line)
            self.problems.append(LineProblem(lineno, text, Problem("misspelt", {"word": word, "meant": meant}, lineno)))
            return
        self.ignored.append((lineno, shown(line)))

    def near_miss(self, word: str | None, folded: str) -> str | None:
        """The command of this game a line's first word misspells (`NUMBR 5`, `MOV`), if
        any. Not for prose: a line with sentence punctuation never is one, and a word not
        in capitals is taken for a misspelling only when the rest of the line reads as the
        command it is near ("numbr 3", "Mov"), so "Played well" and "Moved house last week"
        stay free lines; in capitals ("PLAU", "BUIDL SNAKE") it is one at once."""
        match = _COMMAND.fullmatch(folded)
        if word is None or match is None or len(word) < NEAR_MISS_LETTERS or _PROSE.search(folded):
            return None
        costs = [(typo_cost(word, keyword), keyword) for keyword in self.known
                 if keyword[0] == word[0] and keyword != word]
        costs = [(cost, keyword) for cost, keyword in costs if cost <= typo_budget(keyword)]
        if not costs:
            return None
        meant = min(costs, key=lambda found: found[0])[1]
        if any(word.endswith(end) and not meant.endswith(end)
               and typo_cost(word[: -len(end)], meant) <= typo_budget(meant) for end in INFLECTED):
            return None  # the command's own word, inflected (not RESING: RES is no stem)
        rest = match["rest"].strip()
        if match["kw"].isupper() or self.reads_as(meant, tuple(rest.split()), rest):
            return meant
        return None

    def reads_as(self, keyword: str, args: tuple[str, ...], rest: str) -> bool:
        """True when `args` are what `keyword` takes: the line is that command, bar its
        keyword's spelling. Reading changes nothing (a trial of the command's reader)."""
        if keyword in ("GAME", "PLAYER"):
            return len(args) == 1
        if keyword == "TURN":
            return len(args) == 1 and whole_number(args[0], 1) is not None
        if keyword in ("PASSWORD", "ENTROPY"):
            return bool(args)
        if keyword in ENVELOPE:  # END, HELP, RESET take nothing
            return not args
        spec = self.grammar.spec(keyword)
        try:
            spec.read(args, rest, self.grammar.context)
        except CommandProblem:
            return False
        return True


def _is_prose(folded: str) -> bool:
    """A line that reads as a sentence ("Move fast!", "Play nice with the others"): another
    game's keyword at its start is a word, not a command sent to the wrong game."""
    match = _COMMAND.fullmatch(folded)
    caps = match is not None and match["kw"].isupper()
    return bool(_PROSE.search(folded)) or (not caps and len(folded.split()) > PROSE_WORDS)


def parse_orders(
    text: str,
    *,
    grammar: Grammar | None = None,
    other_keywords: Collection[str] | None = None,
    max_lines: int = 1000,
) -> OrderText:
    """Read the commands of one order mail's text (docs/rules/, Order mail).

    `grammar` is the campaign's ruleset's commands (`ruleset.grammar(options)`); without
    it only the envelope is read. A line naming a command of `other_keywords` that the
    grammar does not know is refused (docs/rules/, What is read); by default those are the commands of
    gm's own five rulesets (`gm.rules.grammar.ruleset_keywords()`, worked out once a
    process), never an installed package's: its words are free lines elsewhere.

    `max_lines` caps the lines read as possible commands (blank and quoted lines are
    skipped without counting, so a long quoted report does not use it up); a message
    with more is a problem.
    """
    grammar = _EMPTY if grammar is None else grammar
    if other_keywords is None:
        other_keywords = ruleset_keywords()
    reader = _Reader(grammar, other_keywords)
    for counted, (lineno, line) in enumerate(readable_lines(str(text).splitlines(), grammar.strict_signature), 1):
        if counted > max_lines:
            reader.problems.append(LineProblem(lineno, shown(line), Problem("too_many_lines", {"max_lines": max_lines}, lineno)))
            break
        # Full-width letters and digits (East Asian input methods) read as their ASCII twins.
        folded = unicodedata.normalize("NFKC", line)
        match = _COMMAND.fullmatch(folded)
        word = match["kw"].upper() if match else None
        if match is None or word not in reader.known:
            reader.not_a_command(lineno, line, folded, word)
            continue
        if word == "END":
            break
        rest = match["rest"].strip()
        written = line
        if word == "PASSWORD":
            # Passwords are case-sensitive and kept exactly as written, NFKC left aside.
            rest = re.sub(r"^\s*[:\uff1a]?\s*", "", line[len(match["kw"]) :]).strip()
            if rest:
                written = line[: len(line) - len(rest)].rstrip() + " " + MASK
        reader.read(_Line(lineno, word, written, tuple(rest.split()), rest))
    return _result(reader)


def _reset_problems(reader: _Reader) -> None:
    """RESET stands in a message of its own with only PLAYER (and GAME) beside it: one
    that also holds a password or orders is more likely a mistake than a lost password."""
    line = reader.reset_line
    if line is None:
        return
    if reader.player is None:
        reader.problem(line, "reset_needs_player")
    if reader.password is not None:
        reader.problem(line, "reset_with_password")
    if reader.commands or reader.turn is not None:
        reader.problem(line, "reset_not_alone")


def _result(reader: _Reader) -> OrderText:
    _reset_problems(reader)
    # A password may still appear elsewhere (a TURN line holding it by mistake, a free
    # line under the PASSWORD line): hide every occurrence of every password given.
    hide = hider(reader.secrets)

    return OrderText(
        game=reader.game,
        player=reader.player,
        password=reader.password,
        turn=reader.turn,
        commands=tuple(replace(c, text=hide(c.text)) for c in reader.commands),
        help=reader.help,
        reset=reader.reset_line is not None,
        entropy=reader.entropy,
        problems=tuple(LineProblem(p.line, hide(p.text), replace(p.why, facts={
            k: hide(v) if isinstance(v, str) else v for k, v in p.why.facts.items()})) for p in reader.problems),
        ignored=tuple((n, hide(t)) for n, t in reader.ignored),
        lines={keyword: first.line for (keyword, target), (first, _, _) in reader.seen.items()
               if keyword in ENVELOPE and target is None},
    )
