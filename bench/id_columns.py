"""The turn id's lookups without the ``id`` term: ``schema.id_query``,
``genfiles.held_ids`` and deletes in a ``col_id`` generation against the
session-17 format (the 10-byte ``id`` term), at N documents in one segment.

    python bench/id_columns.py [N]       # default 130,000: a shard of a 1M store

Builds each generation in a temporary directory (random ids, a one-word
body), then measures in process (``time.process_time``): a lookup of 200
random ids (``id_query``, one hit each), ``held_ids`` of 10 ids (5 rounds),
100 deletes and their commit; then one-value range queries on ``oid0``
alone and on ``oid0`` + ``oid1``, to show what each column scanned costs.
docs/benchmarks.md, Session 18 (branch size18).
"""
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tantivy  # noqa: E402

from objstore.index import schema as sm  # noqa: E402
from objstore.index.analysis import register_analyzers, register_writer_analyzers  # noqa: E402
from objstore.index.genfiles import held_ids  # noqa: E402
from objstore.index.schema import FORMATS, IndexDoc, create_index, id_query, to_tantivy_doc  # noqa: E402


def build(fmt, ids: list[str]):
    """A generation of format ``fmt`` in a new temporary directory holding one
    turn document per id of ``ids``, in one segment: (its directory, Index, searcher)."""
    sm._SCHEMAS.clear()
    d = Path(tempfile.mkdtemp())
    ix = create_index(fmt, d)
    register_analyzers(ix)
    register_writer_analyzers(ix)
    w = ix.writer(200_000_000, 1)
    for k, i in enumerate(ids):
        w.add_document(to_tantivy_doc(IndexDoc(i, "turn", f"s{k // 100}", 1_700_000_000_000 + k, "p", "user", "w",
                                               k % 100), fmt))
    w.commit()
    w.wait_merging_threads()
    ix.reload()
    return d, ix, ix.searcher()


def ranges(schema, i: str, columns: tuple[str, ...]):
    """One-value range queries of ``columns`` (a prefix of OID_COLUMNS) for id ``i``, all Must."""
    return tantivy.Query.boolean_query([
        (tantivy.Occur.Must, tantivy.Query.range_query(schema, c, tantivy.FieldType.Unsigned, v, v))
        for c, v in zip(columns, (int(i[16 * k:16 * k + 16], 16) for k in range(4)))])


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 130_000
    rng = random.Random(1)
    ids = ["%064x" % rng.getrandbits(256) for _ in range(n)]
    for label, fmt in (("col_id", FORMATS["stem"]), ("id term", FORMATS["stem"].replace(col_id=False))):
        d, ix, sr = build(fmt, ids)
        probe = rng.sample(ids, 200)
        t = time.process_time()
        for i in probe:
            assert len(sr.search(id_query(ix.schema, fmt, i), 1).hits) == 1
        look = (time.process_time() - t) / len(probe) * 1000
        t = time.process_time()
        for _ in range(5):
            h = held_ids(sr, fmt, probe[:10], d)
        held = (time.process_time() - t) / 5 * 1000
        assert h == set(probe[:10])
        t = time.process_time()
        w = ix.writer(50_000_000, 1)
        for i in probe[:100]:
            sm.delete_object(w, ix.schema, fmt, i)
        w.commit()
        w.wait_merging_threads()
        dele = (time.process_time() - t) * 1000
        print(f"{label}: {n} docs, {sr.num_segments} segments: lookup {look:.3f} ms, held_ids(10 ids) {held:.1f} ms, "
              f"100 deletes + commit {dele:.0f} ms", flush=True)
        if fmt.col_id:
            for cols in (("oid0",), ("oid0", "oid1")):
                t = time.process_time()
                for i in probe:
                    assert len(sr.search(ranges(ix.schema, i, cols), 1).hits) == 1
                print(f"  range queries on {' + '.join(cols)}: {(time.process_time() - t) / len(probe) * 1000:.3f} ms"
                      " a lookup", flush=True)


if __name__ == "__main__":
    main()
