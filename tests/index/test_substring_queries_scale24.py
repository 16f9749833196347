"""The substring prefilter of ``forget --match`` compiles each regex once
per schema, not once per shard: a ``plain_vocab`` generation's query has
its own stems but shares its schema's regex queries (~1.3 ms each, three a
shard: ~60 ms of a forget at 16 shards).  The candidates are those of a
query built anew for every generation.  Real store, real tantivy; the
regex compiler is counted through a proxy that calls the real one."""

from __future__ import annotations

import types

import tantivy

import objstore.index.query as query_mod
from objstore.core.objects import Turn
from objstore.index.query import substring_conditions, substring_query
from objstore.index.schema import ids_at
from objstore.retrieval.evaluate import write_sessions


def _turn(text: str, n: int) -> Turn:
    return Turn(session="x", seq=0, role="user", text=text, timestamp=1_700_000_000_000 + n, harness="test",
                cwd="/w/acme", project="acme", source=f"t:{n}", parent=None)


def _build(store, shards: int = 4) -> list[str]:
    """Sessions in at least ``shards`` turn shards, each with words the stemmer changes
    (``running``, ``zebrahoppers``) and words it keeps (``zebrahopk``)."""
    sids, seen, i = [], set(), 0
    while len(seen) < shards:
        sid = f"sess-{i:03d}"
        sids.append(sid)
        seen.add(store.index.shard_of(sid))
        i += 1
    sessions, n = [], 0
    for k, sid in enumerate(sids):
        turns = []
        for j in range(3):
            n += 1
            turns.append(_turn(f"{sid} turn {j}: the zebrahoppers kept running past zebrahopk{k} and walking", n))
        sessions.append((sid, turns))
    write_sessions(store, sessions)
    return sids


class _CountingQuery:
    """``tantivy.Query`` with its ``regex_query`` calls counted (each calls the real one)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __getattr__(self, name: str):
        return getattr(tantivy.Query, name)

    def regex_query(self, schema, field, rx):
        self.calls.append((field, rx))
        return tantivy.Query.regex_query(schema, field, rx)


def _count_regexes(monkeypatch) -> _CountingQuery:
    q = _CountingQuery()
    proxy = types.SimpleNamespace(**{k: getattr(tantivy, k) for k in dir(tantivy) if not k.startswith("__")})
    proxy.Query = q
    monkeypatch.setattr(query_mod, "tantivy", proxy)
    return q


def _per_generation(store, needle: str) -> dict[str, str]:
    """The candidates with a query built anew for each generation (no memo)."""
    exact, edges = substring_conditions(needle)
    out = {}
    for o in store.index._open_searchers(("turn",)):
        n = int(o.searcher.num_docs)
        if not n:
            continue
        terms = lambda p, sr=o.searcher: [t for t, _n in sr.terms_with_prefix("plain", p)]  # noqa: E731
        q = substring_query(o.index.schema, o.fmt, exact, edges, terms)
        addrs = [a for _s, a in o.searcher.search(q, n, count=False).hits]
        for a, oid in zip(addrs, ids_at(o.searcher, o.fmt, addrs, store.index._resolve)):
            out[oid] = o.searcher.doc(a).get_first("ref")
    return out


def test_each_regex_compiled_once_across_shards(store, monkeypatch):
    sids = _build(store)
    gens = store.index._open_searchers(("turn",))
    assert len(gens) >= 4 and all(o.fmt.plain_vocab for o in gens)
    for needle in ("ebrahop", "unnin", "zebrahopk2 and walk"):
        want = _per_generation(store, needle)
        counter = _count_regexes(monkeypatch)
        got = store.index.substring_candidate_refs(needle, "turn")
        monkeypatch.undo()
        assert got == want, needle
        assert counter.calls, needle
        assert len(counter.calls) == len(set(counter.calls)), (needle, counter.calls)  # once each, not per shard
    # the candidates hold every session holding the text (the prefilter's promise), and only its holders here
    assert set(store.index.substring_candidate_refs("ebrahop", "turn").values()) == set(sids)
    assert set(store.index.substring_candidate_refs("zebrahopk2 and walk", "turn").values()) == {sids[2]}
