"""Invariants of docs/rules/, The board, 2 and 5 over random boards and random campaigns (hypothesis).

Boards are drawn valid by construction (random level lengths, offsets, serpentine or not,
non-conflicting snakes and ladders, chains on or off); campaigns are played turn by turn
with random orders (numbers held, missed turns, nominations, also for closed boards)
until they end. Geometry and landings are checked against a small model written here
from the words of docs/rules/, not from gm.boards.board."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulehelpers import RULES, by_hand_index, campaign, play, start_state

from gm.boards.model import START, Board
from gm.boards.moving import landing
from gm.rules.postal.events import Moved, NumberPlayed, Placed
from gm.rules.postal.options import FULL_HAND, SHARED
from gm.rules.postal.state import PostalOrder, aggregates

PROFILE = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# whole campaigns cost more each; these counts keep the file near 20 s (run with a higher
# count by hand when hunting: 1,500 examples each found nothing on 2026-11-22)
CAMPAIGNS = settings(PROFILE, max_examples=100)
REPLAYS = settings(PROFILE, max_examples=40)


# -- random boards ---------------------------------------------------------------------


@st.composite
def boards(draw, max_squares: int = 60) -> Board:
    n = draw(st.integers(1, max_squares))
    if draw(st.booleans()):
        levels = None
        offsets = None
    else:
        levels = []
        left = n
        while left:
            length = draw(st.integers(1, min(left, 12)))
            levels.append(length)
            left -= length
        offsets = [draw(st.integers(-6, 6)) for _ in levels] if draw(st.booleans()) else None
    serpentine = draw(st.booleans())
    chains = draw(st.booleans())
    roles: dict[int, list[tuple[str, str]]] = {}
    snakes, ladders = [], []
    for _ in range(draw(st.integers(0, max(0, n // 2)))):
        if n < 2:
            break
        a = draw(st.integers(1, n))
        b = draw(st.integers(1, n))
        if a == b:
            continue
        kind = "snake" if a > b else "ladder"
        at_start, at_end = roles.get(a, []), roles.get(b, [])
        start_ok = not at_start or (chains and at_start == [(kind, "end")])
        end_ok = not at_end or (chains and at_end == [(kind, "start")])
        if not (start_ok and end_ok):
            continue
        roles.setdefault(a, []).append((kind, "start"))
        roles.setdefault(b, []).append((kind, "end"))
        (snakes if kind == "snake" else ladders).append([a, b])
    return Board.build(
        n,
        levels=levels,
        offsets=offsets,
        serpentine=serpentine,
        snakes=snakes,
        ladders=ladders,
        chains=chains,
    )


# -- the model: docs/rules/, The board and 2.2 in the plainest words ------------------------------------


def model_positions(b: Board) -> dict[int, tuple[int, int]]:
    """square -> (level, column): offset + index left to right, offset + (length-1-index)
    right to left; level 2, 4, ... run right to left when serpentine."""
    positions, square = {}, 1
    for level, (length, offset) in enumerate(zip(b.levels, b.offsets, strict=True), start=1):
        right_to_left = b.serpentine and level % 2 == 0
        for index in range(length):
            positions[square] = (level, offset + (length - 1 - index if right_to_left else index))
            square += 1
    return positions


def model_drop(b: Board, square: int) -> int:
    positions = model_positions(b)
    level, column = positions[square]
    if level == 1:
        return START
    below = {col: sq for sq, (lv, col) in positions.items() if lv == level - 1}
    if column in below:
        return below[column]
    nearest = min(below, key=lambda col: abs(col - column))
    return below[nearest]


def model_landing(b: Board, trapdoor: int | None, square: int) -> int:
    effects = {h: t for h, t in b.snakes} | {f: t for f, t in b.ladders}
    used = set()
    while square not in used:
        if square == trapdoor:
            target = model_drop(b, square)
        elif square in effects:
            target = effects[square]
        else:
            return square
        used.add(square)
        square = target
    return square


@PROFILE
@given(boards(), st.data())
def test_prop_1_geometry_matches_the_column_formula(b, data):
    """Every square's level and column are RULES 1's formula; each (level, column) holds
    one square; drops go one level down to the same or nearest column (RULES 2.2)."""
    positions = model_positions(b)
    assert len(set(positions.values())) == b.squares
    for square, (level, column) in positions.items():
        assert (b.level_of(square), b.column_of(square)) == (level, column)
        assert b.drop_target(square) == model_drop(b, square)


@PROFILE
@given(boards(), st.data())
def test_prop_1_5_landing_terminates_and_uses_each_effect_once(b, data):
    """From any square, with any trapdoor or none, landing ends; the squares whose effect
    was applied are all different; the end square has no effect left to use; the result
    agrees with the model."""
    trapdoor = data.draw(st.none() | st.integers(1, b.squares))
    for square in range(1, b.squares + 1):
        end, steps = landing(square, b.jumps, effects={} if trapdoor is None else {trapdoor: (b.drop_target(trapdoor), "trapdoor")})
        visited = [square] + [step.square for step in steps]
        applied = visited[:-1]
        assert len(applied) == len(set(applied))
        assert end == visited[-1]
        assert end == START or end in applied or (end != trapdoor and end not in b.jumps)
        assert 0 <= end <= b.squares
        assert end == model_landing(b, trapdoor, square)


# -- random campaigns ------------------------------------------------------------------------


@st.composite
def campaigns(draw):
    n_boards = draw(st.integers(1, 3))
    board_map = {f"B{i}": draw(boards(max_squares=40)) for i in range(n_boards)}
    players = tuple(f"p{i}" for i in range(draw(st.integers(1, 6))))
    options = {
        "numbers": draw(st.sampled_from(["shared", "per-board"])),
        "trapdoor_threshold": draw(st.integers(1, 4)),
        "close_after": draw(st.sampled_from([1, 2, 3, 4, 7, "all"])),
        "max_turns": draw(st.integers(1, 30)),
        "nmr": draw(st.sampled_from(["random", "lowest", "highest"])),
        "double_turns": draw(st.booleans()),
    }
    return campaign(board_map, players=players, seed=draw(st.integers(0, 10**12)), **options)


def draw_orders(data, setup, state):
    orders = {}
    for player in setup.players:
        if data.draw(st.integers(0, 9)) == 0:
            continue  # sends nothing at all
        numbers = {}
        for hand in RULES.needs_number(setup, state, player):
            if data.draw(st.integers(0, 5)):  # sometimes leaves a number out: NMR
                numbers[hand] = data.draw(st.sampled_from(state.hands[player][hand]))
        trapdoors = {}
        for board_id, b in setup.boards.items():
            if data.draw(st.booleans()):
                # mostly a few low squares, so that elections and ties are frequent
                top = b.squares if data.draw(st.integers(0, 3)) == 0 else min(b.squares, 4)
                trapdoors[board_id] = data.draw(st.integers(1, top))
        orders[player] = PostalOrder(numbers=numbers, trapdoors=trapdoors)
    return orders


def check_competition(places: list[int]) -> None:
    """A valid competition ranking: each place is 1 + the number of better places."""
    for place in places:
        assert place == 1 + sum(1 for other in places if other < place)


@CAMPAIGNS
@given(campaigns(), st.data())
def test_prop_2_random_campaigns_keep_the_rules(setup, data):
    """A random campaign played to its end keeps, every turn: pieces within 0..N;
    finished pieces never move; a moving hand holds 6 - (turn-1)%6 numbers and plays one
    it holds, a fresh set after the sixth; hands that do not move stay as they were;
    placings form a competition ranking with crossers ahead of the rest; resolving twice
    gives the same result; the campaign ends by max_turns."""
    options = setup.options
    state = start_state(setup)
    resolves = 0
    while not state.over:
        assert state.turn <= options.max_turns
        orders = draw_orders(data, setup, state)
        result = play(setup, state, orders)
        assert play(setup, state, orders) == result  # RULES 5: determinism
        new = result.state
        resolves += 1
        double = options.double_turns and state.turn % 6 == 5
        assert new.turn == state.turn + (2 if double else 1)

        # 2.1: hands
        moving_hands = {p: {options.hand(b) for b in state.moving_boards(p)} for p in setup.players}
        played = Counter()
        for event in result.events:
            if isinstance(event, NumberPlayed):
                assert event.hand in moving_hands[event.player]
                played[event.player, event.hand] += 1
        for p in setup.players:
            for hand, before in state.hands[p].items():
                after = new.hands[p][hand]
                assert after, "numbers_left is never empty"
                if hand in moving_hands[p]:
                    assert len(before) == 6 - (state.turn - 1) % 6
                    assert played[p, hand] >= 1
                else:
                    assert after == before
                    assert played[p, hand] == 0
                numbers = [
                    e.number
                    for e in result.events
                    if isinstance(e, NumberPlayed) and e.player == p and e.hand == hand
                ]
                held = list(before)
                for number in numbers:
                    assert number in held
                    held.remove(number)
                    if not held:
                        held = list(FULL_HAND)
                assert tuple(held) == after
                sources = [
                    e.source
                    for e in result.events
                    if isinstance(e, NumberPlayed) and e.player == p and e.hand == hand
                ]
                sent = orders.get(p, PostalOrder()).numbers.get(hand)
                if sources:
                    if sent is not None:
                        assert sources[0] == "order"
                    elif len(before) == 1:
                        assert sources[0] == "forced"
                    else:
                        assert sources[0] == "nmr"

        # 1 and 2.3: pieces
        for board_id, b in setup.boards.items():
            old_board, new_board = state.boards[board_id], new.boards[board_id]
            for p in setup.players:
                old_piece, new_piece = old_board.pieces[p], new_board.pieces[p]
                assert 0 <= new_piece.square <= b.squares
                if old_piece.finished or old_board.closed:
                    assert new_piece == old_piece
                if new_piece.finished:
                    assert new_piece.placing is not None
            if old_board.closed:
                assert new_board.closed and new_board.trapdoor is None
            if new_board.closed:
                assert new_board.trapdoor is None
                places = [pc.placing for pc in new_board.pieces.values()]
                assert None not in places
                check_competition(places)
                crossed = [pc.placing for pc in new_board.pieces.values() if pc.finished]
                waiting = [pc.placing for pc in new_board.pieces.values() if not pc.finished]
                if crossed and waiting:
                    assert max(crossed) < min(waiting)
            else:
                crossed = [pc.placing for pc in new_board.pieces.values() if pc.finished]
                check_competition(crossed)
                assert all(
                    pc.placing is None for pc in new_board.pieces.values() if not pc.finished
                )
                if new_board.trapdoor is not None:
                    votes = Counter(
                        o.trapdoors[board_id] for o in orders.values() if board_id in o.trapdoors
                    )
                    assert votes[new_board.trapdoor] == max(votes.values())
                    assert votes[new_board.trapdoor] >= options.trapdoor_threshold

        # 1.5: every move's effects are each used once
        for event in result.events:
            if isinstance(event, Moved) and not event.crossed:
                visited = [step.square for step in event.steps]
                assert visited[0] == event.start + event.number
                assert len(visited[:-1]) == len(set(visited[:-1]))
                assert visited[-1] == event.end
            if isinstance(event, Placed):
                assert event.placing >= 1
        state = new

    assert resolves <= options.max_turns
    last_played = state.turn - 1
    assert last_played <= options.max_turns + 1
    standings = aggregates(setup.players, state)
    places = [place for _, place in standings.values()]
    assert None not in places
    check_competition(places)
    for p, (aggregate, _) in standings.items():
        assert aggregate == sum(b.pieces[p].placing for b in state.boards.values())


@REPLAYS
@given(campaigns(), st.data())
def test_prop_5_replaying_a_campaign_gives_the_same_campaign(setup, data):
    """Orders recorded during a campaign, replayed from the start state, give the same
    states and events turn by turn (RULES 5: the GM can preview; anyone can replay)."""
    state = start_state(setup)
    history = []
    while not state.over and len(history) < 12:
        orders = draw_orders(data, setup, state)
        result = play(setup, state, orders)
        history.append((orders, result))
        state = result.state
    state = RULES.load_state(RULES.dump_state(start_state(setup)))
    for orders, result in history:
        again = play(setup, state, orders)
        assert again == result
        state = RULES.load_state(RULES.dump_state(again.state))
        assert state == result.state


def test_prop_shared_hand_key():
    """The shared hand is keyed by SHARED in the state (a guard for the tests above)."""
    setup = campaign()
    assert set(start_state(setup).hands["ann"]) == {SHARED}


# -- a second reading of docs/rules/postal.md and 5, resolving whole turns -----------------------------


def model_resolve(setup, data: dict, orders: dict) -> dict:
    """One turn resolved from docs/rules/postal.md and 5 alone, on the CONTRACT.md state JSON (plus
    the numbers held): written without gm.rules, to compare with Postal.resolve."""
    opts = setup.options
    per_board = opts.numbers == "per-board"
    players = setup.players
    turn = data["turn"]
    boards = {
        b: {**bd, "players": {p: dict(pc) for p, pc in bd["players"].items()}}
        for b, bd in data["boards"].items()
    }
    hands = {
        p: (
            {b: list(v) for b, v in pd["numbers_left"].items()}
            if per_board
            else {"*": list(pd["numbers_left"])}
        )
        for p, pd in data["players"].items()
    }
    halves = [turn, turn + 1] if opts.double_turns and turn % 6 == 5 else [turn]
    if opts.close_after == "all":
        needed = max(len(players) - 1, 1)
    else:
        needed = min(opts.close_after, len(players))

    def hand_of(b):
        return b if per_board else "*"

    def close(bd):
        pcs = bd["players"]
        crossed = sum(pc["finished"] for pc in pcs.values())
        for pc in pcs.values():
            if not pc["finished"]:
                better = sum(
                    1 for o in pcs.values() if not o["finished"] and o["square"] > pc["square"]
                )
                pc["placing"] = crossed + 1 + better
        bd["closed"] = True

    for half, t in enumerate(halves):
        open_ids = [b for b, bd in boards.items() if not bd["closed"]]
        if not open_ids:
            break
        numbers = {}
        for p in players:
            for h in sorted(
                {hand_of(b) for b in open_ids if not boards[b]["players"][p]["finished"]}
            ):
                held = sorted(hands[p][h])
                sent = orders[p].numbers.get(h) if p in orders else None
                if half == 0 and sent is not None:
                    numbers[p, h] = sent
                elif len(held) == 1 or opts.nmr == "lowest":
                    numbers[p, h] = held[0]
                elif opts.nmr == "highest":
                    numbers[p, h] = held[-1]
                else:
                    key = p if h == "*" else f"{p}/{h}"
                    numbers[p, h] = held[by_hand_index(setup.seed, turn, "nmr", key, len(held))]
        for b in open_ids:
            bd, board_def = boards[b], setup.boards[b]
            prior = sum(pc["finished"] for pc in bd["players"].values())
            overshoots = {}
            for p in players:
                pc = bd["players"][p]
                if pc["finished"]:
                    continue
                target = pc["square"] + numbers[p, hand_of(b)]
                if target > board_def.squares:
                    overshoots[p] = target - board_def.squares
                    pc["finished"] = True
                else:
                    pc["square"] = model_landing(board_def, bd["trapdoor"], target)
            for p, o in overshoots.items():
                bd["players"][p]["placing"] = (
                    prior + 1 + sum(1 for x in overshoots.values() if x > o)
                )
        for (p, h), n in numbers.items():
            hands[p][h].remove(n)
            if not hands[p][h]:
                hands[p][h] = [1, 2, 3, 4, 5, 6]
        for b in open_ids:
            if sum(pc["finished"] for pc in boards[b]["players"].values()) >= needed:
                close(boards[b])
        if t >= opts.max_turns:
            for bd in boards.values():
                if not bd["closed"]:
                    close(bd)
            break

    over = all(bd["closed"] for bd in boards.values())
    for b, bd in boards.items():
        bd["trapdoor"] = None
        if bd["closed"]:
            continue
        votes = Counter(o.trapdoors[b] for o in orders.values() if b in o.trapdoors)
        if votes and max(votes.values()) >= opts.trapdoor_threshold:
            tied = sorted(sq for sq, v in votes.items() if v == max(votes.values()))
            bd["trapdoor"] = tied[by_hand_index(setup.seed, turn, "trapdoor", b, len(tied))]
    aggregates = {}
    if over:
        aggregates = {
            p: sum(bd["players"][p]["placing"] for bd in boards.values()) for p in players
        }
    out_players = {}
    for p in players:
        agg = aggregates.get(p)
        place = None if agg is None else 1 + sum(1 for a in aggregates.values() if a < agg)
        left = {b: sorted(v) for b, v in hands[p].items()} if per_board else sorted(hands[p]["*"])
        out_players[p] = {"numbers_left": left, "aggregate": agg, "place": place}
    return {"turn": turn + len(halves), "over": over, "boards": boards, "players": out_players}


@CAMPAIGNS
@given(campaigns(), st.data())
def test_prop_2_resolve_agrees_with_a_second_reading(setup, data):
    """Turn by turn, gm's state JSON equals the state computed by model_resolve, a second
    implementation of docs/rules/postal.md and 5 written in this file."""
    state = start_state(setup)
    while not state.over:
        orders = draw_orders(data, setup, state)
        expected = model_resolve(setup, RULES.state_json(setup, state), orders)
        state = play(setup, state, orders).state
        assert RULES.state_json(setup, state) == expected
