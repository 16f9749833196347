#!/usr/bin/env python3
"""A per-thread CPU timeline of one ``mem import`` process and its parse children, sampled from
outside: ``python bench/import_timeline.py TREE STORE [--corpus DIR] [--bucket S] [--table]``.

Runs ``python -m cmds import claude-code CORPUS --json`` (default corpus ``/tmp/bench-corpus``,
``bench/gen_corpus.py``) with the sources of ``TREE`` (a checkout or ``git archive`` of a commit)
into a new store at ``STORE`` (removed first), ``PYTHONDONTWRITEBYTECODE`` unset and
``MEM_AGENT=0``, and every ``--tick`` seconds (default 0.02) reads ``/proc/PID/task/*/stat`` of
the import and of each child it started (``/proc/PID/task/*/children``), and their resident size (``/proc/PID/statm``).
Threads are grouped: the import's main thread (``main``), its other Python threads (``py``:
``mem-index``, ``pack-deflate``, ``mem-parse-reader``; from outside they are all named
``python``), tantivy's native threads (``tantivy``: ``thrd-tantivy-index*``, merge and segment
threads), the parse children (``children``, all threads).  Prints, without the import's own
output:

* wall, the process tree's CPU (user+sys from ``wait4``: the import and every child it waited
  for), the CPU seen by group, and the cores used on average (CPU / wall);
* the three phases, each sample's CPU counted in the phase it was read in: the **head** (from
  the start to the first sample that sees a parse child), **parallel** (while a parse child is
  alive) and the **tail** (after the last sample that saw one, to the import's exit): each one's
  wall, its CPU by group and its cores used (a tail at ~1 core on an idle machine is work on one
  core that the other core does not share);
* the peak RSS of the import alone, of the children summed and of their sum (sampled: a peak
  shorter than a tick can be missed; ``/usr/bin/time``'s is the import's own);
* the CPU of each parse child, and the 2-core model of the wall from the phases' CPU (measurable
  under load): head + parallel / 2 + tail, against all the CPU spread on both cores (CPU / 2):
  the most that spreading the work better could take off an idle machine's wall;
* with ``--table``, the CPU of each group in each ``--bucket`` seconds (default 0.5).

Compare trees in turn in one sitting; on a shared machine the walls measure the load, the
CPU by group and the tail's cores used less so (docs/benchmarks.md, "Session 31 (branch
`imp31`)").  Linux only.  Bounded by ``--max-seconds`` (default 3600): the import is killed
after it.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from import_rss import _children  # noqa: E402  (the import's children, as import_rss samples them)

HZ = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
GROUPS = ("main", "py", "tantivy", "children")


def _threads(pid: int):
    """((tid, start tick), name, CPU seconds) of each thread of ``pid`` (none when it is gone): a
    thread id the kernel gives again to a later thread is told apart by its start time."""
    for stat in glob.glob(f"/proc/{pid}/task/*/stat"):
        try:
            raw = Path(stat).read_text()
        except OSError:
            continue
        head, _, rest = raw.rpartition(")")
        fields = rest.split()
        yield (int(stat.split("/")[4]), fields[19]), head.partition("(")[2], (int(fields[11]) + int(fields[12])) / HZ


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


def _group(pid: int, main_pid: int, tid: int, name: str) -> str:
    if pid != main_pid:
        return "children"
    if tid == main_pid:
        return "main"
    return "py" if name.startswith("python") or name.startswith("py-") else "tantivy"


def run(tree: str, store: str, corpus: str, tick: float, bucket: float, max_s: float) -> dict:
    """Import ``corpus`` with ``tree`` into a new ``store``, sampled (the module's doc); returns the
    figures (``cpu``: group -> seconds; ``buckets``: index -> group -> seconds; the phases' bounds
    in seconds from the start, ``phases``: head / parallel / tail -> group -> seconds, each sample's
    CPU counted in the phase it was read in; ``rss_*`` and ``maxrss`` in kB)."""
    shutil.rmtree(store, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), MEM_HOME=store, MEM_AGENT="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "cmds", "import", "claude-code", corpus, "--json"],
                         cwd="/", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last: dict[tuple[int, int], float] = {}
    buckets: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    phases: dict[str, collections.Counter] = {k: collections.Counter() for k in ("head", "parallel", "tail")}
    per_child: collections.Counter = collections.Counter()   # child pid -> CPU seconds
    first_child = last_child = None
    rss_main = rss_kids = rss_sum = 0
    rusage = None
    while True:
        now = time.monotonic() - t0
        pid_done, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid_done == p.pid:
            rusage, p.returncode = ru, os.waitstatus_to_exitcode(status)
            break
        if now > max_s:
            p.send_signal(signal.SIGKILL)
            p.wait()
            raise SystemExit(f"the import ran past --max-seconds {max_s:g}: killed")
        kids = _children(p.pid)
        b = int(now / bucket)
        phase = "parallel" if kids else ("head" if last_child is None else "tail")
        for pid in [p.pid, *kids]:
            for (tid, start), name, cpu in _threads(pid):
                key = (pid, tid, start)
                d = cpu - last.get(key, 0.0)
                last[key] = cpu
                if d:
                    g = _group(pid, p.pid, tid, name)
                    buckets[b][g] += d
                    phases[phase][g] += d
                    if pid != p.pid:
                        per_child[pid] += d
        if kids:
            first_child = now if first_child is None else first_child
            last_child = now
        rm, rk = _rss_kb(p.pid), sum(_rss_kb(k) for k in kids)
        rss_main, rss_kids, rss_sum = max(rss_main, rm), max(rss_kids, rk), max(rss_sum, rm + rk)
        time.sleep(tick)
    wall = time.monotonic() - t0
    cpu = collections.Counter()
    for c in buckets.values():
        cpu.update(c)
    return {"wall": wall, "rc": p.returncode, "tree_cpu": rusage.ru_utime + rusage.ru_stime,
            "maxrss": rusage.ru_maxrss, "cpu": cpu,
            "buckets": buckets, "phases": phases, "bucket": bucket, "head_end": first_child or 0.0,
            "tail_start": last_child if last_child is not None else wall,
            "rss_main": rss_main, "rss_kids": rss_kids, "rss_sum": rss_sum,
            "per_child": [per_child[k] for k in sorted(per_child)]}


def report(r: dict, table: bool) -> None:
    """Print the figures of :func:`run`."""
    cpu = r["cpu"]
    seen = sum(cpu.values())
    print(f"wall {r['wall']:.2f} s  exit {r['rc']}  CPU (wait4) {r['tree_cpu']:.2f} s  seen {seen:.2f} s "
          f"({' '.join(f'{g} {cpu[g]:.2f}' for g in GROUPS)})  cores used {r['tree_cpu'] / r['wall']:.2f}")
    bounds = (("head", 0.0, r["head_end"]), ("parallel", r["head_end"], r["tail_start"]),
              ("tail", r["tail_start"], r["wall"]))
    for name, lo, hi in bounds:
        c = r["phases"][name]
        tot = sum(c.values())
        print(f"  {name:8} {lo:7.2f} -> {hi:7.2f} s  wall {hi - lo:6.2f} s  CPU {tot:6.2f} s "
              f"({' '.join(f'{g} {c[g]:.2f}' for g in GROUPS)})  cores {tot / max(hi - lo, 1e-9):.2f}")
    ph = {k: sum(v.values()) for k, v in r["phases"].items()}
    gil = sum(r["cpu"][g] for g in ("main", "py"))
    print(f"  children by process: {' '.join(f'{c:.2f}' for c in r['per_child'])} s;  the import's Python threads "
          f"(one GIL, less what zlib runs without it): {gil:.2f} s")
    print(f"  2-core model (load-free): head + parallel / 2 + tail = {ph['head']:.2f} + {ph['parallel'] / 2:.2f} + "
          f"{ph['tail']:.2f} = {ph['head'] + ph['parallel'] / 2 + ph['tail']:.2f} s; all of it spread on both "
          f"cores: {seen / 2:.2f} s")
    print(f"  peak RSS (sampled): import {r['rss_main']:,} kB  children {r['rss_kids']:,} kB  "
          f"sum {r['rss_sum']:,} kB; wait4's peak (the largest one process) {r['maxrss']:,} kB")
    if table:
        print("     t " + "".join(f"{g:>10}" for g in GROUPS) + "     total")
        for b in range(int(r["wall"] / r["bucket"]) + 1):
            c = r["buckets"].get(b, collections.Counter())
            print(f"{b * r['bucket']:6.1f} " + "".join(f"{c[g]:10.2f}" for g in GROUPS)
                  + f"{sum(c.values()):10.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree"), ap.add_argument("store")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--tick", type=float, default=0.02)
    ap.add_argument("--bucket", type=float, default=0.5)
    ap.add_argument("--max-seconds", type=float, default=3600.0)
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"tree {a.tree}  corpus {a.corpus}  load {' '.join(f.read().split()[:3])}")
    report(run(a.tree, a.store, a.corpus, a.tick, a.bucket, a.max_seconds), a.table)


if __name__ == "__main__":
    main()
