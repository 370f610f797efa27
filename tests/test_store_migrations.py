"""Migrations keep existing campaigns working: a database made before a change is
brought up to date on the next command, its data carried over."""

from __future__ import annotations

import json

import gm.campaign.store
from gm.campaign.store import Store


def test_migration_005_moves_postal_orders_from_their_columns_into_standing_json(tmp_path, monkeypatch):
    path = tmp_path / "gm.sqlite"
    before = [m for m in gm.campaign.store.MIGRATIONS if m[0] < "005"]
    monkeypatch.setattr(gm.campaign.store, "MIGRATIONS", before)
    store = Store(path)
    store.migrate()
    with store.transaction() as db:
        db["orders"].insert({"turn": 3, "player": "ann", "receipt": 2, "message": 7,
                             "numbers": json.dumps({"*": 4}), "trapdoors": json.dumps({"A": 37})})
    store.close()
    monkeypatch.undo()
    store = Store(path)
    store.migrate()
    row = store.one("select * from orders")
    store.close()
    assert json.loads(row["standing"]) == {"numbers": {"*": 4}, "trapdoors": {"A": 37}}
    assert "numbers" not in row and "trapdoors" not in row
    assert (row["turn"], row["player"], row["receipt"], row["message"]) == (3, "ann", 2, 7)


def test_migration_015_links_each_held_sign_up_by_its_id_and_key_values(tmp_path, monkeypatch):
    path = tmp_path / "gm.sqlite"
    before = [m for m in gm.campaign.store.MIGRATIONS if m[0] < "015"]
    monkeypatch.setattr(gm.campaign.store, "MIGRATIONS", before)
    store = Store(path)
    store.migrate()
    with store.transaction() as db:
        db["signups"].insert({"id": 1, "player": "ann", "email": "ann@example.org", "keys": json.dumps({"team": "Red"}),
                              "status": "in"})
    store.close()
    monkeypatch.undo()
    store = Store(path)
    store.migrate()
    links = {r["link"] for r in store.rows("select link from signup_links where signup = 1")}
    row = store.one("select requested from signups where id = 1")
    store.close()
    assert links == {"ann", "red"} and row["requested"] is None
