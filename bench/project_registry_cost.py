"""Microseconds per SessionStart-path project lookup (``register_project``
then ``project_aliases`` of an already registered remote repository, as the
hook does), in process, for each tree given, interleaved round by round
(docs/benchmarks.md, "Session 30 (branch `id30`)").  Each round runs each
tree in a new process on a fresh store of ``--repos`` registered remote
repositories (real ``git init`` folders, a temp directory deleted after).
``--kind path``: repositories without a remote (path identities, whose
birth the registry records since session 31: "Session 31 (branch `reg31`)");
``--clock cpu``: the process's CPU time instead of wall time.

    python bench/project_registry_cost.py --tree base=/tmp/id30-base --tree id30=. --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import subprocess, sys, tempfile, time
from pathlib import Path
from objstore.memory.opening import open_store
from objstore.memory.scope import project_aliases, register_project
repos, calls, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
with tempfile.TemporaryDirectory() as d:
    d = Path(d)
    paths = []
    for i in range(repos):
        p = d / f"r{i}" / "api"
        p.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(p)], check=True, timeout=60)
        if kind == "remote":
            subprocess.run(["git", "-C", str(p), "remote", "add", "origin", f"git@github.com:o{i}/api.git"],
                           check=True, timeout=60)
        paths.append(p)
    s = open_store(d / "store", create=True)
    for p in paths:
        register_project(s, p)
    r = paths[len(paths) // 2]
    register_project(s, r)
    project_aliases(r, store_root=s.root)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        register_project(s, r)
        project_aliases(r, store_root=s.root)
    print((time.perf_counter() - t0) / calls * 1e6, (time.process_time() - c0) / calls * 1e6)
    s.close()
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a checkout (PYTHONPATH)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repos", type=int, default=8)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--kind", choices=("remote", "path"), default="remote",
                    help="registered repositories with a remote (default) or without one")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time (default) or the process's CPU time (steadier on a loaded machine)")
    a = ap.parse_args()
    trees = [t.split("=", 1) for t in a.tree]
    got: dict[str, list[float]] = {n: [] for n, _ in trees}
    for _ in range(max(1, min(a.rounds, 50))):
        for name, path in trees:
            out = subprocess.run([sys.executable, "-c", CHILD, str(a.repos), str(a.calls), a.kind], cwd=path,
                                 env={"PYTHONPATH": path, "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir()},
                                 capture_output=True, text=True, timeout=300, check=True)
            wall, cpu = out.stdout.split()
            got[name].append(float(cpu if a.clock == "cpu" else wall))
    for name, vals in got.items():
        print(f"{name}: median {statistics.median(vals):.1f} us {a.clock} per lookup "
              f"({', '.join(f'{v:.1f}' for v in vals)})")


if __name__ == "__main__":
    main()
