#!/usr/bin/env python3
"""CPU of the import's ``mem-index`` thread's Python per turn, as the import
runs it: ``python bench/index_doc_carriers.py TREE [TREE ...] [--corpus DIR] [--runs N]``.

Like ``bench/tantivy_doc_cpu.py`` (each tree in turn, ``--runs`` times, a new
Python process with that tree first on ``sys.path``), but each turn's
``IndexDoc`` is the import's: its session's id as ``ref`` and its ``seq``
within that session, and ``to_tantivy_doc`` is given a new
``schema.PlainCarriers`` per pass, as a ``GenerationWriter`` of a fresh
import holds one (size17's ``plain_vocab``: a word the stemmer changes is
carried by its session's first document holding it).  Prints the CPU of
the first pass (``plain_differing_words``' memo empty, as an import starts
it) and the best of 5 passes (CPU and wall) and a SHA-256 of every document's fields, the words of
``plain`` sorted (the field is indexed without positions or frequencies:
the order of its words is no part of the index), so two trees with the same
digest made the same documents.
"""

from __future__ import annotations

import os
import sys

CHILD = r"""
import collections, hashlib, os, sys, time
sys.path.insert(0, os.path.abspath(sys.argv[1]))
from objstore.capture import claude_code
from objstore.capture.transcript import enable_fast_json
from objstore.core.redact import redact
from objstore.index.schema import IndexDoc, PlainCarriers, new_format, to_tantivy_doc
from objstore.memory.sessions import cap_turn_text
enable_fast_json()
docs, seqs = [], collections.Counter()
for p in claude_code.discover([sys.argv[2]]):
    for ct in claude_code.parse_file(p, claude_code.ParseStats()):
        text = redact(cap_turn_text(ct.text)).text if ct.text else ""
        oid = hashlib.sha256(f"{ct.session}{len(docs)}".encode()).hexdigest()
        docs.append(IndexDoc(oid, "turn", ct.session, ct.timestamp, ct.project, ct.role, text, seqs[ct.session]))
        seqs[ct.session] += 1
fmt = new_format("stem", "turn")
assert fmt.plain_vocab
cpu = wall = 1e9
for i in range(5):
    carriers = PlainCarriers()
    t0, c0 = time.perf_counter(), time.process_time()
    out = [to_tantivy_doc(d, fmt, carriers) for d in docs]
    cpu, wall = min(cpu, time.process_time() - c0), min(wall, time.perf_counter() - t0)
    if i == 0:
        first = time.process_time() - c0
h = hashlib.sha256()
for d in out:
    h.update(repr(sorted((k, sorted(w for v in vs for w in v.split()) if k == "plain"
                          else [v.hex() if isinstance(v, bytes) else v for v in vs])
                         for k, vs in d.to_dict().items())).encode())
print(f"docs {len(docs)}  first pass cpu {first:.3f} s  best cpu {cpu:.3f} s  wall {wall:.3f} s  "
      f"sha256 {h.hexdigest()[:16]}")
"""


def main() -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from parse_worker_cpu import run_in_turn
    run_in_turn(CHILD, __doc__.splitlines()[0], 2)


if __name__ == "__main__":
    main()
