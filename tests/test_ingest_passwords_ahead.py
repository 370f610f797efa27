"""A turn's ingest is mostly password checks (docs/rules/, Order mail: a salted, slow hash per player).
Mail fetched in a batch has its passwords checked ahead, on every core at once
(Desk.check_passwords_ahead), then each message is handled alone, in order, as before:
checking ahead decides and records nothing, and no password is hashed twice in a run."""

from __future__ import annotations

import threading

import pytest
from campaignkit import PLAIN_PLAYERS, CampaignKit

import gm.campaign.passwords
from gm.campaign.desk.inbound import Desk
from gm.campaign.passwords import check_password


@pytest.fixture
def kit(tmp_path, monkeypatch):
    kit = CampaignKit.create(tmp_path / "c", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
    yield kit
    kit.close()


def counted_scrypt(monkeypatch) -> list[int]:
    calls, lock, real = [0], threading.Lock(), gm.campaign.passwords.hashlib.scrypt

    def scrypt(*args, **kwargs):
        with lock:
            calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(gm.campaign.passwords.hashlib, "scrypt", scrypt)
    return calls


def test_3_passwords_checked_ahead_once_each_and_nothing_decided_before_handling(kit, monkeypatch):
    raws = [kit.mail(p.id, f"PLAYER {p.id}\nPASSWORD {p.password}\nNUMBER 3\n") for p in PLAIN_PLAYERS]
    raws.append(kit.mail("alice", "PLAYER alice\nPASSWORD pw-alice\nNUMBER 4\n"))  # her second order
    raws.append(kit.mail("bob", "PLAYER bob\nPASSWORD not-his\nNUMBER 2\n"))  # a wrong password
    raws.append(kit.mail("carol", "Hello GM, when is the next turn?\n"))  # no password at all
    check_password.cache_clear()
    calls = counted_scrypt(monkeypatch)
    with kit.campaign() as campaign:
        desk = Desk(campaign)
        desk.check_passwords_ahead(raws)
        assert calls[0] == len(PLAIN_PLAYERS) + 1  # each (password, player) once
        assert campaign.store.one("select count(*) as n from messages")["n"] == 0
        queued = campaign.store.one("select count(*) as n from outbox where status = 'queued'")["n"]
        outcomes = [desk.handle(raw, source=f"ahead:{i}").outcome for i, raw in enumerate(raws)]
        assert calls[0] == len(PLAIN_PLAYERS) + 1  # handling hashed nothing again
        assert outcomes == ["applied"] * (len(PLAIN_PLAYERS) + 1) + ["refused", "refused"]
        assert campaign.store.one("select count(*) as n from outbox where status = 'queued'")["n"] == queued + len(raws)


def test_3_checking_ahead_gives_the_outcomes_of_handling_alone(tmp_path, monkeypatch):
    """The same mail, handled with and without checking ahead, is decided the same."""
    outcomes = []
    for ahead in (False, True):
        kit = CampaignKit.create(tmp_path / f"c{ahead}", setenv=monkeypatch.setenv, players=PLAIN_PLAYERS)
        raws = [kit.mail(p.id, f"PLAYER {p.id}\nPASSWORD {p.password}\nNUMBER {i + 1}\nTRAPDOOR A 9\n")
                for i, p in enumerate(PLAIN_PLAYERS)]
        raws += [kit.mail("dave", "PLAYER dave\nPASSWORD pw-dave\nNUMBR 2\n"), kit.mail("alice", "HELP\n")]
        with kit.campaign() as campaign:
            desk = Desk(campaign)
            if ahead:
                desk.check_passwords_ahead(raws)
            outcomes.append([desk.handle(raw, source=f"s:{i}").outcome for i, raw in enumerate(raws)])
        kit.close()
    assert outcomes[0] == outcomes[1]
