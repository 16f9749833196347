"""Recall in a layout of 1, 4 or 16 turn shards answers the same whether
the scoped counts come from count queries or from the generations'
``.counts`` files (``objstore.index.countcache``): same hits, same order,
same scores.  (Across layouts the order may differ: BM25's length
normalisation is per generation, ``docs/format.md``, "Queries".)"""

from __future__ import annotations

import random

import pytest
from recall_helpers import turn

from objstore.index.countcache import COUNTS
from objstore.index.searchindex import SearchIndex
from objstore.memory.documents import iter_docs
from objstore.retrieval.evaluate import write_sessions
from objstore.retrieval.recall import recall

WORDS = ("deploy staging cluster runner migration table locked queue worker cache redis postgres port "
         "token header retry timeout build flaky fixture schema index shard commit branch release").split()
QUERIES = [("which port does postgres use", ("acme",)), ("migration failed table locked", ("acme",)),
           ("flaky fixture retry", ("zeta",)), ("deploy staging cluster now", None),
           ("redis cache timeout", ("omega", "zeta"))]


def _sessions() -> dict:
    rng = random.Random(12)
    out = {}
    for s in range(24):
        project = ("acme", "zeta", "omega")[s % 3]
        out[f"sess-{s:02d}"] = [turn(" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 30))),
                                     role=("user", "assistant")[k % 2], project=project,
                                     ts=1_700_000_000_000 + (s * 40 + k) * 60_000) for k in range(rng.randint(3, 9))]
    out["sess-late"] = [turn("postgres now listens on port 5433 after the migration", project="acme",
                             ts=1_800_000_000_000)]
    return out


def _answers(store) -> list:
    store.index.close()  # a new reader, as a new process has
    return [[(h.kind, h.id, round(h.score, 9), (h.updated_later or {}).get("id")) for h in
             recall(store, [q], projects=p, limit=10).hits] for q, p in QUERIES]


def _relayout(store, store_path, shards: int) -> None:
    SearchIndex(store_path / "index", shards=shards).rebuild(iter_docs(store))
    store.index.close()


@pytest.mark.parametrize("shards", [1, 4, 16])
def test_counts_from_the_file_answer_as_counted(store, store_path, shards):
    write_sessions(store, _sessions().items())
    _relayout(store, store_path, shards)
    cold = _answers(store)
    files = sorted((store_path / "index" / "turns").glob(f"gen-*/{COUNTS}"))
    assert files, "a scoped search keeps its counts"
    assert _answers(store) == cold  # read back from .counts
    for f in files:
        f.unlink()
    assert _answers(store) == cold  # counted again

