"""An incremental ``mem pull`` timed in two source trees, interleaved: a
writer store pushes ``--keys`` new keys per round to a folder remote, then
one clone per tree (made by the first tree) runs ``mem pull`` (a new
process, ``PYTHONPATH`` the tree; the order alternates by round).  Prints
each round's walls and the medians; checks both clones end with the same
keys.  Scratch in a temporary folder, removed at the end.

    python bench/pull_ab.py --base /tmp/pull30-base --branch /work/pull30 --rounds 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def mem(tree: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEM_AGENT": "0", "MEM_HOME": str(home), "PYTHONPATH": str(tree)}
    p = subprocess.run([sys.executable, "-m", "cmds", *args], cwd=tree, env=env, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"mem {' '.join(args)} in {tree}: exit {p.returncode}\n{p.stderr}")
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, type=Path)
    ap.add_argument("--branch", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--keys", type=int, default=3)
    a = ap.parse_args()
    trees = {"base": a.base.resolve(), "branch": a.branch.resolve()}
    walls: dict[str, list[float]] = {"base": [], "branch": []}
    with tempfile.TemporaryDirectory(prefix="pull-ab-") as d:
        d = Path(d)
        (d / "r").mkdir()
        w = trees["base"]
        mem(w, d / "w", "remember", "project/a/seed", "seed value")
        mem(w, d / "w", "remote", "add", "origin", str(d / "r"), "--no-encrypt")
        mem(w, d / "w", "push")
        for name in trees:
            mem(w, d / name, "clone", str(d / "r"))
        for i in range(1, a.rounds + 1):
            for j in range(a.keys):
                mem(w, d / "w", "remember", f"project/a/k{i}-{j}", f"value {i} {j}")
            mem(w, d / "w", "push")
            for name in (("base", "branch") if i % 2 else ("branch", "base")):
                t0 = time.perf_counter()
                mem(trees[name], d / name, "pull")
                walls[name].append(time.perf_counter() - t0)
            print(f"round {i}: base {walls['base'][-1]:.2f} s, branch {walls['branch'][-1]:.2f} s", flush=True)
        keys = {name: mem(w, d / name, "keys").stdout for name in trees}
        assert keys["base"] == keys["branch"], "the clones differ"
    print(f"median: base {statistics.median(walls['base']):.3f} s, branch {statistics.median(walls['branch']):.3f} s "
          f"({a.rounds} rounds, {a.keys} new keys each)")


if __name__ == "__main__":
    main()
