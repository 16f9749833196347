#!/usr/bin/env python3
"""CPU of ``schema.to_tantivy_doc`` over the corpus's turn documents, per
source tree, interleaved: ``python bench/tantivy_doc_cpu.py TREE [TREE ...]
[--corpus DIR] [--runs N]``.

For each tree (a checkout or a ``git archive`` of a commit), in turn,
``--runs`` times: a new Python process with that tree first on ``sys.path``
parses every transcript of ``--corpus`` (default ``/tmp/bench-corpus``,
``bench/gen_corpus.py``), redacts each text as a turn stores it, and converts
each turn's ``IndexDoc`` with ``to_tantivy_doc`` in the format of new turn
generations (``new_format("stem", "turn")``): what the import's ``mem-index``
thread does per turn (GIL held).  Prints the best of 5 passes (CPU and wall),
the load average, and a SHA-256 of every document's fields (the same digest
for two trees: the same documents).  Compare CPU on a shared machine.
"""

from __future__ import annotations

import os
import sys

CHILD = r"""
import hashlib, os, sys, time
sys.path.insert(0, os.path.abspath(sys.argv[1]))
from objstore.capture import claude_code
from objstore.capture.transcript import enable_fast_json
from objstore.core.redact import redact
from objstore.index.schema import IndexDoc, new_format, to_tantivy_doc
from objstore.memory.sessions import cap_turn_text
enable_fast_json()
docs = []
for p in claude_code.discover([sys.argv[2]]):
    for ct in claude_code.parse_file(p, claude_code.ParseStats()):
        text = redact(cap_turn_text(ct.text)).text if ct.text else ""
        oid = hashlib.sha256(f"{ct.session}{len(docs)}".encode()).hexdigest()
        docs.append(IndexDoc(oid, "turn", ct.session, ct.timestamp, ct.project, ct.role, text, len(docs)))
fmt = new_format("stem", "turn")
cpu = wall = 1e9
for _ in range(5):
    t0, c0 = time.perf_counter(), time.process_time()
    out = [to_tantivy_doc(d, fmt) for d in docs]
    cpu, wall = min(cpu, time.process_time() - c0), min(wall, time.perf_counter() - t0)
h = hashlib.sha256()
for d in out:
    h.update(repr(sorted((k, [v.hex() if isinstance(v, bytes) else v for v in vs])
                         for k, vs in d.to_dict().items())).encode())
print(f"docs {len(docs)}  cpu {cpu:.3f} s  wall {wall:.3f} s  sha256 {h.hexdigest()[:16]}")
"""


def main() -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from parse_worker_cpu import run_in_turn
    run_in_turn(CHILD, __doc__.splitlines()[0], 2)


if __name__ == "__main__":
    main()
