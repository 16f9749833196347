"""Forget on a sharded turns index: a forget (and its crash recovery)
rebuilds only the shards of the sessions it touches, and ``--match`` loads
only the sessions the index's substring prefilter names, with the same
result as scanning every session.  Real store, real tantivy, no mocks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from objstore.memory import forgetplan as forget_mod
from objstore.retrieval.evaluate import write_sessions
from objstore.memory.forget import forget, scan_store
from objstore.memory.forgetplan import ForgetPlan, _plan_match
from objstore.core.objects import Turn
from objstore.retrieval.search import search
from objstore.memory.sessions import walk_turns
from objstore.core.store import Store
from objstore.memory.opening import open_store

CANARY = "Quokkacanary-4471"


def _turn(text: str, n: int) -> Turn:
    return Turn(session="x", seq=0, role="user", text=text, timestamp=1_700_000_000_000 + n, harness="test",
                cwd="/w/acme", project="acme", source=f"t:{n}", parent=None)


def _sessions(store: Store, count: int) -> list[str]:
    """Session ids covering at least `count` distinct shards."""
    out, shards = [], set()
    i = 0
    while len(shards) < count:
        sid = f"sess-{i:03d}"
        out.append(sid)
        shards.add(store.index.shard_of(sid))
        i += 1
    return out


def _build(store: Store, victim_text: str = f"the staging host is {CANARY} ok") -> tuple[str, list[str]]:
    sids = _sessions(store, 4)
    n = 0
    sessions = []
    for k, sid in enumerate(sids):
        turns = []
        for j in range(4):
            n += 1
            turns.append(_turn(f"session {sid} turn {j}: deploy notes about gipevix_enabled rollout {k}", n))
        sessions.append((sid, turns))
    victim = sids[1]
    n += 1
    sessions[1][1].insert(2, _turn(victim_text, n))
    write_sessions(store, sessions)
    return victim, sids


def _live_gens(store: Store) -> dict[int, Path]:
    lines = (store.root / "index" / "turns" / "CURRENT").read_text().splitlines()
    assert lines[0].startswith("shards ")
    return {i: store.root / "index" / "turns" / g for i, g in enumerate(lines[1:]) if g != "-"}


def _files(path: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in path.iterdir()}


@pytest.mark.parametrize("path", ["merge", "padded", "rewrite"])
def test_forget_match_rebuilds_only_the_shard_of_the_session(store, monkeypatch, path):
    path_kind = path
    if path != "merge":  # segments too large for the merge level in place
        monkeypatch.setattr("objstore.index.purge.MERGE_LEVEL_DOCS", 0)
        monkeypatch.setattr("objstore.index.searchindex.MERGE_LEVEL_DOCS", 0)  # the layout's copy
    if path == "rewrite":  # and no padded merge: the segments are written again
        monkeypatch.setattr("objstore.index.purge.PADDED_MERGE", False)
    victim, sids = _build(store)
    before = _live_gens(store)
    files = {s: _files(p) for s, p in before.items()}
    vshard = store.index.shard_of(victim)
    assert len(before) >= 4 and search(store, "Quokkacanary")

    r = forget(store, match=CANARY)

    assert r.plan.counts()["turns"] == 1 and not r.index_problems
    after = _live_gens(store)
    assert set(after) == set(before)
    for s, path in before.items():
        if s == vshard:  # the segments that held the victim's session were rewritten (in place, or
            def segs(names):  # into a new generation by the padded merge)
                return {n.split(".")[0] for n in names if len(n.split(".")[0]) == 32}
            assert (after[s] != path) == (path_kind == "padded")
            assert not path.exists() or path_kind != "padded"
            assert segs(files[s]) and not segs(files[s]) & segs(_files(after[s]))
        else:
            assert after[s] == path and _files(path) == files[s], f"shard {s} was rewritten"
    assert search(store, "Quokkacanary") == []
    assert store.index.term_doc_freq(CANARY) == {"quokkacanary": 0, "4471": 0}
    assert not scan_store(store.root / "index", [b"Quokkacanary", b"quokkacanary"])
    # the rest of the victim's session (rewritten: new ids) is still found
    hits = search(store, f"session {victim} turn 3")
    assert hits and hits[0].ref == victim
    assert store.index.doc_count()["turn"] == 4 * len(sids)


@pytest.mark.parametrize("match", [CANARY, "quokkacanary", "staging token", "gipevix_enabled rollout 1",
                                   "vix_enab", "turn 3: deploy", "sess-00", "nothing like this"])
def test_prefilter_plans_like_a_full_scan(store, monkeypatch, match):
    _build(store)
    with_index = _plan_match(store, match, ForgetPlan())
    names = {sid for sid, _h in ((n[len("sessions/"):], h) for n, h in store.refs.iter("sessions"))}
    only = forget_mod.match_sessions(store, match)
    assert only is not None and only <= names
    monkeypatch.setattr(forget_mod, "match_sessions", lambda s, m, heads=None: None)
    full = _plan_match(store, match, ForgetPlan())
    assert {s: [t.id for t in ts] for s, ts in with_index.turns.items()} == \
           {s: [t.id for t in ts] for s, ts in full.turns.items()}
    assert list(with_index.turns) == list(full.turns)


def test_prefilter_is_selective(store):
    victim, sids = _build(store)
    assert forget_mod.match_sessions(store, CANARY) == {victim}
    assert forget_mod.match_sessions(store, "the staging host") == {victim}


def test_lagging_index_falls_back_to_scanning_every_session(store):
    victim, sids = _build(store)
    # the index loses everything (someone deleted it), then one other session is indexed again
    store.close()
    shutil.rmtree(store.root / "index")
    st = open_store(store.root)
    other = sids[0]
    from objstore.core.refs import session_ref
    from objstore.memory.sessions import turn_doc
    st.index.add([turn_doc(tv.id, tv.turn) for tv in walk_turns(st, st.refs.read(session_ref(other)))])
    assert st.index.substring_candidates(CANARY) == set()  # the index alone would miss it
    assert forget_mod.match_sessions(st, CANARY) is None  # ...so every session is scanned
    r = forget(st, match=CANARY)
    assert list(r.plan.turns) == [victim] and r.plan.counts()["turns"] == 1
    st.close()


def test_recovery_of_a_turn_forget_rebuilds_only_its_shards(store):
    victim, sids = _build(store)
    before = _live_gens(store)
    files = {s: _files(p) for s, p in before.items()}
    vshard = store.index.shard_of(victim)
    # a forget that died after its journal note: replayed by the next lock holder
    store.journal.append([f"T\t{victim}"])
    with store.lock("test"):
        pass
    assert store.journal.is_empty()
    after = _live_gens(store)
    for s, path in before.items():
        if s == vshard:
            assert after[s] != path
        else:
            assert after[s] == path and _files(path) == files[s]
    assert search(store, "Quokkacanary")  # nothing was forgotten: the shard was rebuilt whole
    assert store.index.doc_count()["turn"] == 4 * len(sids) + 1
