"""The import's Python CPU outside the index and redaction, part by part
(issue 12 item 3; docs/benchmarks.md, "Session 7 (branch `ingest7`)").

    python bench/ingest_cpu.py /tmp/bench-corpus             # decode, parse, encode
    python bench/ingest_cpu.py /tmp/bench-corpus --import 1  # and a whole import (1: parse worker, 0: in process)

CPU seconds of this thread (``time.thread_time``), best of ``--runs``:

* ``decode``: every line of the corpus through ``json.loads`` and through
  msgspec (when installed), results dropped;
* ``parse``: the Claude Code reader over every file, with and without
  ``transcript.enable_fast_json``;
* ``encode``: the canonical CBOR frames of the turns (``codec.encode``);
* ``--import``: a new store's import: wall, the main thread's CPU, the parse
  worker's (``RUSAGE_CHILDREN``), the whole process's (tantivy's threads
  included), and the fsyncs and CPU of the sub-agent rollups at its end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.capture import claude_code, transcript  # noqa: E402
from objstore.core.codec import encode  # noqa: E402
from objstore.core.objects import Turn  # noqa: E402


def best(fn, runs: int) -> float:
    out = []
    for _ in range(runs):
        c = time.thread_time()
        fn()
        out.append(time.thread_time() - c)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--import", dest="imp", type=int, choices=(0, 1), default=None)
    a = ap.parse_args()
    files = list(claude_code.discover([a.corpus]))
    lines = [ln for f in files for ln in f.read_bytes().splitlines()]
    print(f"{len(files)} files, {len(lines):,} lines, {sum(map(len, lines)) / 1e6:.1f} MB")

    def decode_stdlib():
        for ln in lines:
            json.loads(ln.decode("utf-8", "replace"))
    print(f"decode  json.loads          {best(decode_stdlib, a.runs):.2f} s")
    try:
        import msgspec.json
        dec = msgspec.json.Decoder().decode

        def decode_msgspec():
            for ln in lines:
                dec(ln)
        print(f"decode  msgspec             {best(decode_msgspec, a.runs):.2f} s")
    except ImportError:
        print("decode  msgspec             (not installed: pip install 'memvcs[fast]')")

    turns: list = []

    def parse():
        turns.clear()
        for f in files:
            turns.extend(claude_code.parse_file(f, claude_code.ParseStats()))
    fast = getattr(transcript, "enable_fast_json", lambda enabled=True: False)  # absent before session 7
    fast(False)
    print(f"parse   stdlib json         {best(parse, a.runs):.2f} s  ({len(turns):,} turns)")
    if fast():
        print(f"parse   msgspec             {best(parse, a.runs):.2f} s")
    fast(False)
    objs = [Turn(session=ct.session, seq=i, role=ct.role, text=ct.text, timestamp=ct.timestamp,
                 harness="claude-code", cwd=ct.cwd, project=ct.project, source=ct.alias or ct.source,
                 parent=None if i == 0 else "ab" * 32, entrypoint=ct.entrypoint) for i, ct in enumerate(turns)]
    print(f"encode  canonical CBOR      {best(lambda: [encode(t) for t in objs], a.runs):.2f} s")

    if a.imp is not None:
        from objstore.capture import importer
        from objstore.memory.opening import open_store
        fsyncs = []
        rollup_cpu = [0.0]
        real_rollup, real_fsync = importer.rollup_files, os.fsync

        def rollup_files(*args, **kw):
            c = time.thread_time()
            os.fsync = lambda fd: (fsyncs.append(fd), real_fsync(fd))[1]
            try:
                return real_rollup(*args, **kw)
            finally:
                os.fsync = real_fsync
                rollup_cpu[0] += time.thread_time() - c
        importer.rollup_files = rollup_files
        root = Path(tempfile.mkdtemp(prefix="ingest-cpu-"))
        try:
            store = open_store(root / "store", create=True)
            t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            res = importer.import_transcripts(store, "claude-code", [a.corpus], workers=a.imp)
            wall = time.perf_counter() - t0
            ch = resource.getrusage(resource.RUSAGE_CHILDREN)
            print(f"import  workers={a.imp}: wall {wall:.2f} s, main thread {time.thread_time() - c0:.2f} s, "
                  f"parse worker {ch.ru_utime + ch.ru_stime:.2f} s, process {time.process_time() - p0:.2f} s "
                  f"CPU; rollups {rollup_cpu[0]:.2f} s CPU, {len(fsyncs)} fsyncs; {res.turns_added:,} turns")
            store.close()
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
