#!/usr/bin/env python3
"""Where a running process's resident memory is, by kind of mapping, every
``PERIOD`` seconds until it exits: ``python bench/import_smaps.py PID OUT [PERIOD]``
(appends one line a sample to ``OUT``; at most 400 samples).  Each line has
``VmRSS``, ``VmHWM``, ``RssAnon`` (kB), the thread count, and the resident MB
of: ``heap`` (the main arena, ``[heap]``), ``arena64`` (anonymous mappings
aligned to 64 MB: glibc's thread arenas, where tantivy's writer threads
allocate), ``mb1`` (anonymous 1 MB mappings: Python's obmalloc arenas and
blocks mapped on their own), ``bigmap`` (other anonymous mappings of 8 MB or
more), ``small`` (the other anonymous ones), ``file`` (file-backed).  For a
``mem import`` (issue 12; docs/benchmarks.md, "Session 24 (branch `rss24`)").
Linux only."""

from __future__ import annotations

import os
import re
import sys
import time


def sample(pid: int) -> str:
    """One line: the process's status figures and resident MB by kind."""
    with open(f"/proc/{pid}/status") as f:
        st = f.read()
    with open(f"/proc/{pid}/smaps") as f:
        sm = f.read()
    cats: dict[str, int] = {}
    cur = None
    for line in sm.splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split(None, 5)
            a, b = (int(x, 16) for x in parts[0].split("-"))
            name = parts[5].strip() if len(parts) > 5 else ""
            size = (b - a) >> 10
            if name == "[heap]":
                cur = "heap"
            elif name.startswith("/"):
                cur = "file"
            elif name:
                cur = "other"
            elif a % (64 << 20) == 0 and size <= 65536:
                cur = "arena64"
            elif 1024 <= size <= 1036:
                cur = "mb1"
            elif size >= 8192:
                cur = "bigmap"
            else:
                cur = "small"
        elif line.startswith("Rss:") and cur:
            cats[cur] = cats.get(cur, 0) + int(line.split()[1])

    def field(k: str) -> str:
        m = re.search(k + r":\s+(\d+)", st)
        return m.group(1) if m else "?"

    return (f"rss={field('VmRSS')} hwm={field('VmHWM')} anon={field('RssAnon')} "
            f"thr={len(os.listdir(f'/proc/{pid}/task'))} "
            + " ".join(f"{k}={v // 1024}" for k, v in sorted(cats.items())))


def main() -> None:
    pid, out = int(sys.argv[1]), sys.argv[2]
    period = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
    t0 = time.time()
    with open(out, "a") as f:
        for _ in range(400):
            try:
                line = sample(pid)
            except OSError:
                break
            f.write(f"{time.strftime('%H:%M:%S')} t={time.time() - t0:.0f} {line}\n")
            f.flush()
            time.sleep(period)


if __name__ == "__main__":
    main()
