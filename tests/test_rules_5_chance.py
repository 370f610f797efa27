"""docs/audit.md, fairness and audit: every random choice is
`int(sha256(f"{seed}:{turn}:{kind}:{key}").hexdigest(), 16) % n` over candidates in a
stated order. Each expected pick below is computed by hand with hashlib, never through
gm.rules.chance, so a slip in gm's formula cannot hide behind itself."""

from __future__ import annotations

import hashlib

import pytest
from rulehelpers import (
    RULES,
    by_hand_index,
    campaign,
    elections,
    find_seed,
    order,
    play,
    played,
    start_state,
    state,
    trapdoor,
)

from gm.commitment import commitment, seed_text
from gm.errors import RulesError
from gm.rules.chance import ReplayChance, ScriptedChance, pick_index
from gm.rules.chance import SeededChance as Chance

SIX = ("ann", "bob", "cat", "dan", "eve", "fay")


def sha_index(text: str, n: int) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % n


@pytest.mark.parametrize(
    ("seed", "turn", "kind", "key", "n"),
    [
        (20270321, 1, "trapdoor", "A", 2),
        (20270321, 7, "nmr", "alice", 6),
        (1, 0, "dice", "bob/1", 6),
        (99, 12, "dice", "bob/2", 12),
        (123456789012345678901234567890, 200, "nmr", "Ann/North", 5),
        (-7, 3, "trapdoor", "B", 3),
    ],
)
def test_5_pick_index_is_the_stated_formula(seed, turn, kind, key, n):
    """pick_index(seed, turn, kind, key, n) equals the formula written out by hand (the
    seed as a decimal integer, even a huge or negative one)."""
    assert pick_index(seed, turn, kind, key, n) == sha_index(f"{seed}:{turn}:{kind}:{key}", n)


def test_5_a_known_value():
    """Pinned: sha256("20270321:1:trapdoor:A") is 2bc0edb8...dce4, which is 0 mod 2 and
    1 mod 7 (worked out once with hashlib and written here)."""
    digest = hashlib.sha256(b"20270321:1:trapdoor:A").hexdigest()
    assert digest == "2bc0edb8053126a15f24bad4cbccd6dc160e80223ef5a4c016fc453b8396dce4"
    assert pick_index(20270321, 1, "trapdoor", "A", 2) == 0
    assert pick_index(20270321, 1, "trapdoor", "A", 7) == 1
    assert Chance(20270321).pick(1, "trapdoor", "A", [12, 17]) == 12


def test_5_a_choice_needs_a_candidate():
    """n = 0 is an error, not a silent pick."""
    with pytest.raises(ValueError):
        pick_index(1, 1, "nmr", "ann", 0)


def test_5_chance_picks_from_the_candidates_in_the_given_order():
    """Chance(seed).pick(turn, kind, key, candidates) returns candidates[index]."""
    candidates = [3, 4, 5, 6]
    index = sha_index("42:3:nmr:ann", 4)
    assert Chance(42).pick(3, "nmr", "ann", candidates) == candidates[index]


def test_5_trapdoor_tie_by_hand():
    """Turn 9, board "North": bob, cat, dan nominate 20; ann, eve, fay nominate 8. The
    tied squares ascending are [8, 20]; the pick is [8, 20][sha256("{seed}:9:trapdoor:North")
    % 2], recomputed here for forty seeds."""
    for seed in range(40):
        setup = campaign({"North": _board()}, players=SIX, seed=seed)
        noms = {"ann": 8, "bob": 20, "cat": 20, "dan": 20, "eve": 8, "fay": 8}
        orders = {p: order(6, North=sq) for p, sq in noms.items()}
        result = play(setup, state(setup, turn=9), orders)
        expected = [8, 20][sha_index(f"{seed}:9:trapdoor:North", 2)]
        assert trapdoor(result, "North") == expected, seed
        assert elections(result)[0].tied == (8, 20)


def test_5_trapdoor_tie_of_three():
    """Nine players split 3/3/3 over squares 25, 4, 13 on board A in turn 2: the pick is
    [4, 13, 25][sha256("{seed}:2:trapdoor:A") % 3], ascending candidates."""
    players = tuple(f"p{i}" for i in range(9))
    squares = [25, 4, 13]
    for seed in range(30):
        setup = campaign(players=players, seed=seed)
        orders = {p: order(2, A=squares[i % 3]) for i, p in enumerate(players)}
        result = play(setup, state(setup, turn=2), orders)
        assert trapdoor(result) == [4, 13, 25][sha_index(f"{seed}:2:trapdoor:A", 3)]


def test_5_nmr_shared_numbers_key_is_the_player_id():
    """numbers shared, nmr random: cat sends nothing in turn 4 holding 4, 5, 6: her
    number is [4, 5, 6][sha256("{seed}:4:nmr:cat") % 3]."""
    for seed in range(30):
        setup = campaign(seed=seed)
        result = play(setup, state(setup, turn=4), {"ann": order(4), "bob": order(4)})
        [event] = played(result, "cat")
        assert event.number == [4, 5, 6][sha_index(f"{seed}:4:nmr:cat", 3)]
        assert event.source == "nmr"


def test_5_nmr_per_board_key_is_player_slash_board():
    """numbers per-board, nmr random: ann sends nothing in turn 1; on board A her number
    is [1..6][sha256("{seed}:1:nmr:ann/A") % 6], on board B the same with "ann/B"; a seed
    is chosen where the two differ."""
    seed = next(
        s
        for s in range(1, 1000)
        if by_hand_index(s, 1, "nmr", "ann/A", 6) != by_hand_index(s, 1, "nmr", "ann/B", 6)
    )
    setup = campaign(
        {"A": _board(), "B": _board()}, players=["ann"], numbers="per-board", seed=seed
    )
    result = play(setup, start_state(setup), {})
    numbers = {e.hand: e.number for e in played(result, "ann")}
    assert numbers == {
        "A": [1, 2, 3, 4, 5, 6][sha_index(f"{seed}:1:nmr:ann/A", 6)],
        "B": [1, 2, 3, 4, 5, 6][sha_index(f"{seed}:1:nmr:ann/B", 6)],
    }


def test_5_ids_are_written_exactly_as_in_campaign_yaml():
    """A player called "Ann.Lee" on a board called "Nord-1": the NMR key is
    "Ann.Lee/Nord-1" with case kept."""
    seed = find_seed(2, [1, 2, 3, 4, 5, 6], 1, "nmr", "Ann.Lee/Nord-1")
    setup = campaign({"Nord-1": _board()}, players=["Ann.Lee"], numbers="per-board", seed=seed)
    result = play(setup, start_state(setup), {})
    assert played(result, "Ann.Lee")[0].number == 2


def test_5_same_state_same_orders_same_result():
    """Resolving the same turn twice from the same state (a GM preview, then the real
    thing) gives the same state and events, NMR and tie picks included."""
    setup = campaign(players=SIX, seed=5)
    before = state(setup, turn=3, squares={"ann": 4, "bob": 9})
    orders = {
        "ann": order(5, A=12),
        "bob": order(3, A=12),
        "cat": order(A=7),
        "dan": order(A=7),
        "eve": order(A=12),
    }
    orders["fay"] = order(A=7)
    first = play(setup, before, orders)
    second = play(setup, before, orders)
    assert first == second
    assert RULES.dump_state(first.state) == RULES.dump_state(second.state)


def test_5_seed_commitment_by_hand():
    """The seed's canonical text is its decimal integer; its commitment is
    sha256(salt + "\\n" + "20270321")."""
    salt = "ffeeddccbbaa99887766554433221100"
    assert seed_text(20270321) == "20270321"
    expected = hashlib.sha256(f"{salt}\n20270321".encode()).hexdigest()
    assert commitment(salt, seed_text(20270321)) == expected


def _board():
    from rulehelpers import board

    return board(30)


# -- chance as an input: dice keys, the record, replays and scripts -------------------------


def test_5_dice_key_is_player_slash_i_counting_dice_per_player_and_turn_from_1():
    """docs/audit.md and 4.1: kind `dice`, key `<player>/<i>`, candidates the faces."""
    chance = Chance(99)
    faces = [chance.roll(0, "ann", 6), chance.roll(0, "ben", 6), chance.roll(0, "ann", 8), chance.roll(1, "ann", 6)]
    assert [(d.turn, d.key, d.candidates) for d in chance.draws] == [
        (0, "ann/1", (1, 2, 3, 4, 5, 6)), (0, "ben/1", (1, 2, 3, 4, 5, 6)),
        (0, "ann/2", (1, 2, 3, 4, 5, 6, 7, 8)), (1, "ann/1", (1, 2, 3, 4, 5, 6)),
    ]
    # each face by the formula, worked by hand with hashlib
    for draw, face in zip(chance.draws, faces, strict=True):
        digest = hashlib.sha256(f"99:{draw.turn}:dice:{draw.key}".encode()).hexdigest()
        assert face == int(digest, 16) % len(draw.candidates) + 1


def test_5_a_recorded_turn_replays_with_no_seed():
    played = Chance(7)
    values = [played.roll(3, "ann"), played.pick(3, "trapdoor", "A", [4, 9, 12]), played.roll(3, "ann")]
    replay = ReplayChance(played.draws)
    assert [replay.roll(3, "ann"), replay.pick(3, "trapdoor", "A", [4, 9, 12]), replay.roll(3, "ann")] == values
    assert replay.draws == played.draws


def test_5_a_replay_asked_for_another_draw_than_recorded_is_refused():
    played = Chance(7)
    played.roll(3, "ann")
    with pytest.raises(RulesError, match="ann/1"):
        ReplayChance(played.draws).roll(3, "ben")


def test_5_scripted_chance_throws_the_faces_a_test_chooses_and_records_them():
    chance = ScriptedChance(lambda turn, kind, key, candidates: {"ann/1": 6, "ann/2": 6}.get(key))
    assert [chance.roll(1, "ann"), chance.roll(1, "ann")] == [6, 6]
    assert chance.roll(1, "ann") == pick_index(0, 1, "dice", "ann/3", 6) + 1  # unscripted: seeded
    assert [d.value for d in chance.draws[:2]] == [6, 6]


def test_5_a_postal_turn_records_its_draws_and_replays_from_them_alone():
    """Two NMR players under nmr random: the turn's outcome lists both picks (kind, key,
    candidates, index), and resolving again through ReplayChance of that record, with no
    seed, gives the same outcome."""
    setup = campaign({"A": _board()}, players=["ann", "ben"], seed=4242)
    outcome = play(setup, start_state(setup), {})
    assert [(d.turn, d.kind, d.key, d.candidates) for d in outcome.draws] == [
        (1, "nmr", "ann", (1, 2, 3, 4, 5, 6)), (1, "nmr", "ben", (1, 2, 3, 4, 5, 6))]
    assert [d.index for d in outcome.draws] == [sha_index(f"4242:1:nmr:{p}", 6) for p in ("ann", "ben")]
    replayed = RULES.resolve(setup, start_state(setup), {}, ReplayChance(outcome.draws))
    assert replayed == outcome
