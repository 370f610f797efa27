"""docs/rules/postal.md, What players see: players never see another player's number, a route, a snake, a ladder,
a landing square in between, the shape or a board's name. Proved three ways over a whole
campaign in which every player-facing template is rendered:

* no context handed to a player template holds a hidden fact (walked object by object);
* no player mail and no archive page before the reveal contains a board name, salt or seed;
* noninterference: re-rendering every report and the archive with the hidden facts changed
  (other layouts and names, other players' numbers and routes) gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from campaignkit import BOARDS, HOSTILE_PLAYERS, CampaignKit

from gm.boards.model import Board
from gm.boards.moving import Step
from gm.campaign import campaign as start_module
from gm.campaign import turns as turns_module
from gm.campaign.desk import inbound as desk_module
from gm.campaign.desk import reply as reply_module
from gm.campaign.desk import reset as reset_module
from gm.mail.mailout import render
from gm.mail.views import BoardSize, PlayerMail, PlayerRef
from gm.publish.archive import build_site
from gm.publish.archive_load import load_archive
from gm.publish.render import render_page
from gm.rules.base import Setup
from gm.rules.postal.events import Moved, NumberPlayed, TrapdoorElection

PLAYER_TEMPLATES = {"welcome", "ack", "refusal", "help", "reminder", "report", "final"}
SECRET_NAMES = ("Secret Serpent Stair", "Hidden Ziggurat Vault")


def secret_boards(folder: Path) -> dict[str, Path]:
    """The sample boards under names no public text could contain by chance."""
    paths = {}
    for board_id, source, name in (("A", "small.yaml", SECRET_NAMES[0]), ("B", "ziggurat.yaml", SECRET_NAMES[1])):
        text = (BOARDS / source).read_text().replace("name: The Garden Path", f"name: {name}")
        text = text.replace("name: The Ziggurat", f"name: {name}")
        path = folder / f"{board_id}.yaml"
        path.write_text(text)
        paths[board_id] = path
    return paths


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """A whole campaign with help, refusals and reminders too; every rendered template and
    its context is recorded."""
    folder = tmp_path_factory.mktemp("leaks")
    rendered: list[tuple[str, Mapping[str, Any]]] = []
    with pytest.MonkeyPatch.context() as patch:
        for module in (turns_module, reply_module, reset_module, start_module):
            original = module.compose

            def recording(*args, _original=original, **kwargs):
                rendered.append((kwargs["template"], kwargs["context"]))
                return _original(*args, **kwargs)

            patch.setattr(module, "compose", recording)
        # what imports compose from gm.mail.mailout only when it runs (a sign-up's notice)
        import gm.mail.mailout as mailout_module

        original_start = mailout_module.compose

        def recording_start(*args, **kwargs):
            rendered.append((kwargs["template"], kwargs["context"]))
            return original_start(*args, **kwargs)

        patch.setattr(mailout_module, "compose", recording_start)
        kit = CampaignKit.create(folder / "c", setenv=patch.setenv, boards=secret_boards(folder))
        kit.order("alice", ["HELP"])  # help with the standing order
        kit.order("bob", ["NUMBER 9"])  # a refusal to a known player
        raw = kit.mail("carol", "PLAYER carol\nPASSWORD wrong\nNUMBER 2\n")
        with kit.campaign() as opened:
            desk_module.Desk(opened).handle(raw, source="kit:stranger")  # a refusal to a stranger
            turns_module.remind(opened)
        kit.play_turn()
        with kit.campaign() as opened:
            turns_module.remind(opened)
        kit.play_to_end()
        kit.close()
        yield kit, rendered


def hidden_strings(kit: CampaignKit) -> list[str]:
    with kit.campaign() as opened:
        row = opened.row()
        salts = [b["salt"] for b in opened.store.rows("select salt from boards")]
        canonical = [b["canonical"] for b in opened.store.rows("select canonical from boards")]
    return [*SECRET_NAMES, row["seed_salt"], *salts, *canonical, str(opened.config.seed)]


def walk(value: Any, seen: set[int] | None = None):
    """Every object reachable from a template context."""
    seen = seen if seen is not None else set()
    if id(value) in seen:
        return
    seen.add(id(value))
    yield value
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


def test_every_player_facing_template_is_rendered(campaign):
    _, rendered = campaign
    assert {template for template, _ in rendered} >= PLAYER_TEMPLATES


def test_2_6_no_player_template_context_holds_a_hidden_fact(campaign):
    kit, rendered = campaign
    secrets = hidden_strings(kit)
    hidden_types = (Board, Moved, Step, TrapdoorElection, NumberPlayed, Setup)
    for template, context in rendered:
        if template not in PLAYER_TEMPLATES:
            continue
        for item in walk(context):
            assert not isinstance(item, hidden_types), f"{template} context holds a {type(item).__name__}"
            if isinstance(item, str):
                assert not any(secret in item for secret in secrets), f"{template} context: {item!r}"


def test_2_6_no_player_mail_names_a_board_or_shows_a_salt(campaign):
    kit, _ = campaign
    secrets = hidden_strings(kit)
    mails = [m for m in kit.outbox() if m.player is not None]
    assert {m.kind for m in mails} >= {"welcome", "ack", "refusal", "help", "reminder", "report"}
    for message in mails:
        for part in message.walk():
            if part.get_content_maintype() == "multipart":
                continue
            body = part.get_content()
            body = body.decode() if isinstance(body, bytes) else body
            assert not any(secret in body for secret in secrets), (message.kind, message["Subject"])
            assert "by snake" not in body and "by ladder" not in body


def test_the_gm_report_does_show_routes_and_board_names(campaign):
    """The check above would be empty if the secrets were nowhere: the GM sees them."""
    kit, _ = campaign
    text = "".join(m.get_body(("plain",)).get_content() for m in kit.outbox(kind="gm-report"))
    assert SECRET_NAMES[0] in text and ("by snake" in text or "by ladder" in text)


# -- noninterference --------------------------------------------------------------------------


def other_world(setup: Setup, seed: int) -> Setup:
    """The same board ids and sizes with other names, shapes, snakes and ladders."""
    rng = random.Random(seed)
    boards = {}
    for board_id, board in setup.boards.items():
        n = board.squares
        free = rng.sample(range(2, n), 4)
        low, high = sorted(free[:2]), sorted(free[2:])
        boards[board_id] = Board.build(
            n, levels=(n,), serpentine=False, snakes=[(high[1], high[0])], ladders=[(low[0], low[1])],
            name=f"Decoy {rng.random()}",
        )
    return dataclasses.replace(setup, boards=boards)


def scramble(events, keep: str, seed: int):
    """Other players' numbers and every route changed; the addressee's own number kept."""
    rng = random.Random(seed)
    changed = []
    for event in events:
        if isinstance(event, NumberPlayed) and event.player != keep:
            event = dataclasses.replace(event, number=rng.randint(1, 6))
        elif isinstance(event, Moved):
            steps = tuple(Step(rng.randint(1, 40), "snake") for _ in range(rng.randint(0, 3)))
            event = dataclasses.replace(event, number=rng.randint(1, 6), steps=steps)
        elif isinstance(event, TrapdoorElection):
            event = dataclasses.replace(event, tally=((rng.randint(1, 30), 9),))
        changed.append(event)
    return tuple(changed)


def report_text(opened, setup: Setup, row, player, events) -> tuple[str, str, str]:
    ruleset = opened.ruleset
    before = ruleset.load_state(json.loads(row["state_before"]))
    after = ruleset.load_state(json.loads(row["state_after"]))
    names = opened.names()
    view = ruleset.public_view(setup, before, after, events, names, "c", "t")
    own = ruleset.player_view(setup, player.id, player.name, after, events, None)
    mail = PlayerMail(
        campaign="c", title="t", ruleset=ruleset.name, gm_address="gm@example.org",
        boards=tuple(BoardSize(b, board.squares) for b, board in setup.boards.items()),
        facts=ruleset.mail_facts(setup), commands=(), player=PlayerRef(player.id, player.name),
        deadline=None, next_turn=view.next_turn, view=view, own=own,
    )
    return render("final" if view.over else "report", mail.context())


def test_2_6_reports_are_the_same_whatever_the_hidden_facts(campaign):
    kit, _ = campaign
    with kit.campaign() as opened:
        setup = opened.setup
        rows = opened.store.rows("select * from turns order by turn")
        for index, row in enumerate(rows):
            events = [opened.ruleset.event_from_json(e) for e in json.loads(row["events"])]
            for player in HOSTILE_PLAYERS:
                real = report_text(opened, setup, row, player, events)
                decoy = report_text(opened, other_world(setup, index), row, player,
                                    scramble(events, player.id, index))
                assert real == decoy, f"turn {row['turn']}, {player.id}: the report depends on a hidden fact"


def test_2_6_archive_before_reveal_is_the_same_whatever_the_hidden_facts(campaign, tmp_path):
    kit, _ = campaign
    copy = tmp_path / "c"
    shutil.copytree(kit.folder, copy)
    other = CampaignKit(copy, HOSTILE_PLAYERS, kit.setenv)
    with other.campaign() as opened:
        real = [render_page(p) for p in build_site(load_archive(opened))]
        with opened.store.transaction() as db:
            for index, row in enumerate(opened.store.rows("select * from turns")):
                events = scramble([opened.ruleset.event_from_json(e) for e in json.loads(row["events"])], "", index)
                db["turns"].update(row["turn"], {"events": json.dumps([dataclasses.asdict(e) for e in events])})
        opened.config = dataclasses.replace(opened.config, boards=other_world(opened.setup, 7).boards)
        decoy = [render_page(p) for p in build_site(load_archive(opened))]
    other.close()
    assert real == decoy


def test_noninterference_check_sees_a_change_in_what_the_player_may_know(campaign):
    """The decoy check is not blind: scrambling the addressee's own number (which their
    report does show) changes some report."""
    kit, _ = campaign
    with kit.campaign() as opened:
        setup = opened.setup
        rows = opened.store.rows("select * from turns order by turn")
        differs = 0
        for index, row in enumerate(rows):
            events = [opened.ruleset.event_from_json(e) for e in json.loads(row["events"])]
            real = report_text(opened, setup, row, HOSTILE_PLAYERS[0], events)
            decoy = report_text(opened, setup, row, HOSTILE_PLAYERS[0], scramble(events, "", index))
            differs += real != decoy
    assert differs
