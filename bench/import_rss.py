#!/usr/bin/env python3
"""Peak RSS of each process of one ``mem import claude-code CORPUS`` into a
new store: ``VmHWM`` of the command and of every descendant (the parse
children), polled every 50 ms, largest first (issue 12; docs/benchmarks.md,
"Session 17 (branch `lat17`)").  ``/usr/bin/time -f %M`` gives only the
largest; this says which process it is.  ``TREE`` is a source tree (``git
archive`` of a revision), run with ``PYTHONPATH=TREE``.

Usage::

    python bench/import_rss.py /tmp/tree-9b72861 /tmp/new-store [--corpus /tmp/bench-corpus]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree")
    ap.add_argument("store")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    args = ap.parse_args(argv)
    if os.path.exists(args.store):
        raise SystemExit(f"import_rss: {args.store} exists: give a new store")
    env = {**os.environ, "PYTHONPATH": os.path.abspath(args.tree), "MEM_HOME": os.path.abspath(args.store)}
    p = subprocess.Popen([sys.executable, "-m", "cmds", "import", "claude-code", args.corpus, "--json"], env=env,
                         cwd="/tmp", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak: dict[int, int] = {}
    while p.poll() is None:
        todo = [p.pid]
        while todo:
            q = todo.pop()
            try:
                with open(f"/proc/{q}/status") as f:
                    for line in f:
                        if line.startswith("VmHWM"):
                            peak[q] = max(peak.get(q, 0), int(line.split()[1]))
            except OSError:
                pass
            todo += _children(q)
        time.sleep(0.05)
    for q, kb in sorted(peak.items(), key=lambda x: -x[1]):
        print(f"{kb / 1024:.0f} MB {'the import' if q == p.pid else 'a child'} (pid {q})")
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
