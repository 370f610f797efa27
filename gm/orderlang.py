"""The order language (RULES.md 3): the text of one order mail, turned into commands.

This module owns syntax only: which lines are commands, what each command's values must
look like, where reading stops, and every problem found, line by line. What the commands
mean for a game (does the player exist, is the password right, is square 140 on the
board, is 4 still held, was the board left out on a two-board campaign) is the caller's,
with the game state at hand.

The text is whatever a mail program produced: top-posted replies quoting the last turn
report, Outlook replies quoting it without '>' markers, phone signatures, bold text that
Gmail's plain alternative writes as *NUMBER 4*. `parse_orders` never raises on any text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["MASK", "KEYWORDS", "Problem", "OrderText", "parse_orders"]

MASK = "********"
KEYWORDS = ("GAME", "PLAYER", "PASSWORD", "TURN", "NUMBER", "TRAPDOOR", "END", "HELP", "RESET")

# The written form of each command, quoted back in problems so the player can copy it.
FORMS = {
    "GAME": "GAME <campaign>",
    "PLAYER": "PLAYER <player>",
    "PASSWORD": "PASSWORD <password>",
    "TURN": "TURN <turn number>",
    "NUMBER": "NUMBER <1-6>",
    "NUMBER-per-board": "NUMBER <board> <1-6>",
    "TRAPDOOR": "TRAPDOOR <board> <square or NONE>",
}

# Values longer than this are no square, turn or number; the bound also keeps int() cheap.
MAX_DIGITS = 9


@dataclass(frozen=True)
class Problem:
    """One problem on one line. `text` is the line as written, a password masked."""

    line: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class OrderText:
    """What one mail's text says, before any game state is consulted."""

    game: str | None = None
    player: str | None = None
    password: str | None = None
    turn: int | None = None
    numbers: Mapping[str | None, int] = field(default_factory=lambda: MappingProxyType({}))
    trapdoors: Mapping[str | None, int | None] = field(default_factory=lambda: MappingProxyType({}))
    help: bool = False
    reset: bool = False  # RESET: mail a new password to PLAYER's registered address
    problems: tuple[Problem, ...] = ()
    ignored: tuple[tuple[int, str], ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing is wrong: RULES.md 3 takes a message whole or not at all."""
        return not self.problems


# --- reading lines -----------------------------------------------------------------------

# Characters phones and webmail slip into text that no one can see; they would make
# "NUMBER\u200b4" look right to the player and fail here.
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)

# A keyword, then whitespace, a colon (`Number: 4`) or the end of the line.
_COMMAND = re.compile(r"(?P<kw>[A-Za-z]+)(?:\s*:\s*|\s+|$)(?P<rest>.*)", re.DOTALL)
# `NUMBER4`, `NUMBER=4`: clearly meant as a command, but guessing is not ours.
_GLUED = re.compile(
    r"(?P<kw>number|turn|trapdoor)\s*(?:[=#]\s*)?(?P<rest>\d.*)", re.IGNORECASE | re.DOTALL
)
# A line that may hold a password even though it is no PASSWORD command ("Password=x").
_PASSWORDISH = re.compile(r"(?:pass(?:word|wort|wd)?|pwd?)", re.IGNORECASE)

# Where the player's own text ends and a quoted original without '>' markers begins.
_ORIGINAL = re.compile(
    r"-{2,}\s*(?:original message|forwarded message|ursprüngliche nachricht|"
    r"weitergeleitete nachricht|message d'origine|mensaje original|messaggio originale|"
    r"oorspronkelijk bericht)\s*-{2,}"
    r"|(?:begin forwarded message|anfang der weitergeleiteten nachricht)\s*:"
    # An inline PGP signature: armour, not orders.
    r"|-----BEGIN PGP SIGNATURE-----",
    re.IGNORECASE,
)
_ATTRIBUTION_VERB = re.compile(
    r"\b(?:wrote|writes|schrieb|a écrit|escribió|ha scritto|schreef|skrev|kirjoitti|"
    r"napisał|escreveu)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"(?:on|am|le|el|il|op|den|em|w|dne)\b", re.IGNORECASE)
_HEADER_FROM = re.compile(r"\*?(?:from|von|de|da|van)\s*:\*?\s*\S", re.IGNORECASE)
_HEADER_NEXT = re.compile(
    r"\*?(?:sent|date|to|subject|gesendet|datum|an|betreff|envoyé|enviado|inviato|verzonden)"
    r"\s*:",
    re.IGNORECASE,
)
_RULE = re.compile(r"_{10,}")


def _clean(line: str) -> str:
    """The line as the player sees it: invisible characters gone, outer spaces trimmed."""
    line = line.translate(_INVISIBLE).strip()
    # Gmail's plain alternative writes bold text as *NUMBER 4*.
    if len(line) > 2 and line[0] == "*" and line[-1] == "*":
        line = line.strip("*").strip()
    return line


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _is_signature(line: str) -> bool:
    # RFC 3676 says "-- "; many clients strip the trailing space, and iOS turns a typed
    # "--" into an em dash.
    return line.strip() in ("--", "\u2014")


def _next_nonblank(lines: list[str], start: int) -> int | None:
    for i in range(start, min(len(lines), start + 6)):
        if lines[i].strip():
            return i
    return None


def _looks_like_attribution(line: str) -> bool:
    # "As I wrote:" is the player's own text; a real attribution starts like one
    # ("On <date>", "Am <date> schrieb <name>:") or names an address.
    return (
        line.endswith(":")
        and bool(_ATTRIBUTION_VERB.search(line))
        and (bool(_ATTRIBUTION_START.match(line)) or "@" in line)
    )


def _attribution_length(lines: list[str], i: int) -> int:
    """How many lines (0, 1 or 2) an `On <date>, <name> wrote:` line takes at i."""
    first = lines[i].strip()
    if _looks_like_attribution(first):
        return 1
    # Gmail wraps a long attribution after the name: "On ..., Snakes GM <\ngm@x> wrote:".
    if i + 1 < len(lines) and _ATTRIBUTION_START.match(first):
        return 2 if _looks_like_attribution(first + " " + lines[i + 1].strip()) else 0
    return 0


def _is_header_block(lines: list[str], i: int) -> bool:
    """An Outlook-style quoted header: `From: ...` followed by `Sent:` or `To:` lines."""
    if not _HEADER_FROM.match(lines[i].strip()):
        return False
    following = _next_nonblank(lines, i + 1)
    return following is not None and bool(_HEADER_NEXT.match(lines[following].strip()))


def _quoted_original_starts(lines: list[str], i: int) -> bool:
    """True when line i starts a quoted original that carries no '>' markers."""
    line = lines[i].strip()
    if _ORIGINAL.fullmatch(line) or _is_header_block(lines, i):
        return True
    if _RULE.fullmatch(line):
        following = _next_nonblank(lines, i + 1)
        return following is not None and _is_header_block(lines, following)
    return False


# --- commands ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Command:
    line: int
    keyword: str
    text: str  # as written, password masked
    args: tuple[str, ...]
    rest: str  # everything after the keyword, as written


def _split_command(line: str) -> tuple[str, str] | None:
    """(KEYWORD, rest as written) when the line is a command, else None."""
    # Full-width letters and digits from East Asian keyboards read as their ASCII twins.
    folded = unicodedata.normalize("NFKC", line)
    match = _COMMAND.fullmatch(folded)
    if not match or match["kw"].upper() not in KEYWORDS:
        return None
    keyword = match["kw"].upper()
    if keyword == "PASSWORD":
        # Passwords are case-sensitive and kept exactly as written, NFKC left aside.
        rest = re.sub(r"^\s*[:\uff1a]?\s*", "", line[len(match["kw"]) :])
        return keyword, rest.strip()
    return keyword, match["rest"].strip()


def _masked(line: str) -> str:
    """The line with everything after a password keyword hidden."""
    match = _PASSWORDISH.match(line)
    return (line[: match.end()] + " " + MASK) if match else MASK


def _whole_number(value: str, low: int, high: int | None = None) -> int | None:
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS):
        return None
    number = int(value)
    if number < low or (high is not None and number > high):
        return None
    return number


def _board(token: str) -> str:
    # `TRAPDOOR A: 37` reads naturally; the colon is not part of the board id.
    return token.rstrip(":") or token


class _Reader:
    """Collects commands line by line; one instance per parse_orders call."""

    def __init__(self, per_board_numbers: bool):
        self.per_board_numbers = per_board_numbers
        self.game: str | None = None
        self.player: str | None = None
        self.password: str | None = None
        self.turn: int | None = None
        self.numbers: dict[str | None, int] = {}
        self.trapdoors: dict[str | None, int | None] = {}
        self.help = False
        self.reset_line: _Command | None = None
        self.problems: list[Problem] = []
        self.ignored: list[tuple[int, str]] = []
        self.secrets: set[str] = set()
        # (command, target) -> the first line that set it, and its value as compared
        self.seen: dict[tuple[str, str | None], tuple[_Command, object]] = {}
        self.board_spelling: dict[str, str] = {}

    def problem(self, command: _Command, message: str) -> None:
        self.problems.append(Problem(command.line, command.text, message))

    def first_time(self, command: _Command, target: str | None, value: object) -> bool:
        """True the first time a command names its target; the same target again with a
        different value is a problem naming both lines."""
        key = (command.keyword, target)
        if key not in self.seen:
            self.seen[key] = (command, value)
            return True
        first, first_value = self.seen[key]
        if first_value != value:
            name = (
                command.keyword
                if target is None
                else f"{command.keyword} for board {_board(first.args[0])}"
            )
            self.problem(
                command,
                f"{name} given twice with different values: line {first.line} says "
                f'"{first.text}", line {command.line} says "{command.text}"',
            )
        return False

    def one_value(self, command: _Command, what: str) -> str | None:
        form = FORMS[command.keyword]
        if not command.args:
            self.problem(command, f"{command.keyword} needs {what}, written {form}")
            return None
        if len(command.args) > 1:
            self.problem(
                command,
                f'{command.keyword} takes one value ({what}), written {form}; got "{command.rest}"',
            )
            return None
        return command.args[0]

    def read(self, command: _Command) -> None:
        getattr(self, "read_" + command.keyword.lower())(command)

    def read_game(self, command: _Command) -> None:
        value = self.one_value(command, "the campaign id")
        if value is not None and self.first_time(command, None, value.casefold()):
            self.game = value

    def read_player(self, command: _Command) -> None:
        value = self.one_value(command, "your player id")
        if value is not None and self.first_time(command, None, value.casefold()):
            self.player = value

    def read_password(self, command: _Command) -> None:
        # The rest of the line is the password, so one with a space in it still works.
        if not command.rest:
            self.problem(command, f"PASSWORD needs your password, written {FORMS['PASSWORD']}")
            return
        self.secrets.add(command.rest)
        if self.first_time(command, None, command.rest):
            self.password = command.rest

    def read_turn(self, command: _Command) -> None:
        value = self.one_value(command, "the turn number")
        if value is None:
            return
        turn = _whole_number(value, 1)
        if turn is None:
            self.problem(command, f'TURN needs a whole turn number (1 or more), got "{value}"')
        elif self.first_time(command, None, turn):
            self.turn = turn

    def read_number(self, command: _Command) -> None:
        args = command.args
        form = FORMS["NUMBER-per-board" if self.per_board_numbers else "NUMBER"]
        if not args:
            self.problem(command, f"NUMBER needs a number from 1 to 6, written {form}")
            return
        if len(args) > (2 if self.per_board_numbers else 1):
            self.problem(command, f'too many values for NUMBER: write {form}; got "{command.rest}"')
            return
        # Under per-board numbers a lone number leaves the board out, like TRAPDOOR 37;
        # the caller accepts that only on a one-board campaign.
        board = _board(args[0]) if len(args) == 2 else None
        number = _whole_number(args[-1], 1, 6)
        if number is None:
            self.problem(command, f'NUMBER needs a whole number from 1 to 6, got "{args[-1]}"')
        elif self.first_time(command, _folded(board), number):
            self.numbers[self.spelled(board)] = number

    def read_trapdoor(self, command: _Command) -> None:
        args = command.args
        form = FORMS["TRAPDOOR"]
        if not args:
            self.problem(command, f"TRAPDOOR needs a square or NONE, written {form}")
            return
        if len(args) > 2:
            self.problem(
                command, f'too many values for TRAPDOOR: write {form}; got "{command.rest}"'
            )
            return
        board = _board(args[0]) if len(args) == 2 else None
        value = args[-1]
        withdraw = value.upper() == "NONE"
        square = None if withdraw else _whole_number(value, 1)
        if square is None and not withdraw:
            hint = "" if len(args) == 2 else f", written {form}"
            self.problem(
                command, f'TRAPDOOR needs a square number (1 or more) or NONE, got "{value}"{hint}'
            )
        elif self.first_time(command, _folded(board), square):
            self.trapdoors[self.spelled(board)] = square

    def read_help(self, command: _Command) -> None:
        # "Help me please" is a plea for help, not a syntax error worth refusing.
        self.help = True

    def read_reset(self, command: _Command) -> None:
        # Words after RESET ("reset please") change nothing; the PLAYER line says who.
        self.reset_line = self.reset_line or command

    def spelled(self, board: str | None) -> str | None:
        """The board id as first written, so `a` and `A` share one entry."""
        if board is None:
            return None
        return self.board_spelling.setdefault(board.casefold(), board)


def _folded(board: str | None) -> str | None:
    return None if board is None else board.casefold()


def _shown(line: str) -> str:
    """A line fit to be listed back: one that may hold a password is masked."""
    return _masked(line) if _PASSWORDISH.match(line) else line


def _readable_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(line number, cleaned line) of every line that may hold a command: blank and
    quoted lines skipped, stopping at a signature or a quoted original."""
    i = 0
    while i < len(lines):
        raw, number = lines[i], i + 1
        i += 1
        line = _clean(raw)
        if not line or _is_quoted(line):
            continue
        if _is_signature(raw) or _quoted_original_starts(lines, i - 1):
            return
        attribution = _attribution_length(lines, i - 1)
        if attribution:
            following = _next_nonblank(lines, i - 1 + attribution)
            if following is None or not _is_quoted(lines[following]):
                return  # the quoted original has no '>' markers: nothing below is ours
            i += attribution - 1  # a bottom-posted reply: read on below the quote
            continue
        yield number, line


def parse_orders(text: str, *, per_board_numbers: bool = False, max_lines: int = 1000) -> OrderText:
    """Read the commands of one order mail's text (RULES.md 3).

    `max_lines` caps the lines read as possible commands (blank and quoted lines are
    skipped without counting, so a long quoted report does not use it up); a message
    with more is a problem.
    """
    reader = _Reader(per_board_numbers)
    for counted, (number, line) in enumerate(_readable_lines(str(text).splitlines()), 1):
        if counted > max_lines:
            reader.problems.append(
                Problem(
                    number,
                    _shown(line),
                    f"too many lines: only the first {max_lines} lines "
                    "(not counting blank and quoted ones) are read; "
                    "put your orders first or end them with END",
                )
            )
            break
        split = _split_command(line)
        if split is None:
            _not_a_command(reader, number, line)
            continue
        keyword, rest = split
        if keyword == "END":
            break
        shown = line
        if keyword == "PASSWORD" and rest:
            shown = line[: len(line) - len(rest)].rstrip() + " " + MASK
        reader.read(_Command(number, keyword, shown, tuple(rest.split()), rest))
    return _result(reader)


def _not_a_command(reader: _Reader, number: int, line: str) -> None:
    glued = _GLUED.fullmatch(unicodedata.normalize("NFKC", line))
    if glued is None:
        reader.ignored.append((number, _shown(line)))
        return
    keyword = glued["kw"].upper()
    reader.problems.append(
        Problem(
            number,
            line,
            f'write {keyword} and its value with a space between: "{keyword} {glued["rest"]}"',
        )
    )


def _reset_problems(reader: _Reader) -> None:
    """RESET stands in a message of its own with only PLAYER (and GAME) beside it: one
    that also holds a password or orders is more likely a mistake than a lost password."""
    line = reader.reset_line
    if line is None:
        return
    if reader.player is None:
        reader.problem(line, "RESET needs your player id: add a line PLAYER <your id>")
    if reader.password is not None:
        reader.problem(line, "RESET is for a lost password: send RESET and PLAYER <your id> with no PASSWORD line")
    if reader.numbers or reader.trapdoors or reader.turn is not None:
        reader.problem(line, "RESET goes in a message of its own, with your PLAYER line and no orders")


def _result(reader: _Reader) -> OrderText:
    _reset_problems(reader)
    # A password may still appear elsewhere (a TURN line holding it by mistake, a free
    # line under the PASSWORD line): hide every occurrence of every password given.
    secrets = sorted(reader.secrets, key=len, reverse=True)

    def hide(value: str) -> str:
        for secret in secrets:
            value = value.replace(secret, MASK)
        return value

    return OrderText(
        game=reader.game,
        player=reader.player,
        password=reader.password,
        turn=reader.turn,
        numbers=MappingProxyType(dict(reader.numbers)),
        trapdoors=MappingProxyType(dict(reader.trapdoors)),
        help=reader.help,
        reset=reader.reset_line is not None,
        problems=tuple(Problem(p.line, hide(p.text), hide(p.message)) for p in reader.problems),
        ignored=tuple((n, hide(t)) for n, t in reader.ignored),
    )
