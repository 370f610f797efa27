"""A judge's notifications by webhook (docs/deployment.md, Notifications): queued once,
sent until the endpoint takes them, never stopping a turn; tested against a local HTTP
endpoint on 127.0.0.1 that fails for a while."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from test_judge import gm, make_judge

from gm.campaign.notify import DISCORD_MAX
from gm.judge.games import FINISHED, Game
from gm.judge.layout import load_judge
from gm.judge.webhooks import body


class Endpoint:
    """Answers 500 to the first `failures` POSTs, then 204; keeps every body it took."""

    def __init__(self, failures: int):
        self.failures, self.taken, self.tries = failures, [], 0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                data = self.rfile.read(int(self.headers["Content-Length"]))
                endpoint.tries += 1
                if endpoint.tries <= endpoint.failures:
                    self.send_response(500)
                else:
                    endpoint.taken.append(json.loads(data))
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    made = []

    def make(failures: int) -> Endpoint:
        made.append(Endpoint(failures))
        return made[-1]

    yield make
    for one in made:
        one.close()


def with_hook(judge: Path, url: str, fmt: str = "json") -> None:
    path = judge / "judge.yaml"
    path.write_text(path.read_text() + f"notify:\n  webhooks:\n    - {{url: \"{url}\", format: {fmt}}}\n")


def test_a_start_is_posted_exactly_once_after_the_endpoint_failed_for_a_while(tmp_path, endpoint):
    hook = endpoint(failures=2)
    judge = make_judge(tmp_path, "spring")
    with_hook(judge, hook.url)
    gm("-C", str(judge / "campaigns" / "spring"), "start")
    first = gm("judge", str(judge), "turn")  # the endpoint fails: the turn goes on
    assert "webhooks: 0 delivered, 1 kept for the next run" in first and "spring: ingest" in first
    assert "waiting after 1 tries (HTTP 500)" in gm("judge", str(judge), "status")
    assert "spring start waiting after 1 tries" in gm("-C", str(judge / "campaigns" / "spring"), "status")
    gm("judge", str(judge), "turn")  # fails again
    third = gm("judge", str(judge), "turn")
    assert "webhooks: 1 delivered" in third
    gm("judge", str(judge), "turn")  # nothing new: nothing posted again
    assert hook.taken == [{"event": "start", "campaign": "spring", "title": "Spring", "turn": 1, "leaders": [],
                           "url": None}]
    assert "waiting after" not in gm("judge", str(judge), "status")


def test_an_unreachable_endpoint_never_stops_the_turn(tmp_path):
    judge = make_judge(tmp_path, "spring")
    with_hook(judge, "http://127.0.0.1:9/closed")
    gm("-C", str(judge / "campaigns" / "spring"), "start")
    out = gm("judge", str(judge), "turn")
    assert "1 kept for the next run" in out and "site:" in out


def test_discord_and_slack_bodies_name_the_game_event_turn_leaders_and_link(tmp_path):
    judge = load_judge(make_judge(tmp_path))
    game = Game("spring", tmp_path, title="Spring", ruleset="classic", state=FINISHED, turn=9,
                url="https://example.org/spring/", leaders=["Alice", "Bob"])
    discord = body(judge, game, "end", 0, "discord")["content"]
    assert "Spring (spring): the game is over" in discord and "Alice, Bob" in discord
    assert "https://example.org/spring/" in discord and len(discord) <= DISCORD_MAX
    assert "turn 8 is resolved" in body(judge, game, "turn", 8, "slack")["text"]
    assert body(judge, game, "turn", 8, "json")["leaders"] == ["Alice", "Bob"]


def test_each_event_is_queued_once_and_a_game_first_seen_late_is_told_its_latest_turn_only(tmp_path):
    from gm.judge.games import RUNNING, SIGNUP
    from gm.judge.store import JudgeStore
    from gm.judge.webhooks import events_of, queue_events

    judge_dir = make_judge(tmp_path)
    with_hook(judge_dir, "http://127.0.0.1:9/hook")
    judge = load_judge(judge_dir)
    store = JudgeStore(judge_dir)
    try:
        late = Game("late", tmp_path, title="Late", state=RUNNING, turn=6)
        assert events_of(store, late) == [("start", 0), ("turn", 5)]
        queue_events(judge, store, [late])
        assert events_of(store, late) == []
        late.turn = 8
        assert events_of(store, late) == [("turn", 6), ("turn", 7)]
        joining = Game("joining", tmp_path, state=SIGNUP)
        queue_events(judge, store, [joining])
        joining.state, joining.turn = RUNNING, 1
        assert events_of(store, joining) == [("signup_closed", 0), ("start", 0)]
    finally:
        store.close()
