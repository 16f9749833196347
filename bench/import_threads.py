#!/usr/bin/env python3
"""CPU of an in-process ``mem import`` by thread group, and what it leaves in
the turns index: ``python bench/import_threads.py TREE STORE [--corpus DIR] [--workers N]``.

Imports ``--corpus`` (default ``/tmp/bench-corpus``, ``bench/gen_corpus.py``)
into a new store at ``STORE`` (removed first) with the sources of ``TREE``
(a checkout or ``git archive`` of a commit: compare two in one sitting).
Prints wall time, the process's CPU, the main thread's, the parse worker's
(``RUSAGE_CHILDREN``), each other thread group's (by thread name, sampled
from ``/proc/self/task`` every 20 ms: tantivy's indexing threads are
``thrd-tantivy-index*``; Python threads are given their ``threading`` name
as their native name, ``py-<name>``, e.g. ``py-mem-index``, ``py-pack-deflate``,
``py-mem-parse-re``; a thread that lives less than a sample is left in
"unattributed"), peak RSS, the peak of this process's and its children's
RSS summed (sampled with the threads), the turns index's bytes, shards and segments,
and the wall time the main thread spent blocked in ``IndexStream.wait``
(what the import's publishes waited for the index; the last one is the
tail after the last publish).  Linux only.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def _threads() -> dict[str, tuple[str, float]]:
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2:].split()
        out[tid] = (raw[raw.index("(") + 1:raw.rindex(")")], (int(fields[11]) + int(fields[12])) / TICK)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree"), ap.add_argument("store")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    # bytecode as an installed package has it (imp21): with PYTHONDONTWRITEBYTECODE set (as in this
    # machine's environment) every import compiled its modules again, ~0.4 s of the import's CPU in
    # this process and its two parse children that no user pays; PYTHONPYCACHEPREFIX is honoured
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.path.insert(0, os.path.abspath(a.tree))
    _name_threads()
    waits = _time_index_waits()
    from objstore.capture.importer import import_transcripts
    from objstore.memory.opening import open_store
    shutil.rmtree(a.store, ignore_errors=True)
    store = open_store(a.store, create=True)
    base, seen, stop, me = _threads(), {}, threading.Event(), []

    tree_peak = [0, 0]   # KB: the process's and its children's VmRSS summed, the children's alone

    def sample() -> None:
        me.append(str(threading.get_native_id()))
        while not stop.is_set():
            seen.update(_threads())
            kids = sum(_rss_kb(pid) for pid in _children())
            tree_peak[0] = max(tree_peak[0], _rss_kb("self") + kids)
            tree_peak[1] = max(tree_peak[1], kids)
            stop.wait(0.02)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
    res = import_transcripts(store, "claude-code", [a.corpus], workers=a.workers)
    wall, main_cpu, proc = time.perf_counter() - t0, time.thread_time() - c0, time.process_time() - p0
    stop.set()
    th.join()
    seen.update(_threads())
    store.close()
    groups: collections.Counter = collections.Counter()
    for tid, (comm, cpu) in seen.items():
        if tid in me or tid == str(os.getpid()):
            continue
        groups[comm.rstrip("0123456789_-")] += cpu - base.get(tid, ("", 0.0))[1]
    rest = proc - main_cpu - sum(groups.values()) - seen.get(me[0], ("", 0.0))[1]
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    turns = os.path.join(a.store, "index", "turns")
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(turns) for f in fs)
    segments = sum(1 for _d, _, fs in os.walk(turns) for f in fs if f.endswith(".idx"))
    shards = sum(1 for _d, _, fs in os.walk(turns) if "meta.json" in fs)
    print(f"wall {wall:.2f} s, process CPU {proc:.2f} s: main thread {main_cpu:.2f} s; parse worker "
          f"{ch.ru_utime + ch.ru_stime:.2f} s; turns {res.turns_added}; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print(f"peak tree RSS (this process + its children, sampled): {tree_peak[0] / 1024:.0f} MB, "
          f"the children's {tree_peak[1] / 1024:.0f} MB")
    print("other threads: " + ", ".join(f"{g} {c:.2f} s" for g, c in groups.most_common() if c >= 0.01)
          + f"; unattributed {rest:.2f} s")
    print(f"turns index: {size / 1e6:.1f} MB, {shards} shards, {segments} segments")
    print("main thread blocked on the index (wall s): "
          + ", ".join(f"{w:.2f}" for w in waits if w >= 0.005) + f"; total {sum(waits):.2f} s")


def _children() -> list[str]:
    """The pids of this process's children (the parse workers)."""
    out: list[str] = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                out.extend(f.read().split())
        except OSError:
            continue
    return out


def _rss_kb(pid: str) -> int:
    """VmRSS of ``pid`` in KB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _name_threads() -> None:
    """Give every Python thread started from now on its ``threading`` name as
    its native name (``prctl(PR_SET_NAME)``, 15 bytes), so /proc tells them apart."""
    import ctypes
    libc = ctypes.CDLL(None)
    run = threading.Thread.run

    def named_run(self: threading.Thread) -> None:
        libc.prctl(15, ctypes.c_char_p(("py-" + self.name)[:15].encode()), 0, 0, 0)
        run(self)

    threading.Thread.run = named_run


def _time_index_waits() -> list[float]:
    """Wall seconds of each ``IndexStream.wait`` of the main thread (filled as the import runs)."""
    from objstore.index import searchindex
    waits: list[float] = []
    wait = searchindex.IndexStream.wait

    def timed(self) -> None:
        t0 = time.perf_counter()
        try:
            wait(self)
        finally:
            if threading.current_thread() is threading.main_thread():
                waits.append(time.perf_counter() - t0)

    searchindex.IndexStream.wait = timed
    return waits


if __name__ == "__main__":
    main()
