#!/usr/bin/env python3
"""Where an in-process ``mem import`` spends its CPU, across every Python
thread and the parse children, and where its main thread waits:
``python bench/import_profile.py TREE STORE [--corpus DIR] [--workers N] [--out DIR] [--top N]``.

Imports ``--corpus`` (default ``/tmp/bench-corpus``, ``bench/gen_corpus.py``)
into a new store at ``STORE`` (removed first) with the sources of ``TREE``
(a checkout or ``git archive`` of a commit) and:

* profiles each Python thread of the importing process with its own
  ``cProfile.Profile(time.thread_time)`` (CPU of that thread, not wall), the
  main thread included, and each parse child with
  ``cProfile.Profile(time.process_time)`` (the child's code is wrapped, its
  stats written to ``--out``); tantivy's and zlib's native work shows only as
  the Python call that waits for it or not at all (``import_threads.py``
  gives their CPU by thread);
* samples the main thread's Python stack every 3 ms of wall time
  (``sys._current_frames``) and reports the share of samples in each
  function on the stack, so waits (a queue's ``get``: the parse children;
  ``Future.result``: the pack's deflate thread; ``IndexStream.wait``: the
  index) show beside work.

cProfile charges every Python call ~0.5-1 µs, so functions called once per
turn (37,493 times on the corpus) are overstated against C calls: compare
shares within one profile, and take stage costs from ``parse_stages.py``.
Prints each profile's total and its top ``--top`` functions by own time, and
writes ``main.prof``, ``t-<thread>.prof`` and ``child<i>.prof`` to ``--out``
(default ``/tmp/import-profile``) for ``pstats``.  Linux only; measures the
code, changes nothing in it.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import os
import pstats
import shutil
import sys
import threading
import time
import traceback


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree"), ap.add_argument("store")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--workers", type=int, default=None, help="parse children (default: the import's own choice)")
    ap.add_argument("--out", default="/tmp/import-profile")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    # bytecode as an installed package has it (imp21): with PYTHONDONTWRITEBYTECODE set (as in this
    # machine's environment) every import compiled its modules again, ~0.4 s of the import's CPU in
    # this process and its two parse children that no user pays; PYTHONPYCACHEPREFIX is honoured
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    tree = os.path.abspath(a.tree)
    sys.path.insert(0, tree)
    os.makedirs(a.out, exist_ok=True)
    for f in os.listdir(a.out):
        if f.endswith(".prof"):
            os.unlink(os.path.join(a.out, f))

    profs: dict[str, list[cProfile.Profile]] = collections.defaultdict(list)
    run = threading.Thread.run

    def profiled_run(self: threading.Thread) -> None:
        p = cProfile.Profile(time.thread_time)
        profs[self.name.rstrip("0123456789_")].append(p)
        p.enable()
        try:
            run(self)
        finally:
            p.disable()

    import objstore.capture.parseworker as pw
    popen, children = pw.subprocess.Popen, [0]

    def profiled_popen(args, **kw):
        if len(args) == 3 and args[1] == "-c" and "parseworker" in args[2]:
            out = os.path.join(a.out, f"child{children[0]}.prof")
            children[0] += 1
            args = [args[0], "-c", "import cProfile, sys, time\n"
                    "p = cProfile.Profile(time.process_time)\np.enable()\ntry:\n"
                    f"    exec({args[2]!r})\nfinally:\n    p.disable()\n    p.dump_stats({out!r})\n"]
        return popen(args, **kw)

    pw.subprocess.Popen = profiled_popen
    from objstore.capture.importer import import_transcripts
    from objstore.memory.opening import open_store
    shutil.rmtree(a.store, ignore_errors=True)
    store = open_store(a.store, create=True)

    stacks: collections.Counter = collections.Counter()
    stop = threading.Event()
    main_id = threading.get_ident()

    def sample() -> None:
        while not stop.wait(0.003):
            f = sys._current_frames().get(main_id)
            if f is not None:
                stacks[tuple(f"{os.path.basename(x.filename)}:{x.name}" for x in traceback.extract_stack(f))] += 1

    threading.Thread.run = run          # the sampler itself is not profiled
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threading.Thread.run = profiled_run
    mp = cProfile.Profile(time.thread_time)
    t0, c0 = time.perf_counter(), time.process_time()
    mp.enable()
    import_transcripts(store, "claude-code", [a.corpus], workers=a.workers)
    mp.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    stop.set()
    sampler.join()
    threading.Thread.run = run
    store.close()
    pw.subprocess.Popen = popen

    print(f"wall {wall:.2f} s, process CPU {cpu:.2f} s (profiled), load {os.getloadavg()[0]:.1f}")
    outs = [("main", mp)] + [(f"t-{n}", ps) for n, ps in profs.items()]
    for name, p in outs:
        ps = p if isinstance(p, list) else [p]
        st = pstats.Stats(ps[0])
        for q in ps[1:]:
            st.add(q)
        st.dump_stats(os.path.join(a.out, f"{name}.prof"))
    for name in sorted(f[:-5] for f in os.listdir(a.out) if f.endswith(".prof")):
        st = pstats.Stats(os.path.join(a.out, f"{name}.prof"))
        if st.total_tt < 0.05:
            continue
        print(f"\n== {name}: {st.total_tt:.2f} s profiled CPU")
        rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:a.top]
        for (fn, line, func), (_cc, nc, tt, ct, _callers) in rows:
            print(f"  {tt / st.total_tt * 100:5.1f}% own {tt:6.3f} s  cum {ct:6.3f} s  {nc:8d}  "
                  f"{os.path.basename(fn)}:{line}({func})")
    total = sum(stacks.values()) or 1
    on_stack: collections.Counter = collections.Counter()
    for st, n in stacks.items():
        for fr in set(st):
            on_stack[fr] += n
    print(f"\n== the main thread's wall time by function on its stack ({total} samples of 3 ms)")
    for fr, n in on_stack.most_common(a.top * 2):
        print(f"  {n / total * 100:5.1f}%  {fr}")


if __name__ == "__main__":
    main()
