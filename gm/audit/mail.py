"""`gm audit --mail`: the record held against the mail a player or observer received
(docs/audit.md). gm marks its mail with the proof: every mail the game commitment
(`X-GM-Game: HEX`), every acknowledgement the receipt of the standing order after the
message it answers (`X-GM-Receipt: turn=T; player=ID; count=K; receipt=HEX`), every report
the record hash of its turn (`X-GM-Record: turn=T; hash=HEX`), the final mail the end's
link (`X-GM-End: HEX`). Each must be the replay's: the game announced, the history mailed
at each turn, how the campaign ended, and for each player and turn the last order
acknowledged is the one played.

The mail is read without trusting it, as the record is: only each message's header
block (at most MAX_HEAD bytes of it), mbox files line by line (lines cut at MAX_LINE),
at most MAX_MESSAGES messages in all; a header that cannot be read is counted and
skipped, never an error. Nothing of a body is read."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import cmp_to_key
from pathlib import Path
from typing import Any, BinaryIO

from ..counts import count, one_or_many
from .checks import Difference
from .source import FORMAT, RecordUnreadable

__all__ = ["Ack", "MailChecked", "Mailed", "check_mail", "read_mail"]

MAX_HEAD = 256 * 2**10  # the header block of one message; gm's are under 2 KiB
MAX_LINE = 64 * 2**10  # a line of an mbox file, cut beyond it
MAX_MESSAGES = 1_000_000  # in all the paths given: a player's whole mail, many times over
_WANTED = ("x-gm-game", "x-gm-receipt", "x-gm-record", "x-gm-end", "date")
_HEX = re.compile(r"[0-9a-f]{64}")
_ID = re.compile(r"[A-Za-z0-9_.\-]{1,100}")
_NUMBER = re.compile(r"[0-9]{1,9}")
_OLDEST = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Ack:
    """One acknowledgement's receipt, as mailed."""

    turn: int
    player: str
    count: int | None  # the message it answers, counted for the turn from 1; None before gm sent it
    receipt: str
    date: datetime | None
    where: str  # the file (and message) it was read from

    @property
    def order(self) -> tuple[int, datetime]:
        """The message count `k`, bound by the receipt's salt (docs/audit.md, Checking mail): the
        highest is the last, whatever `Date` the GM wrote; the Date orders only mail from a gm
        that sent no count."""
        return (self.count or 0, self.date or _OLDEST)

    def said(self) -> str:
        number = f"order #{self.count}" if self.count else "an order"
        return f"{number} of {self.date.isoformat() if self.date else 'no date'}, in {self.where}"


@dataclass
class Mailed:
    """The proof headers found in the mail given."""

    files: int = 0
    messages: int = 0
    games: list[tuple[str, str]] = field(default_factory=list)  # (commitment, where)
    records: list[tuple[int, str, str]] = field(default_factory=list)  # (turn, hash, where)
    acks: list[Ack] = field(default_factory=list)
    ends: list[tuple[str, str]] = field(default_factory=list)  # (the end's link, where)
    unreadable: list[str] = field(default_factory=list)  # where an X-GM header could not be read


# -- reading --------------------------------------------------------------------------------


def read_mail(paths: Sequence[str | Path]) -> Mailed:
    """The proof headers of every message in `paths`: .eml files, mbox files (a file that
    starts with "From "), Maildir folders (their cur/ and new/), or folders of such files.
    RecordUnreadable (exit 3) past MAX_MESSAGES or when a path cannot be read."""
    mailed = Mailed()
    for path in map(Path, paths):
        try:
            for where, head in _messages(path, mailed):
                mailed.messages += 1
                if mailed.messages > MAX_MESSAGES:
                    raise RecordUnreadable(f"the mail given holds more than {MAX_MESSAGES:,} messages")
                _read_head(head, where, mailed)
        except OSError as error:
            raise RecordUnreadable(f"cannot read the mail at {path}: {error.strerror or error}") from None
    return mailed


def _messages(path: Path, mailed: Mailed) -> Iterator[tuple[str, bytes]]:
    """(where, header block) of each message at `path`."""
    if path.is_dir():
        maildir = [path / sub for sub in ("cur", "new") if (path / sub).is_dir()]
        for folder in maildir or [path]:
            with os.scandir(folder) as entries:
                files = sorted(e.path for e in entries if e.is_file(follow_symlinks=False))
            for name in files:
                yield from _file(Path(name), mailed)
    else:
        yield from _file(path, mailed)


def _file(path: Path, mailed: Mailed) -> Iterator[tuple[str, bytes]]:
    mailed.files += 1
    with path.open("rb") as stream:
        if stream.read(5) == b"From ":
            stream.seek(0)
            yield from _mbox(stream, str(path))
        else:
            stream.seek(0)
            yield str(path), _head(stream.read(MAX_HEAD))


def _head(data: bytes) -> bytes:
    """The header block of a message's first bytes: up to the first empty line."""
    ends = [i for i in (data.find(b"\n\n"), data.find(b"\r\n\r\n")) if i >= 0]
    return data[:min(ends)] if ends else data


def _mbox(stream: BinaryIO, name: str) -> Iterator[tuple[str, bytes]]:
    """Each message's header block in an mbox file, read line by line: a message starts at a
    "From " line at the start of the file or after an empty line."""
    number, head, in_head, blank = 0, bytearray(), False, True
    while line := stream.readline(MAX_LINE):
        if blank and line.startswith(b"From "):
            if in_head:
                yield f"{name} message {number}", bytes(head)
            number, head, in_head = number + 1, bytearray(), True
        elif in_head:
            if not line.strip(b"\r\n"):
                yield f"{name} message {number}", bytes(head)
                in_head = False
            elif len(head) < MAX_HEAD:
                head += line
        blank = not line.strip(b"\r\n")
    if in_head:
        yield f"{name} message {number}", bytes(head)


def _fields(head: bytes) -> Iterator[tuple[str, str]]:
    """(lowercased name, unfolded value) of the header fields gm's proof needs."""
    name, value = None, ""
    for line in head.decode("latin-1").splitlines():
        if line[:1] in (" ", "\t") and name is not None:
            value += " " + line.strip()
            continue
        if name in _WANTED:
            yield name, value
        key, colon, rest = line.partition(":")
        name, value = (key.strip().lower(), rest.strip()) if colon else (None, "")
    if name in _WANTED:
        yield name, value


def _read_head(head: bytes, where: str, mailed: Mailed) -> None:
    fields = list(_fields(head))
    date = next((_date(v) for n, v in fields if n == "date"), None)
    for name, value in fields:
        if name == "date":
            continue
        parts = _parts(value)
        if name == "x-gm-game" and _HEX.fullmatch(value.lower()):
            mailed.games.append((value.lower(), where))
        elif name == "x-gm-end" and _HEX.fullmatch(value.lower()):
            mailed.ends.append((value.lower(), where))
        elif name == "x-gm-record" and _number(parts.get("turn")) and _HEX.fullmatch(parts.get("hash", "")):
            mailed.records.append((int(parts["turn"]), parts["hash"], where))
        elif (name == "x-gm-receipt" and _number(parts.get("turn")) and _ID.fullmatch(parts.get("player", ""))
              and _HEX.fullmatch(parts.get("receipt", "")) and ("count" not in parts or _number(parts["count"]))):
            count = int(parts["count"]) if "count" in parts else None
            mailed.acks.append(Ack(int(parts["turn"]), parts["player"], count, parts["receipt"], date, where))
        else:
            mailed.unreadable.append(where)


def _parts(value: str) -> dict[str, str]:
    """`turn=3; player=ann; receipt=...` as a dict (hex lowercased)."""
    parts = {}
    for item in value.split(";"):
        key, equals, text = item.partition("=")
        if equals:
            text = text.strip()
            parts[key.strip().lower()] = text.lower() if _HEX.fullmatch(text.lower()) else text
    return parts


def _number(text: str | None) -> bool:
    return bool(text) and bool(_NUMBER.fullmatch(text))


def _date(text: str) -> datetime | None:
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


# -- checking -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MailChecked:
    """What the mail proved, and what it could not show."""

    proved: tuple[str, ...]
    notes: tuple[str, ...]
    announced: bool  # the mail carried the game commitment


MAILED = ("the mail holds", "the archive's replay gives")


def check_mail(replayed: Any, mailed: Mailed) -> Difference | MailChecked:
    """Every game commitment, record hash and last acknowledgement of `mailed` against the
    audit's replay (gm.audit.replay.Replayed); the first difference, or what was proved."""
    game = replayed.game_commitment
    for value, where in mailed.games:
        if value != game:
            return Difference(None, f"the game announced (X-GM-Game in {where}; is it mail of another campaign?)",
                              None, None, value, game or "no game commitment", labels=MAILED)
    # the orders first: a player's order changed shows there by name, and in every record
    # hash from its turn on
    found, proved, notes = _acks(replayed, mailed)
    if found:
        return found
    last = replayed.last_turn
    for turn, value, where in mailed.records:
        entry = replayed.entries.get(turn)
        if entry is None:
            return Difference(turn, f"the history mailed (X-GM-Record in {where})", None, None, value,
                              f"no turn {turn}: the record stops at turn {last}" if last is not None
                              else "no turn at all", labels=MAILED)
        if entry.get("record_hash") != value:
            return Difference(turn, f"the history mailed (X-GM-Record in {where})", None, None, value,
                              entry.get("record_hash"), labels=MAILED)
    for value, where in mailed.ends:
        if value != replayed.end_hash:
            return Difference(last, f"how the campaign ended (X-GM-End in {where}: the end's link)", None, None,
                              value, replayed.end_hash or "a record without the end's link", labels=MAILED)
    lines = []
    if mailed.games:
        lines.append(f"the game announced: the game commitment of {count(len(mailed.games), 'message')}")
    turns = {turn for turn, _, _ in mailed.records}
    if turns:
        lines.append(f"the history mailed: the record hashes of {count(len(turns), 'turn')} "
                     f"({count(len(mailed.records), 'report')})")
    if mailed.ends:
        lines.append(f"how the campaign ended: the end's link of {count(len(mailed.ends), 'final mail')}")
    if mailed.acks:
        lines.append(f"the orders played: the last acknowledgement of {count(proved, 'player and turn', 'players and turns')}"
                     f" ({count(len(mailed.acks), 'acknowledgement')})")
    if not (mailed.games or mailed.records or mailed.acks or mailed.ends):
        notes.append(f"the mail given ({count(mailed.messages, 'message')}) holds none of gm's X-GM- headers")
    if mailed.unreadable:
        notes.append(f"{count(len(mailed.unreadable), 'X-GM- header')} in a form gm does not write "
                     f"{one_or_many(len(mailed.unreadable), 'was', 'were')} skipped (the first in {mailed.unreadable[0]})")
    return MailChecked(tuple(lines), tuple(notes), bool(mailed.games))


def _acks(replayed: Any, mailed: Mailed) -> tuple[Difference | None, int, list[str]]:
    """For each seat and turn, the last acknowledgement mailed (a later holder's after her
    predecessor's, then by message count) must be the receipt played. Returns the first Difference, how many were proved,
    and what could not be."""
    seats, last = replayed.seats, replayed.last_turn
    groups: dict[tuple[int, str], list[Ack]] = {}
    unplayed: dict[tuple[str, int], Ack] = {}  # acknowledged for a turn after the last one played
    notes: list[str] = []
    for ack in mailed.acks:
        entry = replayed.entries.get(ack.turn)
        if entry is None:
            if last is not None and ack.turn > last:
                unplayed[ack.player, ack.turn] = max(ack, unplayed.get((ack.player, ack.turn), ack),
                                                     key=lambda a: a.order)
                continue
            return Difference(ack.turn, "an order acknowledged for a turn the record does not hold", None,
                              ack.player, ack.said(), "no such turn", labels=MAILED), 0, notes
        holder = ack.player if ack.player in entry["players"] else _holder(seats, ack.player, ack.turn)
        if holder is None:
            return Difference(ack.turn, "an order acknowledged to a player who held no seat in that turn", None,
                              ack.player, ack.said(), entry["players"], labels=MAILED), 0, notes
        groups.setdefault((ack.turn, holder), []).append(ack)
    notes += [f"{player}'s order for turn {turn} ({ack.said()}) was never played: the campaign ended after "
              f"turn {last}" for (player, turn), ack in sorted(unplayed.items())]
    proved = 0
    for (turn, holder), acks in sorted(groups.items()):
        tied = _tied(acks)
        if tied:
            return tied, 0, notes
        entry = replayed.entries[turn]
        final = max(acks, key=cmp_to_key(lambda a, b: _after(seats, a, b)))
        played = (entry.get("receipts") or {}).get(holder)
        if played is None:
            if holder in entry.get("dropped", ()) and replayed.format == FORMAT:  # from gm-audit/3
                return Difference(turn, "an order acknowledged to a player the record says had left the game "
                                  "(docs/audit.md, Acknowledged means played)", None, holder, final.receipt,
                                  "no order", labels=MAILED), 0, notes
            if holder in entry.get("dropped", ()):  # gm-audit/1 has no `dropped`
                notes.append(f"{holder}'s order for turn {turn} was acknowledged ({final.said()}) but not "
                             "played: the record says they had left the game (gm player drop)")
                continue
            return Difference(turn, "the last order acknowledged was not played", None, holder, final.receipt,
                              "no order", labels=MAILED), 0, notes
        if final.receipt == played["receipt"]:
            proved += 1
            continue
        if final.player != played["player"] and seats.later(played["player"], final.player):
            notes.append(f"{final.player}'s last order for turn {turn} ({final.said()}) gave way to one "
                         f"{played['player']} sent on taking over the seat; {played['player']}'s mail would show it")
            continue
        return Difference(turn, f"the last order acknowledged ({final.said()}) is not the one played", None, holder,
                          final.receipt, played["receipt"], labels=MAILED), 0, notes
    return None, proved, notes


def _tied(acks: Sequence[Ack]) -> Difference | None:
    """Two acknowledgements of one writer, turn and `k` answer one message (docs/audit.md,
    Answers an auditor would otherwise guess): their receipts must be the same."""
    seen: dict[tuple[str, int], Ack] = {}
    for ack in acks:
        if ack.count is None:
            continue
        first = seen.setdefault((ack.player, ack.count), ack)
        if first.receipt != ack.receipt:
            return Difference(ack.turn, f"two acknowledgements of one message ({ack.said()} and {first.said()})",
                              None, ack.player, first.receipt, ack.receipt, labels=MAILED)
    return None


def _after(seats: Any, one: Ack, other: Ack) -> int:
    """How two acknowledgements for one seat and turn are ordered: every one a later holder
    of the seat got came after every one her predecessor got (his password stopped working
    when she took it, and counts start again for each writer), then by Date and count."""
    if one.player != other.player:
        if seats.later(one.player, other.player):
            return 1
        if seats.later(other.player, one.player):
            return -1
    return (one.order > other.order) - (one.order < other.order)


def _holder(seats: Any, writer: str, turn: int) -> str | None:
    """The holder in `turn` of the seat `writer` held, when `writer`'s order for `turn`
    stood for them (replaced while the turn was open)."""
    seat = seats.seat_of(writer)
    if seat is None:
        return None
    holder = seats.at(turn)[seat]
    return holder if seats.wrote_for(writer, holder, turn) else None
