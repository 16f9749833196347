"""The fact citations memo (``cache/fact-cites``, ``objstore.memory.citations``):
with it warm (``gc``), a forget reads only the fact chains it needs, and still
finds every fact version that holds the text or cites what changes, also where
the search index lacks a version's document.  Real stores, real tantivy."""

from __future__ import annotations

import objstore.memory.forgetplan as F
from objstore.index.searchindex import SearchIndex
from objstore.memory import facts
from objstore.core.atomic import read_z
from objstore.memory.citations import CITES_FILE, FactCites, refresh
from objstore.memory.forget import forget, scan_store
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn, walk_turns


def _reads(monkeypatch) -> list[str]:
    """The keys whose chains a forget reads (``forgetplan.plan_chain`` misses its
    cache) while it plans and rewrites: until it purges the index (whose
    merge reads back a few other keys' documents)."""
    seen: list[str] = []
    real, purge = F.walk, SearchIndex.purge_facts
    done = []

    def walk(store, head):
        if not done:
            seen.append(store.get(head).key)
        return real(store, head)

    def purge_facts(self, *a, **k):
        done.append(1)
        return purge(self, *a, **k)
    monkeypatch.setattr(F, "walk", walk)
    monkeypatch.setattr(SearchIndex, "purge_facts", purge_facts)
    return seen


def _session(store, sid: str, texts: list[str]) -> list[str]:
    app = TurnAppender(store, command="test")
    with store.lock("test"):
        ids = [app.add(CapturedTurn(session=sid, source=f"t:{sid}:{i}", role="user", text=t,
                                    timestamp=1_772_000_000_000 + i, cwd="", project="p"))
               for i, t in enumerate(texts)]
        app.publish()
    app.close()
    return ids


def _keys(store, n: int) -> None:
    for i in range(n):
        facts.remember(store, f"project/p/k{i:02d}", f"note {i} about the deploy runner")


def test_a_warm_memo_reads_only_the_chains_that_can_match_or_cite(store, monkeypatch):
    _keys(store, 30)
    facts.remember(store, "project/p/pw", "the mascot is Larkspur-Quintal-77 for now")
    facts.remember(store, "project/p/pw", "the mascot changed")
    tids = _session(store, "s-cite", ["a plain turn", "the gravelwort deploy failed", "a later turn"])
    facts.remember(store, "project/p/finding", "the deploy failed once", sources=(tids[1],))
    assert refresh(store) == len(facts.list_keys(store)) == 32   # every chain read once (as gc does)
    assert refresh(store) == 0            # and then none
    reads = _reads(monkeypatch)
    res = forget(store, match="Larkspur-Quintal")   # only in an older version (kind history)
    assert res.plan.versions.keys() == {"project/p/pw"}
    assert set(reads) == {"project/p/pw"}        # that key's chains (before and after), no other
    reads = _reads(monkeypatch)
    res = forget(store, match="gravelwort")         # a turn a fact cites: that fact is rewritten
    assert res.plan.turns.keys() == {"s-cite"}
    assert "facts/project/p/finding" in res.rewritten
    assert set(reads) == {"project/p/finding"}     # the citing key alone
    new = [tv for tv in walk_turns(store, store.refs.read("sessions/s-cite"))]
    assert facts.current(store, "project/p/finding").fact.sources == (f"forgotten:{new[1].id}",)
    # the memo names no replaced version and no forgotten turn
    gone = [tids[1], tids[2]]
    assert scan_store(store.root / "cache", [i[:32].encode() for i in gone]) == []   # what the memo keeps


def test_a_version_missing_from_the_index_is_still_matched(store, monkeypatch):
    _keys(store, 10)
    facts.remember(store, "project/p/host", "staging host is quillon-fenwright-4")
    v1 = facts.versions(store, "project/p/host")[0].id
    facts.remember(store, "project/p/host", "staging host moved")
    refresh(store)
    store.index.add([], delete_ids=[v1])           # the index lost that version's document
    assert store.index.missing_fact_ids([v1]) == {v1}
    reads = _reads(monkeypatch)
    res = forget(store, match="quillon-fenwright")
    assert [v.id for v in res.plan.versions["project/p/host"]] == [v1]
    assert set(reads) == {"project/p/host"}      # that key alone is read whole
    assert scan_store(store.root / "objects", [b"quillon-fenwright"]) == []


def test_an_unknown_or_damaged_memo_is_read_whole_and_rebuilt(store, monkeypatch):
    _keys(store, 12)
    refresh(store)
    path = store.root / CITES_FILE
    text = read_z(path).decode()                    # cache/fact-cites.z inflated (session 27)
    assert not path.exists() and text.startswith("mem fact-cites 2\n") and text.endswith("\nend\n")
    path.write_text(text[: len(text) // 2])         # cut short, uncompressed (the newer form): read as empty
    assert FactCites.load(store).known == {}
    reads = _reads(monkeypatch)
    facts.remember(store, "project/p/k03", "the cache key is ornith-bellwether")
    forget(store, match="ornith-bellwether")
    assert len(set(reads)) == 12                    # every chain read, as without the memo
    assert len(FactCites.load(store).known) == 12   # and the memo written again
    path.write_text("something else\n")
    assert FactCites.load(store).known == {}


def test_a_fact_citing_a_forgotten_session_is_found_with_a_warm_memo(store):
    _keys(store, 5)
    tids = _session(store, "s-gone", ["first", "second"])
    facts.remember(store, "project/p/sum", "summary of s-gone", edges=[("rollup_of", t) for t in tids])
    refresh(store)
    forget(store, session="s-gone")
    assert facts.current(store, "project/p/sum").fact.edges == ()
    assert scan_store(store.root / "cache", [t[:32].encode() for t in tids]) == []


def test_the_memo_keeps_a_cited_id_by_its_first_16_bytes_and_reads_version_1(store, monkeypatch):
    """Session 24: a cited id is kept by its first 32 hex digits (-32 B each);
    a version-1 memo (every id whole) still prefilters the chains."""
    _keys(store, 6)
    tids = _session(store, "s-v1", ["one", "the quarrelsome tern", "three"])
    facts.remember(store, "project/p/sum", "summary of s-v1", sources=(tids[1],),
                   edges=[("rollup_of", t) for t in tids])
    refresh(store)
    path = store.root / CITES_FILE
    lines = read_z(path).decode().split("\n")
    assert lines[0] == "mem fact-cites 2"
    cited = {f for ln in lines[1:-2] for f in ln.split("\t")[2:]}
    assert {t[:32] for t in tids} <= cited and not {t for t in tids} & cited
    head = store.refs.read("facts/project/p/sum")
    memo = FactCites.load(store)
    assert memo.citing({tids[2]})(head) and not memo.citing({"0" * 64, "project/p/k01"})(head)
    # a version-1 file, as sessions 9-23 wrote it: the same prefilter
    v1 = ["mem fact-cites 1"] + [
        "\t".join(ln.split("\t")[:2] + [t for t in tids for c in ln.split("\t")[2:] if t[:32] == c])
        for ln in lines[1:-2]] + ["end", ""]
    path.write_text("\n".join(v1))
    assert all(len(f) == 64 for ln in v1[1:-2] for f in ln.split("\t")[2:])
    memo = FactCites.load(store)
    assert len(memo.known) == 7
    assert memo.citing({tids[0]})(head) and not memo.citing({"0" * 64})(head)
    reads = _reads(monkeypatch)
    res = forget(store, match="quarrelsome tern")
    assert "facts/project/p/sum" in res.rewritten and set(reads) == {"project/p/sum"}
