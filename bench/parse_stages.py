#!/usr/bin/env python3
"""CPU of each stage of the import's parse worker, in process, best of N:
``python bench/parse_stages.py [TREE] [--corpus DIR] [--runs N]``.

With ``TREE`` (default: this checkout) first on ``sys.path`` and msgspec
enabled as in the worker, over every transcript of ``--corpus`` (default
``/tmp/bench-corpus``): reading the lines; decoding them (``decode_record``,
into dicts) and, for comparison, into a msgspec struct of only the 12
top-level keys ``claude_code.parse_file`` reads (the others, e.g.
``toolUseResult``, skipped: a decoder the import does not use); the whole
``parse_file``; ``redact`` of the turns' texts; ``TurnForecast.next``; and
within the forecast, ``cbor2.dumps`` of the turns' payloads and BLAKE3 of
their frames; pickling the rows in chunks as the worker sends them and
unpickling them as the importer's reader thread does.  Each stage's best
CPU (``time.process_time``) of ``--runs``, its output not kept between
runs (a kept list of 60,000 records makes the garbage collector's full
passes part of the figure).  Compare stages with each other; compare trees
with ``bench/parse_worker_cpu.py`` (docs/benchmarks.md, "Session 13 (branch
`imp13`)").
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time


def best(runs: int, fn) -> float:
    """The least CPU seconds of ``runs`` calls of ``fn()``."""
    out = float("inf")
    for _ in range(runs):
        c = time.process_time()
        fn()
        out = min(out, time.process_time() - c)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.tree))
    import cbor2
    import msgspec
    from blake3 import blake3

    from objstore.capture import claude_code
    from objstore.capture.parseworker import CHUNK_TURNS, project_guesser
    from objstore.capture.transcript import ParseStats, decode_record, enable_fast_json
    from objstore.core.objects import Turn
    from objstore.core.redact import redact
    from objstore.memory.sessions import TurnForecast, cap_turn_text

    enable_fast_json()
    files = list(claude_code.discover([a.corpus]))
    lines = [raw for p in files for raw in open(p, "rb")]
    keys = ("type", "isMeta", "isCompactSummary", "isApiErrorMessage", "isSidechain", "uuid", "sessionId",
            "agentId", "cwd", "entrypoint", "timestamp", "message")
    typed = msgspec.json.Decoder(msgspec.defstruct("R", [(k, object, None) for k in keys])).decode
    cts = [ct for p in files for ct in claude_code.parse_file(p, ParseStats())]
    texts = [cap_turn_text(ct.text) for ct in cts]

    def forecasts():
        fc, guess = TurnForecast("claude-code"), project_guesser({})
        return [fc.next(ct, t, guess(ct.cwd, ct.project)) for ct, t in zip(cts, texts)]

    fcs = forecasts()
    payloads = [Turn(*f[0]).to_payload() for f in fcs if f]
    frames = [f[1] for f in fcs if f]
    rows = [(ct.session, ct.source, ct.role, t, ct.timestamp, ct.cwd, ct.project, ct.alias, ct.entrypoint,
             None, 0, f) for ct, t, f in zip(cts, texts, fcs)]
    chunks = [pickle.dumps(("turns", rows[i:i + CHUNK_TURNS]), protocol=5) for i in range(0, len(rows), CHUNK_TURNS)]

    def each(fn, items):
        return lambda: [fn(x) for x in items] and None

    stages = [
        ("read lines", lambda: [None for p in files for _raw in open(p, "rb", buffering=256 * 1024)] and None),
        ("decode into dicts (decode_record)", lambda: [decode_record(x) and None for x in lines] and None),
        ("decode 12 keys into a struct (not used)", lambda: [typed(x) and None for x in lines] and None),
        ("parse_file (with its decode)", lambda: [None for p in files for _ in claude_code.parse_file(p, ParseStats())]
         and None),
        ("redact", lambda: [redact(t) and None for t in texts if t] and None),
        ("TurnForecast.next", lambda: forecasts() and None),
        ("  of which cbor2.dumps", each(lambda p: cbor2.dumps(p) and None, payloads)),
        ("  of which BLAKE3", each(lambda f: blake3(f).digest() and None, frames)),
        ("pickle the rows", lambda: [pickle.dumps(("turns", rows[i:i + CHUNK_TURNS]), protocol=5) and None
                                     for i in range(0, len(rows), CHUNK_TURNS)] and None),
        ("unpickle the rows", each(lambda b: pickle.loads(b) and None, chunks)),
    ]
    load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
    print(f"{len(files)} files, {len(lines)} lines ({sum(map(len, lines)) / 1e6:.1f} MB), {len(cts)} turns, "
          f"{sum(map(len, frames)) / 1e6:.1f} MB of frames, {sum(map(len, chunks)) / 1e6:.1f} MB pickled; load {load}")
    for name, fn in stages:
        print(f"{name:42} {best(a.runs, fn):6.3f} s", flush=True)


if __name__ == "__main__":
    main()
