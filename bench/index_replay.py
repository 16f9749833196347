"""The index and pack side of a bulk import, replayed part by part (idx40, issue 12):

    PYTHONPATH=<tree> python bench/index_replay.py collect OUT.pkl [CORPUS]
    PYTHONPATH=<tree> python bench/index_replay.py doc OUT.pkl        # to_tantivy_doc and its parts
    PYTHONPATH=<tree> python bench/index_replay.py tantivy OUT.pkl [--drop text,plain]
    PYTHONPATH=<tree> python bench/index_replay.py analyzers OUT.pkl
    PYTHONPATH=<tree> python bench/index_replay.py pack OUT.pkl [--level 6] [--memlevel 8]

``collect`` imports ``CORPUS`` (default ``/tmp/bench-corpus``) in process into a new store under a
temporary folder and keeps every document the ``mem-index`` thread converts (``to_tantivy_doc``'s
``IndexDoc`` and format) and every block of frames the ``pack-deflate`` thread is given.  The other
commands replay them in this process with the sources on ``PYTHONPATH``, each figure the best of 3
(``time.process_time``, or the process's rusage where tantivy's own threads work):

* ``doc``: ``to_tantivy_doc`` of every document (a new ``PlainCarriers``, the word memo emptied),
  with a digest of the documents (``plain`` words sorted: their order is not indexed); then its parts
  alone: ``nfc``, the fold, ``plain_differing_words`` and of it the UTF-8 cut into words
  (``translate`` + ``split``, each word a new ``bytes``), and ``PlainCarriers.carried``;
* ``tantivy``: the documents added to four one-thread writers of BULK_HEAP_BYTES (the import's
  layout) and committed: the CPU of the process, tantivy's threads included; ``--drop``: without
  those fields (what indexing each costs);
* ``analyzers``: ``analyze`` of the whole corpus text by ``mem_plain``'s tokenizer alone, by
  ``mem_simple_stem`` without and with the stemmer (a Python list of every token included);
* ``pack``: each block through ``split_parents``, ``split_sources``, ``LinePass.strip`` and
  DEFLATE at ``--level``/``--memlevel`` (no preset dictionary), and the chunk blocks: CPU per step
  and the bytes written (docs/benchmarks.md, "Session 40 (branch `idx40`)").
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import resource
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path


def collect(out: str, corpus: str) -> None:
    """Import ``corpus`` in process, keeping the documents and pack blocks (see the module doc)."""
    from objstore.core import packwriter
    from objstore.index import genwriter
    docs: list = []
    blocks: list = []
    to_doc = genwriter.to_tantivy_doc
    lines_block = packwriter.PackWriter._lines_block

    def rec_doc(d, fmt, carriers=None):
        docs.append(((d.id, d.kind, d.ref, d.time, d.project, d.role, d.text, d.seq), fmt))
        return to_doc(d, fmt, carriers)

    def rec_block(self, c, frames, ids):
        blocks.append((None if frames is None else list(frames), None if ids is None else list(ids)))
        return lines_block(self, c, frames, ids)

    genwriter.to_tantivy_doc = rec_doc
    packwriter.PackWriter._lines_block = rec_block
    home = tempfile.mkdtemp(prefix="index-replay-")
    sys.argv = ["mem", "--home", home, "import", "claude-code", corpus]
    from cmds.entry import entry
    try:
        entry()
    except SystemExit:
        pass
    finally:
        shutil.rmtree(home, ignore_errors=True)
    with open(out, "wb") as fh:
        pickle.dump({"docs": docs, "blocks": blocks}, fh)
    print(f"{len(docs)} documents, {len(blocks)} pack blocks -> {out}")


def _best(fn, rounds: int = 3, clock=time.process_time):
    """(least CPU seconds of ``rounds`` calls of ``fn``, its last result)."""
    best, got = float("inf"), None
    for _ in range(rounds):
        t = clock()
        got = fn()
        best = min(best, clock() - t)
    return best, got


def _rusage() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _docs(data: dict) -> list:
    from objstore.index.schema import IndexDoc
    return [(IndexDoc.unchecked(*fields), fmt) for fields, fmt in data["docs"]]


def doc(data: dict) -> None:
    from objstore.core.text import fold
    from objstore.index import analysis
    from objstore.index.schema import PlainCarriers, to_tantivy_doc
    docs = _docs(data)

    def convert():
        analysis._DIFFERS_SEEN.clear()
        analysis._DIFFERS_KEEP.clear()
        c = PlainCarriers()
        return [to_tantivy_doc(d, f, c) for d, f in docs]

    secs, out = _best(convert)
    h = hashlib.sha256()
    for o in out:
        dd = o.to_dict()
        for k in sorted(dd):
            v = [" ".join(sorted(x.split())) for x in dd[k]] if k in ("plain", "plainall") else dd[k]
            h.update(repr((k, v)).encode())
    print(f"to_tantivy_doc            {secs:.3f} s  ({len(docs)} documents, digest {h.hexdigest()[:16]})")
    texts = [analysis.nfc(d.text) for d, _f in docs]
    print(f"  nfc                     {_best(lambda: [analysis.nfc(d.text) for d, _f in docs])[0]:.3f} s")
    folded = [t.lower() if analysis.lower_folds(t) else fold(t) for t in texts]
    print(f"  lower_folds + fold      "
          f"{_best(lambda: [t.lower() if analysis.lower_folds(t) else fold(t) for t in texts])[0]:.3f} s")

    def differing():
        analysis._DIFFERS_SEEN.clear()
        analysis._DIFFERS_KEEP.clear()
        return [analysis.plain_differing_words(f) for f in folded]

    secs, words = _best(differing)
    print(f"  plain_differing_words   {secs:.3f} s  ({sum(map(len, words))} words kept)")
    raws = [f.encode("utf-8", "surrogatepass") for f in folded]
    table = analysis._ASCII_SEPARATORS
    n = sum(len(r.translate(table).split()) for r in raws)
    print(f"    translate + split     {_best(lambda: [len(r.translate(table).split()) for r in raws])[0]:.3f} s"
          f"  ({n} words)")
    vocab = [(d.ref, d.seq, w) for (d, f), w in zip(docs, words) if f.plain_vocab and w]

    def carried():
        c = PlainCarriers()
        return [c.carried(ref, seq, w) for ref, seq, w in vocab]

    secs, got = _best(carried)
    print(f"  PlainCarriers.carried   {secs:.3f} s  ({sum(map(len, got))} words carried)")


def tantivy_cpu(data: dict, drop: list[str]) -> None:
    import tantivy
    from objstore.index import analysis
    from objstore.index.generations import BULK_HEAP_BYTES
    from objstore.index.schema import PlainCarriers, create_index, to_tantivy_doc
    docs = [(d, f) for d, f in _docs(data) if f.plain_vocab]  # the turns' generations
    fmt = docs[0][1]
    c = PlainCarriers()
    tds = [to_tantivy_doc(d, f, c) for d, f in docs]
    if drop:
        kept = []
        for td in tds:
            n = tantivy.Document()
            for k, vs in td.to_dict().items():
                for v in vs if k not in drop else ():
                    if isinstance(v, str):
                        n.add_text(k, v)
                    elif isinstance(v, bytes):
                        n.add_bytes(k, v)
                    elif k in ("time", "seq"):
                        n.add_integer(k, v)
                    else:
                        n.add_unsigned(k, v)
            kept.append(n)
        tds = kept
    shards = [zlib.crc32(d.ref.encode()) % 4 for d, _f in docs]

    def index():
        root = tempfile.mkdtemp(prefix="index-replay-tv-")
        try:
            writers = []
            for s in range(4):
                p = Path(root, str(s))
                p.mkdir()
                ix = create_index(fmt, p)
                analysis.register_analyzers(ix)
                analysis.register_writer_analyzers(ix)
                writers.append(ix.writer(heap_size=BULK_HEAP_BYTES, num_threads=1))
            t = _rusage()
            for s, td in zip(shards, tds):
                writers[s].add_document(td)
            for w in writers:
                w.commit()
                w.wait_merging_threads()
            return _rusage() - t
        finally:
            shutil.rmtree(root, ignore_errors=True)

    print(f"tantivy, {len(tds)} documents, dropped {drop or 'nothing'}: "
          f"{min(index() for _ in range(3)):.3f} s CPU (process, its threads included)")


def analyzers(data: dict) -> None:
    from objstore.index import analysis
    big = "\n".join(analysis.nfc(fields[6]) for fields, _f in data["docs"])
    for key, what in (("plain", "mem_plain (tokenizer only)"), ("simple", "mem_simple_stem without stemmer"),
                      ("simple_stem", "mem_simple_stem")):
        a = analysis._analyzer(key)
        secs, n = _best(lambda: sum(len(a.analyze(big[i:i + (1 << 20)])) for i in range(0, len(big), 1 << 20)))
        print(f"{what:34s} {secs:.3f} s  ({n} tokens, {len(big)} characters)")


def pack(data: dict, level: int, memlevel: int) -> None:
    from objstore.core.packencode import deflate_stored, split_parents
    from objstore.core.packlines import LinePass, deflate_chunk_block
    from objstore.core.packsources import split_sources
    blocks = data["blocks"]
    best: dict = {}
    size = 0
    for _ in range(3):
        t0 = dict.fromkeys(("split_parents", "split_sources", "strip", "deflate", "chunk blocks"), 0.0)
        size, lp = 0, LinePass()
        for frames, ids in blocks:
            if frames is not None:
                t = time.process_time()
                frames, refs = split_parents(frames, ids)
                t1 = time.process_time()
                frames, codes, column = split_sources(frames)
                t2 = time.process_time()
                frames, area = lp.strip(frames)
                t3 = time.process_time()
                c = zlib.compressobj(level, zlib.DEFLATED, -15, memlevel)
                size += len(deflate_stored(c, frames, refs, codes, column, area))
                t4 = time.process_time()
                t0["split_parents"] += t1 - t
                t0["split_sources"] += t2 - t1
                t0["strip"] += t3 - t2
                t0["deflate"] += t4 - t3
            t = time.process_time()
            size += sum(len(deflate_chunk_block(content, level))
                        for _first, content in lp.chunk_blocks(final=frames is None))
            t0["chunk blocks"] += time.process_time() - t
        best = {k: min(best.get(k, v), v) for k, v in t0.items()}
    raw = sum(sum(map(len, f)) for f, _i in blocks if f)
    print(f"pack blocks: {len(blocks)}, {raw} bytes of frames; level {level}, memlevel {memlevel}: {size} bytes")
    for k, v in best.items():
        print(f"  {k:14s} {v:.3f} s")
    print(f"  {'all':14s} {sum(best.values()):.3f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("collect", "doc", "tantivy", "analyzers", "pack"))
    ap.add_argument("pickle")
    ap.add_argument("corpus", nargs="?", default="/tmp/bench-corpus")
    ap.add_argument("--drop", default="", help="tantivy: fields left out, comma-separated")
    ap.add_argument("--level", type=int, default=6)
    ap.add_argument("--memlevel", type=int, default=8)
    a = ap.parse_args()
    if a.what == "collect":
        collect(a.pickle, a.corpus)
        return 0
    with open(a.pickle, "rb") as fh:
        data = pickle.load(fh)
    if a.what == "doc":
        doc(data)
    elif a.what == "tantivy":
        tantivy_cpu(data, [f for f in a.drop.split(",") if f])
    elif a.what == "analyzers":
        analyzers(data)
    else:
        pack(data, a.level, a.memlevel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
