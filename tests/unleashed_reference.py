"""An independent reference engine for "Snakes & Ladders Unleashed" (docs/rules/unleashed.md), written
from the rules text only (docs/rules/, The board, 5, 6 and CONTRACT's Unleashed section), for the
differential test against gm's implementation. Standard library only.

Public API: `start(seed, players, options, board) -> State`, `resolve(state, orders) ->
State` (a new state; the input is not changed), `state_json(state) -> dict` (CONTRACT's
Unleashed `gm state --json` keys), and `state.draws`: the random choices of the last call,
as dicts {turn, kind, key, candidates, index}, in call order.

Orders (gm's stored JSON): per player {"sent": true, "plays": [[card, square, choices or
None], ...] or None, "reactions": {action: [choice text, ...]}, "places": [[item, a, b],
...] or None}; a player absent from `orders` sent nothing (NMR).

Readings of RULES 6 where the text leaves room (each marked READING in the code):
* 6.5 "the go ends at once" when the go's player's pawn crosses: nothing more of the go
  happens, not even the rest of an action in progress (e.g. the second pawn of a swap).
* 6.4 a PLACE line not made at a pick stays in the list for that player's later picks;
  only the line made is used up (equivalent to dropping it: during setup items are only
  added, so a line not legal once never becomes legal). The pick number (the `setup` key)
  counts every pick, players' own picks too.
* 6.5 locks: SWAP-CARDS does not place a card, so it neither locks nor is refused by a lock.
* "Displaced in any way" (6.8 SWAP-PLAYERS) counts every move begun for that pawn (a send,
  a swap, a roll, going to Start) and a crossing.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

ACTIONS = ["EXTRA-ROLL", "SWAP-PLAYERS", "MOVE-LADDER", "MOVE-SNAKE", "MOVE-ANY",
           "MOVE-2-LADDERS", "MOVE-2-SNAKES", "SWAP-CARDS", "REVERSE"]

DEFAULT_DECK = {
    "BLANK": 36, "+1": 9, "+2": 9, "+3": 8, "-1": 9, "-2": 9, "-3": 8,
    "EXTRA-ROLL": 5, "SWAP-PLAYERS": 4, "MOVE-LADDER": 4, "MOVE-SNAKE": 4, "MOVE-ANY": 4,
    "MOVE-2-LADDERS": 3, "MOVE-2-SNAKES": 3, "SWAP-CARDS": 4, "REVERSE": 3,
    "FORWARD-2": 2, "FORWARD-3": 2, "FORWARD-4": 1, "BACK-2": 2, "BACK-3": 2, "BACK-4": 1,
}
DEFAULT_DOTS = {"SWAP-PLAYERS": 4, "MOVE-ANY": 3, "MOVE-2-LADDERS": 3, "MOVE-2-SNAKES": 3,
                "SWAP-CARDS": 4, "REVERSE": 3}

ITEMS = ["S1", "S2", "S3", "S4", "S5", "S6", "L1", "L2", "L3", "L4", "L5", "L6", "P1", "P2"]
KIND = {"S": "snakes", "L": "ladders", "P": "lampposts"}

# 6.4's default mix: pieces -> (snakes, ladders, lampposts)
MIX_TABLE = {0: (0, 0, 0), 1: (1, 0, 0), 2: (1, 1, 0), 3: (1, 1, 1), 4: (2, 2, 0), 5: (2, 2, 1),
             6: (3, 2, 1), 7: (3, 3, 1), 8: (4, 3, 1), 9: (4, 4, 1), 10: (5, 4, 1),
             11: (5, 5, 1), 12: (5, 5, 2), 13: (6, 6, 1), 14: (6, 6, 2)}

PLAYER_KEYWORDS = ("ME", "LEADER", "LAST", "NEXT")


def canonical_key(code: str) -> tuple[int, int]:
    """6.2's canonical order."""
    if code == "BLANK":
        return (0, 0)
    if re.fullmatch(r"\+\d", code):
        return (1, int(code[1:]))
    if re.fullmatch(r"-\d", code):
        return (2, int(code[1:]))
    if code in ACTIONS:
        return (3, ACTIONS.index(code))
    if code.startswith("FORWARD-"):
        return (4, int(code.split("-")[1]))
    if code.startswith("BACK-"):
        return (5, int(code.split("-")[1]))
    raise ValueError(code)


def norm_code(code: Any) -> str:
    if isinstance(code, int):
        return f"+{code}" if code > 0 else str(code)
    text = str(code).upper()
    if re.fullmatch(r"\d", text):
        return "+" + text
    return text


def is_movement(code: str) -> bool:
    return bool(re.fullmatch(r"[+-]\d", code))


def is_action(code: str) -> bool:
    return code != "BLANK" and not is_movement(code)


def action_type(code: str) -> str:
    """The reaction list an action card uses (6.13): FORWARD / BACK for every k."""
    if code.startswith("FORWARD-"):
        return "FORWARD"
    if code.startswith("BACK-"):
        return "BACK"
    return code


def choose_index(seed: int, turn: int, kind: str, key: str, n: int) -> int:
    digest = hashlib.sha256(f"{seed}:{turn}:{kind}:{key}".encode()).hexdigest()
    return int(digest, 16) % n


# ---------------------------------------------------------------------------------------
# options

@dataclass
class Options:
    seating: str = "random"
    rotate_start: bool = True
    finish: str = "round"
    setup: str = "players"
    pieces: int = 12
    mix: tuple[int, int, int] = (5, 5, 2)
    super_size: bool = True
    simple: bool = False
    blank_removal: int = 0
    four_card_hands: bool = False
    two_card_placement: bool = False
    compulsory_play: bool = False
    snake_eyes: str = "off"
    deck: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_DECK))
    white_dots: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_DOTS))
    max_turns: int = 200


def parse_options(raw: dict[str, Any]) -> Options:
    o = Options()
    o.seating = raw.get("seating", "random")
    o.rotate_start = bool(raw.get("rotate_start", True))
    o.finish = raw.get("finish", "round")
    o.setup = raw.get("setup") or "players"  # no board file: 6.4's default is `players`
    o.super_size = bool(raw.get("super_size", True))
    o.simple = bool(raw.get("simple", False))
    o.blank_removal = int(raw.get("blank_removal", 0))
    o.four_card_hands = bool(raw.get("four_card_hands", False))
    o.two_card_placement = bool(raw.get("two_card_placement", False))
    o.compulsory_play = bool(raw.get("compulsory_play", False))
    se = raw.get("snake_eyes", "off")
    o.snake_eyes = "off" if se is False or se is None else str(se)
    o.max_turns = int(raw.get("max_turns", 200))
    if "deck" in raw:
        o.deck = {norm_code(k): int(v) for k, v in raw["deck"].items()}
        o.white_dots = {}
    if "white_dots" in raw:
        o.white_dots = {norm_code(k): int(v) for k, v in raw["white_dots"].items()}
    mix = raw.get("mix")
    if mix is not None:
        o.mix = (int(mix.get("snakes", 0)), int(mix.get("ladders", 0)), int(mix.get("lampposts", 0)))
        o.pieces = int(raw.get("pieces", sum(o.mix)))
    else:
        o.pieces = int(raw.get("pieces", 12 if o.super_size else 9))
        o.mix = MIX_TABLE[o.pieces]
    return o


def board_size(players: int, super_size: bool) -> tuple[int, int]:
    """6.1: (rows, columns)."""
    if super_size:
        return (7, 10) if players == 2 else (6, 10) if players <= 4 else (5, 10)
    return (6, 8) if players == 2 else (5, 8) if players <= 4 else (4, 8)


# ---------------------------------------------------------------------------------------
# state

@dataclass
class Pawn:
    square: int = 0
    finished: bool = False
    overshoot: int | None = None
    placing: int | None = None


@dataclass
class State:
    seed: int
    players: list[str]
    seats: list[str]
    opts: Options
    rows: int
    cols: int
    turn: int = 1
    over: bool = False
    setup_pending: bool = False
    cards: list[list[Any]] = field(default_factory=list)  # square s -> [code, card id]
    next_card: int = 1
    pile: list[str] = field(default_factory=list)
    hands: dict[str, list[str]] = field(default_factory=dict)
    items: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (lower, upper)
    reversed: bool = False
    locked_cards: set[int] = field(default_factory=set)  # card ids
    locked_items: set[str] = field(default_factory=set)
    pawns: dict[str, Pawn] = field(default_factory=dict)
    reactions: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)
    results: dict[str, int] | None = None  # aggregate/place once over
    crossed: bool = False
    draws: list[dict[str, Any]] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.rows * self.cols

    def seat(self, p: str) -> int:
        return self.seats.index(p) + 1

    def choice(self, turn: int, kind: str, key: str, candidates: list[Any]) -> Any:
        index = choose_index(self.seed, turn, kind, key, len(candidates))
        self.draws.append({"turn": turn, "kind": kind, "key": key,
                           "candidates": list(candidates), "index": index})
        return candidates[index]

    def shuffle(self, items: list[Any], kind: str) -> list[Any]:
        a = list(items)
        for i in range(len(a) - 1, 0, -1):
            j = self.choice(0, kind, str(i), list(range(i + 1)))
            a[i], a[j] = a[j], a[i]
        return a

    def new_card(self, code: str) -> list[Any]:
        card = [code, self.next_card]
        self.next_card += 1
        return card

    def in_play(self, p: str) -> bool:
        return p in self.pawns and not self.pawns[p].finished


# ---------------------------------------------------------------------------------------
# geometry and items (6.1, 6.3)

def level(st: State, s: int) -> int:
    return (s - 1) // st.cols + 1


def column(st: State, s: int) -> int:
    i = (s - 1) % st.cols
    return i if level(st, s) % 2 == 1 else st.cols - 1 - i


def is_long(item: str) -> bool:
    return item in ("S4", "S5", "S6", "L4", "L5", "L6", "P2")


def orient(st: State, item: str, a: int, b: int) -> tuple[int, int] | None:
    """(lower, upper) if a, b fit the item's reach (6.3), else None."""
    if not (1 <= a <= st.n and 1 <= b <= st.n):
        return None
    reach = 2 if is_long(item) else 1
    la, lb = level(st, a), level(st, b)
    if abs(la - lb) != reach or abs(column(st, a) - column(st, b)) > reach:
        return None
    return (a, b) if la < lb else (b, a)


def ends_ok(st: State, placed: dict[str, tuple[int, int]]) -> bool:
    """6.3 Ends over a whole set of items."""
    upper: dict[int, str] = {}
    lower: dict[int, str] = {}
    for item, (lo, up) in placed.items():
        if lo in lower or up in upper:
            return False
        lower[lo] = item[0]
        upper[up] = item[0]
    return all(not (s in upper and upper[s] != k) for s, k in lower.items())


def placement_ok(st: State, item: str, lo: int, up: int, others: dict[str, tuple[int, int]]) -> bool:
    k = item[0]
    for other, (olo, oup) in others.items():
        if other == item:
            continue
        if olo == lo or oup == up:
            return False
        if (oup == lo or olo == up) and other[0] != k:
            return False
    return True


def all_placements(st: State, item: str) -> list[tuple[int, int]]:
    """Every (lower, upper) fitting the item's reach, ascending."""
    out = []
    reach = 2 if is_long(item) else 1
    for lo in range(1, st.n + 1):
        lv = level(st, lo) + reach
        if lv > st.rows:
            continue
        for up in range((lv - 1) * st.cols + 1, lv * st.cols + 1):
            if abs(column(st, lo) - column(st, up)) <= reach:
                out.append((lo, up))
    return out


# ---------------------------------------------------------------------------------------
# start (6.2, 6.4, 6.5)

def start(seed: int, players: list[str], options: dict[str, Any], board: dict | None = None) -> State:
    opts = parse_options(options)
    rows, cols = board_size(len(players), opts.super_size)
    st = State(seed=seed, players=list(players), seats=list(players), opts=opts, rows=rows, cols=cols)
    if opts.seating == "random":
        st.seats = st.shuffle(list(players), "seats")
    deck = dict(opts.deck)
    if opts.simple:
        for code, k in opts.white_dots.items():
            deck[code] = deck.get(code, 0) - k
    deck["BLANK"] = deck.get("BLANK", 0) - opts.blank_removal
    listed = [code for code in sorted(deck, key=canonical_key) for _ in range(max(0, deck[code]))]
    shuffled = st.shuffle(listed, "deck")
    st.cards = [st.new_card(code) for code in shuffled[:st.n]]
    rest = shuffled[st.n:]
    hand = 4 if opts.four_card_hands else 3
    st.hands = {p: [] for p in players}
    for _ in range(hand):
        for p in st.seats:
            st.hands[p].append(rest.pop(0))
    st.pile = rest
    st.pawns = {p: Pawn() for p in players}
    st.reactions = {p: {} for p in players}
    if opts.setup == "random":
        do_picks(st, {}, 0)
        st.setup_pending = False
    else:
        st.setup_pending = True
    return st


def mix_limit(st: State) -> dict[str, int]:
    s, l_, p = st.opts.mix
    return {"S": s, "L": l_, "P": p}


def default_candidates(st: State, limited: bool) -> list[str]:
    limits = mix_limit(st)
    counts = {"S": 0, "L": 0, "P": 0}
    for item in st.items:
        counts[item[0]] += 1
    out = []
    for item in ITEMS:
        if item in st.items:
            continue
        if limited and counts[item[0]] >= limits[item[0]]:
            continue
        for lo, up in all_placements(st, item):
            if placement_ok(st, item, lo, up, st.items):
                out.append(f"{item} {lo} {up}")
    return out


def do_picks(st: State, places: dict[str, list[list[Any]]], turn: int) -> None:
    lists = {p: [list(x) for x in (places.get(p) or [])] for p in st.seats}
    order = list(reversed(st.seats))
    pick = 0
    while len(st.items) < st.opts.pieces:
        pick += 1
        who = order[(pick - 1) % len(order)] if turn != 0 else None
        made = False
        if who is not None:
            for idx, (item, a, b) in enumerate(lists[who]):
                item = str(item).upper()
                if item in st.items or item not in ITEMS:
                    continue
                o = orient(st, item, int(a), int(b))
                if o is None or not placement_ok(st, item, o[0], o[1], st.items):
                    continue
                st.items[item] = o
                del lists[who][idx]  # READING: only the line made is used up
                st.log.append(f"pick {pick}: {who} {item} {o}")
                made = True
                break
        if made:
            continue
        cands = default_candidates(st, True) or default_candidates(st, False)
        if not cands:
            return
        chosen = st.choice(turn, "setup", str(pick), cands)
        item, lo, up = chosen.split()
        st.items[item] = (int(lo), int(up))
        st.log.append(f"pick {pick}: {who} default {chosen}")


# ---------------------------------------------------------------------------------------
# words (6.13)

class GoOver(Exception):
    """The go's player's pawn crossed: the go ends at once (6.5)."""


class GameOver(Exception):
    """finish: first and a pawn crossed (6.10)."""


def others_in_play(st: State, actor: str) -> list[str]:
    return [p for p in st.seats if p != actor and st.in_play(p)]


def resolve_player(st: State, actor: str, word: str) -> str | None:
    up = word.upper()
    others = others_in_play(st, actor)
    sq = {p: st.pawns[p].square for p in st.seats}
    if up == "ME":
        return actor if st.in_play(actor) else None
    if up in ("LEADER", "LAST", "NEXT"):
        if not others:
            return None
        if up == "NEXT":
            ahead = [p for p in others if sq[p] > sq[actor]]
            if ahead:
                best = min(sq[p] for p in ahead)
                return next(p for p in ahead if sq[p] == best)
            up = "LEADER"
        best = max(sq[p] for p in others) if up == "LEADER" else min(sq[p] for p in others)
        return next(p for p in others if sq[p] == best)  # seats order: lowest seat first
    for p in st.players:
        if p.lower() == word.lower():
            return p if st.in_play(p) else None
    return None


def resolve_square(st: State, actor: str, text: str) -> int | None:
    text = str(text).strip()
    if re.fullmatch(r"\d+", text):
        s = int(text)
    else:
        m = re.fullmatch(r"(.+)([+-])(\d+)", text)
        if not m:
            return None
        p = resolve_player(st, actor, m.group(1))
        if p is None:
            return None
        k = int(m.group(3))
        s = st.pawns[p].square + (k if m.group(2) == "+" else -k)
    return s if 1 <= s <= st.n else None


def parse_triples(tokens: list[str]) -> list[tuple[str, str, str]] | None:
    out = []
    i = 0
    while i < len(tokens):
        item = tokens[i].upper()
        if not re.fullmatch(r"[SLP]\d", item):
            return None
        i += 1
        if i < len(tokens) and re.fullmatch(r"\d+-\d+", tokens[i]):
            a, b = tokens[i].split("-")
            out.append((item, a, b))
            i += 1
            continue
        if i >= len(tokens):
            return None
        a = tokens[i]
        i += 1
        if i < len(tokens) and tokens[i].upper() in ("TO", "-"):
            i += 1
        if i >= len(tokens):
            return None
        out.append((item, a, tokens[i]))
        i += 1
    return out


# ---------------------------------------------------------------------------------------
# choices: legality now (6.8) and automatic (6.9); a resolved choice is a tuple

def resolve_choice(st: State, actor: str, code: str, text: str, locked_items: set[str]) -> Any:
    """The choice resolved and legal now, or None when not legal."""
    tokens = text.split()
    kind = action_type(code)
    if kind in ("FORWARD", "BACK", "SNAKE-EYES"):
        if len(tokens) != 1:
            return None
        p = resolve_player(st, actor, tokens[0])
        if p is None or p == actor:
            return None
        return ("send", p)
    if kind == "SWAP-PLAYERS":
        if len(tokens) != 2:
            return None
        a = resolve_player(st, actor, tokens[0])
        b = resolve_player(st, actor, tokens[1])
        if a is None or b is None or a == b or st.pawns[a].square == st.pawns[b].square:
            return None
        return ("swap", a, b)
    if kind == "SWAP-CARDS":
        if len(tokens) != 2:
            return None
        s = resolve_square(st, actor, tokens[0])
        t = resolve_square(st, actor, tokens[1])
        if s is None or t is None or s == t:
            return None
        return ("cards", s, t)
    if kind.startswith("MOVE-"):
        triples = parse_triples(tokens)
        if not triples:
            return None
        two = kind.startswith("MOVE-2-")
        if len(triples) > (2 if two else 1):
            return None
        want = {"MOVE-LADDER": "L", "MOVE-SNAKE": "S", "MOVE-2-LADDERS": "L",
                "MOVE-2-SNAKES": "S"}.get(kind)
        names = [t[0] for t in triples]
        if len(set(names)) != len(names):
            return None
        new: dict[str, tuple[int, int]] = {}
        for item, a, b in triples:
            if want and item[0] != want:
                return None
            if item not in st.items or item in locked_items:
                if item in locked_items:
                    st.log.append("locked item refused")
                return None
            s = resolve_square(st, actor, a)
            t = resolve_square(st, actor, b)
            if s is None or t is None:
                return None
            o = orient(st, item, s, t)
            if o is None:
                return None
            new[item] = o
        rest = {k: v for k, v in st.items.items() if k not in new}
        rest.update(new)
        if not ends_ok(st, rest):
            return None
        return ("move", new)
    return None


def automatic(st: State, actor: str, code: str) -> Any:
    kind = action_type(code)
    if kind == "FORWARD":
        p = resolve_player(st, actor, "LAST")
        return ("send", p) if p else None
    if kind in ("BACK", "SNAKE-EYES"):
        p = resolve_player(st, actor, "LEADER")
        return ("send", p) if p else None
    if kind == "SWAP-PLAYERS":
        p = resolve_player(st, actor, "LEADER")
        if p and st.pawns[p].square > st.pawns[actor].square:
            return ("swap", actor, p)
        return None
    return None


# ---------------------------------------------------------------------------------------
# a go (6.5 - 6.9)

@dataclass
class Go:
    player: str
    turn: int
    locked_cards: set[int]
    locked_items: set[str]
    dice: int = 0
    used: dict[str, set[int]] = field(default_factory=dict)
    placed: set[int] = field(default_factory=set)
    moved: set[str] = field(default_factory=set)
    displaced: dict[str, int] = field(default_factory=dict)


def mark_used(go: Go, p: str, card: int) -> None:
    go.used.setdefault(p, set()).add(card)


def bump(go: Go, p: str) -> None:
    go.displaced[p] = go.displaced.get(p, 0) + 1


def cross(st: State, go: Go, p: str, overshoot: int) -> None:
    pawn = st.pawns[p]
    pawn.finished = True
    pawn.overshoot = overshoot
    st.crossed = True
    bump(go, p)
    st.log.append(f"{p} crosses, overshoot {overshoot}")
    if st.opts.finish == "first":
        raise GameOver
    if p == go.player:
        raise GoOver


def step(st: State, go: Go, p: str, k: int, travelled: set[str]) -> None:
    """Move p by k (forward if k > 0, back if k < 0) and resolve the arrival."""
    pawn = st.pawns[p]
    if k > 0 and pawn.square + k > st.n + 1:
        cross(st, go, p, pawn.square + k - (st.n + 1))
        return
    pawn.square = pawn.square + k if k > 0 else max(0, pawn.square + k)
    arrive(st, go, p, travelled)


def new_move(st: State, go: Go, p: str, k: int) -> None:
    bump(go, p)
    step(st, go, p, k, set())


def item_entry(st: State, q: int, travelled: set[str]) -> tuple[str, int] | None:
    found = []
    for item, (lo, up) in st.items.items():
        if item in travelled:
            continue
        kind = item[0]
        if kind == "S":
            if (lo if st.reversed else up) == q:
                found.append((item, lo if not st.reversed else up, "down" if not st.reversed else "up"))
        elif kind == "L":
            if (up if st.reversed else lo) == q:
                found.append((item, up if not st.reversed else lo, "up" if not st.reversed else "down"))
        else:
            if lo == q:
                found.append((item, up, "up"))
            elif up == q:
                found.append((item, lo, "down"))
    if not found:
        return None
    if len(found) > 1:  # two chained lampposts: climb
        found = [f for f in found if f[2] == "up"]
        st.log.append("lamppost chain")
    return found[0][0], found[0][1]


def arrive(st: State, go: Go, p: str, travelled: set[str]) -> None:
    pawn = st.pawns[p]
    while True:
        q = pawn.square
        entry = item_entry(st, q, travelled)
        if entry:
            travelled.add(entry[0])
            st.log.append(f"{p} travels {entry[0]} {q}->{entry[1]}{' reversed' if st.reversed else ''}")
            pawn.square = entry[1]
            continue
        if 1 <= q <= st.n:
            code, card = st.cards[q - 1]
            if code != "BLANK" and card not in go.used.get(p, set()):
                mark_used(go, p, card)
                if is_movement(code):
                    k = int(code)
                    if k > 0 and pawn.square + k > st.n + 1:
                        cross(st, go, p, pawn.square + k - (st.n + 1))
                        return
                    pawn.square = pawn.square + k if k > 0 else max(0, pawn.square + k)
                    continue
                landing_action(st, go, p, code, card)
                return
        return


def landing_action(st: State, go: Go, actor: str, code: str, card: int) -> None:
    kind = action_type(code)
    choice = None
    if kind not in ("EXTRA-ROLL", "REVERSE"):
        for text in st.reactions.get(actor, {}).get(kind, []):
            choice = resolve_choice(st, actor, code, text, go.locked_items)
            if choice is not None:
                break
        if choice is None:
            choice = automatic(st, actor, code)
    perform(st, go, actor, code, card, choice)


def roll(st: State, go: Go, roller: str) -> None:
    d1 = st.choice(go.turn, "dice", f"{go.player}/{go.dice + 1}", [1, 2, 3, 4, 5, 6])
    d2 = st.choice(go.turn, "dice", f"{go.player}/{go.dice + 2}", [1, 2, 3, 4, 5, 6])
    go.dice += 2
    st.log.append(f"{roller} rolls {d1},{d2}")
    if d1 == 1 and d2 == 1 and st.opts.snake_eyes != "off":
        st.log.append(f"snake eyes {st.opts.snake_eyes}")
        if st.opts.snake_eyes == "self":
            bump(go, roller)
            st.pawns[roller].square = 0
            return
        target = None
        for text in st.reactions.get(roller, {}).get("SNAKE-EYES", []):
            c = resolve_choice(st, roller, "SNAKE-EYES", text, go.locked_items)
            if c is not None:
                target = c[1]
                break
        if target is None:
            c = automatic(st, roller, "SNAKE-EYES")
            target = c[1] if c else None
        if target is not None:
            bump(go, target)
            st.pawns[target].square = 0
        return
    new_move(st, go, roller, d1 + d2)


def perform(st: State, go: Go, actor: str, code: str, card: int, choice: Any) -> None:
    kind = action_type(code)
    st.log.append(f"{actor} performs {code} {choice}")
    if kind == "EXTRA-ROLL":
        mark_used(go, actor, card)
        roll(st, go, actor)
    elif kind == "REVERSE":
        st.reversed = not st.reversed
    elif kind in ("FORWARD", "BACK"):
        if choice is None:
            return
        target = choice[1]
        k = int(code.split("-")[1])
        mark_used(go, target, card)
        new_move(st, go, target, k if kind == "FORWARD" else -k)
    elif kind == "SWAP-PLAYERS":
        if choice is None:
            return
        _, a, b = choice
        mark_used(go, a, card)
        mark_used(go, b, card)
        pa, pb = st.pawns[a], st.pawns[b]
        pa.square, pb.square = pb.square, pa.square
        bump(go, a)
        bump(go, b)
        before = go.displaced.get(b, 0)
        arrive(st, go, a, set())
        if go.displaced.get(b, 0) == before and not st.pawns[b].finished:
            arrive(st, go, b, set())
        else:
            st.log.append("swap b not resolved")
    elif kind == "SWAP-CARDS":
        if choice is None:
            return
        _, s, t = choice
        st.cards[s - 1], st.cards[t - 1] = st.cards[t - 1], st.cards[s - 1]
    elif kind.startswith("MOVE-"):
        if choice is None:
            return
        for item, spot in choice[1].items():
            if st.items[item] != spot:
                st.items[item] = spot
                go.moved.add(item)


def try_play(st: State, go: Go, line: list[Any]) -> bool:
    g = go.player
    code = norm_code(line[0])
    square_text = str(line[1])
    choices = line[2] if len(line) > 2 else None
    if code not in st.hands[g]:
        return False
    s = resolve_square(st, g, square_text)
    if s is None:
        return False
    if any(p != g and st.in_play(p) and st.pawns[p].square == s for p in st.seats):
        return False
    if st.cards[s - 1][1] in go.locked_cards:
        st.log.append("skip locked card")
        return False
    choice = None
    if is_action(code) and code not in ("EXTRA-ROLL", "REVERSE"):
        if choices is None:
            choice = automatic(st, g, code)
        else:
            choice = resolve_choice(st, g, code, str(choices), go.locked_items)
            if choice is None:
                return False
    st.hands[g].remove(code)
    card = st.new_card(code)
    st.cards[s - 1] = card
    go.placed.add(card[1])
    st.log.append(f"{g} plays {code} on {s}")
    if is_action(code):
        mark_used(go, g, card[1])
        perform(st, go, g, code, card[1], choice)
    return True


def play_go(st: State, g: str, order: dict[str, Any] | None, turn: int) -> None:
    go = Go(player=g, turn=turn, locked_cards=set(st.locked_cards), locked_items=set(st.locked_items))
    st.log.append(f"go {g}")
    held = len(st.hands[g])
    played = 0
    limit = 2 if st.opts.two_card_placement else 1
    plays = (order or {}).get("plays") or []
    try:
        try:
            for line in plays:
                if played >= limit:
                    break
                if try_play(st, go, line):
                    played += 1
            for _ in range(played):
                if st.pile:
                    st.hands[g].append(st.pile.pop(0))
            if st.opts.compulsory_play and held > 0 and played == 0:
                st.log.append(f"{g} does not roll")
            else:
                roll(st, go, g)
        except GoOver:
            pass
    finally:
        st.locked_cards = {c[1] for c in st.cards if c[1] in go.placed}
        st.locked_items = set(go.moved)


# ---------------------------------------------------------------------------------------
# a turn

def round_number(st: State, turn: int) -> int:
    return turn - 1 if st.opts.setup == "players" else turn


def resolve(state: State, orders: dict[str, dict[str, Any]]) -> State:
    st = copy.deepcopy(state)
    st.draws = []
    st.log = []
    if st.over:
        return st
    turn = st.turn
    for p, order in orders.items():
        if order and order.get("sent"):
            for action, lst in (order.get("reactions") or {}).items():
                st.reactions.setdefault(p, {})[action] = list(lst)
    if st.setup_pending:
        places = {p: o.get("places") for p, o in orders.items() if o and o.get("sent")}
        do_picks(st, {p: v for p, v in places.items() if v}, turn)
        st.setup_pending = False
    else:
        k = round_number(st, turn)
        count = len(st.seats)
        first = (k - 1) % count if st.opts.rotate_start else 0
        try:
            for i in range(count):
                g = st.seats[(first + i) % count]
                if not st.in_play(g):
                    continue
                play_go(st, g, orders.get(g), turn)
        except GameOver:
            pass
    st.turn = turn + 1
    if st.crossed or turn >= st.opts.max_turns:
        finish(st)
    return st


def finish(st: State) -> None:
    st.over = True
    fin = [p for p in st.seats if st.pawns[p].finished]
    rest = [p for p in st.seats if not st.pawns[p].finished]
    places = {}
    for p in fin:
        places[p] = 1 + sum(1 for q in fin if st.pawns[q].overshoot > st.pawns[p].overshoot)
    for p in rest:
        places[p] = len(fin) + 1 + sum(1 for q in rest if q != p and st.pawns[q].square > st.pawns[p].square)
    for p, v in places.items():
        st.pawns[p].placing = v
    st.results = places
    st.winners = [p for p in fin if places[p] == 1]


def state_json(st: State) -> dict[str, Any]:
    n = st.n
    res = st.results or {}
    return {
        "turn": st.turn, "over": st.over, "setup": st.setup_pending, "winners": list(st.winners),
        "boards": {"A": {
            "squares": n, "closed": st.over, "trapdoor": None, "rows": st.rows, "columns": st.cols,
            "cards": [c[0] for c in st.cards],
            "items": {k: list(st.items[k]) for k in sorted(st.items)},
            "reversed": st.reversed,
            "locked_cards": sorted(i + 1 for i, c in enumerate(st.cards) if c[1] in st.locked_cards),
            "locked_items": sorted(st.locked_items),
            "draw_pile": len(st.pile),
            "players": {p: {"square": st.pawns[p].square, "finished": st.pawns[p].finished,
                            "placing": st.pawns[p].placing, "overshoot": st.pawns[p].overshoot,
                            "seat": st.seat(p), "hand_size": len(st.hands[p])}
                        for p in st.players},
        }},
        "players": {p: {"numbers_left": None, "aggregate": res.get(p), "place": res.get(p),
                        "seat": st.seat(p), "hand": sorted(st.hands[p], key=canonical_key)}
                    for p in st.players},
    }


def build_state(seed: int, players: list[str], options: dict[str, Any], *, turn: int,
                cards: list[str], pile: list[str], hands: dict[str, list[str]],
                squares: dict[str, int], items: dict[str, tuple[int, int]],
                locked_cards: list[int] = (), locked_items: list[str] = (),
                reactions: dict[str, dict[str, list[str]]] | None = None,
                seats: list[str] | None = None, reversed: bool = False,
                finished: dict[str, int] | None = None) -> State:
    """A state built directly (6.16), seats as listed unless told."""
    opts = parse_options(options)
    rows, cols = board_size(len(players), opts.super_size)
    st = State(seed=seed, players=list(players), seats=list(seats or players), opts=opts,
               rows=rows, cols=cols, turn=turn)
    st.cards = [st.new_card(c) for c in cards]
    st.pile = list(pile)
    st.hands = {p: list(hands.get(p, [])) for p in players}
    st.pawns = {p: Pawn(squares.get(p, 0)) for p in players}
    st.items = {k: (min(v), max(v)) for k, v in items.items()}
    st.locked_cards = {st.cards[s - 1][1] for s in locked_cards}
    st.locked_items = set(locked_items)
    st.reactions = {p: {a: list(t) for a, t in (reactions or {}).get(p, {}).items()} for p in players}
    st.reversed = reversed
    for p, overshoot in (finished or {}).items():
        st.pawns[p].finished, st.pawns[p].overshoot = True, overshoot
        st.crossed = True
    return st
