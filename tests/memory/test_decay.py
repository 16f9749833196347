"""Decay, pins and reinforcement: dormant facts are recorded as versions,
stay searchable, and wake up."""

from __future__ import annotations

import cbor2
import pytest

from objstore.memory import decay, facts
from objstore.core.codec import decode, encode, encode_payload, object_id
from objstore.core.errors import CorruptObject, InvalidInput, NotFound
from objstore.core.fsck import fsck
from objstore.core.objects import Fact
from objstore.core.store import now_ms

DAY = decay.DAY_MS


def test_idle_facts_go_dormant_as_a_new_version(store):
    facts.remember(store, "project/x/db", "postgres 16")
    facts.remember(store, "project/x/old", "kept value")
    decay.pin(store, "project/x/old")
    later = now_ms() + 61 * DAY
    checked, cands = decay.plan_decay(store, now=later)
    assert checked == 2 and [c.key for c in cands] == ["project/x/db"] and cands[0].idle_days == 61
    assert decay.plan_decay(store, now=now_ms() + 59 * DAY)[1] == []
    dry = decay.decay(store, now=later, dry_run=True)
    assert [c.key for c in dry.dormant] == ["project/x/db"] and not decay.is_dormant(store, "project/x/db")
    rep = decay.decay(store, now=later)
    assert [c.key for c in rep.dormant] == ["project/x/db"]
    chain = facts.versions(store, "project/x/db")
    assert [(v.fact.version, v.fact.body, v.fact.dormant) for v in chain] == [
        (2, "postgres 16", True), (1, "postgres 16", False)]
    assert chain[0].fact.valid_from == chain[1].fact.valid_from  # the value did not change
    assert facts.current(store, "project/x/db").id == chain[0].id
    assert decay.is_dormant(store, "project/x/db") and not decay.is_dormant(store, "project/x/old")
    assert [v.fact.key for v in decay.dormant(store)] == ["project/x/db"]
    assert store.reflog.read("facts/project/x/db")[-1].command == "decay"
    # dormant facts are still searchable
    from objstore.retrieval.search import search
    assert [h.ref for h in search(store, "postgres")] == ["project/x/db"]
    # already dormant: nothing more to do
    assert decay.decay(store, now=later + DAY).dormant == []
    assert fsck(store).ok


def test_reinforce_wakes_or_restarts_the_clock(store):
    facts.remember(store, "project/x/db", "postgres 16")
    decay.decay(store, days=0, now=now_ms() + 1000)
    assert decay.is_dormant(store, "project/x/db")
    r = decay.reinforce(store, "project/x/db")
    assert r.changed and not decay.is_dormant(store, "project/x/db") and r.version.fact.version == 3
    r = decay.reinforce(store, "project/x/db")
    assert not r.changed and r.touched
    e = store.reflog.read("facts/project/x/db")[-1]
    assert (e.command, e.old, e.new) == ("reinforce", r.version.id, r.version.id)
    # a use (injection) restarts the clock: measured from the touch, not the write
    t = now_ms() + 50 * DAY
    assert decay.touch(store, ["project/x/db", "project/x/nope"], time_ms=t) == 1
    assert decay.last_active(store, "project/x/db") == t
    assert decay.plan_decay(store, now=t + 59 * DAY)[1] == []
    assert len(decay.plan_decay(store, now=t + 61 * DAY)[1]) == 1


def test_a_new_value_is_awake_and_pin_wakes(store):
    facts.remember(store, "project/x/db", "postgres 16")
    decay.decay(store, days=0, now=now_ms() + 1000)
    facts.remember(store, "project/x/db", "postgres 17")
    assert not decay.is_dormant(store, "project/x/db")
    decay.decay(store, days=0, now=now_ms() + 1000)
    assert decay.pin(store, "project/x/db").changed
    cur = facts.current(store, "project/x/db").fact
    assert cur.pinned and not cur.dormant
    assert not decay.pin(store, "project/x/db").changed
    assert decay.unpin(store, "project/x/db").changed and not facts.current(store, "project/x/db").fact.pinned
    # a later plain write keeps the pin state of the head (remember's rule) and is awake
    with pytest.raises(NotFound):
        decay.pin(store, "project/x/missing")


def test_restate_after_a_backfill_becomes_current(store):
    facts.remember(store, "project/x/port", "5433", valid_from=3_000)
    facts.remember(store, "project/x/port", "5431", valid_from=1_000)  # backfill: head, not current
    r = decay.pin(store, "project/x/port")
    assert r.version.fact.body == "5433" and r.version.fact.version == 3
    assert facts.current(store, "project/x/port").id == r.version.id


def test_decay_days_from_config_and_if_due(store):
    cfg = cbor2.loads((store.root / "config").read_bytes())
    (store.root / "config").write_bytes(cbor2.dumps({**cfg, "decay_days": 10}, canonical=True))
    assert decay.decay_days(store) == 10
    facts.remember(store, "project/x/db", "postgres 16")
    t = now_ms() + 11 * DAY
    assert len(decay.decay(store, now=t).dormant) == 1
    assert decay.decay(store, now=t + 1000, if_due=True).skipped
    assert not decay.decay(store, now=t + DAY + 1, if_due=True).skipped
    (store.root / "config").write_bytes(cbor2.dumps({**cfg, "decay_days": "ten"}, canonical=True))
    with pytest.raises(InvalidInput, match="decay_days"):
        decay.decay_days(store)


def test_dormant_is_an_optional_field():
    base = dict(key="project/acme/db", kind="project", body="Postgres 16 on port 5433", version=2,
                parent="9" * 64, valid_from=1772000000000, recorded_at=1772000000123)
    awake = Fact(**base)
    # an awake fact has no "dormant" field at all: old objects keep their ids
    assert "dormant" not in awake.to_payload()
    assert object_id(awake) == "85b1bef73b2290670ff999d774b20e431e7891e0304f4b511d82d8c3ee22cc5e"
    asleep = Fact(**base, dormant=True)
    assert asleep.to_payload()["dormant"] is True and decode(encode(asleep)) == asleep
    with pytest.raises(CorruptObject, match="only when true"):
        decode(encode_payload(1, {**awake.to_payload(), "dormant": False}))


def test_cli_pin_reinforce_decay(invoke):
    invoke("remember", "project/x/db", "postgres 16")
    invoke("remember", "project/x/cache", "redis")
    assert invoke("pin", "project/x/db", "--json").json["pinned"] is True
    assert "already pinned" in invoke("pin", "project/x/db").stdout
    r = invoke("decay", "--days", "0", "--dry-run", "--json").json
    assert [d["key"] for d in r["dormant"]] == ["project/x/cache"] and r["dry_run"]
    out = invoke("decay", "--days", "0").stdout
    assert out.startswith("checked 2 keys; made 1 fact dormant")
    assert "dormant" in invoke("log", "project/x/cache").stdout.splitlines()[0]
    assert invoke("log", "project/x/cache", "--json").json[0]["dormant"] is True
    assert invoke("reinforce", "project/x/cache").stdout.startswith("woke project/x/cache: wrote v3")
    assert invoke("reinforce", "project/x/cache").stdout.startswith("reinforced project/x/cache")
    assert invoke("unpin", "project/x/db", "--json").json["pinned"] is False
    assert invoke("decay", "--if-due").stdout.startswith("decay ran less than a day ago")
    invoke("pin", "project/x/nope", exit_code=4)
    invoke("fsck")
