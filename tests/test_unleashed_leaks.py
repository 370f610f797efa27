"""docs/rules/unleashed.md, What players see: a player's hand, the cards they drew, their skipped PLAY lines and their
unused reactions reach that player alone; the public report, observers' mail and the
archive never hold them, nor the order of the draw pile, until `gm reveal`. Proved four
ways, over the six-robot demo (`gm demo --ruleset unleashed`) and over a campaign whose
custom deck holds one marked card that only a hand can hold:

* noninterference: the archive before the reveal, and each player's report, render the
  same bytes when every secret the reader may not know is replaced by a decoy of the same
  size (hands of `FORWARD-9`/`BACK-9`, which the decks here never hold; a pile of decoys;
  other reactions, draws and skipped lines); and the check is not blind (the addressee's
  own secrets, or the revealed deal, do change what is rendered);
* no template context of a mail to a player or an observer holds a state, another
  player's own view, or a mapping of everyone's hands (walked object by object);
* the outbox and the published files: the marked card `FORWARD-7` is in its holder's
  mail and in nobody else's, no observer's and no archive file before the reveal; after
  it the archive's boards page shows the whole deal.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from campaignkit import PLAIN_PLAYERS, CampaignKit

import gm.mail.mailout as mailout_module  # compose where a module imports it when it runs
from gm.campaign import campaign as start_module
from gm.campaign import turns as turns_module
from gm.campaign.desk import reply as reply_module
from gm.campaign.desk import reset as reset_module
from gm.campaign.folder import Campaign
from gm.demo.run import play
from gm.mail.mailout import render
from gm.mail.views import BoardSize, PlayerMail, PlayerRef
from gm.publish.archive import build_site
from gm.publish.archive_load import load_archive
from gm.publish.render import render_page
from gm.publish.write import publish
from gm.rules.unleashed import Unleashed
from gm.rules.unleashed.cards import movement
from gm.rules.unleashed.state import UnleashedState
from gm.rules.unleashed.views import OwnView

DECOYS = ("FORWARD-9", "BACK-9")  # neither the default deck nor MARKER_DECK holds these
MARKER = "FORWARD-7"  # MARKER_DECK's one card of it can only ever be in a hand (see below)
PLAYER_TEMPLATES = {"welcome", "ack", "refusal", "help", "reminder", "report", "final"}


# -- recording what every mail was rendered from ------------------------------------------------


@contextmanager
def recording(patch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str, Mapping[str, Any]]]]:
    """(template, recipient, context) of every mail composed while inside."""
    rendered: list[tuple[str, str, Mapping[str, Any]]] = []
    for module in (turns_module, reply_module, reset_module, start_module, mailout_module):
        original = module.compose

        def record(*args, _original=original, **kwargs):
            rendered.append((kwargs["template"], kwargs["to"], kwargs["context"]))
            return _original(*args, **kwargs)

        patch.setattr(module, "compose", record)
    yield rendered


def decoy_hand(size: int) -> list[str]:
    return [DECOYS[i % 2] for i in range(size)]


def scrambled(state: UnleashedState, keep: str | None) -> UnleashedState:
    """`state` with every secret but `keep`'s replaced by a decoy of the same size: the
    other hands, the whole draw pile, the other players' standing reactions and what they
    alone learnt (cards drawn, skipped lines). `keep` None: everyone's."""
    changed = state.copy()
    for player, hand in changed.hands.items():
        if player != keep:
            changed.hands[player] = decoy_hand(len(hand))
    changed.pile = decoy_hand(len(changed.pile))[::-1]
    changed.reactions = {p: r for p, r in changed.reactions.items() if p == keep}
    changed.private = {p: v for p, v in changed.private.items() if p == keep}
    for player in changed.seats:
        if player != keep:
            changed.reactions[player] = {"SWAP-CARDS": ["1 2"], "BACK": ["LAST"]}
            changed.private[player] = {"drew": [DECOYS[0]], "skipped": [[1, "a decoy reason"]]}
    return changed


def walk(value: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Every object reachable from a template context: through dataclasses, mappings,
    sequences and sets, and the attributes of any other object of gm's own."""
    seen = seen if seen is not None else set()
    if id(value) in seen:
        return
    seen.add(id(value))
    yield value
    if isinstance(value, str | bytes | int | float | bool | type(None)):
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from walk(getattr(value, field.name), seen)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from walk(key, seen)
            yield from walk(item, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from walk(item, seen)
    elif type(value).__module__.startswith("gm.") and hasattr(value, "__dict__") and not isinstance(value, type):
        for item in vars(value).values():
            yield from walk(item, seen)


# -- the demo: six robots, a whole campaign on the Maildir transport -------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("unleashed-leaks") / "derby"
    with pytest.MonkeyPatch.context() as patch, recording(patch) as rendered:
        result = play(folder, ruleset="unleashed", echo=lambda line: None)
    assert result.turns >= 3
    return folder, rendered


@pytest.fixture
def unrevealed(demo, tmp_path) -> Path:
    """A copy of the finished demo as it stood before `gm reveal`."""
    folder, _ = demo
    copy = tmp_path / "derby"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("archive", "mail"))
    opened = Campaign.open(copy)
    try:
        with opened.store.transaction() as db:
            db["campaign"].update(opened.config.id, {"revealed_at": None})
    finally:
        opened.close()
    return copy


def archive_bytes(folder: Path) -> list[tuple[str, bytes]]:
    opened = Campaign.open(folder)
    try:
        pages = build_site(load_archive(opened))
        return [(page.path, _as_bytes(render_page(page))) for page in pages]
    finally:
        opened.close()


def _as_bytes(rendered: Any) -> bytes:
    return rendered.encode("utf-8") if isinstance(rendered, str) else bytes(rendered)


def test_the_demo_deals_hands_keeps_reactions_and_skips_lines(demo):
    """What the checks below hide is really there: hands, a pile, standing reactions and
    skipped lines in the stored states."""
    folder, _ = demo
    opened = Campaign.open(folder)
    try:
        rows = opened.store.rows("select state_before, state_after from turns order by turn")
        states = [opened.ruleset.load_state(json.loads(r[k])) for r in rows for k in ("state_before", "state_after")]
    finally:
        opened.close()
    assert all(len(hand) == 3 for hand in states[0].hands.values()) and states[0].pile
    assert any(state.reactions for state in states)
    assert any(mine.get("skipped") for state in states for mine in state.private.values())
    assert any(mine.get("drew") for state in states for mine in state.private.values())


def test_6_14_archive_before_reveal_is_the_same_whatever_the_hands_pile_and_reactions(unrevealed):
    real = archive_bytes(unrevealed)
    with pytest.MonkeyPatch.context() as patch:
        load = Unleashed.load_state
        patch.setattr(Unleashed, "load_state", lambda self, data: scrambled(load(self, data), None))
        decoy = archive_bytes(unrevealed)
    assert [path for path, _ in real] == [path for path, _ in decoy]
    assert any(path.startswith("turn-") for path, _ in real)
    for (path, mine), (_, other) in zip(real, decoy, strict=True):
        assert mine == other, f"{path} depends on a hand, the pile, a reaction or a private fact"


def test_the_archive_check_is_not_blind_after_the_reveal_the_deal_shows(demo, tmp_path):
    """The same scrambling changes the revealed archive's boards page (it shows the deal),
    so the comparison above would see a hand that reached a page."""
    folder, _ = demo
    copy = tmp_path / "revealed"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("archive", "mail"))
    real = dict(archive_bytes(copy))
    with pytest.MonkeyPatch.context() as patch:
        load = Unleashed.load_state
        patch.setattr(Unleashed, "load_state", lambda self, data: scrambled(load(self, data), None))
        decoy = dict(archive_bytes(copy))
    assert real["boards.html"] != decoy["boards.html"]
    assert DECOYS[0].encode() in decoy["boards.html"] and DECOYS[0].encode() not in real["boards.html"]


def _reports(folder: Path, change: Callable[[UnleashedState, str], UnleashedState]) -> dict[tuple[int, str], Any]:
    """Every player's report (or final results) of every turn, each rendered with the
    states as `change(state, addressee)` makes them, with the addressee's own order."""
    opened = Campaign.open(folder)
    try:
        ruleset, setup = opened.ruleset, opened.setup
        out = {}
        for row in opened.store.rows("select * from turns order by turn"):
            events = [ruleset.event_from_json(e) for e in json.loads(row["events"])]
            orders = {p: ruleset.order_from_json(o) for p, o in json.loads(row["orders"]).items()}
            for player in opened.config.players:
                changed = dict(row)
                for key in ("state_before", "state_after"):
                    state = change(ruleset.load_state(json.loads(row[key])), player.id)
                    changed[key] = json.dumps(ruleset.dump_state(state))
                out[row["turn"], player.id] = _report(opened, setup, changed, player, events,
                                                      orders.get(player.id))
        return out
    finally:
        opened.close()


def _report(opened, setup, row, player, events, order) -> tuple[str, ...]:
    """test_leaks.report_text, with the addressee's own order (its skipped lines are told)."""
    ruleset = opened.ruleset
    before = ruleset.load_state(json.loads(row["state_before"]))
    after = ruleset.load_state(json.loads(row["state_after"]))
    view = ruleset.public_view(setup, before, after, events, opened.names(), "c", "t")
    own = ruleset.player_view(setup, player.id, player.name, after, events, order)
    mail = PlayerMail(
        campaign="c", title="t", ruleset=ruleset.name, gm_address="gm@example.org",
        boards=tuple(BoardSize(b, board.squares) for b, board in setup.boards.items()),
        facts=ruleset.mail_facts(setup), commands=(), player=PlayerRef(player.id, player.name),
        deadline=None, next_turn=view.next_turn, view=view, own=own,
    )
    return render("final" if view.over else "report", mail.context())


def test_6_14_no_report_depends_on_another_players_hand_reactions_or_the_pile(demo):
    folder, _ = demo
    real = _reports(folder, lambda state, player: state)
    decoy = _reports(folder, lambda state, player: scrambled(state, player))
    assert len(real) >= 3 * 6
    for key, text in real.items():
        assert text == decoy[key], f"turn {key[0]}, {key[1]}: the report shows another player's secret"


def test_6_14_reports_do_show_the_addressees_own_hand_and_reactions(demo):
    """Not blind: scrambling the addressee's own hand, reactions and skipped lines (which
    their copy does show) changes their reports."""
    folder, _ = demo
    real = _reports(folder, lambda state, player: state)
    decoy = _reports(folder, lambda state, player: scrambled(state, None))
    changed = {key for key in real if real[key] != decoy[key]}
    assert {player for _, player in changed} == {p for _, p in real}
    some = next(iter(changed))
    assert DECOYS[0] in "".join(decoy[some]) and DECOYS[0] not in "".join(real[some])


# -- what each mail was rendered from -------------------------------------------------------------


def _contexts_hold_no_other_secret(rendered, players: Mapping[str, str], observers: set[str]) -> set[str]:
    """Walk every context of a mail to a player or an observer; the templates seen."""
    seen = set()
    for template, to, context in rendered:
        addressee = players.get(to)
        if addressee is None and to not in observers:
            continue  # the GM's own mail
        seen.add(template)
        for item in walk(context):
            where = f"{template} to {to}"
            assert not isinstance(item, UnleashedState | Campaign), f"{where}: its context holds a {type(item).__name__}"
            if isinstance(item, OwnView):
                assert item.player == addressee, f"{where}: its context holds {item.player}'s own view"
            if isinstance(item, Mapping):
                assert not {"hands", "pile", "draw_pile_order", "reactions_of"} & set(map(str, item)), where
                if "hand" in item and addressee is not None and "player" in item:
                    assert item["player"] in (addressee, None), where
    return seen


def test_6_14_no_mail_context_in_the_demo_holds_another_players_hand(demo):
    folder, rendered = demo
    opened = Campaign.open(folder)
    try:
        players = {p.email: p.id for p in opened.config.players}
    finally:
        opened.close()
    seen = _contexts_hold_no_other_secret(rendered, players, set())
    assert {"welcome", "ack", "report", "final"} <= seen


# -- a marked card that only a hand can hold ------------------------------------------------------

# Every square's card is fixed by the board file, so the deck's one FORWARD-7 is dealt into a
# hand or the pile, and the players below never play it: it can only ever be in a hand.
MARKER_ROW = ["BLANK", "+1", "BLANK", "-1", "BLANK", "+2", "BACK-2", "BLANK"]
MARKER_BOARD = {"name": "Marker Lane", "squares": 32, "shape": {"levels": [8, 8, 8, 8]},
                "snakes": [], "ladders": [], "cards": MARKER_ROW * 4}
MARKER_DECK = {"BLANK": 20, "+1": 7, "-1": 7, "+2": 7, "BACK-2": 5, "SWAP-PLAYERS": 1, MARKER: 1}
OBSERVER = "olga@example.org"


def marker_orders(state: UnleashedState, turn: int) -> dict[str, list[str]]:
    """Each player in play tries a line that is always skipped (no other pawn may stand on
    the square; LEADER+0 on Start is off the board), then plays a blank or movement card
    ahead of its pawn; reactions in the first round; carol forgets every third turn."""
    orders = {}
    for player in state.seats:
        if not state.in_play(player) or (player == "carol" and turn % 3 == 2):
            continue
        lines = ["REACT BACK LAST", "REACT SWAP-PLAYERS ME LEADER"] if turn == 1 else []
        playable = [code for code in state.hands[player] if code == "BLANK" or movement(code)]
        if playable:
            lines += [f"PLAY {playable[0]} ON LEADER+0", f"PLAY {playable[0]} ON ME+4"]
        else:
            lines.append("PLAY NONE")
        orders[player] = lines
    return orders


@pytest.fixture(scope="module")
def marked(tmp_path_factory):
    """The marked campaign played to its end and published before the reveal (the
    archive's files are read then), then revealed and published again."""
    root = tmp_path_factory.mktemp("unleashed-marker")
    (root / "board.yaml").write_text(yaml.safe_dump(MARKER_BOARD), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch, recording(patch) as rendered:
        kit = CampaignKit.create(root / "c", setenv=patch.setenv, players=PLAIN_PLAYERS, start=False,
                                 seed=2**128 + 3, campaign_id="marker")
        config = yaml.safe_load((root / "c" / "campaign.yaml").read_text(encoding="utf-8"))
        config |= {"ruleset": "unleashed", "boards": {"A": str(root / "board.yaml")},
                   "options": {"setup": "random", "pieces": 4, "deck": MARKER_DECK, "max_turns": 40},
                   "observers": [{"name": "Olga Observer", "email": OBSERVER}]}
        (root / "c" / "campaign.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        kit.start()
        dealt = kit.state().copy()
        for turn in range(1, 41):
            state = kit.state()
            if state.over:
                break
            with kit.campaign() as opened:
                deadline = opened.deadline()
            kit.at(deadline - timedelta(days=2))
            if turn == 2:
                with kit.campaign() as opened:
                    assert turns_module.remind(opened)  # a reminder shows its reader's hand
            kit.at(deadline - timedelta(days=1))
            for player, lines in marker_orders(state, turn).items():
                kit.log.append(kit.order(player, lines))
            kit.at(deadline + timedelta(hours=1))
            with kit.campaign() as opened:
                turns_module.resolve(opened, force=True)
        assert kit.state().over
        with kit.campaign() as opened:
            out, _ = publish(opened)
            before = {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*"))
                      if path.is_file()}
            from gm.campaign.reveal import reveal

            reveal(opened)
            publish(opened)
            after = (out / "boards.html").read_text(encoding="utf-8")
        final = kit.state()
        mails = kit.outbox()
        kit.close()
    return dealt, final, mails, before, after, rendered


def holders(state: UnleashedState) -> list[str]:
    return [player for player, hand in state.hands.items() if MARKER in hand]


def mail_text(message) -> str:
    """Every part of a mail, decoded: text, HTML and attachments (the .ics, a table)."""
    parts = []
    for part in message.walk():
        if part.get_content_maintype() == "multipart":
            continue
        body = part.get_content()
        parts.append(body.decode("utf-8", "replace") if isinstance(body, bytes) else body)
    return "\n".join(parts)


def test_the_marked_card_is_dealt_into_one_hand_and_never_reaches_the_board(marked):
    dealt, final, *_ = marked
    assert len(holders(dealt)) == 1 and MARKER not in dealt.pile and MARKER not in dealt.cards
    assert holders(final) == holders(dealt) and MARKER not in final.cards


def test_6_14_no_hand_reaches_another_player(marked):
    dealt, _, mails, *_ = marked
    (holder,) = holders(dealt)
    players = [m for m in mails if m.player is not None]
    assert {m.kind for m in players} >= {"welcome", "ack", "reminder", "report"}
    own = [m.kind for m in players if m.player == holder and MARKER in mail_text(m)]
    # the holder is shown the card in the welcome, each acknowledgement and each report
    assert {"welcome", "ack", "report"} <= set(own), own
    for message in players:
        if message.player != holder:
            assert MARKER not in mail_text(message), (message.player, message.kind, message["Subject"])


def test_6_14_no_observer_mail_holds_a_hand(marked):
    _, _, mails, *_ = marked
    observed = [m for m in mails if m["To"] and OBSERVER in str(m["To"])]
    assert len(observed) >= 3
    for message in observed:
        assert MARKER not in mail_text(message), message["Subject"]
        assert "Your hand" not in mail_text(message)


def test_6_14_no_archive_file_before_the_reveal_holds_a_hand(marked):
    *_, before, _, _ = marked
    assert {"index.html", "boards.html", "feed.xml", "turn-001.html"} <= set(before)
    assert not any(name.endswith(".json") for name in before)  # board-A.json comes with the reveal
    for name, data in before.items():
        text = data.decode("utf-8", "replace")
        assert MARKER not in text and "send forward 7" not in text.lower(), name


def test_6_14_after_the_reveal_the_boards_page_shows_the_whole_deal(marked):
    dealt, _, _, before, after, _ = marked
    assert MARKER in after and MARKER not in before["boards.html"].decode()
    assert f"{', '.join(dealt.hands[holders(dealt)[0]])}" in after
    for hand in dealt.hands.values():
        assert ", ".join(hand) in after
    assert ", ".join(dealt.pile) in after


def test_6_14_no_mail_context_holds_the_marked_card_for_anyone_but_its_holder(marked):
    dealt, _, _, _, _, rendered = marked
    (holder,) = holders(dealt)
    players = {p.email: p.id for p in PLAIN_PLAYERS}
    seen = _contexts_hold_no_other_secret(rendered, players, {OBSERVER})
    assert {"welcome", "ack", "reminder", "report", "final", "observer"} <= seen
    for template, to, context in rendered:
        if players.get(to) == holder or (to not in players and to != OBSERVER):
            continue
        for item in walk(context):
            if isinstance(item, str):
                assert MARKER not in item, f"{template} to {to}: {item!r}"
