#!/usr/bin/env python3
"""Where a bulk import's CPU goes, by component, without a profiler's distortion:
``python bench/import_split.py TREE [--corpus DIR] [--runs N]``.

Two parts, both in this process with the sources of ``TREE`` (a checkout or ``git archive``;
run it with ``PYTHONDONTWRITEBYTECODE`` unset):

* **the import** (``python -m cmds import claude-code CORPUS`` as ``cmds.entry`` runs it, the
  parse children as usual) into a new store under a temporary ``MEM_HOME``: the CPU of each
  Python thread by name (``main``; ``mem-index``: tantivy documents built and handed over;
  ``pack-deflate``; ``mem-parse-reader``: the children's rows unpickled), the CPU inside
  ``to_tantivy_doc`` and in its ``plain_differing_words``, the rest of the process (tantivy's
  native threads) and the children (``RUSAGE_CHILDREN``);
* **the children's work** (``parseworker.parse_rows`` over every file, as the child runs it,
  one process): the best of ``--runs`` of each stage, cumulative: parse (with the cut tool
  outputs' ``redact_cut``), + the turn texts' redaction, + the forecast (fields, frame,
  BLAKE3), + pickling the rows; then the turn texts' redaction split: each rule's scan
  (timed by wrapping the prefilter plan's entries; its own cost is in the figure) and the
  rest (lowercasing, the gate matcher, ``_readings``: ``ascii_reading`` and the JSON reading).

The figures add up only roughly (each part measured on its own; the import's threads overlap).
Compare trees in turn in one sitting (docs/benchmarks.md, "Session 32 (branch `imp32`)").
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import pickle
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path


def _wrap(mod, attr: str, add) -> object:
    """Replace ``mod.attr`` by a wrapper that calls ``add(seconds)`` with the calling thread's CPU
    of each call (a call that raises is not counted); returns the original."""
    f = getattr(mod, attr)

    def g(*a, **k):
        t = time.thread_time()
        r = f(*a, **k)
        add(time.thread_time() - t)
        return r
    setattr(mod, attr, g)
    return f


def _import_part(corpus: str) -> dict[str, float]:
    """The import's CPU by thread name and the index conversion's (seconds)."""
    import objstore.index.genwriter as gw
    import objstore.index.schema as sch
    cpu: collections.Counter = collections.Counter()
    lock = threading.Lock()
    run0 = threading.Thread.run

    def run(self):
        try:
            run0(self)
        finally:
            with lock:
                cpu[self.name.rstrip("_0123456789")] += time.thread_time()

    def adder(key):
        def add(v):
            with lock:
                cpu[key] += v
        return add
    threading.Thread.run = run
    _wrap(gw, "to_tantivy_doc", adder("  to_tantivy_doc"))
    _wrap(sch, "plain_differing_words", adder("    plain_differing_words"))
    home = tempfile.mkdtemp(prefix="import-split-")
    os.environ.update(MEM_HOME=home, MEM_AGENT="0")
    sys.argv = ["mem", "import", "claude-code", corpus, "--json"]
    from cmds.entry import entry
    c0, r0 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            with contextlib.suppress(SystemExit):
                entry()
        cpu["main"] = time.thread_time()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        process = time.process_time() - c0
        named = sum(v for k, v in cpu.items() if not k.startswith(" "))
        cpu["tantivy (native threads: the rest of the process)"] = process - named
        cpu["children"] = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
        cpu["whole (process + children)"] = process + cpu["children"]
    finally:
        threading.Thread.run = run0
        shutil.rmtree(home, ignore_errors=True)
    return cpu


def _children_part(corpus: str, runs: int) -> list[tuple[str, float]]:
    """The children's stages and the turn texts' redaction by rule (best of ``runs``)."""
    from objstore.capture import claude_code
    from objstore.capture.parseworker import parse_rows, project_guesser
    from objstore.capture.transcript import enable_fast_json
    from objstore.core.redact import RULES, engine, prefilter, redact
    from objstore.memory.sessions import TurnForecast, cap_turn_text
    enable_fast_json()
    paths = sorted(Path(corpus).rglob("*.jsonl"))

    def stage(k: str) -> float:
        st, fc, guess = claude_code.ParseStats(), TurnForecast("claude-code"), project_guesser({})
        t = time.process_time()
        if k == "pickle":
            sink = io.BytesIO()
            for p in paths:
                for msg in parse_rows("objstore.capture.claude_code", p, fc, guess):
                    pickle.dump(msg, sink, protocol=5)
                    sink.seek(0)
                    sink.truncate()
            return time.process_time() - t
        for p in paths:
            for ct in claude_code.parse_file(p, st):
                if k == "parse":
                    continue
                text = cap_turn_text(ct.text)
                red = redact(text) if text else None
                if k == "redact":
                    continue
                fc.next(ct, red.text if red is not None else text, guess(ct.cwd, ct.project))
        return time.process_time() - t
    best: dict[str, float] = {}
    for _ in range(runs):
        for k in ("parse", "redact", "forecast", "pickle"):
            best[k] = min(best.get(k, 1e9), stage(k))
    import objstore.core.redact as red
    spent = [0.0]
    cut0 = _wrap(red, "redact_cut", lambda v: spent.__setitem__(0, spent[0] + v))  # cut_text imports it per cut
    try:
        stage("parse")
    finally:
        red.redact_cut = cut0
    out = [("parse (JSON, turn building, the cut outputs' redact_cut)", best["parse"]),
           ("  of it redact_cut (one run)", spent[0]),
           ("turn texts' redaction", best["redact"] - best["parse"]),
           ("forecast (fields, CBOR frame, BLAKE3)", best["forecast"] - best["redact"]),
           ("pickling the rows", best["pickle"] - best["forecast"])]
    texts = [cap_turn_text(ct.text) for p in paths for ct in claude_code.parse_file(p, claude_code.ParseStats())]
    texts = [t for t in texts if t]
    for t in texts:
        redact(t)   # every rule compiled
    acc: collections.Counter = collections.Counter()
    plan = prefilter.plan(RULES)
    entries = plan.entries

    def wrapped(rule, scan, name):
        if scan is None:   # the engine's inline finditer loop, as a scan
            def scan(rule, text, ws, we, out, low, off, at, _s=engine._scan_window):
                sub: list = []
                pat, o = (rule.lowered, off) if rule.lowered is not None else (rule.pattern, 0)
                hay = low if rule.lowered is not None else text
                grouped = "secret" in rule.groupindex
                for m in pat.finditer(hay, ws - o, we - o):
                    s, e = m.span("secret") if grouped else m.span()
                    if s < 0 or s == e:
                        continue
                    if rule.check is None or rule.check(text[s + o:e + o]):
                        sub.append((s + o, e + o, rule.priority, name))
                out.extend(sub)

        def timed(*a, _f=scan):
            t = time.thread_time()
            _f(*a)
            acc[a[0].name] += time.thread_time() - t
        return timed
    try:
        plan.entries = [(r, wrapped(r, s, n), c, p, n) for (r, s, c, p, n) in entries]
        plan.slow_runs.clear()
        plan.fast_runs.clear()
        whole = 1e9
        for _ in range(runs):
            acc.clear()
            t = time.thread_time()
            for x in texts:
                redact(x)
            whole = min(whole, time.thread_time() - t)
            scans = dict(acc)
    finally:
        plan.entries = entries
        plan.slow_runs.clear()
        plan.fast_runs.clear()
    out.append(("turn texts' redaction, timed by rule (wrapped)", whole))
    for name, v in sorted(scans.items(), key=lambda kv: -kv[1])[:6]:
        out.append((f"  rule {name}", v))
    out.append(("  every other rule", sum(scans.values()) - sum(sorted(scans.values())[-6:])))
    out.append(("  the rest: lowercase, gate matcher, merge, readings", whole - sum(scans.values())))
    t = time.thread_time()
    for x in texts:
        engine._readings(x)
    out.append(("    of it _readings (ascii_reading, JSON reading)", time.thread_time() - t))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=3, help="best of this many for the children's stages (default 3)")
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.tree))
    print(f"tree {a.tree}  corpus {a.corpus}  load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("the import, CPU seconds:")
    cpu = _import_part(a.corpus)
    for k in ("main", "mem-index", "  to_tantivy_doc", "    plain_differing_words", "pack-deflate",
              "mem-parse-reader", "tantivy (native threads: the rest of the process)", "children",
              "whole (process + children)"):
        print(f"  {k:<52} {cpu.pop(k, 0.0):7.3f}")
    for k, v in cpu.items():   # a thread of another name
        print(f"  {k:<52} {v:7.3f}")
    print(f"the children's work in one process (best of {a.runs}), CPU seconds:")
    for k, v in _children_part(a.corpus, max(1, a.runs)):
        print(f"  {k:<52} {v:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
